import { endpoint } from "../http/endpoint.js";
import { P } from "../http/params.js";
import { bigBlueButtonCallUrl } from "../actions/video_calls.js";

export const videoCallRoutes = [
  endpoint({
    method: "GET",
    path: "/calls/bigbluebutton/create",
    params: { meeting_name: P.string(), voice_only: P.bool().default(false) },
    handler: async ({ app, caller }, { meeting_name, voice_only }) => ({
      url: bigBlueButtonCallUrl(app, caller, meeting_name, voice_only),
    }),
  }),
];

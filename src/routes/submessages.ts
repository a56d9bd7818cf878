import { endpoint } from "../http/endpoint.js";
import { P } from "../http/params.js";
import { addSubmessage } from "../actions/submessages.js";

export const submessageRoutes = [
  endpoint({
    method: "POST",
    path: "/submessage",
    params: { message_id: P.int(), msg_type: P.string(), content: P.string() },
    handler: async ({ app, caller }, p) => {
      await addSubmessage(app, caller.user, { messageId: p.message_id, msgType: p.msg_type, content: p.content });
    },
  }),
];

import { endpoint } from "../http/endpoint.js";
import { P } from "../http/params.js";
import { accessStreamByName, getStreamFor, listStreamsFor } from "../actions/streams.js";

export const streamRoutes = [
  endpoint({
    method: "GET",
    path: "/streams",
    params: {
      include_public: P.bool().default(true),
      include_web_public: P.bool().default(false),
      include_subscribed: P.bool().default(true),
      exclude_archived: P.bool().default(true),
      include_all: P.bool().default(false),
      include_all_active: P.bool().default(false),
      include_default: P.bool().default(false),
      include_owner_subscribed: P.bool().default(false),
      include_can_access_content: P.bool().default(false),
    },
    handler: async ({ app, caller }, p) => ({
      streams: await listStreamsFor(app, caller.user, {
        includePublic: p.include_public,
        includeWebPublic: p.include_web_public,
        includeSubscribed: p.include_subscribed,
        excludeArchived: p.exclude_archived,
        includeAll: p.include_all || p.include_all_active,
        includeDefault: p.include_default,
        includeOwnerSubscribed: p.include_owner_subscribed,
        includeCanAccessContent: p.include_can_access_content,
      }),
    }),
  }),
  endpoint({
    method: "GET",
    path: "/streams/:stream_id(^\\d+$)",
    params: {},
    handler: async ({ app, caller, path }) => ({ stream: await getStreamFor(app, caller.user, path.stream_id as number) }),
  }),
  endpoint({
    method: "GET",
    path: "/get_stream_id",
    params: { stream: P.string() },
    handler: async ({ app, caller }, p) => ({ stream_id: (await accessStreamByName(app, app.db, caller.user, p.stream)).stream.id }),
  }),
];

import { endpoint } from "../http/endpoint.js";
import { P } from "../http/params.js";
import { sendEditTypingNotification, sendTypingNotification } from "../actions/typing.js";

const op = P.oneOf(["start", "stop"]);

export const typingRoutes = [
  endpoint({
    method: "POST",
    path: "/typing",
    params: {
      op,
      type: P.oneOf(["direct", "stream", "channel"]).default("direct"),
      to: P.intList().optional(),
      stream_id: P.int().optional(),
      topic: P.string().optional(),
    },
    handler: async ({ app, caller }, p) => {
      await sendTypingNotification(app, caller.user, { op: p.op, type: p.type, to: p.to, streamId: p.stream_id, topic: p.topic });
    },
  }),

  endpoint({
    method: "POST",
    path: "/messages/:message_id(^\\d+$)/typing",
    params: { op },
    handler: async ({ app, caller, path }, p) => {
      await sendEditTypingNotification(app, caller.user, path.message_id as number, p.op);
    },
  }),
];

import { endpoint } from "../http/endpoint.js";
import { P } from "../http/params.js";
import { decodeNarrow } from "../domain/narrow.js";
import { markAllAsRead, markChannelAsRead, updateMessageFlags, updateMessageFlagsForNarrow } from "../actions/message_flags.js";
import { messagesMatchingNarrow, readReceipts } from "../actions/message_reads.js";

export const messageFlagRoutes = [
  endpoint({
    method: "POST",
    path: "/messages/flags",
    params: { messages: P.intList(), op: P.string(), flag: P.string() },
    handler: async ({ app, caller }, p) => updateMessageFlags(app, caller.user, caller.realm, p.op, p.flag, p.messages),
  }),
  endpoint({
    method: "POST",
    path: "/messages/flags/narrow",
    params: {
      anchor: P.string(),
      include_anchor: P.bool().default(true),
      num_before: P.int({ min: 0 }),
      num_after: P.int({ min: 0 }),
      narrow: P.json((z) => z.unknown()),
      op: P.string(),
      flag: P.string(),
    },
    handler: async ({ app, caller }, p) =>
      updateMessageFlagsForNarrow(app, caller.user, caller.realm, {
        anchor: p.anchor,
        includeAnchor: p.include_anchor,
        numBefore: p.num_before,
        numAfter: p.num_after,
        narrow: p.narrow === null ? [] : decodeNarrow(p.narrow),
        op: p.op,
        flag: p.flag,
      }),
  }),
  endpoint({
    method: "POST",
    path: "/mark_all_as_read",
    params: {},
    handler: async ({ app, caller }) => markAllAsRead(app, caller.user, caller.realm),
  }),
  endpoint({
    method: "POST",
    path: "/mark_stream_as_read",
    params: { stream_id: P.int() },
    handler: async ({ app, caller }, p) => markChannelAsRead(app, caller.user, caller.realm, p.stream_id, null),
  }),
  endpoint({
    method: "POST",
    path: "/mark_topic_as_read",
    params: { stream_id: P.int(), topic_name: P.string() },
    handler: async ({ app, caller }, p) => markChannelAsRead(app, caller.user, caller.realm, p.stream_id, p.topic_name),
  }),
  endpoint({
    method: "GET",
    path: "/messages/:message_id(^\\d+$)/read_receipts",
    params: {},
    handler: async ({ app, caller, path }) => readReceipts(app, caller.user, caller.realm, path.message_id as number),
  }),
  endpoint({
    method: "GET",
    path: "/messages/matches_narrow",
    params: { msg_ids: P.intList(), narrow: P.json((z) => z.unknown()) },
    handler: async ({ app, caller }, p) => messagesMatchingNarrow(app, caller.user, caller.realm, p.msg_ids, decodeNarrow(p.narrow)),
  }),
];

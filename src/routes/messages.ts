import { endpoint } from "../http/endpoint.js";
import { P } from "../http/params.js";
import { getSingleMessage, sendMessageFromRequest } from "../actions/messages.js";
import { fetchMessages } from "../actions/message_fetch.js";
import { decodeNarrow } from "../domain/narrow.js";
import { readEmptyTopicAliases } from "../domain/topics.js";

export const messageRoutes = [
  endpoint({
    method: "POST",
    path: "/messages",
    allowIncomingWebhooks: true,
    params: {
      type: P.oneOf(["direct", "private", "stream", "channel"]),
      to: P.string().optional(),
      content: P.string(),
      topic: P.string().alias("subject").optional(),
      queue_id: P.string().optional(),
      local_id: P.string().optional(),
      read_by_sender: P.bool().optional(),
    },
    handler: async ({ app, caller }, p) =>
      sendMessageFromRequest(app, caller, {
        type: p.type,
        to: p.to,
        topic: p.topic === undefined ? undefined : readEmptyTopicAliases(p.topic),
        content: p.content,
        readBySender: p.read_by_sender,
        queueId: p.queue_id,
        localId: p.local_id,
      }),
  }),
  endpoint({
    method: "GET",
    path: "/messages",
    params: {
      anchor: P.string().optional(),
      include_anchor: P.bool().default(true),
      num_before: P.int({ min: 0 }).optional(),
      num_after: P.int({ min: 0 }).optional(),
      narrow: P.json((z) => z.unknown()).default([]),
      use_first_unread_anchor: P.bool().default(false),
      client_gravatar: P.bool().default(true),
      apply_markdown: P.bool().default(true),
      allow_empty_topic_name: P.bool().default(false),
      message_ids: P.json((z) => z.array(z.int().min(0))).optional(),
    },
    handler: async ({ app, caller }, p) =>
      fetchMessages(app, caller.user, caller.realm, {
        anchor: p.anchor,
        includeAnchor: p.include_anchor,
        numBefore: p.num_before,
        numAfter: p.num_after,
        useFirstUnreadAnchor: p.use_first_unread_anchor,
        messageIds: p.message_ids,
        narrow: decodeNarrow(p.narrow),
        format: {
          applyMarkdown: p.apply_markdown,
          clientGravatar: p.client_gravatar,
          allowEmptyTopicName: p.allow_empty_topic_name,
        },
      }),
  }),
  endpoint({
    method: "GET",
    path: "/messages/:message_id(^\\d+$)",
    params: {
      apply_markdown: P.bool().default(true),
      allow_empty_topic_name: P.bool().default(false),
    },
    handler: async ({ app, caller, path }, p) =>
      getSingleMessage(app, caller.user, caller.realm, path.message_id as number, {
        applyMarkdown: p.apply_markdown,
        clientGravatar: false,
        allowEmptyTopicName: p.allow_empty_topic_name,
      }),
  }),
];

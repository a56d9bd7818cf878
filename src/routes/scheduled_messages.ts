import type { z } from "zod";
import { endpoint } from "../http/endpoint.js";
import { P, type Zod } from "../http/params.js";
import { readEmptyTopicAliases } from "../domain/topics.js";
import type { ScheduledTo } from "../domain/scheduled_messages.js";
import {
  doDeleteScheduledMessage,
  doEditScheduledMessage,
  doScheduleMessage,
  getScheduledMessages,
} from "../actions/scheduled_messages.js";

// Zulip types `to` as `int | list[int]`; anything else is reported against the union's first
// member, whose name appears in the location.
const channelOrUsers = (z: Zod) =>
  z.unknown().check((ctx) => {
    const v = ctx.value;
    if (Number.isSafeInteger(v) || (Array.isArray(v) && v.every((id) => Number.isSafeInteger(id)))) return;
    ctx.issues.push({ code: "invalid_type", expected: "int", path: ["int"], input: v });
  }) as z.ZodType<ScheduledTo>;

const MESSAGE_TYPES = ["direct", "private", "stream", "channel"] as const;
const topicParam = () => P.string().alias("subject").optional();
const topicValue = (topic: string | undefined) => (topic === undefined ? undefined : readEmptyTopicAliases(topic));

// Parameters are declared in the order Zulip reads them, so the first bad one is the one reported.
export const scheduledMessageRoutes = [
  endpoint({
    method: "GET",
    path: "/scheduled_messages",
    params: {},
    handler: async ({ app, caller }) => ({ scheduled_messages: await getScheduledMessages(app.db, caller.user.id) }),
  }),

  endpoint({
    method: "POST",
    path: "/scheduled_messages",
    params: {
      content: P.string(),
      read_by_sender: P.bool().optional(),
      to: P.json(channelOrUsers),
      type: P.oneOf(MESSAGE_TYPES),
      scheduled_delivery_timestamp: P.int(),
      topic: topicParam(),
    },
    handler: async ({ app, caller }, p) => ({
      scheduled_message_id: await doScheduleMessage(app, caller, {
        type: p.type,
        to: p.to,
        topic: topicValue(p.topic),
        content: p.content,
        scheduledDeliveryTimestamp: p.scheduled_delivery_timestamp,
        readBySender: p.read_by_sender,
      }),
    }),
  }),

  endpoint({
    method: "PATCH",
    path: "/scheduled_messages/:scheduled_message_id(^\\d+$)",
    params: {
      content: P.string().optional(),
      type: P.oneOf(MESSAGE_TYPES).optional(),
      scheduled_delivery_timestamp: P.int().optional(),
      to: P.json(channelOrUsers).optional(),
      topic: topicParam(),
    },
    handler: async ({ app, caller, path }, p) => {
      await doEditScheduledMessage(app, caller, path.scheduled_message_id as number, {
        type: p.type,
        to: p.to,
        topic: topicValue(p.topic),
        content: p.content,
        scheduledDeliveryTimestamp: p.scheduled_delivery_timestamp,
      });
    },
  }),

  endpoint({
    method: "DELETE",
    path: "/scheduled_messages/:scheduled_message_id(^\\d+$)",
    params: {},
    handler: async ({ app, caller, path }) => {
      await doDeleteScheduledMessage(app, caller, path.scheduled_message_id as number);
    },
  }),
];

import { endpoint } from "../http/endpoint.js";
import { P } from "../http/params.js";
import { badRequest } from "../http/errors.js";
import { requireRealmAdmin } from "../http/guards.js";
import { LIMITS } from "../domain/limits.js";
import { VISIBILITY_POLICIES, readEmptyTopicDisplayName } from "../domain/topics.js";
import { channelTopics, doDeleteTopic } from "../actions/topics.js";
import { doUpdateMutedTopic, doUpdateUserTopic } from "../actions/user_topics.js";

const topicParam = () => P.string({ maxLength: LIMITS.maxTopicLength });

export const topicRoutes = [
  endpoint({
    method: "GET",
    path: "/users/me/:stream_id(^\\d+$)/topics",
    params: { allow_empty_topic_name: P.bool().default(false) },
    handler: async ({ app, caller, path }, p) => ({
      topics: await channelTopics(app, caller.user, path.stream_id as number, p.allow_empty_topic_name),
    }),
  }),
  endpoint({
    method: "POST",
    path: "/streams/:stream_id(^\\d+$)/delete_topic",
    guard: requireRealmAdmin,
    params: { topic_name: P.string() },
    handler: async ({ app, caller, path }, p) => doDeleteTopic(app, caller.user, path.stream_id as number, p.topic_name),
  }),
  endpoint({
    method: "POST",
    path: "/user_topics",
    params: { stream_id: P.int(), topic: topicParam(), visibility_policy: P.int() },
    handler: async ({ app, caller }, p) => {
      if (!VISIBILITY_POLICIES.includes(p.visibility_policy)) throw badRequest("Invalid visibility_policy");
      await doUpdateUserTopic(app, caller.user, p.stream_id, readEmptyTopicDisplayName(p.topic), p.visibility_policy);
    },
  }),
  endpoint({
    method: "PATCH",
    path: "/users/me/subscriptions/muted_topics",
    params: {
      stream_id: P.int().optional(),
      stream: P.string().optional(),
      topic: topicParam(),
      op: P.oneOf(["add", "remove"] as const),
    },
    handler: async ({ app, caller }, p) =>
      doUpdateMutedTopic(app, caller.user, { streamId: p.stream_id, streamName: p.stream, topic: p.topic, op: p.op }),
  }),
];

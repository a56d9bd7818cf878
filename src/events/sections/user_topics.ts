/**
 * The user's topic visibility policies: `user_topics`, and the legacy `muted_topics` list,
 * which clients asking for `user_topic` too do not get.
 */
import { registerStateSection, type StateContext } from "../state.js";
import { userTopicLists, type ApiUserTopic } from "../../actions/user_topics.js";
import { VisibilityPolicy, displayTopic, readEmptyTopicDisplayName, topicKey } from "../../domain/topics.js";

/** The user's topic policies, read once for both sections here and the unread summary. */
export const userTopicListsOf = (ctx: StateContext) => ctx.memo("user topics", () => userTopicLists(ctx.app.db, ctx.user.id));

const sameTopic = (a: ApiUserTopic, streamId: number, topic: string) => a.stream_id === streamId && topicKey(a.topic_name) === topicKey(topic);

registerStateSection({
  name: "user_topics",
  fetchTypes: ["user_topic"],
  eventTypes: ["user_topic"],
  fetch: async (ctx) => ({ user_topics: (await userTopicListsOf(ctx)).user_topics }),
  apply(state, event) {
    const { stream_id, last_updated, visibility_policy } = event as unknown as ApiUserTopic;
    // Queued events may already show the empty topic by its display name; `finish` does that here.
    const topic_name = readEmptyTopicDisplayName(String(event.topic_name));
    const list = (state.user_topics as ApiUserTopic[]).filter((t) => !sameTopic(t, stream_id, topic_name));
    if (visibility_policy !== VisibilityPolicy.INHERIT) list.push({ stream_id, topic_name, last_updated, visibility_policy });
    state.user_topics = list;
  },
  finish(state, ctx) {
    const allowEmpty = ctx.options.capabilities.empty_topic_name === true;
    state.user_topics = (state.user_topics as ApiUserTopic[]).map((t) => ({ ...t, topic_name: displayTopic(t.topic_name, allowEmpty) }));
  },
});

/** Zulip sends the legacy list unless the client named `user_topic` among the types it wants. */
const wantsLegacyList = (ctx: StateContext) => (ctx.options.fetchEventTypes ?? ctx.options.eventTypes) === null || !ctx.want("user_topic");

registerStateSection({
  name: "muted_topics",
  fetchTypes: ["muted_topics"],
  eventTypes: ["muted_topics"],
  fetch: async (ctx) => (wantsLegacyList(ctx) ? { muted_topics: (await userTopicListsOf(ctx)).muted_topics } : {}),
  apply(state, event) {
    if ("muted_topics" in state) state.muted_topics = event.muted_topics;
  },
});

/**
 * The user's topic visibility policies: `user_topics`, and the legacy `muted_topics` list,
 * which clients asking for `user_topic` too do not get.
 */
import { registerStateSection, type StateContext } from "../state.js";
import { mutedTopicsOf, userTopicsRegisterState, type ApiUserTopic } from "../../actions/user_topics.js";
import { VisibilityPolicy, displayTopic, topicKey } from "../../domain/topics.js";

const sameTopic = (a: ApiUserTopic, streamId: unknown, topic: unknown) =>
  a.stream_id === streamId && typeof topic === "string" && topicKey(a.topic_name) === topicKey(topic);

registerStateSection({
  name: "user_topics",
  fetchTypes: ["user_topic"],
  eventTypes: ["user_topic"],
  fetch: ({ app, user }) => userTopicsRegisterState(app.db, user.id),
  apply(state, event) {
    const list = (state.user_topics as ApiUserTopic[]).filter((t) => !sameTopic(t, event.stream_id, event.topic_name));
    if (event.visibility_policy !== VisibilityPolicy.INHERIT) {
      const { stream_id, topic_name, last_updated, visibility_policy } = event as unknown as ApiUserTopic;
      list.push({ stream_id, topic_name, last_updated, visibility_policy });
    }
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
  fetch: async (ctx) => (wantsLegacyList(ctx) ? { muted_topics: await mutedTopicsOf(ctx.app.db, ctx.user.id) } : {}),
  apply(state, event) {
    if ("muted_topics" in state) state.muted_topics = event.muted_topics;
  },
});

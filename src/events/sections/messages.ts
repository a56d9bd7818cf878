/** Message-related sections: `max_message_id` and the unread summary. */
import { registerStateSection } from "../state.js";
import {
  addUnreadMessage,
  aggregateUnreads,
  buildUnreads,
  clearUnreads,
  removeUnreadMessages,
  type RawUnreads,
  type UnreadMessage,
} from "../../domain/unreads.js";
import { EMPTY_TOPIC_DISPLAY_NAME } from "../../domain/limits.js";
import { mutedAmong, unreadRows } from "../../store/unreads.js";
import { subscriptionRowsOf } from "./channels.js";
import { userTopicListsOf } from "./user_topics.js";
import { maxMessageIdForUser } from "../../store/users.js";

registerStateSection({
  name: "message",
  fetchTypes: ["message"],
  eventTypes: ["message"],
  fetch: async ({ app, user }) => ({ max_message_id: await maxMessageIdForUser(app.db, user.id) }),
  apply(state, event) {
    const id = (event.message as { id: number }).id;
    state.max_message_id = Math.max(state.max_message_id as number, id);
  },
});

const RAW_UNREADS = "_raw_unreads";

// Keeping unreads current needs both new messages and flag changes, hence both types.
registerStateSection({
  name: "unread_msgs",
  fetchTypes: ["update_message_flags", "message"],
  requireAll: true,
  eventTypes: ["message", "update_message_flags"],
  async fetch(ctx) {
    const { app, user } = ctx;
    const muted = mutedAmong(await subscriptionRowsOf(ctx));
    const { policies } = await userTopicListsOf(ctx);
    return { [RAW_UNREADS]: buildUnreads(user.id, await unreadRows(app.db, user.id), muted, policies) };
  },
  apply(state, event, { user }) {
    const raw = state[RAW_UNREADS] as RawUnreads;
    if (event.type === "message") {
      addUnreadMessage(raw, user.id, event.message as UnreadMessage, (event.flags as string[]) ?? []);
      return;
    }
    if (event.flag !== "read") return;
    const op = event.op ?? event.operation;
    if (op === "add" && event.all === true) {
      clearUnreads(raw);
    } else if (op === "add") {
      removeUnreadMessages(raw, (event.messages as number[]) ?? []);
    } else if (op === "remove") {
      // Marking as unread carries what is needed to place each message again.
      const details = (event.message_details ?? {}) as Record<string, { type: string; stream_id?: number; topic?: string; user_ids?: number[]; mentioned?: boolean }>;
      for (const [id, d] of Object.entries(details)) {
        const display_recipient = d.type === "private" ? [...(d.user_ids ?? []), user.id].map((uid) => ({ id: uid })) : undefined;
        const message: UnreadMessage = { id: Number(id), type: d.type, stream_id: d.stream_id, subject: d.topic, display_recipient };
        addUnreadMessage(raw, user.id, message, d.mentioned ? ["mentioned"] : []);
      }
    }
  },
  finish(state, { options }) {
    const raw = state[RAW_UNREADS] as RawUnreads;
    state.unread_msgs = aggregateUnreads(raw, options.capabilities.empty_topic_name ? null : EMPTY_TOPIC_DISPLAY_NAME);
    delete state[RAW_UNREADS];
  },
});

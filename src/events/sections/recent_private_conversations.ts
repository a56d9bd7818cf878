/** `recent_private_conversations`: the user's direct-message conversations, newest first. */
import { registerStateSection } from "../state.js";
import {
  noteDirectMessage,
  participantsKey,
  recentConversationList,
  type RecentConversationsByKey,
} from "../../domain/recent_conversations.js";
import { recentDirectMessageConversations } from "../../store/register_extras.js";

const WORKING = "_recent_private_conversations";

registerStateSection({
  name: "recent_private_conversations",
  fetchTypes: ["recent_private_conversations"],
  eventTypes: ["message"],
  async fetch({ app, user }) {
    const byKey: RecentConversationsByKey = new Map();
    for (const c of await recentDirectMessageConversations(app.db, user.id)) noteDirectMessage(byKey, c.dm_key, c.max_id);
    return { [WORKING]: byKey };
  },
  apply(state, event) {
    const message = event.message as { id: number; type: string; display_recipient: { id: number }[] };
    if (message.type !== "private") return;
    const key = participantsKey(message.display_recipient.map((r) => r.id));
    noteDirectMessage(state[WORKING] as RecentConversationsByKey, key, message.id);
  },
  finish(state, { user }) {
    state.recent_private_conversations = recentConversationList(state[WORKING] as RecentConversationsByKey, user.id);
    delete state[WORKING];
  },
});

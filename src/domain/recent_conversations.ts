/**
 * The `recent_private_conversations` register key: one entry per direct-message conversation,
 * naming the other participants (none for notes to self), newest conversation first.
 */
export interface RecentConversation {
  max_message_id: number;
  user_ids: number[];
}

/** Conversations keyed by their sorted, comma-joined participant ids (messages.dm_key). */
export type RecentConversationsByKey = Map<string, number>;

export function participantsKey(userIds: readonly number[]): string {
  return [...new Set(userIds)].sort((a, b) => a - b).join(",");
}

/** Records a message in its conversation; harmless when the message is already counted. */
export function noteDirectMessage(conversations: RecentConversationsByKey, dmKey: string, messageId: number): void {
  conversations.set(dmKey, Math.max(conversations.get(dmKey) ?? -1, messageId));
}

export function recentConversationList(conversations: RecentConversationsByKey, selfId: number): RecentConversation[] {
  return [...conversations]
    .map(([key, max]) => ({
      max_message_id: max,
      user_ids: key
        .split(",")
        .map(Number)
        .filter((id) => id !== selfId),
    }))
    .sort((a, b) => b.max_message_id - a.max_message_id);
}

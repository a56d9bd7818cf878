import { sql } from "kysely";
import type { Executor } from "./schema.js";
import { copiesWithMessages } from "./messages.js";
import { isUnread } from "./message_flags.js";
import { MAX_UNREAD_MESSAGES, topicPolicyMap, type UnreadRow } from "../domain/unreads.js";
import { FLAG_BITS } from "../domain/message_flags.js";
import { preparedRead } from "./prepared.js";
import { activeSubscriptionsOf, type SubscriptionRow } from "./streams.js";
import { listUserTopics } from "./user_topics.js";

const unreadCopies = preparedRead((db, userId: number) => {
  const unsubscribed = db.selectFrom("subscriptions").select("stream_id").where("user_id", "=", userId).where("active", "=", 0);
  return (
    copiesWithMessages(db)
      .select(["messages.id", "messages.stream_id", "messages.topic", "messages.dm_key", "user_messages.flags"])
      .where("user_messages.user_id", "=", userId)
      .where(isUnread())
      .where((eb) => eb.or([eb("messages.stream_id", "is", null), eb("messages.stream_id", "not in", unsubscribed)]))
      // In the index's own order: no sort of a heavy reader's rows.
      .orderBy("user_messages.message_id", "desc")
      .limit(MAX_UNREAD_MESSAGES)
  );
});

/** The user's unread messages, newest first, leaving out channels they have unsubscribed from. */
export async function unreadRows(db: Executor, userId: number): Promise<UnreadRow[]> {
  const rows = await unreadCopies(db, userId);
  return rows.map((r) => ({ messageId: r.id, streamId: r.stream_id, topic: r.topic, dmKey: r.dm_key, flags: r.flags }));
}

/** The user's topic visibility policies (archived channels' too), keyed as the unread summary looks them up. */
export async function topicPolicies(db: Executor, userId: number): Promise<Map<string, number>> {
  return topicPolicyMap(await listUserTopics(db, userId));
}

/** Channels the user muted (the `is_muted` subscription setting). */
export async function mutedStreamIds(db: Executor, userId: number): Promise<number[]> {
  return mutedAmong(await activeSubscriptionsOf(db, userId));
}

/** The muted channels among these subscriptions, active ones only. */
export function mutedAmong(subscriptions: readonly SubscriptionRow[]): number[] {
  return subscriptions.filter((s) => s.active === 1 && JSON.parse(s.props).is_muted === true).map((s) => s.stream_id);
}

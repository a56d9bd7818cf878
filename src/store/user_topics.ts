import type { Selectable } from "kysely";
import type { Executor, UserTopicTable } from "./schema.js";
import { topicKey } from "../domain/topics.js";
import { preparedRead } from "./prepared.js";

export type UserTopicRow = Selectable<UserTopicTable>;

/** A user's policies with their channels' names and whether those are archived, oldest first. */
export const listUserTopics = preparedRead((db, userId: number) =>
  db
    .selectFrom("user_topics")
    .innerJoin("streams", "streams.id", "user_topics.stream_id")
    .select([
      "user_topics.stream_id",
      "streams.name as stream_name",
      "streams.is_archived",
      "user_topics.topic_name",
      "user_topics.visibility_policy",
      "user_topics.last_updated",
    ])
    .where("user_topics.user_id", "=", userId)
    .orderBy("user_topics.id"),
);

/** Every user's row for one topic of a channel. */
export async function userTopicsOfTopic(db: Executor, streamId: number, topic: string): Promise<UserTopicRow[]> {
  return db
    .selectFrom("user_topics")
    .selectAll()
    .where("stream_id", "=", streamId)
    .where("topic_key", "=", topicKey(topic))
    .orderBy("user_id")
    .execute();
}

export async function deleteUserTopic(db: Executor, userId: number, streamId: number, topic: string): Promise<void> {
  await db.deleteFrom("user_topics").where("user_id", "=", userId).where("stream_id", "=", streamId).where("topic_key", "=", topicKey(topic)).execute();
}

/** Creates or replaces the user's row; the topic keeps the spelling given now. */
export async function upsertUserTopic(
  db: Executor,
  row: { user_id: number; stream_id: number; topic_name: string; visibility_policy: number; last_updated: number },
): Promise<void> {
  const values = { ...row, topic_key: topicKey(row.topic_name) };
  await db
    .insertInto("user_topics")
    .values(values)
    .onConflict((oc) =>
      oc.columns(["user_id", "stream_id", "topic_key"]).doUpdateSet({ topic_name: values.topic_name, visibility_policy: values.visibility_policy, last_updated: values.last_updated }),
    )
    .execute();
}

/**
 * The topics of a channel with their newest message id, grouped by exact spelling, from one
 * pass over the (stream_id, topic, id) index; `readerId` limits them to that user's messages.
 */
export function topicHistoryQuery(db: Executor, streamId: number, readerId: number | null) {
  let q = db
    .selectFrom("messages")
    .select(["messages.topic", (eb) => eb.fn.max<number>("messages.id").as("max_id")])
    .where("messages.stream_id", "=", streamId);
  if (readerId !== null) {
    q = q.innerJoin("user_messages", "user_messages.message_id", "messages.id").where("user_messages.user_id", "=", readerId);
  }
  return q.groupBy("messages.topic");
}

export async function topicHistory(db: Executor, streamId: number, readerId: number | null) {
  const rows = await topicHistoryQuery(db, streamId, readerId).execute();
  return rows.map((r) => ({ topic: r.topic, max_id: Number(r.max_id) }));
}

/** A channel's topics: listing them (GET /users/me/{stream_id}/topics) and deleting one. */
import { performance } from "node:perf_hooks";
import { sql } from "kysely";
import type { AppContext } from "../context.js";
import type { UserRow } from "../store/users.js";
import { getRealm } from "../store/realms.js";
import { topicHistory, userTopicsOfTopic } from "../store/user_topics.js";
import { mergeTopicHistory, readEmptyTopicDisplayName, topicKey, VisibilityPolicy, type TopicHistoryEntry } from "../domain/topics.js";
import { accessStreamById } from "./streams.js";
import { deleteMessagesInTx, seesHistoryOf, visibleTopicMessageIds } from "./message_edit.js";
import { setUserTopicPolicies } from "./user_topics.js";
import { userFacts } from "./channel_context.js";
import { runAction } from "./run.js";

/**
 * The topics of a channel the user may read, newest first. Without shared history a user sees
 * only topics of messages they received.
 */
export async function channelTopics(app: AppContext, user: UserRow, streamId: number, allowEmptyTopicName: boolean): Promise<TopicHistoryEntry[]> {
  const { stream } = await accessStreamById(app, app.db, user, streamId);
  const rows = await topicHistory(app.db, stream.id, stream.history_public_to_subscribers === 1 ? null : user.id);
  return mergeTopicHistory(rows, allowEmptyTopicName);
}

/**
 * POST /streams/{stream_id}/delete_topic: deletes the messages of the topic the user can see,
 * newest first, one batch per transaction, until none are left or the time budget is spent.
 * Once the topic is gone its users' policies for it go too.
 */
export async function doDeleteTopic(app: AppContext, user: UserRow, streamId: number, topicName: string): Promise<{ complete: boolean }> {
  const topic = readEmptyTopicDisplayName(topicName);
  const { batchSize, timeLimitSecs } = app.config.deleteTopic;
  const started = performance.now();
  for (;;) {
    const finished = await runAction(app, async (tx, events) => {
      const realm = (await getRealm(tx, user.realm_id))!;
      const stream = (await accessStreamById(app, tx, user, streamId)).stream;
      const seesHistory = await seesHistoryOf(tx, user, await userFacts(app, tx, user), stream);
      const ids = await visibleTopicMessageIds(tx, user, stream, topic, seesHistory, batchSize);
      const messages = ids.length ? await tx.selectFrom("messages").select(["id", "topic"]).where("id", "in", ids).orderBy("id").execute() : [];
      await deleteMessagesInTx(tx, events, realm, user, stream, messages);
      if (ids.length === batchSize) return false;
      // Users of a channel without shared history keep their policy while they still have
      // messages of the topic (ones the deleting user could not see).
      const stale = (await userTopicsOfTopic(tx, stream.id, topic)).map((r) => r.user_id);
      const keeping = new Set<number>();
      if (stream.history_public_to_subscribers !== 1 && stale.length) {
        const rows = await tx
          .selectFrom("user_messages")
          .innerJoin("messages", "messages.id", "user_messages.message_id")
          .select("user_messages.user_id")
          .distinct()
          .where("messages.stream_id", "=", stream.id)
          .where(sql<string>`lower(messages.topic)`, "=", topicKey(topic))
          .where("user_messages.user_id", "in", stale)
          .execute();
        rows.forEach((r) => keeping.add(r.user_id));
      }
      const dropping = stale.filter((id) => !keeping.has(id));
      await setUserTopicPolicies(tx, events, realm, dropping, stream, topic, VisibilityPolicy.INHERIT, Math.floor(app.clock.now()));
      return true;
    });
    if (finished) return { complete: true };
    if (performance.now() - started >= timeLimitSecs * 1000) return { complete: false };
  }
}

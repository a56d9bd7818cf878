/**
 * Users' visibility policies for topics (muted, unmuted, followed): setting them through
 * POST /user_topics and the legacy muted_topics endpoint, and carrying them along when a topic
 * moves or is deleted.
 */
import { sql } from "kysely";
import type { AppContext } from "../context.js";
import type { Realm } from "../store/realms.js";
import type { UserRow } from "../store/users.js";
import type { Executor } from "../store/schema.js";
import { getRealm } from "../store/realms.js";
import { getStream, getStreamByName, type StreamRow } from "../store/streams.js";
import { deleteUserTopic, listUserTopics, upsertUserTopic, userTopicsOfTopic } from "../store/user_topics.js";
import { badRequest, incompatibleParameters } from "../http/errors.js";
import { VisibilityPolicy, topicKey, visibilityPolicyAfterMerge } from "../domain/topics.js";
import { topicPolicyMap } from "../domain/unreads.js";
import { accessStreamById, accessStreamByName } from "./streams.js";
import { runAction, type PendingEvents, type Tx } from "./run.js";

export interface ApiUserTopic {
  stream_id: number;
  topic_name: string;
  last_updated: number;
  visibility_policy: number;
}

/** The legacy form of a muted topic: [channel name, topic, when muted]. */
export type MutedTopic = [string, string, number];

type UserTopicListRow = Awaited<ReturnType<typeof listUserTopics>>[number];

const mutedTopic = (r: UserTopicListRow): MutedTopic => [r.stream_name, r.topic_name, Number(r.last_updated)];

export async function mutedTopicsOf(db: Executor, userId: number): Promise<MutedTopic[]> {
  return (await userTopicLists(db, userId)).muted_topics;
}

/**
 * Sets one topic's policy for several users. Users whose policy does not change hear nothing;
 * the others get a `user_topic` event, preceded (unless skipped) by the legacy `muted_topics`
 * event with their whole list of muted topics.
 */
export async function setUserTopicPolicies(
  tx: Tx,
  events: PendingEvents,
  realm: Realm,
  userIds: readonly number[],
  stream: StreamRow,
  topic: string,
  policy: number,
  now: number,
  opts: { skipMutedTopicsEvent?: boolean } = {},
): Promise<void> {
  if (!userIds.length) return;
  const current = new Map((await userTopicsOfTopic(tx, stream.id, topic)).map((r) => [r.user_id, r.visibility_policy]));
  const changed = userIds.filter((id) => (current.get(id) ?? VisibilityPolicy.INHERIT) !== policy);
  for (const userId of changed) {
    if (policy === VisibilityPolicy.INHERIT) await deleteUserTopic(tx, userId, stream.id, topic);
    else await upsertUserTopic(tx, { user_id: userId, stream_id: stream.id, topic_name: topic, visibility_policy: policy, last_updated: now });
  }
  for (const userId of changed) {
    if (!opts.skipMutedTopicsEvent) {
      events.send({ realmId: realm.id, event: { type: "muted_topics", muted_topics: await mutedTopicsOf(tx, userId) }, userIds: [userId] });
    }
    const event = { type: "user_topic", stream_id: stream.id, topic_name: topic, last_updated: now, visibility_policy: policy };
    events.send({ realmId: realm.id, event, userIds: [userId] });
  }
}

/**
 * Clearing a policy needs only that the channel exists: a user who lost access to a channel
 * can still drop what they had set there.
 */
async function channelToClearPolicyIn(db: Executor, user: UserRow, channel: { id?: number; name?: string }, error: string): Promise<StreamRow> {
  const stream = channel.id !== undefined ? await getStream(db, user.realm_id, channel.id) : await getStreamByName(db, user.realm_id, channel.name!);
  if (!stream) throw badRequest(error);
  return stream;
}

async function setOwnPolicy(app: AppContext, user: UserRow, findStream: (tx: Tx) => Promise<StreamRow>, topic: string, policy: number) {
  await runAction(app, async (tx, events) => {
    const stream = await findStream(tx);
    const realm = (await getRealm(tx, user.realm_id))!;
    await setUserTopicPolicies(tx, events, realm, [user.id], stream, topic, policy, Math.floor(app.clock.now()));
  });
}

/** POST /user_topics. */
export async function doUpdateUserTopic(app: AppContext, user: UserRow, streamId: number, topic: string, policy: number): Promise<void> {
  const findStream = async (tx: Tx) =>
    policy === VisibilityPolicy.INHERIT
      ? channelToClearPolicyIn(tx, user, { id: streamId }, "Invalid channel ID")
      : (await accessStreamById(app, tx, user, streamId)).stream;
  await setOwnPolicy(app, user, findStream, topic, policy);
}

/** PATCH /users/me/subscriptions/muted_topics: the channel by id or by name, never both. */
export async function doUpdateMutedTopic(
  app: AppContext,
  user: UserRow,
  req: { streamId: number | undefined; streamName: string | undefined; topic: string; op: "add" | "remove" },
): Promise<void> {
  const { streamId, streamName } = req;
  if (streamId === undefined && streamName === undefined) throw badRequest("Missing 'stream_id' argument");
  if (streamId !== undefined && streamName !== undefined) throw incompatibleParameters(["stream_id", "stream"]);
  const findStream = async (tx: Tx) => {
    if (req.op === "remove") return channelToClearPolicyIn(tx, user, { id: streamId, name: streamName }, "Topic is not muted");
    return (streamId !== undefined ? await accessStreamById(app, tx, user, streamId) : await accessStreamByName(app, tx, user, streamName!)).stream;
  };
  await setOwnPolicy(app, user, findStream, req.topic, req.op === "add" ? VisibilityPolicy.MUTED : VisibilityPolicy.INHERIT);
}

export interface TopicMove {
  origin: StreamRow;
  originTopic: string;
  target: StreamRow;
  targetTopic: string;
  movedIds: readonly number[];
  losingAccess: readonly number[];
  now: number;
}

/**
 * After a whole topic moved, users' policies go with it: users who can no longer see it lose
 * theirs, and where the target topic already had messages the more visible policy wins.
 */
export async function carryUserTopics(tx: Tx, events: PendingEvents, realm: Realm, move: TopicMove): Promise<void> {
  const { origin, originTopic, target, targetTopic, now } = move;
  // A change of case only keeps every row where it is.
  if (origin.id === target.id && topicKey(originTopic) === topicKey(targetTopic)) return;
  const channelChanged = origin.id !== target.id;
  const losing = new Set(move.losingAccess);
  const originRows = await userTopicsOfTopic(tx, origin.id, originTopic);
  const cutOff = originRows.filter((r) => channelChanged && losing.has(r.user_id)).map((r) => r.user_id);
  const fromOrigin = new Map(originRows.filter((r) => !cutOff.includes(r.user_id)).map((r) => [r.user_id, r.visibility_policy]));
  const atTarget = new Map((await userTopicsOfTopic(tx, target.id, targetTopic)).map((r) => [r.user_id, r.visibility_policy]));
  const targetHadMessages = await topicHasOtherMessages(tx, target.id, targetTopic, move.movedIds);

  await setUserTopicPolicies(tx, events, realm, cutOff, origin, originTopic, VisibilityPolicy.INHERIT, now);
  const users = [...new Set([...fromOrigin.keys(), ...atTarget.keys()])].sort((a, b) => a - b);
  for (const userId of users) {
    const moved = fromOrigin.get(userId) ?? VisibilityPolicy.INHERIT;
    const existing = atTarget.get(userId) ?? VisibilityPolicy.INHERIT;
    if (moved !== VisibilityPolicy.INHERIT) {
      // The legacy muted_topics event goes out with the new topic's policy, just after.
      await setUserTopicPolicies(tx, events, realm, [userId], origin, originTopic, VisibilityPolicy.INHERIT, now, { skipMutedTopicsEvent: true });
    }
    const next = targetHadMessages ? visibilityPolicyAfterMerge(moved, existing) : moved;
    if (next !== existing) await setUserTopicPolicies(tx, events, realm, [userId], target, targetTopic, next, now);
  }
}

async function topicHasOtherMessages(tx: Tx, streamId: number, topic: string, exclude: readonly number[]): Promise<boolean> {
  let q = tx.selectFrom("messages").select("id").where("stream_id", "=", streamId).where(sql<string>`lower(topic)`, "=", topicKey(topic));
  if (exclude.length) q = q.where("id", "not in", exclude);
  return (await q.limit(1).executeTakeFirst()) !== undefined;
}

/**
 * POST /register's `user_topics` and legacy `muted_topics` (both leave archived channels out), and
 * the policies of every channel's topics that its unread summary checks, from one read.
 */
export async function userTopicLists(db: Executor, userId: number): Promise<{ user_topics: ApiUserTopic[]; muted_topics: MutedTopic[]; policies: Map<string, number> }> {
  const rows = await listUserTopics(db, userId);
  const shown = rows.filter((r) => r.is_archived === 0);
  return {
    user_topics: shown.map((r) => ({ stream_id: r.stream_id, topic_name: r.topic_name, last_updated: Number(r.last_updated), visibility_policy: r.visibility_policy })),
    muted_topics: shown.filter((r) => r.visibility_policy === VisibilityPolicy.MUTED).map(mutedTopic),
    policies: topicPolicyMap(rows),
  };
}

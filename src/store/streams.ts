import { sql, type Selectable } from "kysely";
import type { Executor, StreamTable, SubscriptionTable } from "./schema.js";
import { isStorableId } from "./ids.js";
import { preparedRead } from "./prepared.js";

export type StreamRow = Selectable<StreamTable>;
export type SubscriptionRow = Selectable<SubscriptionTable>;

export async function getStream(db: Executor, realmId: number, id: number): Promise<StreamRow | undefined> {
  if (!isStorableId(id)) return undefined;
  return db.selectFrom("streams").selectAll().where("realm_id", "=", realmId).where("id", "=", id).executeTakeFirst();
}

/** Channel names are unique case-insensitively, archived channels included. */
export async function getStreamByName(db: Executor, realmId: number, name: string): Promise<StreamRow | undefined> {
  return db
    .selectFrom("streams")
    .selectAll()
    .where("realm_id", "=", realmId)
    .where(sql<string>`lower(name)`, "=", name.toLowerCase())
    .executeTakeFirst();
}

export async function getStreamsByNames(db: Executor, realmId: number, names: readonly string[]): Promise<Map<string, StreamRow>> {
  if (!names.length) return new Map();
  const rows = await db
    .selectFrom("streams")
    .selectAll()
    .where("realm_id", "=", realmId)
    .where(sql<string>`lower(name)`, "in", [...new Set(names.map((n) => n.toLowerCase()))])
    .execute();
  return new Map(rows.map((r) => [r.name.toLowerCase(), r]));
}

export async function listStreams(db: Executor, realmId: number): Promise<StreamRow[]> {
  return db.selectFrom("streams").selectAll().where("realm_id", "=", realmId).orderBy("id").execute();
}

const subscribedStreamIdRows = preparedRead((db, userId: number) =>
  db.selectFrom("subscriptions").select("stream_id").where("user_id", "=", userId).where("active", "=", 1),
);

export async function subscribedStreamIds(db: Executor, userId: number): Promise<Set<number>> {
  return new Set((await subscribedStreamIdRows(db, userId)).map((r) => r.stream_id));
}

/** A user's active subscriptions. */
export const activeSubscriptionsOf: (db: Executor, userId: number) => Promise<SubscriptionRow[]> = preparedRead((db, userId: number) =>
  db.selectFrom("subscriptions").selectAll().where("user_id", "=", userId).where("active", "=", 1),
);

/** Every subscription of the user, active or not: POST /register shows both kinds. */
export const allSubscriptionsOf: (db: Executor, userId: number) => Promise<SubscriptionRow[]> = preparedRead((db, userId: number) =>
  db.selectFrom("subscriptions").selectAll().where("user_id", "=", userId),
);

export async function getSubscription(db: Executor, userId: number, streamId: number): Promise<SubscriptionRow | undefined> {
  return db
    .selectFrom("subscriptions")
    .selectAll()
    .where("user_id", "=", userId)
    .where("stream_id", "=", streamId)
    .executeTakeFirst();
}

/** Active subscribers (active users only) of each channel, sorted by id. */
export async function subscribersByStream(db: Executor, streamIds: readonly number[]): Promise<Map<number, number[]>> {
  const out = new Map<number, number[]>(streamIds.map((id) => [id, []]));
  if (!streamIds.length) return out;
  const rows = await db
    .selectFrom("subscriptions")
    .innerJoin("users", "users.id", "subscriptions.user_id")
    .select(["subscriptions.stream_id", "subscriptions.user_id"])
    .where("subscriptions.stream_id", "in", [...streamIds])
    .where("subscriptions.active", "=", 1)
    .where("users.is_active", "=", 1)
    // The index's order (subscriptions_stream): no sort of every subscription of every channel.
    .orderBy("subscriptions.stream_id")
    .orderBy("subscriptions.user_id")
    .execute();
  for (const r of rows) out.get(r.stream_id)!.push(r.user_id);
  return out;
}

/** The tables subscriber counts are read from. */
export const SUBSCRIBER_COUNT_TABLES = ["subscriptions", "users"] as const;

/**
 * How many active users are subscribed to each of an organization's channels (channels without
 * subscribers are absent). Deactivated users keep their subscriptions; they are few, so their
 * rows are counted apart and taken off, instead of joining every subscription to its user.
 */
export async function subscriberCountsOfRealm(db: Executor, realmId: number): Promise<Map<number, number>> {
  const [all, deactivated] = await Promise.all([
    db
      .selectFrom("subscriptions")
      .select((eb) => ["stream_id", eb.fn.countAll<number>().as("n")])
      .where("stream_id", "in", db.selectFrom("streams").select("id").where("realm_id", "=", realmId))
      .where("active", "=", 1)
      .groupBy("stream_id")
      .execute(),
    db
      .selectFrom("users")
      .innerJoin("subscriptions", "subscriptions.user_id", "users.id")
      .select((eb) => ["subscriptions.stream_id", eb.fn.countAll<number>().as("n")])
      .where("users.realm_id", "=", realmId)
      .where("users.is_active", "=", 0)
      .where("subscriptions.active", "=", 1)
      .groupBy("subscriptions.stream_id")
      .execute(),
  ]);
  const out = new Map(all.map((r) => [r.stream_id, Number(r.n)]));
  for (const r of deactivated) out.set(r.stream_id, out.get(r.stream_id)! - Number(r.n));
  return out;
}

const defaultStreamRows = preparedRead((db, realmId: number) => db.selectFrom("default_streams").select("stream_id").where("realm_id", "=", realmId));

export async function defaultStreamIds(db: Executor, realmId: number): Promise<Set<number>> {
  const rows = await defaultStreamRows(db, realmId);
  return new Set(rows.map((r) => r.stream_id));
}

/** Per channel with messages: messages sent since `since`, and the time of the latest message. */
export interface ChannelActivity {
  /** Messages sent since the time asked about. */
  recent: number;
  last: number;
}

/**
 * For each of an organization's channels: how many messages since `since`, and when the last.
 * Per channel, through the (stream_id, date_sent) index: a lookup and a count of recent entries.
 */
export async function messageActivityOfRealm(db: Executor, realmId: number, since: number): Promise<Map<number, ChannelActivity>> {
  const rows = await db
    .selectFrom("streams as s")
    .select((eb) => [
      "s.id as stream_id",
      eb.selectFrom("messages as m").select((m) => m.fn.max("m.date_sent").as("last")).whereRef("m.stream_id", "=", "s.id").as("last"),
      eb
        .selectFrom("messages as m")
        .select((m) => m.fn.countAll().as("recent"))
        .whereRef("m.stream_id", "=", "s.id")
        .where("m.date_sent", ">=", since)
        .as("recent"),
    ])
    .where("s.realm_id", "=", realmId)
    .execute();
  return new Map(
    rows.filter((r) => r.last !== null).map((r) => [r.stream_id, { recent: Number(r.recent), last: Number(r.last) }]),
  );
}

import { sql, type Selectable } from "kysely";
import type { Executor, StreamTable, SubscriptionTable } from "./schema.js";
import { isStorableId } from "./ids.js";

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

export async function subscribedStreamIds(db: Executor, userId: number): Promise<Set<number>> {
  const rows = await db
    .selectFrom("subscriptions")
    .select("stream_id")
    .where("user_id", "=", userId)
    .where("active", "=", 1)
    .execute();
  return new Set(rows.map((r) => r.stream_id));
}

export async function activeSubscriptionsOf(db: Executor, userId: number): Promise<SubscriptionRow[]> {
  return db.selectFrom("subscriptions").selectAll().where("user_id", "=", userId).where("active", "=", 1).execute();
}

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
    .orderBy("subscriptions.user_id")
    .execute();
  for (const r of rows) out.get(r.stream_id)!.push(r.user_id);
  return out;
}

export async function defaultStreamIds(db: Executor, realmId: number): Promise<Set<number>> {
  const rows = await db.selectFrom("default_streams").select("stream_id").where("realm_id", "=", realmId).execute();
  return new Set(rows.map((r) => r.stream_id));
}

/** Per channel: messages sent since `since`, and the time of the latest message. */
export async function messageActivity(
  db: Executor,
  streamIds: readonly number[],
  since: number,
): Promise<Map<number, { recent: number; last: number | null }>> {
  const out = new Map<number, { recent: number; last: number | null }>();
  if (!streamIds.length) return out;
  const rows = await db
    .selectFrom("messages")
    .select((eb) => [
      "stream_id",
      eb.fn.max("date_sent").as("last"),
      eb.fn.sum<number>(eb.case().when("date_sent", ">=", since).then(1).else(0).end()).as("recent"),
    ])
    .where("stream_id", "in", [...streamIds])
    .groupBy("stream_id")
    .execute();
  for (const r of rows) out.set(r.stream_id!, { recent: Number(r.recent), last: r.last === null ? null : Number(r.last) });
  return out;
}

import type { Executor } from "./schema.js";
import { pickStreamColor } from "../domain/colors.js";

/**
 * Subscribes users to a channel (reactivating old subscriptions), giving each new subscription
 * `color`, or else a color that user does not use yet. Returns the users newly subscribed.
 */
export async function addSubscriptions(db: Executor, streamId: number, userIds: number[], color?: string): Promise<number[]> {
  if (!userIds.length) return [];
  const existing = await db
    .selectFrom("subscriptions")
    .select(["user_id", "active"])
    .where("stream_id", "=", streamId)
    .where("user_id", "in", userIds)
    .execute();
  const active = new Set(existing.filter((s) => s.active === 1).map((s) => s.user_id));
  const inactive = new Set(existing.filter((s) => s.active === 0).map((s) => s.user_id));
  const added: number[] = [];
  for (const userId of [...new Set(userIds)]) {
    if (active.has(userId)) continue;
    if (inactive.has(userId)) {
      await db
        .updateTable("subscriptions")
        .set({ active: 1 })
        .where("user_id", "=", userId)
        .where("stream_id", "=", streamId)
        .execute();
    } else {
      const used = await db.selectFrom("subscriptions").select("color").where("user_id", "=", userId).execute();
      await db
        .insertInto("subscriptions")
        .values({ user_id: userId, stream_id: streamId, active: 1, color: color ?? pickStreamColor(used.map((u) => u.color)), props: "{}" })
        .execute();
    }
    added.push(userId);
  }
  return added;
}

/** Deactivates subscriptions; returns the users who were subscribed. */
export async function removeSubscriptions(db: Executor, streamId: number, userIds: number[]): Promise<number[]> {
  if (!userIds.length) return [];
  const rows = await db
    .updateTable("subscriptions")
    .set({ active: 0 })
    .where("stream_id", "=", streamId)
    .where("user_id", "in", userIds)
    .where("active", "=", 1)
    .returning("user_id")
    .execute();
  return rows.map((r) => r.user_id);
}

export async function subscriberIds(db: Executor, streamId: number): Promise<number[]> {
  const rows = await db
    .selectFrom("subscriptions")
    .innerJoin("users", "users.id", "subscriptions.user_id")
    .select("subscriptions.user_id")
    .where("subscriptions.stream_id", "=", streamId)
    .where("subscriptions.active", "=", 1)
    .where("users.is_active", "=", 1)
    .orderBy("subscriptions.user_id")
    .execute();
  return rows.map((r) => r.user_id);
}

/** Stores one of the user's settings for a channel: the color, or a key of the settings object. */
export async function setSubscriptionProperty(db: Executor, userId: number, streamId: number, property: string, value: unknown): Promise<void> {
  const where = db.updateTable("subscriptions").where("user_id", "=", userId).where("stream_id", "=", streamId);
  if (property === "color") {
    await where.set({ color: String(value) }).execute();
    return;
  }
  const row = await db
    .selectFrom("subscriptions")
    .select("props")
    .where("user_id", "=", userId)
    .where("stream_id", "=", streamId)
    .executeTakeFirstOrThrow();
  await where.set({ props: JSON.stringify({ ...JSON.parse(row.props), [property]: value }) }).execute();
}

export interface ChannelEmailTokenKey {
  realmId: number;
  streamId: number;
  creatorId: number;
  senderId: number;
  /** Stored if this channel, sender and creator have no token yet. */
  newToken: string;
  now: number;
}

/** The email token for a channel, sender and creator, created the first time it is asked for. */
export async function channelEmailToken(db: Executor, key: ChannelEmailTokenKey): Promise<string> {
  const existing = await db
    .selectFrom("channel_email_addresses")
    .select("email_token")
    .where("stream_id", "=", key.streamId)
    .where("sender_id", "=", key.senderId)
    .where("creator_id", "=", key.creatorId)
    .executeTakeFirst();
  if (existing) return existing.email_token;
  await db
    .insertInto("channel_email_addresses")
    .values({
      realm_id: key.realmId,
      stream_id: key.streamId,
      creator_id: key.creatorId,
      sender_id: key.senderId,
      email_token: key.newToken,
      date_created: key.now,
    })
    .execute();
  return key.newToken;
}

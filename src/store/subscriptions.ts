import type { Executor } from "./schema.js";
import { pickStreamColor } from "../domain/colors.js";

/**
 * Subscribes users to a channel (reactivating old subscriptions), giving each new
 * subscription a color that user does not use yet. Returns the users newly subscribed.
 */
export async function addSubscriptions(db: Executor, streamId: number, userIds: number[]): Promise<number[]> {
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
        .values({ user_id: userId, stream_id: streamId, active: 1, color: pickStreamColor(used.map((u) => u.color)), props: "{}" })
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

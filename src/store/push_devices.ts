import { randomUUID } from "node:crypto";
import type { Selectable } from "kysely";
import type { Executor, PushDeviceTable, PushDeviceTokenTable } from "./schema.js";
import { preparedRead } from "./prepared.js";

export type PushTokenRow = Selectable<PushDeviceTokenTable>;
export type PushDeviceRow = Selectable<PushDeviceTable>;

/** The organization's or user's UUID for the push bouncer, created the first time it is asked for. */
export async function pushUuid(db: Executor, ownerKind: "realm" | "user", ownerId: number): Promise<string> {
  await db
    .insertInto("push_uuids")
    .values({ owner_kind: ownerKind, owner_id: ownerId, uuid: randomUUID() })
    .onConflict((oc) => oc.columns(["owner_kind", "owner_id"]).doNothing())
    .execute();
  const row = await db
    .selectFrom("push_uuids")
    .select("uuid")
    .where("owner_kind", "=", ownerKind)
    .where("owner_id", "=", ownerId)
    .executeTakeFirstOrThrow();
  return row.uuid;
}

export async function listPushTokens(db: Executor, userId: number): Promise<PushTokenRow[]> {
  return db.selectFrom("push_device_tokens").selectAll().where("user_id", "=", userId).orderBy("id").execute();
}

/** A re-registered token keeps its row. */
export async function insertPushToken(
  db: Executor,
  row: { realm_id: number; user_id: number; kind: number; token: string; ios_app_id: string | null; date_created: number },
): Promise<void> {
  await db
    .insertInto("push_device_tokens")
    .values(row)
    .onConflict((oc) => oc.columns(["user_id", "kind", "token"]).doNothing())
    .execute();
}

/** Returns how many rows went. */
export async function deletePushToken(db: Executor, userId: number, kind: number, token: string): Promise<number> {
  const result = await db
    .deleteFrom("push_device_tokens")
    .where("user_id", "=", userId)
    .where("kind", "=", kind)
    .where("token", "=", token)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

export const listPushDevices: (db: Executor, userId: number) => Promise<PushDeviceRow[]> = preparedRead((db, userId: number) =>
  db.selectFrom("push_devices").selectAll().where("user_id", "=", userId).orderBy("id"),
);

export async function getPushDevice(db: Executor, userId: number, pushAccountId: string): Promise<PushDeviceRow | undefined> {
  return db
    .selectFrom("push_devices")
    .selectAll()
    .where("user_id", "=", userId)
    .where("push_account_id", "=", pushAccountId)
    .executeTakeFirst();
}

/** Registers the device anew: not yet known to the bouncer, no error. */
export async function upsertPendingPushDevice(
  db: Executor,
  row: { realm_id: number; user_id: number; push_account_id: string; token_kind: string; push_public_key: string; date_created: number },
): Promise<void> {
  await db
    .insertInto("push_devices")
    .values({ ...row, bouncer_device_id: null, error_code: null })
    .onConflict((oc) =>
      oc.columns(["user_id", "push_account_id"]).doUpdateSet({
        token_kind: row.token_kind,
        push_public_key: row.push_public_key,
        bouncer_device_id: null,
        error_code: null,
      }),
    )
    .execute();
}

/**
 * Records the bouncer's answer, only if the registration it answers is still the pending one.
 * Returns whether it did.
 */
export async function settlePendingPushDevice(
  db: Executor,
  id: number,
  outcome: { bouncer_device_id: string | null; error_code: string | null },
): Promise<boolean> {
  const result = await db
    .updateTable("push_devices")
    .set(outcome)
    .where("id", "=", id)
    .where("bouncer_device_id", "is", null)
    .where("error_code", "is", null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function deletePushDevicesByBouncerId(db: Executor, userId: number, bouncerDeviceIds: readonly string[]): Promise<void> {
  if (!bouncerDeviceIds.length) return;
  await db
    .deleteFrom("push_devices")
    .where("user_id", "=", userId)
    .where("bouncer_device_id", "in", bouncerDeviceIds)
    .execute();
}

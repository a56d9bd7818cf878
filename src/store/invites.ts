import type { Insertable, Selectable } from "kysely";
import type { EmailInviteTable, Executor, MultiuseInviteTable } from "./schema.js";
import { INVITE_STATUS } from "../domain/invites.js";
import type { Dialect } from "./db.js";
import { isStorableId } from "./ids.js";

export type EmailInviteRow = Selectable<EmailInviteTable>;
export type MultiuseInviteRow = Selectable<MultiuseInviteTable>;

export async function insertEmailInvite(db: Executor, values: Insertable<EmailInviteTable>): Promise<EmailInviteRow> {
  return db.insertInto("email_invites").values(values).returningAll().executeTakeFirstOrThrow();
}

export async function insertMultiuseInvite(db: Executor, values: Insertable<MultiuseInviteTable>): Promise<MultiuseInviteRow> {
  return db.insertInto("multiuse_invites").values(values).returningAll().executeTakeFirstOrThrow();
}

export async function getEmailInvite(db: Executor, id: number): Promise<EmailInviteRow | undefined> {
  if (!isStorableId(id)) return undefined;
  return db.selectFrom("email_invites").selectAll().where("id", "=", id).executeTakeFirst();
}

export async function getMultiuseInvite(db: Executor, id: number): Promise<MultiuseInviteRow | undefined> {
  if (!isStorableId(id)) return undefined;
  return db.selectFrom("multiuse_invites").selectAll().where("id", "=", id).executeTakeFirst();
}

export async function emailInviteByKey(db: Executor, key: string): Promise<EmailInviteRow | undefined> {
  return db.selectFrom("email_invites").selectAll().where("confirmation_key", "=", key).executeTakeFirst();
}

export async function multiuseInviteByKey(db: Executor, key: string): Promise<MultiuseInviteRow | undefined> {
  return db.selectFrom("multiuse_invites").selectAll().where("confirmation_key", "=", key).executeTakeFirst();
}

/** Pending, unexpired email invitations someone sent; only `referredBy`'s when given. */
export async function pendingEmailInvites(db: Executor, realmId: number, now: number, referredBy?: number): Promise<EmailInviteRow[]> {
  let q = db
    .selectFrom("email_invites")
    .selectAll()
    .where("realm_id", "=", realmId)
    .where("status", "=", INVITE_STATUS.ACTIVE)
    .where("referred_by_id", "is not", null)
    .where((eb) => eb.or([eb("expiry_date", "is", null), eb("expiry_date", ">=", Math.ceil(now))]));
  if (referredBy !== undefined) q = q.where("referred_by_id", "=", referredBy);
  return q.orderBy("id").execute();
}

/** Unrevoked, unexpired reusable links; only `referredBy`'s when given. */
export async function activeMultiuseInvites(db: Executor, realmId: number, now: number, referredBy?: number): Promise<MultiuseInviteRow[]> {
  let q = db
    .selectFrom("multiuse_invites")
    .selectAll()
    .where("realm_id", "=", realmId)
    .where("status", "!=", INVITE_STATUS.REVOKED)
    .where((eb) => eb.or([eb("expiry_date", "is", null), eb("expiry_date", ">=", Math.ceil(now))]));
  if (referredBy !== undefined) q = q.where("referred_by_id", "=", referredBy);
  return q.orderBy("id").execute();
}

export async function setEmailInviteStatus(db: Executor, id: number, status: number): Promise<void> {
  await db.updateTable("email_invites").set({ status }).where("id", "=", id).execute();
}

export async function setMultiuseInviteStatus(db: Executor, id: number, status: number): Promise<void> {
  await db.updateTable("multiuse_invites").set({ status }).where("id", "=", id).execute();
}

/**
 * Marks a pending invitation used by this new account. False when it was no longer pending,
 * which is how two sign-ups racing for one invitation are told apart.
 */
export async function claimEmailInvite(db: Executor, id: number, userId: number): Promise<boolean> {
  const result = await db
    .updateTable("email_invites")
    .set({ status: INVITE_STATUS.USED, created_user_id: userId })
    .where("id", "=", id)
    .where("status", "=", INVITE_STATUS.ACTIVE)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Other pending invitations of an address that now has an account are of no further use. */
export async function revokePendingInvitesFor(db: Executor, realmId: number, email: string): Promise<void> {
  const rows = await db
    .selectFrom("email_invites")
    .select(["id", "email"])
    .where("realm_id", "=", realmId)
    .where("status", "=", INVITE_STATUS.ACTIVE)
    .execute();
  const ids = rows.filter((r) => r.email.toLowerCase() === email.toLowerCase()).map((r) => r.id);
  if (ids.length) await db.updateTable("email_invites").set({ status: INVITE_STATUS.REVOKED }).where("id", "in", ids).execute();
}

export async function recordInviteEmailsSent(db: Executor, realmId: number, count: number, now: number): Promise<void> {
  if (count === 0) return;
  await db
    .insertInto("invite_emails_sent")
    .values(Array.from({ length: count }, () => ({ realm_id: realmId, sent_at: Math.floor(now) })))
    .execute();
}

export async function inviteEmailsSentSince(db: Executor, realmId: number, since: number): Promise<number> {
  const row = await db
    .selectFrom("invite_emails_sent")
    .select((eb) => eb.fn.countAll().as("n"))
    .where("realm_id", "=", realmId)
    .where("sent_at", ">", Math.floor(since))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export const idList = (json: string): number[] => JSON.parse(json) as number[];

/**
 * Holds the organization's row until the transaction ends, so concurrent invitations cannot
 * both pass the daily limit. SQLite runs one writing transaction at a time already.
 */
export async function lockRealmRow(db: Executor, dialect: Dialect, realmId: number): Promise<void> {
  if (dialect === "postgres") await db.selectFrom("realms").select("id").where("id", "=", realmId).forUpdate().execute();
}

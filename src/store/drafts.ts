import type { Insertable, Selectable } from "kysely";
import type { DraftTable, Executor } from "./schema.js";
import { isStorableId } from "./ids.js";
import { preparedRead } from "./prepared.js";

export type DraftRow = Selectable<DraftTable>;
export type DraftFields = Omit<Insertable<DraftTable>, "id" | "user_id">;

/** A user's drafts, least recently edited first. */
export async function listDrafts(db: Executor, userId: number): Promise<DraftRow[]> {
  return db
    .selectFrom("drafts")
    .selectAll()
    .where("user_id", "=", userId)
    .orderBy("last_edit_time")
    .orderBy("id")
    .execute();
}

/** A user's most recently edited drafts, newest first. */
export const latestDrafts: (db: Executor, userId: number, limit: number) => Promise<DraftRow[]> = preparedRead((db, userId: number, limit: number) =>
  db.selectFrom("drafts").selectAll().where("user_id", "=", userId).orderBy("last_edit_time", "desc").orderBy("id", "desc").limit(limit),
);

/** One of the user's drafts; another user's draft is not found. */
export async function getOwnDraft(db: Executor, userId: number, draftId: number): Promise<DraftRow | undefined> {
  if (!isStorableId(draftId)) return undefined;
  return db
    .selectFrom("drafts")
    .selectAll()
    .where("id", "=", draftId)
    .where("user_id", "=", userId)
    .executeTakeFirst();
}

export async function insertDraft(db: Executor, userId: number, fields: DraftFields): Promise<DraftRow> {
  return db
    .insertInto("drafts")
    .values({ ...fields, user_id: userId })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function updateDraft(db: Executor, draftId: number, fields: DraftFields): Promise<DraftRow> {
  return db.updateTable("drafts").set(fields).where("id", "=", draftId).returningAll().executeTakeFirstOrThrow();
}

export async function deleteDraft(db: Executor, draftId: number): Promise<void> {
  await db.deleteFrom("drafts").where("id", "=", draftId).execute();
}

/** The realm's users among `userIds`, by id. */
export async function findDraftRecipients(db: Executor, realmId: number, userIds: readonly number[]) {
  const ids = userIds.filter(isStorableId);
  if (!ids.length) return new Map<number, { id: number; email: string; is_active: number }>();
  const rows = await db
    .selectFrom("users")
    .select(["id", "email", "is_active"])
    .where("realm_id", "=", realmId)
    .where("id", "in", ids)
    .execute();
  return new Map(rows.map((r) => [r.id, r]));
}

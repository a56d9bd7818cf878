import type { Selectable } from "kysely";
import type { Executor, RealmEmojiTable } from "./schema.js";
import { isStorableId } from "./ids.js";
import { preparedRead } from "./prepared.js";

export type RealmEmojiRow = Selectable<RealmEmojiTable>;

/** Every custom emoji of an organization, deactivated ones included, by id. */
export const listRealmEmoji: (db: Executor, realmId: number) => Promise<RealmEmojiRow[]> = preparedRead((db, realmId: number) =>
  db.selectFrom("realm_emoji").selectAll().where("realm_id", "=", realmId).orderBy("id"),
);

export async function getRealmEmoji(db: Executor, realmId: number, id: number): Promise<RealmEmojiRow | undefined> {
  if (!isStorableId(id)) return undefined;
  return db.selectFrom("realm_emoji").selectAll().where("realm_id", "=", realmId).where("id", "=", id).executeTakeFirst();
}

/** The active custom emoji with this name, if any (a name is unique among active ones). */
export async function findActiveRealmEmoji(db: Executor, realmId: number, name: string): Promise<RealmEmojiRow | undefined> {
  return db
    .selectFrom("realm_emoji")
    .selectAll()
    .where("realm_id", "=", realmId)
    .where("name", "=", name)
    .where("deactivated", "=", 0)
    .executeTakeFirst();
}

export async function insertRealmEmoji(
  db: Executor,
  row: { realm_id: number; name: string; author_id: number; file_name: string },
): Promise<RealmEmojiRow> {
  return db.insertInto("realm_emoji").values({ ...row, is_animated: 0, deactivated: 0 }).returningAll().executeTakeFirstOrThrow();
}

export async function setRealmEmojiFileName(db: Executor, id: number, fileName: string): Promise<void> {
  await db.updateTable("realm_emoji").set({ file_name: fileName }).where("id", "=", id).execute();
}

export async function deactivateRealmEmoji(db: Executor, id: number): Promise<void> {
  await db.updateTable("realm_emoji").set({ deactivated: 1 }).where("id", "=", id).execute();
}

/** Active custom emoji of an organization: name → stored file name, for rendering. */
export async function activeRealmEmojiFiles(db: Executor, realmId: number): Promise<{ name: string; file_name: string }[]> {
  return db
    .selectFrom("realm_emoji")
    .select(["name", "file_name"])
    .where("realm_id", "=", realmId)
    .where("deactivated", "=", 0)
    .orderBy("id")
    .execute();
}

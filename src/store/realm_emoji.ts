import type { Selectable } from "kysely";
import type { Executor, RealmEmojiTable } from "./schema.js";
import { isStorableId } from "./ids.js";

export type RealmEmojiRow = Selectable<RealmEmojiTable>;

/** Every custom emoji of an organization, deactivated ones included, by id. */
export async function listRealmEmoji(db: Executor, realmId: number): Promise<RealmEmojiRow[]> {
  return db.selectFrom("realm_emoji").selectAll().where("realm_id", "=", realmId).orderBy("id").execute();
}

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

import type { Selectable } from "kysely";
import type { Executor, RealmPlaygroundTable } from "./schema.js";
import { isStorableId } from "./ids.js";
import { preparedRead } from "./prepared.js";

export type PlaygroundRow = Omit<Selectable<RealmPlaygroundTable>, "realm_id">;

const COLUMNS = ["id", "name", "pygments_language", "url_template"] as const;

export const listPlaygrounds: (db: Executor, realmId: number) => Promise<PlaygroundRow[]> = preparedRead((db, realmId: number) =>
  db.selectFrom("realm_playgrounds").select(COLUMNS).where("realm_id", "=", realmId).orderBy("id"),
);

export async function getPlayground(db: Executor, realmId: number, id: number): Promise<PlaygroundRow | undefined> {
  if (!isStorableId(id)) return undefined;
  return db
    .selectFrom("realm_playgrounds")
    .select(COLUMNS)
    .where("realm_id", "=", realmId)
    .where("id", "=", id)
    .executeTakeFirst();
}

export async function playgroundExists(db: Executor, realmId: number, pygmentsLanguage: string, name: string): Promise<boolean> {
  const row = await db
    .selectFrom("realm_playgrounds")
    .select("id")
    .where("realm_id", "=", realmId)
    .where("pygments_language", "=", pygmentsLanguage)
    .where("name", "=", name)
    .executeTakeFirst();
  return row !== undefined;
}

export async function insertPlayground(db: Executor, realmId: number, p: Omit<PlaygroundRow, "id">): Promise<number> {
  const { id } = await db
    .insertInto("realm_playgrounds")
    .values({ realm_id: realmId, ...p })
    .returning("id")
    .executeTakeFirstOrThrow();
  return id;
}

export async function deletePlayground(db: Executor, id: number): Promise<void> {
  await db.deleteFrom("realm_playgrounds").where("id", "=", id).execute();
}

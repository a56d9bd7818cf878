import type { Selectable } from "kysely";
import type { Executor, RealmExportTable } from "./schema.js";
import { isStorableId } from "./ids.js";

export type RealmExportRow = Selectable<RealmExportTable>;

export async function listRealmExports(db: Executor, realmId: number): Promise<RealmExportRow[]> {
  return db.selectFrom("realm_exports").selectAll().where("realm_id", "=", realmId).orderBy("id").execute();
}

export async function getRealmExport(db: Executor, realmId: number, id: number): Promise<RealmExportRow | undefined> {
  if (!isStorableId(id)) return undefined;
  return db.selectFrom("realm_exports").selectAll().where("realm_id", "=", realmId).where("id", "=", id).executeTakeFirst();
}

export async function countRealmExportsSince(db: Executor, realmId: number, since: number): Promise<number> {
  const row = await db
    .selectFrom("realm_exports")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("realm_id", "=", realmId)
    .where("date_requested", ">=", since)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function insertRealmExport(
  db: Executor,
  row: Pick<RealmExportRow, "realm_id" | "acting_user_id" | "type" | "status" | "date_requested">,
): Promise<number> {
  const { id } = await db.insertInto("realm_exports").values(row).returning("id").executeTakeFirstOrThrow();
  return id;
}

export async function updateRealmExport(
  db: Executor,
  id: number,
  changes: Partial<Pick<RealmExportRow, "status" | "date_succeeded" | "date_failed" | "date_deleted" | "path">>,
): Promise<void> {
  await db.updateTable("realm_exports").set(changes).where("id", "=", id).execute();
}

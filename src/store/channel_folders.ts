import { isStorableId } from "./ids.js";
import { sql, type Insertable, type Selectable, type SqlBool } from "kysely";
import { preparedReadWith } from "./prepared.js";
import type { ChannelFolderTable, Executor } from "./schema.js";

export type ChannelFolderRow = Selectable<ChannelFolderTable>;

/** The organization's folders in display order, archived ones only when asked. */
export async function listChannelFolders(db: Executor, realmId: number, includeArchived: boolean): Promise<ChannelFolderRow[]> {
  return folderRows(db, [includeArchived ? [] : [sql<SqlBool>`${sql.ref("is_archived")} = ${sql.lit(0)}`]], realmId);
}

const folderRows = preparedReadWith((db, [only], realmId: number) => {
  let q = db.selectFrom("channel_folders").selectAll().where("realm_id", "=", realmId);
  for (const c of only) q = q.where(c);
  return q.orderBy("order").orderBy("id");
});

export async function getChannelFolder(db: Executor, realmId: number, id: number): Promise<ChannelFolderRow | undefined> {
  if (!isStorableId(id)) return undefined;
  return db.selectFrom("channel_folders").selectAll().where("realm_id", "=", realmId).where("id", "=", id).executeTakeFirst();
}

/** Folder names are unique per organization regardless of case, archived folders included. */
export async function channelFolderNameTaken(db: Executor, realmId: number, name: string): Promise<boolean> {
  // Compared here rather than in SQL: SQLite's lower() folds ASCII letters only.
  const rows = await db.selectFrom("channel_folders").select("name").where("realm_id", "=", realmId).execute();
  return rows.some((r) => r.name.toLowerCase() === name.toLowerCase());
}

/** Creates a folder placed after every existing one (its order is its id, as in Zulip). */
export async function insertChannelFolder(db: Executor, values: Omit<Insertable<ChannelFolderTable>, "order">): Promise<ChannelFolderRow> {
  const { id } = await db.insertInto("channel_folders").values({ ...values, order: 0 }).returning("id").executeTakeFirstOrThrow();
  await db.updateTable("channel_folders").set({ order: id }).where("id", "=", id).execute();
  return (await getChannelFolder(db, values.realm_id, id))!;
}

export async function updateChannelFolder(
  db: Executor,
  id: number,
  changes: Partial<Pick<ChannelFolderRow, "name" | "description" | "rendered_description" | "is_archived" | "order">>,
): Promise<void> {
  await db.updateTable("channel_folders").set(changes).where("id", "=", id).execute();
}

/** Whether any channel, archived or not, is in the folder. */
export async function channelFolderInUse(db: Executor, folderId: number): Promise<boolean> {
  return !!(await db.selectFrom("streams").select("id").where("folder_id", "=", folderId).executeTakeFirst());
}

import type { Selectable, Updateable } from "kysely";
import type { Executor, SavedSnippetTable } from "./schema.js";
import { isStorableId } from "./ids.js";
import { preparedRead } from "./prepared.js";

export type SavedSnippetRow = Selectable<SavedSnippetTable>;

export const listSavedSnippets: (db: Executor, userId: number) => Promise<SavedSnippetRow[]> = preparedRead((db, userId: number) =>
  db.selectFrom("saved_snippets").selectAll().where("user_id", "=", userId).orderBy("id"),
);

/** One of the user's snippets; another user's snippet is not found. */
export async function getOwnSavedSnippet(db: Executor, userId: number, id: number): Promise<SavedSnippetRow | undefined> {
  if (!isStorableId(id)) return undefined;
  return db
    .selectFrom("saved_snippets")
    .selectAll()
    .where("id", "=", id)
    .where("user_id", "=", userId)
    .executeTakeFirst();
}

export async function insertSavedSnippet(
  db: Executor,
  values: Omit<SavedSnippetRow, "id">,
): Promise<SavedSnippetRow> {
  return db.insertInto("saved_snippets").values(values).returningAll().executeTakeFirstOrThrow();
}

export async function updateSavedSnippet(
  db: Executor,
  id: number,
  changes: Updateable<SavedSnippetTable>,
): Promise<SavedSnippetRow> {
  return db.updateTable("saved_snippets").set(changes).where("id", "=", id).returningAll().executeTakeFirstOrThrow();
}

export async function deleteSavedSnippet(db: Executor, id: number): Promise<void> {
  await db.deleteFrom("saved_snippets").where("id", "=", id).execute();
}

import type { Selectable } from "kysely";
import type { Executor, NavigationViewTable } from "./schema.js";
import { preparedRead } from "./prepared.js";

export type NavigationViewRow = Selectable<NavigationViewTable>;

/** The user's views, in the order they were added. */
export const listNavigationViews: (db: Executor, userId: number) => Promise<NavigationViewRow[]> = preparedRead((db, userId: number) =>
  db.selectFrom("navigation_views").selectAll().where("user_id", "=", userId).orderBy("id"),
);

export async function getNavigationView(db: Executor, userId: number, fragment: string): Promise<NavigationViewRow | undefined> {
  return db.selectFrom("navigation_views").selectAll().where("user_id", "=", userId).where("fragment", "=", fragment).executeTakeFirst();
}

export async function navigationViewNameTaken(db: Executor, userId: number, name: string): Promise<boolean> {
  return !!(await db.selectFrom("navigation_views").select("id").where("user_id", "=", userId).where("name", "=", name).executeTakeFirst());
}

export async function insertNavigationView(db: Executor, userId: number, fragment: string, isPinned: boolean, name: string | null) {
  return db
    .insertInto("navigation_views")
    .values({ user_id: userId, fragment, is_pinned: isPinned ? 1 : 0, name })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function updateNavigationView(db: Executor, id: number, changes: { is_pinned?: 0 | 1; name?: string }): Promise<void> {
  await db.updateTable("navigation_views").set(changes).where("id", "=", id).execute();
}

export async function deleteNavigationView(db: Executor, id: number): Promise<void> {
  await db.deleteFrom("navigation_views").where("id", "=", id).execute();
}

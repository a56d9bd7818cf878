import type { Executor } from "./schema.js";
import { isStorableId } from "./ids.js";
import { preparedRead } from "./prepared.js";

export interface LinkifierRow {
  id: number;
  pattern: string;
  url_template: string;
}

/** The organization's linkifiers in the order they apply (ties by id). */
export const listLinkifiers: (db: Executor, realmId: number) => Promise<LinkifierRow[]> = preparedRead((db, realmId: number) =>
  db.selectFrom("realm_linkifiers").select(["id", "pattern", "url_template"]).where("realm_id", "=", realmId).orderBy("order").orderBy("id"),
);

export async function getLinkifier(db: Executor, realmId: number, id: number): Promise<LinkifierRow | undefined> {
  if (!isStorableId(id)) return undefined;
  return db
    .selectFrom("realm_linkifiers")
    .select(["id", "pattern", "url_template"])
    .where("realm_id", "=", realmId)
    .where("id", "=", id)
    .executeTakeFirst();
}

/** Whether another linkifier of the organization (not `exceptId`) has this pattern. */
export async function linkifierPatternTaken(db: Executor, realmId: number, pattern: string, exceptId?: number): Promise<boolean> {
  let q = db.selectFrom("realm_linkifiers").select("id").where("realm_id", "=", realmId).where("pattern", "=", pattern);
  if (exceptId !== undefined) q = q.where("id", "<>", exceptId);
  return (await q.executeTakeFirst()) !== undefined;
}

/** Adds a linkifier after all the organization's others. */
export async function insertLinkifier(db: Executor, realmId: number, pattern: string, urlTemplate: string): Promise<number> {
  const { last } = await db
    .selectFrom("realm_linkifiers")
    .select((eb) => eb.fn.max("order").as("last"))
    .where("realm_id", "=", realmId)
    .executeTakeFirstOrThrow();
  const order = last === null ? 0 : Number(last) + 1;
  const { id } = await db
    .insertInto("realm_linkifiers")
    .values({ realm_id: realmId, pattern, url_template: urlTemplate, order })
    .returning("id")
    .executeTakeFirstOrThrow();
  return id;
}

export async function updateLinkifier(db: Executor, id: number, pattern: string, urlTemplate: string): Promise<void> {
  await db.updateTable("realm_linkifiers").set({ pattern, url_template: urlTemplate }).where("id", "=", id).execute();
}

export async function deleteLinkifier(db: Executor, id: number): Promise<void> {
  await db.deleteFrom("realm_linkifiers").where("id", "=", id).execute();
}

/** Gives each listed linkifier its position in the list as its order. */
export async function setLinkifierOrder(db: Executor, orderedIds: readonly number[]): Promise<void> {
  for (const [order, id] of orderedIds.entries()) {
    await db.updateTable("realm_linkifiers").set({ order }).where("id", "=", id).execute();
  }
}

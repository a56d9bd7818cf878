import { sql, type Selectable } from "kysely";
import type { Executor, UserTable } from "./schema.js";

export type UserRow = Selectable<UserTable>;

export async function getUserByApiKey(db: Executor, apiKey: string): Promise<UserRow | undefined> {
  return db.selectFrom("users").selectAll().where("api_key", "=", apiKey).executeTakeFirst();
}

export async function getUserById(db: Executor, realmId: number, id: number): Promise<UserRow | undefined> {
  return db.selectFrom("users").selectAll().where("realm_id", "=", realmId).where("id", "=", id).executeTakeFirst();
}

/** Email addresses are matched case-insensitively, as Zulip does. */
export async function getUserByDeliveryEmail(db: Executor, realmId: number, email: string): Promise<UserRow | undefined> {
  return db
    .selectFrom("users")
    .selectAll()
    .where("realm_id", "=", realmId)
    .where(sql<string>`lower(delivery_email)`, "=", email.trim().toLowerCase())
    .executeTakeFirst();
}

/** Looks a user up by the real address or, failing that, by the API `email` field. */
export async function getUserByAnyEmail(db: Executor, realmId: number, email: string): Promise<UserRow | undefined> {
  return (await getUserByDeliveryEmail(db, realmId, email)) ?? (await getUserByApiEmail(db, realmId, email));
}

export async function listUsers(db: Executor, realmId: number): Promise<UserRow[]> {
  return db.selectFrom("users").selectAll().where("realm_id", "=", realmId).orderBy("id").execute();
}

/** Looks a user up by the API `email` field only (which may be a placeholder address). */
export async function getUserByApiEmail(db: Executor, realmId: number, email: string): Promise<UserRow | undefined> {
  return db
    .selectFrom("users")
    .selectAll()
    .where("realm_id", "=", realmId)
    .where(sql<string>`lower(email)`, "=", email.trim().toLowerCase())
    .executeTakeFirst();
}

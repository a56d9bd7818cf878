import type { Executor } from "./schema.js";

export interface NewWebSession {
  key_hash: string;
  user_id: number;
  csrf_token: string;
  created_at: number;
  expires_at: number;
}

export async function insertWebSession(db: Executor, row: NewWebSession): Promise<void> {
  await db.insertInto("web_sessions").values(row).execute();
}

/** The session and its user's API key, which names the user's cached credentials. */
export async function findWebSession(db: Executor, keyHash: string, now: number) {
  return db
    .selectFrom("web_sessions")
    .innerJoin("users", "users.id", "web_sessions.user_id")
    .select(["web_sessions.user_id", "web_sessions.csrf_token", "users.api_key"])
    .where("web_sessions.key_hash", "=", keyHash)
    .where("web_sessions.expires_at", ">", now)
    .executeTakeFirst();
}

export async function deleteWebSession(db: Executor, keyHash: string): Promise<void> {
  await db.deleteFrom("web_sessions").where("key_hash", "=", keyHash).execute();
}

/** Expired sessions of one user go when that user signs in again, so the table stays small without a sweeper. */
export async function deleteExpiredWebSessions(db: Executor, userId: number, now: number): Promise<void> {
  await db.deleteFrom("web_sessions").where("user_id", "=", userId).where("expires_at", "<=", now).execute();
}

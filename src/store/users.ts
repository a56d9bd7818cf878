import { sql, type Selectable } from "kysely";
import type { Executor, UserTable } from "./schema.js";
import { isStorableId } from "./ids.js";
import { isPrivate } from "./message_flags.js";
import { preparedRead } from "./prepared.js";

export type UserRow = Selectable<UserTable>;

export async function getUserByApiKey(db: Executor, apiKey: string): Promise<UserRow | undefined> {
  return db.selectFrom("users").selectAll().where("api_key", "=", apiKey).executeTakeFirst();
}

export async function getUserById(db: Executor, realmId: number, id: number): Promise<UserRow | undefined> {
  if (!isStorableId(id)) return undefined;
  return db.selectFrom("users").selectAll().where("realm_id", "=", realmId).where("id", "=", id).executeTakeFirst();
}

/** One of the organization's system bots (Notification Bot, Welcome Bot…), by its address. */
export async function getSystemBot(db: Executor, realmId: number, email: string): Promise<UserRow> {
  return db
    .selectFrom("users")
    .selectAll()
    .where("realm_id", "=", realmId)
    .where("is_system_bot", "=", 1)
    .where("email", "=", email)
    .executeTakeFirstOrThrow();
}

/** The system bot that sends the organization's notices. */
export const getNotificationBot = (db: Executor, realmId: number) => getSystemBot(db, realmId, "notification-bot@zulip.com");

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

/**
 * The organization's users as the API lists them: everyone but the system bots, which Zulip
 * keeps in an organization of their own. Deactivated users and bots are included.
 */
export async function listRealmUsers(db: Executor, realmId: number, userIds?: number[]): Promise<UserRow[]> {
  if (userIds && !userIds.length) return [];
  let q = db.selectFrom("users").selectAll().where("realm_id", "=", realmId).where("is_system_bot", "=", 0);
  if (userIds) q = q.where("id", "in", userIds);
  return q.orderBy("id").execute();
}

export async function getRealmUser(db: Executor, realmId: number, id: number): Promise<UserRow | undefined> {
  if (!isStorableId(id)) return undefined;
  return db
    .selectFrom("users")
    .selectAll()
    .where("realm_id", "=", realmId)
    .where("id", "=", id)
    .where("is_system_bot", "=", 0)
    .executeTakeFirst();
}

/** Active users of the organization (bots and guests included): the audience of organization-wide events. */
export async function activeRealmUsers(db: Executor, realmId: number): Promise<UserRow[]> {
  return db
    .selectFrom("users")
    .selectAll()
    .where("realm_id", "=", realmId)
    .where("is_system_bot", "=", 0)
    .where("is_active", "=", 1)
    .orderBy("id")
    .execute();
}

/** Which of `userIds` are active users of the organization. */
export async function activeRealmUserIdsAmong(db: Executor, realmId: number, userIds: number[]): Promise<number[]> {
  if (!userIds.length) return [];
  const rows = await db
    .selectFrom("users")
    .select("id")
    .where("realm_id", "=", realmId)
    .where("id", "in", userIds)
    .where("is_active", "=", 1)
    .where("is_system_bot", "=", 0)
    .execute();
  return rows.map((r) => r.id);
}

export async function activeRealmUserIds(db: Executor, realmId: number): Promise<number[]> {
  return (await activeRealmUsers(db, realmId)).map((u) => u.id);
}

/** The id of the newest message the user has received, or -1. */
const maxMessageIdQuery = preparedRead((db, userId: number) =>
  db
    .selectFrom("user_messages")
    .select((eb) => eb.fn.max("message_id").as("max_id"))
    .where("user_id", "=", userId),
);

export async function maxMessageIdForUser(db: Executor, userId: number): Promise<number> {
  const [row] = await maxMessageIdQuery(db, userId);
  return row?.max_id == null ? -1 : Number(row.max_id);
}

/** Sets one key of the user's JSON settings. */
export async function setUserProp(db: Executor, userId: number, key: string, value: unknown): Promise<void> {
  const row = await db.selectFrom("users").select("props").where("id", "=", userId).executeTakeFirstOrThrow();
  const props = { ...JSON.parse(row.props), [key]: value };
  await db.updateTable("users").set({ props: JSON.stringify(props) }).where("id", "=", userId).execute();
}

/**
 * Users a guest shares something with: themselves, everyone subscribed to a channel they are
 * subscribed to, and everyone in a direct-message conversation they received.
 */
export async function usersSharingWith(db: Executor, userId: number): Promise<Set<number>> {
  const out = new Set<number>([userId]);
  const peers = await db
    .selectFrom("subscriptions as mine")
    .innerJoin("subscriptions as theirs", "theirs.stream_id", "mine.stream_id")
    .select("theirs.user_id")
    .distinct()
    .where("mine.user_id", "=", userId)
    .where("mine.active", "=", 1)
    .where("theirs.active", "=", 1)
    .execute();
  for (const p of peers) out.add(p.user_id);
  for (const id of await directMessagePeerIds(db, userId)) out.add(id);
  return out;
}

/** Everyone in a direct-message conversation (one-on-one or group) the user received, the user included. */
export async function directMessagePeerIds(db: Executor, userId: number): Promise<Set<number>> {
  const conversations = await db
    .selectFrom("user_messages")
    .innerJoin("messages", "messages.id", "user_messages.message_id")
    .select("messages.dm_key")
    .distinct()
    .where("user_messages.user_id", "=", userId)
    .where(isPrivate())
    .execute();
  return new Set(conversations.flatMap((c) => c.dm_key!.split(",").map(Number)));
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

export type UserChanges = Partial<Pick<UserRow, "full_name" | "role" | "email" | "delivery_email" | "is_active" | "password_hash" | "timezone">>;

export async function updateUser(db: Executor, userId: number, changes: UserChanges): Promise<void> {
  await db.updateTable("users").set(changes).where("id", "=", userId).execute();
}

/** Active human owners of the organization. */
export async function activeHumanOwnerIds(db: Executor, realmId: number): Promise<number[]> {
  const rows = await db
    .selectFrom("users")
    .select("id")
    .where("realm_id", "=", realmId)
    .where("role", "=", 100)
    .where("is_active", "=", 1)
    .where("is_bot", "=", 0)
    .execute();
  return rows.map((r) => r.id);
}

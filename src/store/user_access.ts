/**
 * Which users a user can access. Members of the organization's `can_access_all_users_group`
 * see everyone; others (guests, when the organization limits them) see only themselves, bots,
 * and people they share a channel or a direct message conversation with.
 */
import type { Executor } from "./schema.js";
import type { Realm } from "./realms.js";
import { isUserInGroup, recursiveMemberIds } from "./groups.js";
import { usersSharingWith } from "./users.js";

export async function canAccessAllUsers(db: Executor, realm: Realm, userId: number): Promise<boolean> {
  return isUserInGroup(db, realm.id, userId, realm.groupSettings.can_access_all_users_group);
}

/** Everyone `viewer` can access, when they cannot access all users. */
export async function accessibleUserIds(db: Executor, realm: Realm, viewerId: number): Promise<Set<number>> {
  const accessible = await usersSharingWith(db, viewerId);
  accessible.add(viewerId);
  const bots = await db.selectFrom("users").select("id").where("realm_id", "=", realm.id).where("is_bot", "=", 1).execute();
  for (const b of bots) accessible.add(b.id);
  return accessible;
}

/** The active users who can access `target`. */
export async function userIdsWhoCanAccess(db: Executor, realm: Realm, target: { id: number; is_bot: number }): Promise<number[]> {
  const active = await db
    .selectFrom("users")
    .select("id")
    .where("realm_id", "=", realm.id)
    .where("is_active", "=", 1)
    .where("is_system_bot", "=", 0)
    .orderBy("id")
    .execute();
  if (target.is_bot === 1) return active.map((u) => u.id);
  const everyone = new Set(await recursiveMemberIds(db, realm.id, realm.groupSettings.can_access_all_users_group));
  const peers = await usersSharingWith(db, target.id);
  return active.map((u) => u.id).filter((id) => id === target.id || everyone.has(id) || peers.has(id));
}

export async function canAccessUser(db: Executor, realm: Realm, viewerId: number, targetId: number): Promise<boolean> {
  return (await canAccessAllUsers(db, realm, viewerId)) || (await accessibleUserIds(db, realm, viewerId)).has(targetId);
}

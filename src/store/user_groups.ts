import type { Selectable } from "kysely";
import type { Executor, UserGroupTable } from "./schema.js";

export type UserGroupRow = Selectable<UserGroupTable>;

/** A named (non-anonymous) group of the organization, deactivated ones included. */
export async function getNamedGroup(db: Executor, realmId: number, groupId: number): Promise<UserGroupRow | undefined> {
  return db
    .selectFrom("user_groups")
    .selectAll()
    .where("realm_id", "=", realmId)
    .where("id", "=", groupId)
    .where("name", "is not", null)
    .executeTakeFirst();
}

export async function getNamedGroups(db: Executor, realmId: number, groupIds: number[]): Promise<UserGroupRow[]> {
  if (!groupIds.length) return [];
  return db
    .selectFrom("user_groups")
    .selectAll()
    .where("realm_id", "=", realmId)
    .where("id", "in", groupIds)
    .where("name", "is not", null)
    .execute();
}

/** Group names are unique per organization, compared exactly, whatever the group's state. */
export async function namedGroupExists(db: Executor, realmId: number, name: string): Promise<boolean> {
  const row = await db
    .selectFrom("user_groups")
    .select("id")
    .where("realm_id", "=", realmId)
    .where("name", "=", name)
    .executeTakeFirst();
  return !!row;
}

export async function listNamedGroups(db: Executor, realmId: number, includeDeactivated: boolean): Promise<UserGroupRow[]> {
  let q = db.selectFrom("user_groups").selectAll().where("realm_id", "=", realmId).where("name", "is not", null);
  if (!includeDeactivated) q = q.where("deactivated", "=", 0);
  return q.orderBy("id").execute();
}

export interface GroupMembership {
  /** Active direct members, sorted. */
  members: number[];
  /** Direct subgroups, sorted. */
  subgroups: number[];
}

/** What the API's view of named groups is read from: their rows, memberships, and who is active. */
export const USER_GROUP_TABLES = ["user_groups", "user_group_members", "user_group_subgroups", "users"] as const;

/**
 * Active direct members and direct subgroups of each group. The system bots are left out: in
 * Zulip they belong to an organization of their own.
 */
export async function directMemberships(db: Executor, groupIds: number[]): Promise<Map<number, GroupMembership>> {
  const out = new Map<number, GroupMembership>(groupIds.map((id) => [id, { members: [], subgroups: [] }]));
  if (!groupIds.length) return out;
  const members = await db
    .selectFrom("user_group_members")
    .innerJoin("users", "users.id", "user_group_members.user_id")
    .select(["user_group_members.group_id", "user_group_members.user_id"])
    .where("user_group_members.group_id", "in", groupIds)
    .where("users.is_active", "=", 1)
    .where("users.is_system_bot", "=", 0)
    // The primary key's order: each group's members come sorted without sorting every membership.
    .orderBy("user_group_members.group_id")
    .orderBy("user_group_members.user_id")
    .execute();
  for (const m of members) out.get(m.group_id)!.members.push(m.user_id);
  const subgroups = await db
    .selectFrom("user_group_subgroups")
    .select(["group_id", "subgroup_id"])
    .where("group_id", "in", groupIds)
    .orderBy("subgroup_id")
    .execute();
  for (const s of subgroups) out.get(s.group_id)!.subgroups.push(s.subgroup_id);
  return out;
}

/** Replaces an anonymous group's direct members and subgroups. */
export async function replaceGroupMembership(
  db: Executor,
  groupId: number,
  members: number[],
  subgroups: number[],
): Promise<void> {
  await db.deleteFrom("user_group_members").where("group_id", "=", groupId).execute();
  await db.deleteFrom("user_group_subgroups").where("group_id", "=", groupId).execute();
  if (members.length) {
    await db.insertInto("user_group_members").values([...new Set(members)].map((user_id) => ({ group_id: groupId, user_id }))).execute();
  }
  if (subgroups.length) {
    await db
      .insertInto("user_group_subgroups")
      .values([...new Set(subgroups)].map((subgroup_id) => ({ group_id: groupId, subgroup_id })))
      .execute();
  }
}

export async function systemBotIds(db: Executor, realmId: number): Promise<Set<number>> {
  const rows = await db.selectFrom("users").select("id").where("realm_id", "=", realmId).where("is_system_bot", "=", 1).execute();
  return new Set(rows.map((r) => r.id));
}

export type NamedGroupChanges = Partial<Pick<UserGroupRow, "name" | "description" | "deactivated" | "group_settings">>;

export async function updateNamedGroup(db: Executor, groupId: number, changes: NamedGroupChanges): Promise<void> {
  await db.updateTable("user_groups").set(changes).where("id", "=", groupId).execute();
}

export async function removeGroupMembers(db: Executor, groupId: number, userIds: number[]): Promise<void> {
  if (!userIds.length) return;
  await db.deleteFrom("user_group_members").where("group_id", "=", groupId).where("user_id", "in", userIds).execute();
}

export async function removeSubgroups(db: Executor, groupId: number, subgroupIds: number[]): Promise<void> {
  if (!subgroupIds.length) return;
  await db.deleteFrom("user_group_subgroups").where("group_id", "=", groupId).where("subgroup_id", "in", subgroupIds).execute();
}

/** Groups that have `groupId` as a direct subgroup, named or anonymous. */
export async function directSupergroups(db: Executor, groupId: number): Promise<{ id: number; name: string | null; deactivated: number }[]> {
  return db
    .selectFrom("user_group_subgroups")
    .innerJoin("user_groups", "user_groups.id", "user_group_subgroups.group_id")
    .select(["user_groups.id", "user_groups.name", "user_groups.deactivated"])
    .where("user_group_subgroups.subgroup_id", "=", groupId)
    .orderBy("user_groups.id")
    .execute();
}

import type { Executor } from "./schema.js";
import { groupsContaining, subgroupClosure, type SubgroupEdge } from "../domain/group_membership.js";
import { directMemberships } from "./user_groups.js";
import type { GroupDescription } from "../format/group_setting.js";
import { idList, preparedRead } from "./prepared.js";

export const subgroupEdges: (db: Executor, realmId: number) => Promise<SubgroupEdge[]> = preparedRead((db, realmId: number) =>
  db
    .selectFrom("user_group_subgroups")
    .innerJoin("user_groups", "user_groups.id", "user_group_subgroups.group_id")
    .select(["user_group_subgroups.group_id", "user_group_subgroups.subgroup_id"])
    .where("user_groups.realm_id", "=", realmId),
);

const directGroupIds = preparedRead((db, userId: number) => db.selectFrom("user_group_members").select("group_id").where("user_id", "=", userId));

const systemGroupRows = preparedRead((db, realmId: number) =>
  db.selectFrom("user_groups").select(["id", "name"]).where("realm_id", "=", realmId).where("is_system_group", "=", 1),
);

export async function systemGroupIds(db: Executor, realmId: number): Promise<Map<string, number>> {
  const rows = await systemGroupRows(db, realmId);
  return new Map(rows.map((r) => [r.name!, r.id]));
}

/** Every group the user belongs to, directly or through nested subgroups. */
export async function groupsOfUser(db: Executor, realmId: number, userId: number): Promise<Set<number>> {
  const direct = await directGroupIds(db, userId);
  return groupsContaining(
    direct.map((d) => d.group_id),
    await subgroupEdges(db, realmId),
  );
}

export async function isUserInGroup(db: Executor, realmId: number, userId: number, groupId: number): Promise<boolean> {
  return (await groupsOfUser(db, realmId, userId)).has(groupId);
}

/** Active users in the group, including members of nested subgroups. */
export async function recursiveMemberIds(db: Executor, realmId: number, groupId: number): Promise<number[]> {
  const groups = [...subgroupClosure(groupId, await subgroupEdges(db, realmId))];
  const rows = await db
    .selectFrom("user_group_members")
    .innerJoin("users", "users.id", "user_group_members.user_id")
    .select("users.id")
    .distinct()
    .where("user_group_members.group_id", "in", groups)
    .where("users.is_active", "=", 1)
    .orderBy("users.id")
    .execute();
  return rows.map((r) => r.id);
}

export async function addGroupMembers(db: Executor, groupId: number, userIds: number[]): Promise<void> {
  if (!userIds.length) return;
  await db
    .insertInto("user_group_members")
    .values(userIds.map((user_id) => ({ group_id: groupId, user_id })))
    .onConflict((oc) => oc.doNothing())
    .execute();
}

export async function addSubgroups(db: Executor, groupId: number, subgroupIds: number[]): Promise<void> {
  if (!subgroupIds.length) return;
  await db
    .insertInto("user_group_subgroups")
    .values(subgroupIds.map((subgroup_id) => ({ group_id: groupId, subgroup_id })))
    .onConflict((oc) => oc.doNothing())
    .execute();
}

/** Creates the unnamed group that holds an anonymous group-setting value. */
export async function createAnonymousGroup(
  db: Executor,
  realmId: number,
  members: number[],
  subgroups: number[],
): Promise<number> {
  const { id } = await db
    .insertInto("user_groups")
    .values({ realm_id: realmId, name: null, description: "", is_system_group: 0, deactivated: 0, group_settings: "{}" })
    .returning("id")
    .executeTakeFirstOrThrow();
  await addGroupMembers(db, id, members);
  await addSubgroups(db, id, subgroups);
  return id;
}

const groupNames = preparedRead((db, ids: readonly number[]) =>
  db.selectFrom("user_groups").select(["id", "name", "is_system_group"]).where("id", "in", idList(db, ids)),
);

/** Name, active direct members and direct subgroups of each group, for showing setting values. */
export async function describeGroups(db: Executor, groupIds: readonly number[]): Promise<GroupDescription[]> {
  const ids = [...new Set(groupIds)];
  if (!ids.length) return [];
  const groups = await groupNames(db, ids);
  const memberships = await directMemberships(
    db,
    groups.filter((g) => g.name === null).map((g) => g.id),
  );
  return groups.map((g) => ({
    id: g.id,
    name: g.name,
    isSystem: g.is_system_group === 1,
    directMembers: memberships.get(g.id)?.members ?? [],
    directSubgroups: memberships.get(g.id)?.subgroups ?? [],
  }));
}

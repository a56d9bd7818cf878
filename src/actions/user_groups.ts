import type { AppContext } from "../context.js";
import { unlessTaken } from "../store/unique.js";
import type { Caller } from "../http/auth.js";
import type { Realm } from "../store/realms.js";
import { runAction, type PendingEvents, type Tx } from "./run.js";
import { ZulipError, badRequest, cannotDeactivateGroupInUse } from "../http/errors.js";
import {
  addGroupMembers,
  addSubgroups,
  createAnonymousGroup,
  groupsOfUser,
  isUserInGroup,
  recursiveMemberIds,
  subgroupEdges,
  systemGroupIds,
} from "../store/groups.js";
import { activeRealmUserIds, getNotificationBot, getRealmUser } from "../store/users.js";
import {
  directMemberships,
  directSupergroups,
  getNamedGroup,
  getNamedGroups,
  listNamedGroups,
  namedGroupExists,
  removeGroupMembers,
  removeSubgroups,
  systemBotIds,
  updateNamedGroup,
  type UserGroupRow,
} from "../store/user_groups.js";
import { CHANNEL_GROUP_SETTINGS } from "../store/schema.js";
import { formatUserGroups } from "../format/user_groups.js";
import { checkUserGroupName } from "../domain/user_groups.js";
import { subgroupClosure, wouldCreateCycle } from "../domain/group_membership.js";
import { REALM_PERMISSION_SETTINGS } from "../domain/permission_settings.js";
import {
  USER_GROUP_PERMISSION_SETTINGS,
  USER_GROUP_SETTINGS,
  firstMissing,
  hasGroupPermission,
  permissionConfigOf,
  userGroupDeactivated,
  type GroupSettingChange,
  type GroupSettingValue,
  type UserGroupSetting,
} from "../domain/group_setting_value.js";
import {
  applyGroupSettingChange,
  checkActiveUserIds,
  invalidUserGroup,
  normalizeForRealm,
  resolveGroupSettingValue,
} from "./group_settings.js";
import { announceChannelAudienceChanges, channelAudiencesForGroups } from "./channel_visibility.js";
import { sendMessageInTx } from "./messages.js";
import { accessUserById } from "./users.js";

/** Zulip's can_create_user_groups: membership of the organization's can_create_groups group. */
export async function checkCanCreateUserGroups(app: AppContext, caller: Caller): Promise<void> {
  const groupId = caller.realm.groupSettings.can_create_groups;
  if (!(await isUserInGroup(app.db, caller.realm.id, caller.user.id, groupId))) {
    throw badRequest("Insufficient permission");
  }
}

export interface NewUserGroup {
  name: string;
  description: string;
  memberIds: number[];
  creatorId: number | null;
  /** Settings already resolved to group ids; the rest get Zulip's defaults for new groups. */
  settings?: Partial<Record<UserGroupSetting, number>>;
}

/**
 * Inserts a named group with its members and every permission setting filled in. Callers
 * validate; a group with no creator gets role:nobody where the default is "its creator".
 */
export async function createUserGroupInTx(tx: Tx, app: AppContext, realm: Realm, input: NewUserGroup): Promise<number> {
  const system = await systemGroupIds(tx, realm.id);
  const settings: Record<string, number> = {};
  for (const name of USER_GROUP_SETTINGS) {
    const given = input.settings?.[name];
    const fallback = USER_GROUP_PERMISSION_SETTINGS[name].defaultValue;
    if (given !== undefined) settings[name] = given;
    else if (fallback !== "group_creator") settings[name] = system.get(fallback)!;
    else if (input.creatorId !== null) settings[name] = await createAnonymousGroup(tx, realm.id, [input.creatorId], []);
    else settings[name] = system.get("role:nobody")!;
  }
  const insert = tx
    .insertInto("user_groups")
    .values({
      realm_id: realm.id,
      name: input.name,
      description: input.description,
      is_system_group: 0,
      date_created: Math.floor(app.clock.now()),
      creator_id: input.creatorId,
      deactivated: 0,
      group_settings: JSON.stringify(settings),
    })
    .returning("id")
    .executeTakeFirstOrThrow();
  const { id } = await unlessTaken(insert, () => groupExists(input.name));
  await addGroupMembers(tx, id, input.memberIds);
  return id;
}

/**
 * The `user_group` add event, sent to every active user of the organization. A reactivated
 * group is announced this way to the clients that dropped it when it was deactivated.
 */
async function sendGroupCreated(tx: Tx, events: PendingEvents, realm: Realm, groupId: number, forReactivation = false): Promise<void> {
  const [group] = await formatUserGroups(tx, [(await getNamedGroup(tx, realm.id, groupId))!]);
  const { id, name, creator_id, date_created, members, description, is_system_group, direct_subgroup_ids, deactivated, ...settings } =
    group;
  events.send({
    realmId: realm.id,
    event: {
      type: "user_group",
      op: "add",
      group: { name, creator_id, date_created, members, description, id, is_system_group, direct_subgroup_ids, ...settings, deactivated },
      ...(forReactivation ? { for_reactivation: true } : {}),
    },
    userIds: await activeRealmUserIds(tx, realm.id),
  });
}

export interface CreateUserGroupRequest {
  name: string;
  description: string;
  members: number[];
  subgroups?: number[];
  settings: Partial<Record<UserGroupSetting, GroupSettingValue>>;
}

/** POST /user_groups/create, checked in Zulip's order; returns the new group's id. */
export async function doCreateUserGroup(app: AppContext, caller: Caller, req: CreateUserGroupRequest): Promise<number> {
  const realm = caller.realm;
  return runAction(app, async (tx, events) => {
    const memberIds = await checkActiveUserIds(tx, realm, req.members);
    const name = checkUserGroupName(req.name);
    const settings: Partial<Record<UserGroupSetting, number>> = {};
    for (const setting of USER_GROUP_SETTINGS) {
      const value = req.settings[setting];
      if (value === undefined) continue;
      const normalized = await normalizeForRealm(tx, realm.id, value);
      settings[setting] = await resolveGroupSettingValue(tx, realm, setting, normalized, USER_GROUP_PERMISSION_SETTINGS[setting]);
    }
    if (await namedGroupExists(tx, realm.id, name)) throw groupExists(name);
    const groupId = await createUserGroupInTx(tx, app, realm, {
      name,
      description: req.description,
      memberIds,
      creatorId: caller.user.id,
      settings,
    });
    await sendGroupCreated(tx, events, realm, groupId);

    if (req.subgroups?.length) {
      const subgroups = await getNamedGroups(tx, realm.id, req.subgroups);
      const missing = firstMissing(req.subgroups, subgroups.map((g) => g.id));
      if (missing !== undefined) throw badRequest(`Invalid user group ID: ${missing}`);
      if (subgroups.some((g) => g.deactivated === 1)) throw userGroupDeactivated();
      const ids = subgroups.map((g) => g.id).sort((a, b) => a - b);
      await addSubgroups(tx, groupId, ids);
      events.send({
        realmId: realm.id,
        event: { type: "user_group", op: "add_subgroups", group_id: groupId, direct_subgroup_ids: ids },
        userIds: await activeRealmUserIds(tx, realm.id),
      });
    }
    return groupId;
  });
}

/**
 * An organization's named groups as the API shows them (GET /user_groups, every POST /register),
 * from memory until groups, memberships or users change: system groups list every member, so a
 * large organization's list is costly to read. Shared, so frozen.
 */
export async function listUserGroups(app: AppContext, realmId: number, includeDeactivated: boolean): Promise<readonly Record<string, unknown>[]> {
  const groups = await app.caches.userGroups.get(`${realmId}:${includeDeactivated}`, app.db, async () =>
    Object.freeze((await formatUserGroups(app.db, await listNamedGroups(app.db, realmId, includeDeactivated))).map(deepFreeze)),
  );
  return groups!;
}

function deepFreeze<T extends object>(value: T): T {
  for (const v of Object.values(value)) if (v && typeof v === "object") deepFreeze(v);
  return Object.freeze(value);
}

/** GET /user_groups/{id}/members: active members, direct or through subgroups. */
export async function userGroupMemberIds(app: AppContext, caller: Caller, groupId: number, directOnly: boolean): Promise<number[]> {
  await accessGroupToRead(app, caller, groupId);
  if (directOnly) return (await directMemberships(app.db, [groupId])).get(groupId)!.members;
  const systemBots = await systemBotIds(app.db, caller.realm.id);
  return (await recursiveMemberIds(app.db, caller.realm.id, groupId)).filter((id) => !systemBots.has(id));
}

const insufficientPermission = () => badRequest("Insufficient permission");
const groupExists = (name: string) => badRequest(`User group '${name}' already exists.`);

/** The permission a change to a group needs, besides managing the group. */
export type GroupAccessPermission =
  | "can_manage_group"
  | "can_add_members_group"
  | "can_join_group"
  | "can_leave_group"
  | "can_remove_members_group";

const settingsOf = (group: UserGroupRow) => JSON.parse(group.group_settings) as Record<UserGroupSetting, number>;

/**
 * Zulip's access_user_group_for_update: never a system group; organization-wide group managers
 * and the group's managers may do anything, others need the permission the change asks for.
 */
async function accessUserGroupForUpdate(
  tx: Tx,
  caller: Caller,
  groupId: number,
  permission: GroupAccessPermission,
  allowDeactivated: boolean,
): Promise<UserGroupRow> {
  const { realm, user } = caller;
  const group = await getNamedGroup(tx, realm.id, groupId);
  if (!group) throw invalidUserGroup();
  if (!allowDeactivated && group.deactivated === 1) throw userGroupDeactivated();
  if (group.is_system_group === 1) throw insufficientPermission();
  const mine = await groupsOfUser(tx, realm.id, user.id);
  const settings = settingsOf(group);
  const manageAll = permissionConfigOf(REALM_PERMISSION_SETTINGS.can_manage_all_groups);
  if (hasGroupPermission(user, mine, realm.groupSettings.can_manage_all_groups, manageAll)) return group;
  if (hasGroupPermission(user, mine, settings.can_manage_group, USER_GROUP_PERMISSION_SETTINGS.can_manage_group)) return group;
  if (permission !== "can_manage_group" && hasGroupPermission(user, mine, settings[permission], USER_GROUP_PERMISSION_SETTINGS[permission])) {
    return group;
  }
  throw insufficientPermission();
}

/** `user_group` update; a rename also says (internally) whether the group is deactivated, for the queues. */
async function sendGroupUpdate(tx: Tx, events: PendingEvents, realm: Realm, group: UserGroupRow, data: Record<string, unknown>) {
  const event: Record<string, unknown> = { type: "user_group", op: "update", group_id: group.id, data };
  if ("name" in data) event.deactivated = group.deactivated === 1;
  events.send({ realmId: realm.id, event, userIds: await activeRealmUserIds(tx, realm.id) });
}

export interface UpdateUserGroupRequest {
  name?: string;
  description?: string;
  deactivated?: boolean;
  settings: Partial<Record<UserGroupSetting, GroupSettingChange>>;
}

/** PATCH /user_groups/{id}: every change in Zulip's order, in one transaction. */
export async function doUpdateUserGroup(app: AppContext, caller: Caller, groupId: number, req: UpdateUserGroupRequest): Promise<void> {
  const { realm } = caller;
  const given = [req.name, req.description, req.deactivated, ...USER_GROUP_SETTINGS.map((s) => req.settings[s])];
  if (given.every((v) => v === undefined)) throw badRequest("No new data supplied");
  await runAction(app, async (tx, events) => {
    let group = await accessUserGroupForUpdate(tx, caller, groupId, "can_manage_group", true);
    if (req.name !== undefined && req.name !== group.name) {
      const name = checkUserGroupName(req.name);
      if (await namedGroupExists(tx, realm.id, name)) throw groupExists(name);
      await unlessTaken(updateNamedGroup(tx, groupId, { name }), () => groupExists(name));
      group = { ...group, name };
      await sendGroupUpdate(tx, events, realm, group, { name });
    }
    if (req.description !== undefined && req.description !== group.description) {
      await updateNamedGroup(tx, groupId, { description: req.description });
      group = { ...group, description: req.description };
      await sendGroupUpdate(tx, events, realm, group, { description: req.description });
    }
    if (req.deactivated === false && group.deactivated === 1) {
      await updateNamedGroup(tx, groupId, { deactivated: 0 });
      group = { ...group, deactivated: 0 };
      await sendGroupUpdate(tx, events, realm, group, { deactivated: false });
      await sendGroupCreated(tx, events, realm, groupId, true);
    }
    const settings = settingsOf(group);
    for (const setting of USER_GROUP_SETTINGS) {
      const change = req.settings[setting];
      if (change === undefined) continue;
      const config = USER_GROUP_PERMISSION_SETTINGS[setting];
      const result = await applyGroupSettingChange(tx, realm, setting, change, config, settings[setting]);
      if (!result) continue;
      settings[setting] = result.groupId;
      await updateNamedGroup(tx, groupId, { group_settings: JSON.stringify(settings) });
      await sendGroupUpdate(tx, events, realm, group, { [setting]: result.value });
    }
  });
}

/**
 * Everything that still uses the group: active supergroups, and settings of unarchived
 * channels, active groups and the organization that name it directly or inside an anonymous value.
 */
async function groupObjections(tx: Tx, realm: Realm, groupId: number): Promise<Record<string, unknown>[]> {
  const objections: Record<string, unknown>[] = [];
  const supergroups = await directSupergroups(tx, groupId);
  const activeNamed = supergroups.filter((g) => g.name !== null && g.deactivated === 0).map((g) => g.id);
  if (activeNamed.length) objections.push({ type: "subgroup", supergroup_ids: activeNamed });
  const using = new Set([groupId, ...supergroups.filter((g) => g.name === null).map((g) => g.id)]);

  const streams = await tx.selectFrom("streams").selectAll().where("realm_id", "=", realm.id).where("is_archived", "=", 0).orderBy("id").execute();
  for (const stream of streams) {
    const settings = CHANNEL_GROUP_SETTINGS.filter((s) => using.has(stream[s]));
    if (settings.length) objections.push({ type: "channel", channel_id: stream.id, settings });
  }
  for (const group of await listNamedGroups(tx, realm.id, false)) {
    const values = settingsOf(group);
    const settings = USER_GROUP_SETTINGS.filter((s) => using.has(values[s]));
    if (settings.length) objections.push({ type: "user_group", group_id: group.id, settings });
  }
  const realmSettings = Object.keys(REALM_PERMISSION_SETTINGS).filter((s) => using.has(realm.groupSettings[s]));
  if (realmSettings.length) objections.push({ type: "realm", settings: realmSettings });
  return objections;
}

/** POST /user_groups/{id}/deactivate: only a group nothing uses any more. */
export async function doDeactivateUserGroup(app: AppContext, caller: Caller, groupId: number): Promise<void> {
  await runAction(app, async (tx, events) => {
    const group = await accessUserGroupForUpdate(tx, caller, groupId, "can_manage_group", false);
    const objections = await groupObjections(tx, caller.realm, groupId);
    if (objections.length) throw cannotDeactivateGroupInUse(objections);
    await updateNamedGroup(tx, groupId, { deactivated: 1 });
    await sendGroupUpdate(tx, events, caller.realm, { ...group, deactivated: 1 }, { deactivated: true });
    events.send({
      realmId: caller.realm.id,
      event: { type: "user_group", op: "remove", group_id: groupId },
      userIds: await activeRealmUserIds(tx, caller.realm.id),
    });
  });
}

/** Notification Bot tells users someone else added them to or removed them from the group. */
async function notifyMembershipChange(
  tx: Tx,
  app: AppContext,
  events: PendingEvents,
  caller: Caller,
  group: UserGroupRow,
  userIds: number[],
  verb: "added you to" | "removed you from",
): Promise<void> {
  const bot = await getNotificationBot(tx, caller.realm.id);
  const actor = caller.user;
  for (const userId of userIds) {
    const user = (await getRealmUser(tx, caller.realm.id, userId))!;
    if (user.id === actor.id || user.is_bot === 1) continue;
    const content = `@_**${actor.full_name}|${actor.id}** ${verb} the group @_*${group.name}*.`;
    await sendMessageInTx(tx, app, events, caller.realm, bot, { kind: "direct", recipients: [user] }, content, {
      clientName: "Internal",
      readBySender: false,
    });
  }
}

/** Accesses the group to change members: joining or leaving oneself needs less than changing others. */
async function accessForMembership(tx: Tx, caller: Caller, groupId: number, userIds: number[], self: GroupAccessPermission, others: GroupAccessPermission) {
  if (userIds.length === 1 && userIds[0] === caller.user.id) {
    try {
      return await accessUserGroupForUpdate(tx, caller, groupId, self, true);
    } catch (e) {
      if (!(e instanceof ZulipError)) throw e;
      return accessUserGroupForUpdate(tx, caller, groupId, others, true);
    }
  }
  return accessUserGroupForUpdate(tx, caller, groupId, others, true);
}

/** Writes one membership change and announces it, with what it changes about who sees private channels. */
async function changeMembership(
  tx: Tx,
  app: AppContext,
  events: PendingEvents,
  caller: Caller,
  groupId: number,
  change: Record<string, unknown>,
  write: () => Promise<void>,
): Promise<void> {
  const audiences = await channelAudiencesForGroups(tx, caller.realm, [groupId]);
  await write();
  events.send({
    realmId: caller.realm.id,
    event: { type: "user_group", ...change, group_id: groupId },
    userIds: await activeRealmUserIds(tx, caller.realm.id),
  });
  await announceChannelAudienceChanges(tx, app, events, caller.realm, audiences);
}

const directOf = async (tx: Tx, groupId: number) => (await directMemberships(tx, [groupId])).get(groupId)!;

async function addMembers(tx: Tx, app: AppContext, events: PendingEvents, caller: Caller, groupId: number, userIds: number[]) {
  const group = await accessForMembership(tx, caller, groupId, userIds, "can_join_group", "can_add_members_group");
  const ids = await checkActiveUserIds(tx, caller.realm, userIds);
  const existing = new Set((await directOf(tx, groupId)).members);
  const already = userIds.find((id) => existing.has(id));
  if (already !== undefined) throw badRequest(`User ${already} is already a member of this group`);
  await changeMembership(tx, app, events, caller, groupId, { op: "add_members", user_ids: ids }, () => addGroupMembers(tx, groupId, ids));
  await notifyMembershipChange(tx, app, events, caller, group, ids, "added you to");
}

async function removeMembers(tx: Tx, app: AppContext, events: PendingEvents, caller: Caller, groupId: number, userIds: number[]) {
  const ids = await checkActiveUserIds(tx, caller.realm, userIds);
  const group = await accessForMembership(tx, caller, groupId, userIds, "can_leave_group", "can_remove_members_group");
  const existing = new Set((await directOf(tx, groupId)).members);
  const missing = userIds.find((id) => !existing.has(id));
  if (missing !== undefined) throw badRequest(`There is no member '${missing}' in this user group`);
  await changeMembership(tx, app, events, caller, groupId, { op: "remove_members", user_ids: ids }, () => removeGroupMembers(tx, groupId, ids));
  await notifyMembershipChange(tx, app, events, caller, group, ids, "removed you from");
}

/** Zulip's lock_subgroups_with_respect_to_supergroup checks: the group, then each named subgroup. */
async function accessSubgroups(tx: Tx, caller: Caller, groupId: number, subgroupIds: number[], permission: GroupAccessPermission) {
  await accessUserGroupForUpdate(tx, caller, groupId, permission, true);
  const subgroups = await getNamedGroups(tx, caller.realm.id, subgroupIds);
  const missing = firstMissing(subgroupIds, subgroups.map((g) => g.id));
  if (missing !== undefined) throw badRequest(`Invalid user group ID: ${missing}`);
  if (subgroups.some((g) => g.deactivated === 1)) throw userGroupDeactivated();
  return [...new Set(subgroupIds)].sort((a, b) => a - b);
}

async function addSubgroupsTo(tx: Tx, app: AppContext, events: PendingEvents, caller: Caller, groupId: number, subgroupIds: number[]) {
  const ids = await accessSubgroups(tx, caller, groupId, subgroupIds, "can_add_members_group");
  const existing = new Set((await directOf(tx, groupId)).subgroups);
  const already = ids.find((id) => existing.has(id));
  if (already !== undefined) throw badRequest(`User group ${already} is already a subgroup of this group.`);
  const edges = await subgroupEdges(tx, caller.realm.id);
  if (ids.some((id) => wouldCreateCycle(groupId, id, edges))) {
    throw badRequest(`User group ${groupId} is already a subgroup of one of the passed subgroups.`);
  }
  await changeMembership(tx, app, events, caller, groupId, { op: "add_subgroups", direct_subgroup_ids: ids }, () => addSubgroups(tx, groupId, ids));
}

async function removeSubgroupsFrom(tx: Tx, app: AppContext, events: PendingEvents, caller: Caller, groupId: number, subgroupIds: number[]) {
  const ids = await accessSubgroups(tx, caller, groupId, subgroupIds, "can_manage_group");
  const existing = new Set((await directOf(tx, groupId)).subgroups);
  const missing = ids.find((id) => !existing.has(id));
  if (missing !== undefined) throw badRequest(`User group ${missing} is not a subgroup of this group.`);
  await changeMembership(tx, app, events, caller, groupId, { op: "remove_subgroups", direct_subgroup_ids: ids }, () =>
    removeSubgroups(tx, groupId, ids),
  );
}

export interface GroupMembershipChanges {
  add?: number[];
  delete?: number[];
  addSubgroups?: number[];
  deleteSubgroups?: number[];
}

/** POST /user_groups/{id}/members (and .../subgroups): each part checked in Zulip's order, all in one transaction. */
export async function doUpdateUserGroupMembership(
  app: AppContext,
  caller: Caller,
  groupId: number,
  changes: GroupMembershipChanges,
  nothingToDo: string,
): Promise<void> {
  const parts = [changes.add, changes.delete, changes.addSubgroups, changes.deleteSubgroups];
  if (!parts.some((p) => p?.length)) throw badRequest(nothingToDo);
  await runAction(app, async (tx, events) => {
    if (changes.add?.length) await addMembers(tx, app, events, caller, groupId, changes.add);
    if (changes.delete?.length) await removeMembers(tx, app, events, caller, groupId, changes.delete);
    if (changes.addSubgroups?.length) await addSubgroupsTo(tx, app, events, caller, groupId, changes.addSubgroups);
    if (changes.deleteSubgroups?.length) await removeSubgroupsFrom(tx, app, events, caller, groupId, changes.deleteSubgroups);
  });
}

/** A group whose membership may be read: any named group of the organization but a deactivated one. */
async function accessGroupToRead(app: AppContext, caller: Caller, groupId: number): Promise<UserGroupRow> {
  const group = await getNamedGroup(app.db, caller.realm.id, groupId);
  if (!group) throw invalidUserGroup();
  if (group.deactivated === 1) throw userGroupDeactivated();
  return group;
}

/** GET /user_groups/{id}/subgroups: direct subgroups, or every named group nested inside, by id. */
export async function userGroupSubgroupIds(app: AppContext, caller: Caller, groupId: number, directOnly: boolean): Promise<number[]> {
  await accessGroupToRead(app, caller, groupId);
  if (directOnly) return (await directMemberships(app.db, [groupId])).get(groupId)!.subgroups;
  const nested = subgroupClosure(groupId, await subgroupEdges(app.db, caller.realm.id));
  nested.delete(groupId);
  return (await getNamedGroups(app.db, caller.realm.id, [...nested])).map((g) => g.id).sort((a, b) => a - b);
}

/** GET /user_groups/{id}/members/{user_id}. */
export async function isUserGroupMember(app: AppContext, caller: Caller, groupId: number, userId: number, directOnly: boolean) {
  await accessGroupToRead(app, caller, groupId);
  const user = await accessUserById(app, caller, userId);
  if (user.is_bot === 1) throw badRequest("No such user");
  if (user.is_active !== 1) throw badRequest("User is deactivated");
  if (directOnly) return (await directMemberships(app.db, [groupId])).get(groupId)!.members.includes(user.id);
  return (await recursiveMemberIds(app.db, caller.realm.id, groupId)).includes(user.id);
}

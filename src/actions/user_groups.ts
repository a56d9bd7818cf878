import type { AppContext } from "../context.js";
import type { Caller } from "../http/auth.js";
import type { Realm } from "../store/realms.js";
import { runAction, type PendingEvents, type Tx } from "./run.js";
import { badRequest } from "../http/errors.js";
import { addGroupMembers, addSubgroups, createAnonymousGroup, isUserInGroup, recursiveMemberIds, systemGroupIds } from "../store/groups.js";
import { activeRealmUserIds } from "../store/users.js";
import {
  directMemberships,
  getNamedGroup,
  getNamedGroups,
  listNamedGroups,
  namedGroupExists,
  systemBotIds,
} from "../store/user_groups.js";
import { formatUserGroups } from "../format/user_groups.js";
import { checkUserGroupName } from "../domain/user_groups.js";
import {
  USER_GROUP_PERMISSION_SETTINGS,
  USER_GROUP_SETTINGS,
  firstMissing,
  userGroupDeactivated,
  type GroupSettingValue,
  type UserGroupSetting,
} from "../domain/group_setting_value.js";
import { checkActiveUserIds, invalidUserGroup, normalizeForRealm, resolveGroupSettingValue } from "./group_settings.js";

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
  const { id } = await tx
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
  await addGroupMembers(tx, id, input.memberIds);
  return id;
}

/** The `user_group` add event, sent to every active user of the organization. */
async function sendGroupCreated(tx: Tx, events: PendingEvents, realm: Realm, groupId: number): Promise<void> {
  const [group] = await formatUserGroups(tx, [(await getNamedGroup(tx, realm.id, groupId))!]);
  const { id, name, creator_id, date_created, members, description, is_system_group, direct_subgroup_ids, deactivated, ...settings } =
    group;
  events.send({
    realmId: realm.id,
    event: {
      type: "user_group",
      op: "add",
      group: { name, creator_id, date_created, members, description, id, is_system_group, direct_subgroup_ids, ...settings, deactivated },
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
    if (await namedGroupExists(tx, realm.id, name)) throw badRequest(`User group '${name}' already exists.`);
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

export async function listUserGroups(app: AppContext, caller: Caller, includeDeactivated: boolean) {
  return formatUserGroups(app.db, await listNamedGroups(app.db, caller.realm.id, includeDeactivated));
}

/** GET /user_groups/{id}/members: active members, direct or through subgroups. */
export async function userGroupMemberIds(app: AppContext, caller: Caller, groupId: number, directOnly: boolean): Promise<number[]> {
  const group = await getNamedGroup(app.db, caller.realm.id, groupId);
  if (!group) throw invalidUserGroup();
  if (group.deactivated === 1) throw userGroupDeactivated();
  if (directOnly) return (await directMemberships(app.db, [groupId])).get(groupId)!.members;
  const systemBots = await systemBotIds(app.db, caller.realm.id);
  return (await recursiveMemberIds(app.db, caller.realm.id, groupId)).filter((id) => !systemBots.has(id));
}

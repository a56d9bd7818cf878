/**
 * Turning a group-setting value from a request into the user group a setting points at:
 * a named group is checked against what the setting accepts; an anonymous value becomes (or
 * refills) an unnamed group holding those users and subgroups.
 */
import type { Tx } from "./run.js";
import type { Realm } from "../store/realms.js";
import { badRequest } from "../http/errors.js";
import type { AppContext } from "../context.js";
import type { Executor } from "../store/schema.js";
import { createAnonymousGroup, describeGroups, systemGroupIds } from "../store/groups.js";
import { getNamedGroup, getNamedGroups, replaceGroupMembership } from "../store/user_groups.js";
import { activeRealmUserIdsAmong } from "../store/users.js";
import {
  checkAnonymousValueForSetting,
  checkNamedGroupForSetting,
  firstMissing,
  groupSettingChangeNeeded,
  normalizeGroupSettingValue,
  userGroupDeactivated,
  type AnonymousGroupValue,
  type GroupPermissionConfig,
  type GroupSettingChange,
  type GroupSettingValue,
} from "../domain/group_setting_value.js";
import { groupSettingValueForApi, type GroupDescription } from "../format/group_setting.js";

export const invalidUserGroup = () => badRequest("Invalid user group");

/**
 * The groups that settings point at, as their values are shown: from memory until a group, a
 * membership or a user changes. Shared between requests, so frozen.
 */
export async function groupDescriptions(app: AppContext, db: Executor, groupIds: readonly number[]): Promise<GroupDescription[]> {
  const found = await app.caches.groupDescriptions.getMany(groupIds.map(String), db, async (missing) => {
    const groups = await describeGroups(db, missing.map(Number));
    return new Map(groups.map((g) => [String(g.id), Object.freeze({ ...g, directMembers: Object.freeze(g.directMembers), directSubgroups: Object.freeze(g.directSubgroups) })]));
  });
  return [...found.values()];
}

export async function nobodyGroupId(tx: Tx, realmId: number): Promise<number> {
  return (await systemGroupIds(tx, realmId)).get("role:nobody")!;
}

/** Normalizes a value as Zulip does before comparing or storing it. */
export async function normalizeForRealm(tx: Tx, realmId: number, value: GroupSettingValue): Promise<GroupSettingValue> {
  return normalizeGroupSettingValue(value, await nobodyGroupId(tx, realmId));
}

/** Zulip's user_ids_to_users for group memberships: active users of the organization, the first unknown id refused. */
export async function checkActiveUserIds(tx: Tx, realm: Realm, userIds: number[]): Promise<number[]> {
  const unique = [...new Set(userIds)];
  const missing = firstMissing(userIds, await activeRealmUserIdsAmong(tx, realm.id, unique));
  if (missing !== undefined) throw badRequest(`Invalid user ID: ${missing}`);
  return unique.sort((a, b) => a - b);
}

/** Checks an anonymous value's users and subgroups; returns them deduplicated. */
async function checkAnonymousMembers(tx: Tx, realm: Realm, value: AnonymousGroupValue): Promise<AnonymousGroupValue> {
  const members = await checkActiveUserIds(tx, realm, value.direct_members);
  const subgroups = [...new Set(value.direct_subgroups)];
  const groups = await getNamedGroups(tx, realm.id, subgroups);
  const missingGroup = firstMissing(value.direct_subgroups, groups.map((g) => g.id));
  if (missingGroup !== undefined) throw badRequest(`Invalid user group ID: ${missingGroup}`);
  if (groups.some((g) => g.deactivated === 1)) throw userGroupDeactivated();
  return { direct_members: members, direct_subgroups: subgroups };
}

/**
 * The group id to store for a (normalized) value. `current` is the setting's present group:
 * when it is anonymous and the new value is too, that row is refilled rather than replaced.
 */
export async function resolveGroupSettingValue(
  tx: Tx,
  realm: Realm,
  setting: string,
  value: GroupSettingValue,
  config: GroupPermissionConfig,
  current?: number,
): Promise<number> {
  if (typeof value === "number") {
    const group = await getNamedGroup(tx, realm.id, value);
    if (!group) throw invalidUserGroup();
    checkNamedGroupForSetting(
      setting,
      { name: group.name!, isSystemGroup: group.is_system_group === 1, deactivated: group.deactivated === 1 },
      config,
    );
    return group.id;
  }
  checkAnonymousValueForSetting(setting, config);
  const checked = await checkAnonymousMembers(tx, realm, value);
  if (current !== undefined) {
    const row = await tx.selectFrom("user_groups").select(["id", "name"]).where("id", "=", current).executeTakeFirst();
    if (row && row.name === null) {
      await replaceGroupMembership(tx, row.id, checked.direct_members, checked.direct_subgroups);
      return row.id;
    }
  }
  return createAnonymousGroup(tx, realm.id, checked.direct_members, checked.direct_subgroups);
}

/** Removes an anonymous group no setting points at any more. */
async function deleteAnonymousGroup(tx: Tx, groupId: number): Promise<void> {
  const row = await tx.selectFrom("user_groups").select("name").where("id", "=", groupId).executeTakeFirst();
  if (!row || row.name !== null) return;
  await tx.deleteFrom("user_group_members").where("group_id", "=", groupId).execute();
  await tx.deleteFrom("user_group_subgroups").where("group_id", "=", groupId).execute();
  await tx.deleteFrom("user_groups").where("id", "=", groupId).execute();
}

export interface GroupSettingChangeResult {
  groupId: number;
  /** The new value as the API shows it (active members only, sorted). */
  value: GroupSettingValue;
  /** The new value as requested, normalized. */
  requested: GroupSettingValue;
}

/**
 * Applies a `{new, old}` change to a setting that now points at `currentGroupId`, as Zulip's
 * views do: both values are normalized, a given `old` must match, an unchanged `new` is a
 * silent no-op (undefined), and a setting leaving an anonymous value drops that group.
 */
export async function applyGroupSettingChange(
  tx: Tx,
  realm: Realm,
  setting: string,
  change: GroupSettingChange,
  config: GroupPermissionConfig,
  currentGroupId: number,
): Promise<GroupSettingChangeResult | undefined> {
  const nobody = await nobodyGroupId(tx, realm.id);
  const next = normalizeGroupSettingValue(change.new, nobody);
  const expected = change.old === undefined ? undefined : normalizeGroupSettingValue(change.old, nobody);
  if (!groupSettingChangeNeeded(await groupSettingValueForApi(tx, currentGroupId), next, expected)) return undefined;
  const groupId = await resolveGroupSettingValue(tx, realm, setting, next, config, currentGroupId);
  if (groupId !== currentGroupId) await deleteAnonymousGroup(tx, currentGroupId);
  return { groupId, value: await groupSettingValueForApi(tx, groupId), requested: next };
}

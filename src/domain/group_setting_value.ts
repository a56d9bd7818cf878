/**
 * Group-setting values: who holds a permission, either a named user group (its id) or an
 * anonymous collection of users and named groups. These are the pure rules shared by every
 * setting of organizations, channels and user groups; looking groups up and writing the
 * anonymous rows is actions/group_settings.ts.
 */
import type { z } from "zod";
import { ZulipError, badRequest } from "../http/errors.js";
import type { Zod } from "../http/params.js";
import type { SystemGroupName } from "./system_groups.js";
import { isGuest } from "./roles.js";
import type { GroupPermissionSetting } from "./permission_settings.js";

export interface AnonymousGroupValue {
  direct_members: number[];
  direct_subgroups: number[];
}
export type GroupSettingValue = number | AnonymousGroupValue;

const anonymousGroupValueSchema = (z: Zod) =>
  z.object({
    direct_members: z.array(z.int()),
    direct_subgroups: z.array(z.int()),
  });
/** A group-setting value as clients send it (the JSON inside a form field). */
export const groupSettingValueSchema = (z: Zod) => z.union([z.int(), anonymousGroupValueSchema(z)]);
/** The `{new, old?}` object used to change a setting. */
export const groupSettingChangeSchema = (z: Zod) =>
  z.object({
    new: groupSettingValueSchema(z),
    old: groupSettingValueSchema(z).optional(),
  });
export type GroupSettingChange = z.infer<ReturnType<typeof groupSettingChangeSchema>>;

/** What values a permission setting accepts. */
export interface GroupPermissionConfig {
  requireSystemGroup: boolean;
  allowInternetGroup: boolean;
  allowNobodyGroup: boolean;
  allowEveryoneGroup: boolean;
  /** When non-empty, the only system groups the setting may name. */
  allowedSystemGroups: readonly SystemGroupName[];
  /** System groups the setting may never name. */
  refusedSystemGroups: readonly SystemGroupName[];
}

/** Zulip's GroupPermissionSetting defaults: any group but role:internet, no system group required. */
export function permissionConfig(overrides: Partial<GroupPermissionConfig>): GroupPermissionConfig {
  return {
    requireSystemGroup: false,
    allowInternetGroup: false,
    allowNobodyGroup: true,
    allowEveryoneGroup: false,
    allowedSystemGroups: [],
    refusedSystemGroups: [],
    ...overrides,
  };
}

/** The rules of a setting as POST /register reports them, in the form these checks use. */
export function permissionConfigOf(setting: GroupPermissionSetting): GroupPermissionConfig {
  return permissionConfig({
    requireSystemGroup: setting.require_system_group,
    allowInternetGroup: setting.allow_internet_group,
    allowNobodyGroup: setting.allow_nobody_group,
    allowEveryoneGroup: setting.allow_everyone_group,
    allowedSystemGroups: setting.allowed_system_groups as SystemGroupName[],
  });
}

export const USER_GROUP_SETTINGS = [
  "can_add_members_group",
  "can_join_group",
  "can_leave_group",
  "can_manage_group",
  "can_mention_group",
  "can_remove_members_group",
] as const;
export type UserGroupSetting = (typeof USER_GROUP_SETTINGS)[number];

export interface UserGroupSettingSpec extends GroupPermissionConfig {
  /** A new group's value when none is given; "group_creator" is an anonymous group of its creator. */
  defaultValue: SystemGroupName | "group_creator";
  defaultForSystemGroups: SystemGroupName;
}

/** Zulip's NamedUserGroup.GROUP_PERMISSION_SETTINGS. */
export const USER_GROUP_PERMISSION_SETTINGS: Record<UserGroupSetting, UserGroupSettingSpec> = {
  can_add_members_group: {
    ...permissionConfig({ allowEveryoneGroup: false }),
    defaultValue: "group_creator",
    defaultForSystemGroups: "role:nobody",
  },
  can_join_group: {
    ...permissionConfig({ allowEveryoneGroup: false }),
    defaultValue: "role:nobody",
    defaultForSystemGroups: "role:nobody",
  },
  can_leave_group: {
    ...permissionConfig({ allowEveryoneGroup: true }),
    defaultValue: "role:everyone",
    defaultForSystemGroups: "role:nobody",
  },
  can_manage_group: {
    ...permissionConfig({ allowEveryoneGroup: false }),
    defaultValue: "group_creator",
    defaultForSystemGroups: "role:nobody",
  },
  can_mention_group: {
    // The product forbids role:owners here, as Zulip's documentation of this setting says.
    ...permissionConfig({ allowEveryoneGroup: true, refusedSystemGroups: ["role:owners"] }),
    defaultValue: "role:everyone",
    defaultForSystemGroups: "role:nobody",
  },
  can_remove_members_group: {
    ...permissionConfig({ allowEveryoneGroup: false }),
    defaultValue: "role:nobody",
    defaultForSystemGroups: "role:nobody",
  },
};

/**
 * The canonical form of a value: an anonymous value naming exactly one group and no users is
 * that group, and an empty one is role:nobody.
 */
export function normalizeGroupSettingValue(value: GroupSettingValue, nobodyGroupId: number): GroupSettingValue {
  if (typeof value === "number") return value;
  if (value.direct_members.length === 0 && value.direct_subgroups.length === 1) return value.direct_subgroups[0];
  if (value.direct_members.length === 0 && value.direct_subgroups.length === 0) return nobodyGroupId;
  return value;
}

/** Equality as Zulip compares values: ids by value, anonymous groups as sets; never across forms. */
export function sameGroupSettingValue(a: GroupSettingValue, b: GroupSettingValue): boolean {
  if (typeof a === "number" || typeof b === "number") return a === b;
  const sameSet = (x: number[], y: number[]) => {
    const sx = new Set(x);
    const sy = new Set(y);
    return sx.size === sy.size && [...sx].every((v) => sy.has(v));
  };
  return sameSet(a.direct_members, b.direct_members) && sameSet(a.direct_subgroups, b.direct_subgroups);
}

export const expectationMismatch = (field: string) =>
  new ZulipError(`'${field}' value does not match the expected value.`, "EXPECTATION_MISMATCH", 400);

/**
 * Whether a `{new, old}` change has anything to do. A given `old` must match the current value
 * (so clients don't overwrite a change they never saw); a `new` equal to the current value is a
 * no-op. Both values must already be normalized.
 */
export function groupSettingChangeNeeded(
  current: GroupSettingValue,
  next: GroupSettingValue,
  expectedCurrent: GroupSettingValue | undefined,
): boolean {
  if (expectedCurrent !== undefined && !sameGroupSettingValue(expectedCurrent, current)) {
    throw expectationMismatch("old");
  }
  return !sameGroupSettingValue(current, next);
}

export const systemGroupRequired = (setting: string) =>
  new ZulipError(`'${setting}' must be a system user group.`, "SYSTEM_GROUP_REQUIRED", 400);

export const userGroupDeactivated = () => badRequest("User group is deactivated.");

export interface NamedGroupFacts {
  name: string;
  isSystemGroup: boolean;
  deactivated: boolean;
}

/** Checks a named group given as a setting's value against what the setting accepts. */
export function checkNamedGroupForSetting(setting: string, group: NamedGroupFacts, config: GroupPermissionConfig): void {
  if (group.deactivated) throw userGroupDeactivated();
  if (config.requireSystemGroup && !group.isSystemGroup) throw systemGroupRequired(setting);
  const refuse = (name: string) => badRequest(`'${setting}' setting cannot be set to '${name}' group.`);
  if (!config.allowInternetGroup && group.name === "role:internet") throw refuse("role:internet");
  if (!config.allowNobodyGroup && group.name === "role:nobody") throw refuse("role:nobody");
  if (!config.allowEveryoneGroup && group.name === "role:everyone") throw refuse("role:everyone");
  if (config.allowedSystemGroups.length && !(config.allowedSystemGroups as readonly string[]).includes(group.name)) {
    throw refuse(group.name);
  }
  if (group.isSystemGroup && (config.refusedSystemGroups as readonly string[]).includes(group.name)) throw refuse(group.name);
}

/**
 * Zulip's user_has_permission_for_group_setting, given every group the user belongs to:
 * guests never hold a permission whose setting may not name role:everyone.
 */
export function hasGroupPermission(
  user: { role: number },
  userGroups: ReadonlySet<number>,
  settingGroupId: number,
  config: Pick<GroupPermissionConfig, "allowEveryoneGroup">,
): boolean {
  if (!config.allowEveryoneGroup && isGuest(user.role)) return false;
  return userGroups.has(settingGroupId);
}

/** Checks an anonymous value's shape against the setting (its members are checked against the database). */
export function checkAnonymousValueForSetting(setting: string, config: GroupPermissionConfig): void {
  if (config.requireSystemGroup) throw systemGroupRequired(setting);
}

/** The first id of `requested` missing from `found`, in request order. */
export function firstMissing(requested: readonly number[], found: Iterable<number>): number | undefined {
  const have = new Set(found);
  return requested.find((id) => !have.has(id));
}

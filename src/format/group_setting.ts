/** How a permission setting's value is shown in the API. */
import type { Executor } from "../store/schema.js";
import { describeGroups } from "../store/groups.js";
import type { GroupSettingValue } from "../domain/group_setting_value.js";

export type { GroupSettingValue };

export interface GroupDescription {
  id: number;
  /** null for the anonymous groups that hold a setting's value. */
  name: string | null;
  /** One of the organization's role groups (`role:members`, ...). */
  isSystem: boolean;
  /** Active direct members. */
  directMembers: readonly number[];
  directSubgroups: readonly number[];
}

/** A named group is shown as its id; an anonymous one as its active members and subgroups, sorted. */
export function groupSettingValue(group: Omit<GroupDescription, "isSystem">): GroupSettingValue {
  if (group.name !== null) return group.id;
  return {
    direct_members: [...group.directMembers].sort((a, b) => a - b),
    direct_subgroups: [...group.directSubgroups].sort((a, b) => a - b),
  };
}

/** Values for many settings at once, given descriptions of the groups they point at. */
export function groupSettingValues(groups: Iterable<GroupDescription>): Map<number, GroupSettingValue> {
  const out = new Map<number, GroupSettingValue>();
  for (const g of groups) out.set(g.id, groupSettingValue(g));
  return out;
}

/** The API value of the setting that points at `groupId`. */
export async function groupSettingValueForApi(db: Executor, groupId: number): Promise<GroupSettingValue> {
  const [group] = await describeGroups(db, [groupId]);
  return groupSettingValue(group);
}

import type { Executor } from "../store/schema.js";
import { directMemberships, type GroupMembership } from "../store/user_groups.js";
import type { GroupSettingValue } from "../domain/group_setting_value.js";

/** A setting's value as the API shows it, from what is already known about its group. */
export function groupSettingValueFromMembership(groupId: number, isNamed: boolean, membership: GroupMembership): GroupSettingValue {
  if (isNamed) return groupId;
  return { direct_members: membership.members, direct_subgroups: membership.subgroups };
}

/** A setting's value as the API shows it: a named group's id, or its anonymous group's active members and subgroups. */
export async function groupSettingValueForApi(db: Executor, groupId: number): Promise<GroupSettingValue> {
  const row = await db.selectFrom("user_groups").select("name").where("id", "=", groupId).executeTakeFirstOrThrow();
  if (row.name !== null) return groupId;
  const membership = (await directMemberships(db, [groupId])).get(groupId)!;
  return groupSettingValueFromMembership(groupId, false, membership);
}

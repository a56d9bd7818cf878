/** Turning a requested group-setting value into the user group that holds it. */
import { z } from "zod";
import type { Executor } from "../store/schema.js";
import { createAnonymousGroup, systemGroupIds } from "../store/groups.js";
import { badRequest } from "../http/errors.js";

export const groupSettingValueSchema = z.union([
  z.int(),
  z.object({ direct_members: z.array(z.int()).default([]), direct_subgroups: z.array(z.int()).default([]) }).strict(),
]);
export type GroupSettingInput = z.infer<typeof groupSettingValueSchema>;

export interface SettingRule {
  allowEveryone: boolean;
  allowNobody?: boolean;
}

/**
 * Validates the value for `setting` and returns the group id to store, creating the anonymous
 * group for a members-and-subgroups value. A value with exactly one subgroup and no members is
 * that subgroup; an empty one is role:nobody.
 */
export async function groupForSetting(
  db: Executor,
  realmId: number,
  setting: string,
  value: GroupSettingInput,
  rule: SettingRule,
): Promise<number> {
  const system = await systemGroupIds(db, realmId);
  let normalized = value;
  if (typeof value === "object" && value.direct_members.length === 0) {
    if (value.direct_subgroups.length === 0) normalized = system.get("role:nobody")!;
    else if (value.direct_subgroups.length === 1) normalized = value.direct_subgroups[0];
  }
  if (typeof normalized === "number") {
    const group = await db
      .selectFrom("user_groups")
      .select(["id", "name", "deactivated", "is_system_group"])
      .where("realm_id", "=", realmId)
      .where("id", "=", normalized)
      .executeTakeFirst();
    if (!group || group.name === null) throw badRequest("Invalid user group");
    if (group.deactivated === 1) throw badRequest("User group is deactivated.");
    const refused =
      group.is_system_group === 1 &&
      (group.name === "role:internet" ||
        (group.name === "role:everyone" && !rule.allowEveryone) ||
        (group.name === "role:nobody" && rule.allowNobody === false));
    if (refused) throw badRequest(`'${setting}' setting cannot be set to '${group.name}' group.`);
    return group.id;
  }
  for (const userId of normalized.direct_members) {
    const user = await db
      .selectFrom("users")
      .select("id")
      .where("realm_id", "=", realmId)
      .where("id", "=", userId)
      .where("is_active", "=", 1)
      .executeTakeFirst();
    if (!user) throw badRequest(`Invalid user ID: ${userId}`);
  }
  for (const groupId of normalized.direct_subgroups) {
    const group = await db
      .selectFrom("user_groups")
      .select(["name", "deactivated"])
      .where("realm_id", "=", realmId)
      .where("id", "=", groupId)
      .executeTakeFirst();
    if (!group || group.name === null) throw badRequest(`Invalid user group ID: ${groupId}`);
    if (group.deactivated === 1) throw badRequest("User group is deactivated.");
  }
  return createAnonymousGroup(db, realmId, [...new Set(normalized.direct_members)], [...new Set(normalized.direct_subgroups)]);
}

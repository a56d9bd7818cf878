import type { Executor } from "../store/schema.js";
import { directMemberships, type UserGroupRow } from "../store/user_groups.js";
import { USER_GROUP_SETTINGS } from "../domain/group_setting_value.js";
import { groupSettingValue } from "./group_setting.js";

/** Named user groups as Zulip's API shows them, with their settings resolved in bulk. */
export async function formatUserGroups(db: Executor, groups: UserGroupRow[]): Promise<Record<string, unknown>[]> {
  if (!groups.length) return [];
  const settingGroups = groups.map((g) => JSON.parse(g.group_settings) as Record<string, number>);
  const settingIds = settingGroups.flatMap((s) => USER_GROUP_SETTINGS.map((name) => s[name]));
  const ids = [...new Set([...groups.map((g) => g.id), ...settingIds])];
  const named = new Set(
    (await db.selectFrom("user_groups").select("id").where("id", "in", ids).where("name", "is not", null).execute()).map((r) => r.id),
  );
  const memberships = await directMemberships(db, ids);
  return groups.map((g, i) => {
    const own = memberships.get(g.id)!;
    const settings = Object.fromEntries(
      USER_GROUP_SETTINGS.map((name) => {
        const id = settingGroups[i][name];
        const m = memberships.get(id)!;
        return [name, groupSettingValue({ id, name: named.has(id) ? "" : null, directMembers: m.members, directSubgroups: m.subgroups })];
      }),
    );
    return {
      id: g.id,
      name: g.name,
      description: g.description,
      members: own.members,
      direct_subgroup_ids: own.subgroups,
      creator_id: g.creator_id,
      date_created: g.date_created === null ? null : Number(g.date_created),
      is_system_group: g.is_system_group === 1,
      ...settings,
      deactivated: g.deactivated === 1,
    };
  });
}

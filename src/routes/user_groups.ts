import { endpoint } from "../http/endpoint.js";
import { P } from "../http/params.js";
import { requireMemberOrAdmin } from "../http/guards.js";
import { groupSettingValueSchema } from "../domain/group_setting_value.js";
import { checkCanCreateUserGroups, doCreateUserGroup, listUserGroups, userGroupMemberIds } from "../actions/user_groups.js";

const settingValue = () => P.json(groupSettingValueSchema).optional();

export const userGroupRoutes = [
  endpoint({
    method: "GET",
    path: "/user_groups",
    guard: requireMemberOrAdmin,
    params: { include_deactivated_groups: P.bool().default(false) },
    handler: async ({ app, caller }, p) => ({ user_groups: await listUserGroups(app, caller, p.include_deactivated_groups) }),
  }),

  endpoint({
    method: "POST",
    path: "/user_groups/create",
    guard: async (ctx) => {
      requireMemberOrAdmin(ctx);
      await checkCanCreateUserGroups(ctx.app, ctx.caller);
    },
    params: {
      can_add_members_group: settingValue(),
      can_join_group: settingValue(),
      can_leave_group: settingValue(),
      can_manage_group: settingValue(),
      can_mention_group: settingValue(),
      can_remove_members_group: settingValue(),
      description: P.string(),
      members: P.intList(),
      name: P.string(),
      subgroups: P.intList().optional(),
    },
    handler: async ({ app, caller }, p) => {
      const { name, description, members, subgroups, ...settings } = p;
      return { group_id: await doCreateUserGroup(app, caller, { name, description, members, subgroups, settings }) };
    },
  }),

  endpoint({
    method: "GET",
    path: "/user_groups/:user_group_id(^\\d+$)/members",
    guard: requireMemberOrAdmin,
    params: { direct_member_only: P.bool().default(false) },
    handler: async ({ app, caller, path }, p) => ({
      members: await userGroupMemberIds(app, caller, path.user_group_id as number, p.direct_member_only),
    }),
  }),
];

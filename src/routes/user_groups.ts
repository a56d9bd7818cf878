import { endpoint } from "../http/endpoint.js";
import { P } from "../http/params.js";
import { requireMemberOrAdmin } from "../http/guards.js";
import { groupSettingChangeSchema, groupSettingValueSchema } from "../domain/group_setting_value.js";
import {
  checkCanCreateUserGroups,
  doCreateUserGroup,
  doDeactivateUserGroup,
  doUpdateUserGroup,
  doUpdateUserGroupMembership,
  isUserGroupMember,
  listUserGroups,
  userGroupMemberIds,
  userGroupSubgroupIds,
} from "../actions/user_groups.js";

const settingValue = () => P.json(groupSettingValueSchema).optional();
const settingChange = () => P.json(groupSettingChangeSchema).optional();
const GROUP = "/user_groups/:user_group_id(^\\d+$)";

export const userGroupRoutes = [
  endpoint({
    method: "GET",
    path: "/user_groups",
    guard: requireMemberOrAdmin,
    params: { include_deactivated_groups: P.bool().default(false) },
    handler: async ({ app, caller }, p) => ({ user_groups: await listUserGroups(app, caller.realm.id, p.include_deactivated_groups) }),
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
    method: "PATCH",
    path: GROUP,
    guard: requireMemberOrAdmin,
    params: {
      can_add_members_group: settingChange(),
      can_join_group: settingChange(),
      can_leave_group: settingChange(),
      can_manage_group: settingChange(),
      can_mention_group: settingChange(),
      can_remove_members_group: settingChange(),
      deactivated: P.bool().optional(),
      description: P.string().optional(),
      name: P.string().optional(),
    },
    handler: async ({ app, caller, path }, p) => {
      const { name, description, deactivated, ...settings } = p;
      await doUpdateUserGroup(app, caller, path.user_group_id as number, { name, description, deactivated, settings });
    },
  }),

  // Zulip checks nothing about the caller's role here: the group's own permissions decide.
  endpoint({
    method: "POST",
    path: `${GROUP}/deactivate`,
    params: {},
    handler: async ({ app, caller, path }) => doDeactivateUserGroup(app, caller, path.user_group_id as number),
  }),

  endpoint({
    method: "GET",
    path: `${GROUP}/members`,
    guard: requireMemberOrAdmin,
    params: { direct_member_only: P.bool().default(false) },
    handler: async ({ app, caller, path }, p) => ({
      members: await userGroupMemberIds(app, caller, path.user_group_id as number, p.direct_member_only),
    }),
  }),

  endpoint({
    method: "POST",
    path: `${GROUP}/members`,
    guard: requireMemberOrAdmin,
    params: {
      add: P.intList().optional(),
      add_subgroups: P.intList().optional(),
      delete: P.intList().optional(),
      delete_subgroups: P.intList().optional(),
    },
    handler: async ({ app, caller, path }, p) =>
      doUpdateUserGroupMembership(
        app,
        caller,
        path.user_group_id as number,
        { add: p.add, delete: p.delete, addSubgroups: p.add_subgroups, deleteSubgroups: p.delete_subgroups },
        'Nothing to do. Specify at least one of "add", "delete", "add_subgroups" or "delete_subgroups".',
      ),
  }),

  endpoint({
    method: "GET",
    path: `${GROUP}/members/:user_id(^\\d+$)`,
    guard: requireMemberOrAdmin,
    params: { direct_member_only: P.bool().default(false) },
    handler: async ({ app, caller, path }, p) => ({
      is_user_group_member: await isUserGroupMember(
        app,
        caller,
        path.user_group_id as number,
        path.user_id as number,
        p.direct_member_only,
      ),
    }),
  }),

  endpoint({
    method: "GET",
    path: `${GROUP}/subgroups`,
    guard: requireMemberOrAdmin,
    params: { direct_subgroup_only: P.bool().default(false) },
    handler: async ({ app, caller, path }, p) => ({
      subgroups: await userGroupSubgroupIds(app, caller, path.user_group_id as number, p.direct_subgroup_only),
    }),
  }),

  endpoint({
    method: "POST",
    path: `${GROUP}/subgroups`,
    guard: requireMemberOrAdmin,
    params: { add: P.intList().optional(), delete: P.intList().optional() },
    handler: async ({ app, caller, path }, p) =>
      doUpdateUserGroupMembership(
        app,
        caller,
        path.user_group_id as number,
        { addSubgroups: p.add, deleteSubgroups: p.delete },
        'Nothing to do. Specify at least one of "add" or "delete".',
      ),
  }),
];

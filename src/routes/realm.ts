import { endpoint } from "../http/endpoint.js";
import { P, type Param } from "../http/params.js";
import { requireRealmAdmin } from "../http/guards.js";
import { groupSettingChangeSchema, type GroupSettingChange } from "../domain/group_setting_value.js";
import { REALM_PERMISSION_SETTINGS } from "../domain/permission_settings.js";
import { REALM_TOPICS_POLICIES, type RealmTopicsPolicyName } from "../domain/realm_settings.js";
import { REALM_BOOLEAN_PROPERTIES, doUpdateRealm } from "../actions/realm_settings.js";
import {
  doCreateCustomProfileField,
  doDeleteCustomProfileField,
  doReorderCustomProfileFields,
  doUpdateCustomProfileField,
  listCustomProfileFieldsForApi,
} from "../actions/custom_profile_fields.js";

/** Zulip's limits on the organization's name and description. */
const MAX_REALM_NAME_LENGTH = 40;
const MAX_REALM_DESCRIPTION_LENGTH = 1000;

const groupSettingParams = Object.fromEntries(
  Object.keys(REALM_PERMISSION_SETTINGS).map((s) => [s, P.json(groupSettingChangeSchema).optional()]),
) as Record<string, Param<GroupSettingChange | undefined>>;
const booleanParams = Object.fromEntries(REALM_BOOLEAN_PROPERTIES.map((p) => [p, P.bool().optional()])) as Record<
  (typeof REALM_BOOLEAN_PROPERTIES)[number],
  Param<boolean | undefined>
>;

const fieldDataParam = () => P.json((z) => z.record(z.string(), z.unknown())).optional();

/** Clients reorder fields by sending every id; a longer list than any organization has fields is refused. */
const MAX_PROFILE_FIELD_ORDER_LENGTH = 1000;

export const realmRoutes = [
  endpoint({
    method: "PATCH",
    path: "/realm",
    guard: requireRealmAdmin,
    params: {
      ...groupSettingParams,
      ...booleanParams,
      description: P.string({ maxLength: MAX_REALM_DESCRIPTION_LENGTH }).optional(),
      name: P.string({ maxLength: MAX_REALM_NAME_LENGTH }).optional(),
      digest_weekday: P.int({ min: 0, max: 6 }).optional(),
      topics_policy: P.oneOf(Object.keys(REALM_TOPICS_POLICIES) as RealmTopicsPolicyName[]).optional(),
      moderation_request_channel_id: P.int().optional(),
    },
    handler: async ({ app, caller }, p) => {
      const changes = p as Record<string, GroupSettingChange | undefined>;
      const booleans = Object.fromEntries(REALM_BOOLEAN_PROPERTIES.map((name) => [name, p[name]]));
      const groupSettings = Object.fromEntries(Object.keys(REALM_PERMISSION_SETTINGS).map((s) => [s, changes[s]]));
      return doUpdateRealm(app, caller, {
        name: p.name,
        description: p.description,
        topicsPolicy: p.topics_policy,
        digestWeekday: p.digest_weekday,
        booleans,
        groupSettings,
        moderationRequestChannelId: p.moderation_request_channel_id,
      });
    },
  }),

  endpoint({
    method: "GET",
    path: "/realm/profile_fields",
    params: {},
    handler: async ({ app, caller }) => ({ custom_fields: await listCustomProfileFieldsForApi(app, caller) }),
  }),

  endpoint({
    method: "POST",
    path: "/realm/profile_fields",
    guard: requireRealmAdmin,
    params: {
      display_in_profile_summary: P.bool().default(false),
      editable_by_user: P.bool().default(true),
      field_data: fieldDataParam(),
      field_type: P.int(),
      hint: P.string().default(""),
      name: P.string().default(""),
      required: P.bool().default(false),
    },
    handler: async ({ app, caller }, p) => ({
      id: await doCreateCustomProfileField(app, caller, {
        name: p.name.trim(),
        hint: p.hint,
        fieldType: p.field_type,
        fieldData: p.field_data ?? {},
        displayInProfileSummary: p.display_in_profile_summary,
        required: p.required,
        editableByUser: p.editable_by_user,
      }),
    }),
  }),

  endpoint({
    method: "PATCH",
    path: "/realm/profile_fields",
    guard: requireRealmAdmin,
    params: { order: P.json((z) => z.array(z.int()).max(MAX_PROFILE_FIELD_ORDER_LENGTH)) },
    handler: async ({ app, caller }, p) => {
      await doReorderCustomProfileFields(app, caller, p.order);
    },
  }),

  endpoint({
    method: "PATCH",
    path: "/realm/profile_fields/:field_id(^\\d+$)",
    guard: requireRealmAdmin,
    params: {
      display_in_profile_summary: P.bool().optional(),
      editable_by_user: P.bool().optional(),
      field_data: fieldDataParam(),
      hint: P.string().optional(),
      name: P.string().optional(),
      required: P.bool().optional(),
    },
    handler: async ({ app, caller, path }, p) => {
      await doUpdateCustomProfileField(app, caller, path.field_id as number, {
        name: p.name?.trim(),
        hint: p.hint,
        fieldData: p.field_data,
        displayInProfileSummary: p.display_in_profile_summary,
        required: p.required,
        editableByUser: p.editable_by_user,
      });
    },
  }),

  endpoint({
    method: "DELETE",
    path: "/realm/profile_fields/:field_id(^\\d+$)",
    guard: requireRealmAdmin,
    params: {},
    handler: async ({ app, caller, path }) => {
      await doDeleteCustomProfileField(app, caller, path.field_id as number);
    },
  }),
];

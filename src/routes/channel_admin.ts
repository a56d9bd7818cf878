import { endpoint } from "../http/endpoint.js";
import { P } from "../http/params.js";
import { requireNonGuest, requireRealmAdmin } from "../http/guards.js";
import { CHANNEL_GROUP_SETTINGS, type ChannelGroupSetting } from "../store/schema.js";
import { LIMITS } from "../domain/limits.js";
import { TOPICS_POLICIES } from "../domain/topics.js";
import { groupSettingChangeSchema, type GroupSettingChange } from "../domain/group_setting_value.js";
import { addDefaultChannel, archiveChannel, channelMembers, removeDefaultChannel, updateChannel } from "../actions/channel_admin.js";
import { createChannel } from "../actions/subscriptions.js";
import { newChannelOptions, newChannelParams } from "./subscriptions.js";

const STREAM_PATH = "/streams/:stream_id(^\\d+$)";

const settingChangeParams = Object.fromEntries(CHANNEL_GROUP_SETTINGS.map((s) => [s, P.json(groupSettingChangeSchema).optional()])) as Record<
  ChannelGroupSetting,
  ReturnType<typeof P.json<GroupSettingChange | undefined>>
>;

export const channelAdminRoutes = [
  endpoint({
    method: "PATCH",
    path: STREAM_PATH,
    params: {
      description: P.string({ maxLength: LIMITS.maxStreamDescriptionLength }).optional(),
      new_name: P.string().optional(),
      is_private: P.bool().optional(),
      is_web_public: P.bool().optional(),
      history_public_to_subscribers: P.bool().optional(),
      is_default_stream: P.bool().optional(),
      message_retention_days: P.json((z) => z.union([z.string(), z.int()])).optional(),
      is_archived: P.bool().optional(),
      folder_id: P.int().nullable(),
      topics_policy: P.oneOf(TOPICS_POLICIES).optional(),
      ...settingChangeParams,
    },
    handler: async ({ app, caller, path }, p) =>
      updateChannel(app, caller.user, path.stream_id as number, {
        description: p.description,
        newName: p.new_name,
        isPrivate: p.is_private,
        isWebPublic: p.is_web_public,
        historyPublicToSubscribers: p.history_public_to_subscribers,
        isDefaultStream: p.is_default_stream,
        messageRetentionDays: p.message_retention_days,
        isArchived: p.is_archived,
        folderId: p.folder_id,
        topicsPolicy: p.topics_policy,
        groupSettings: Object.fromEntries(CHANNEL_GROUP_SETTINGS.map((s) => [s, p[s]]).filter(([, v]) => v !== undefined)),
      }),
  }),
  endpoint({
    method: "DELETE",
    path: STREAM_PATH,
    params: {},
    handler: async ({ app, caller, path }) => archiveChannel(app, caller.user, path.stream_id as number),
  }),
  endpoint({
    method: "GET",
    path: `${STREAM_PATH}/members`,
    params: {},
    handler: async ({ app, caller, path }) => channelMembers(app, caller.user, path.stream_id as number),
  }),
  endpoint({
    method: "POST",
    path: "/channels/create",
    guard: requireNonGuest,
    params: {
      name: P.string(),
      description: P.string({ maxLength: LIMITS.maxStreamDescriptionLength }).optional(),
      subscribers: P.json((z) => z.array(z.int())),
      ...newChannelParams,
    },
    handler: async ({ app, caller }, p) =>
      createChannel(app, caller.user, { name: p.name, description: p.description, subscribers: p.subscribers, ...newChannelOptions(p) }),
  }),
  endpoint({
    method: "POST",
    path: "/default_streams",
    guard: requireRealmAdmin,
    params: { stream_id: P.int() },
    handler: async ({ app, caller }, p) => addDefaultChannel(app, caller.user, p.stream_id),
  }),
  endpoint({
    method: "DELETE",
    path: "/default_streams",
    guard: requireRealmAdmin,
    params: { stream_id: P.int() },
    handler: async ({ app, caller }, p) => removeDefaultChannel(app, caller.user, p.stream_id),
  }),
];

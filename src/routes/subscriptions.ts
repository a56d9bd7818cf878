import { endpoint } from "../http/endpoint.js";
import { P, type ParamValues, type Zod } from "../http/params.js";
import { requireNonGuest } from "../http/guards.js";
import { CHANNEL_GROUP_SETTINGS, type ChannelGroupSetting } from "../store/schema.js";
import { LIMITS } from "../domain/limits.js";
import { TOPICS_POLICIES } from "../domain/topics.js";
import { listSubscriptions, subscribe, unsubscribe, updateSubscriptions, type NewChannelOptions } from "../actions/subscriptions.js";
import { groupSettingValueSchema, type GroupSettingValue } from "../domain/group_setting_value.js";
import { isHexColor } from "../domain/subscription_properties.js";

const principals = P.json((z) => z.union([z.array(z.string()), z.array(z.int())])).optional();

/** A channel to subscribe to (created if missing), as POST and PATCH /users/me/subscriptions take it. */
const addSubscriptionSchema = (z: Zod) =>
  z
    .object({
      name: z.string(),
      color: z.string().optional(),
      description: z.string().max(LIMITS.maxStreamDescriptionLength).optional(),
    })
    .strict()
    // Zulip names the field this way in both endpoints.
    .refine((s) => s.color === undefined || isHexColor(s.color), { message: "Value error, add.color is not a valid hex color code" });

/** What POST /users/me/subscriptions and POST /channels/create accept for setting up new channels. */
export const newChannelParams = {
  announce: P.bool().default(false),
  invite_only: P.bool().default(false),
  is_web_public: P.bool().default(false),
  is_default_stream: P.bool().default(false),
  history_public_to_subscribers: P.bool().optional(),
  message_retention_days: P.json((z) => z.union([z.string(), z.int()])).default("realm_default"),
  topics_policy: P.json((z) => z.enum(TOPICS_POLICIES)).optional(),
  folder_id: P.int().optional(),
  send_new_subscription_messages: P.bool().default(true),
  ...(Object.fromEntries(CHANNEL_GROUP_SETTINGS.map((s) => [s, P.json(groupSettingValueSchema).optional()])) as Record<
    ChannelGroupSetting,
    ReturnType<typeof P.json<GroupSettingValue | undefined>>
  >),
};

export function newChannelOptions(p: ParamValues<typeof newChannelParams>): NewChannelOptions {
  return {
    announce: p.announce,
    inviteOnly: p.invite_only,
    isWebPublic: p.is_web_public,
    isDefaultStream: p.is_default_stream,
    historyPublicToSubscribers: p.history_public_to_subscribers,
    messageRetentionDays: p.message_retention_days,
    topicsPolicy: p.topics_policy,
    folderId: p.folder_id,
    sendNewSubscriptionMessages: p.send_new_subscription_messages,
    groupSettings: Object.fromEntries(CHANNEL_GROUP_SETTINGS.map((s) => [s, p[s]]).filter(([, v]) => v !== undefined)),
  };
}

export const subscriptionRoutes = [
  endpoint({
    method: "GET",
    path: "/users/me/subscriptions",
    params: { include_subscribers: P.oneOf(["true", "false", "partial"]).default("false") },
    handler: async ({ app, caller }, p) => ({
      subscriptions: await listSubscriptions(app, caller.user, p.include_subscribers !== "false"),
    }),
  }),
  endpoint({
    method: "POST",
    path: "/users/me/subscriptions",
    guard: requireNonGuest,
    params: {
      subscriptions: P.json((z) => z.array(addSubscriptionSchema(z))),
      principals,
      authorization_errors_fatal: P.bool().default(true),
      ...newChannelParams,
    },
    handler: async ({ app, caller }, p) =>
      subscribe(app, caller.user, caller.realm, {
        subscriptions: p.subscriptions,
        principals: p.principals,
        authorizationErrorsFatal: p.authorization_errors_fatal,
        ...newChannelOptions(p),
      }),
  }),
  endpoint({
    method: "PATCH",
    path: "/users/me/subscriptions",
    // Zulip runs its POST and DELETE views in turn, so their other parameters apply too.
    params: {
      add: P.json((z) => z.array(addSubscriptionSchema(z))).optional(),
      delete: P.json((z) => z.array(z.string())).optional(),
      principals,
      authorization_errors_fatal: P.bool().default(true),
      ...newChannelParams,
    },
    handler: async ({ app, caller }, p) =>
      updateSubscriptions(app, caller.user, caller.realm, {
        add: p.add ?? [],
        delete: p.delete ?? [],
        principals: p.principals,
        authorizationErrorsFatal: p.authorization_errors_fatal,
        ...newChannelOptions(p),
      }),
  }),
  endpoint({
    method: "DELETE",
    path: "/users/me/subscriptions",
    params: { subscriptions: P.json((z) => z.array(z.string())), principals },
    handler: async ({ app, caller }, p) => unsubscribe(app, caller.user, caller.realm, p.subscriptions, p.principals),
  }),
];

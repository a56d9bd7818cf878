/** PATCH /realm: organization settings, checked in Zulip's order, applied in one transaction. */
import type { AppContext } from "../context.js";
import type { Caller } from "../http/auth.js";
import { accessStreamById } from "./streams.js";
import { runAction, type PendingEvents, type Tx } from "./run.js";
import { badRequest, ownerRequired } from "../http/errors.js";
import { getRealm, updateRealmRow, type Realm } from "../store/realms.js";
import { activeRealmUserIds } from "../store/users.js";
import { isOwner } from "../domain/roles.js";
import { REALM_PERMISSION_SETTINGS } from "../domain/permission_settings.js";
import { permissionConfigOf, type GroupSettingChange } from "../domain/group_setting_value.js";
import {
  OWNER_ONLY_REALM_GROUP_SETTINGS,
  PLAN_TYPE_LIMITED,
  REALM_TOPICS_POLICIES,
  UPGRADE_TEXT_STANDARD,
  type RealmTopicsPolicyName,
} from "../domain/realm_settings.js";
import { applyGroupSettingChange } from "./group_settings.js";

/** The boolean organization properties PATCH /realm takes here, in Zulip's property order. */
export const REALM_BOOLEAN_PROPERTIES = [
  "avatar_changes_disabled",
  "digest_emails_enabled",
  "email_changes_disabled",
  "enable_read_receipts",
  "enable_spectator_access",
  "inline_image_preview",
  "inline_url_embed_preview",
  "invite_required",
  "message_content_allowed_in_email_notifications",
  "name_changes_disabled",
  "require_unique_names",
  "send_channel_events_messages",
] as const;
type BooleanProperty = (typeof REALM_BOOLEAN_PROPERTIES)[number];

/** Zulip's Realm.property_types order, which is the order changes are applied and announced in. */
const REALM_PROPERTY_ORDER = [
  "avatar_changes_disabled",
  "description",
  "digest_emails_enabled",
  "digest_weekday",
  "email_changes_disabled",
  "enable_read_receipts",
  "enable_spectator_access",
  "inline_image_preview",
  "inline_url_embed_preview",
  "invite_required",
  "message_content_allowed_in_email_notifications",
  "name",
  "name_changes_disabled",
  "require_unique_names",
  "send_channel_events_messages",
  "topics_policy",
] as const;

export interface UpdateRealmRequest {
  name?: string;
  description?: string;
  topicsPolicy?: RealmTopicsPolicyName;
  /** 0 (Monday) to 6. */
  digestWeekday?: number;
  booleans: Partial<Record<BooleanProperty, boolean>>;
  groupSettings: Partial<Record<string, GroupSettingChange>>;
  /** A private channel, or -1 to turn message reporting off. */
  moderationRequestChannelId?: number;
}

async function sendRealmEvent(tx: Tx, events: PendingEvents, realm: Realm, event: Record<string, unknown>) {
  events.send({ realmId: realm.id, event: { type: "realm", ...event }, userIds: await activeRealmUserIds(tx, realm.id) });
}

/** Returns what changed, as Zulip's response reports it (changed strings as "updated"). */
export async function doUpdateRealm(app: AppContext, caller: Caller, req: UpdateRealmRequest): Promise<Record<string, unknown>> {
  const ownerOnlyGiven =
    req.booleans.invite_required !== undefined || OWNER_ONLY_REALM_GROUP_SETTINGS.some((s) => req.groupSettings[s] !== undefined);
  return runAction(app, async (tx, events) => {
    let realm = (await getRealm(tx, caller.realm.id))!;
    const limited = realm.props.plan_type === PLAN_TYPE_LIMITED;
    if (req.groupSettings.can_create_groups !== undefined && limited) throw badRequest(UPGRADE_TEXT_STANDARD);
    if (ownerOnlyGiven && !isOwner(caller.user.role)) throw ownerRequired();
    if (req.booleans.enable_spectator_access && limited) throw badRequest(UPGRADE_TEXT_STANDARD);

    const data: Record<string, unknown> = {};
    const props: Record<string, unknown> = { ...realm.props };
    const saveProps = () => updateRealmRow(tx, realm.id, { props: JSON.stringify(props) });
    for (const property of REALM_PROPERTY_ORDER) {
      if (property === "name" || property === "description") {
        const value = req[property];
        if (value === undefined || value === realm[property]) continue;
        await updateRealmRow(tx, realm.id, { [property]: value });
        await sendRealmEvent(tx, events, realm, { op: "update", property, value });
        data[property] = "updated";
      } else if (property === "digest_weekday") {
        const value = req.digestWeekday;
        if (value === undefined || value === props.digest_weekday) continue;
        props.digest_weekday = value;
        await saveProps();
        await sendRealmEvent(tx, events, realm, { op: "update", property, value });
        data[property] = value;
      } else if (property === "topics_policy") {
        if (req.topicsPolicy === undefined) continue;
        // Zulip compares its stored number with the parsed choice, so the choice is always reported.
        data.topics_policy = REALM_TOPICS_POLICIES[req.topicsPolicy];
        if (props.topics_policy === req.topicsPolicy) continue;
        props.topics_policy = req.topicsPolicy;
        await saveProps();
        await sendRealmEvent(tx, events, realm, {
          op: "update_dict",
          property: "default",
          data: { topics_policy: req.topicsPolicy, mandatory_topics: req.topicsPolicy === "disable_empty_topic" },
        });
      } else {
        const value = req.booleans[property];
        if (value === undefined || value === props[property]) continue;
        props[property] = value;
        await saveProps();
        await sendRealmEvent(tx, events, realm, { op: "update", property, value });
        data[property] = value;
      }
    }

    const channelId = req.moderationRequestChannelId;
    if (channelId !== undefined && channelId !== props.moderation_request_channel_id) {
      if (channelId >= 0) {
        const { stream } = await accessStreamById(app, tx, caller.user, channelId, { requireContentAccess: false });
        if (stream.invite_only !== 1) throw badRequest("Moderation request channel must be private.");
      }
      props.moderation_request_channel_id = channelId >= 0 ? channelId : -1;
      await saveProps();
      await sendRealmEvent(tx, events, realm, { op: "update", property: "moderation_request_channel_id", value: props.moderation_request_channel_id });
      data.moderation_request_channel_id = channelId;
    }

    realm = (await getRealm(tx, realm.id))!;
    const groupSettings = { ...realm.groupSettings };
    for (const [setting, spec] of Object.entries(REALM_PERMISSION_SETTINGS)) {
      const change = req.groupSettings[setting];
      if (change === undefined) continue;
      const result = await applyGroupSettingChange(tx, realm, setting, change, permissionConfigOf(spec), groupSettings[setting]);
      if (!result) continue;
      groupSettings[setting] = result.groupId;
      await updateRealmRow(tx, realm.id, { group_settings: JSON.stringify(groupSettings) });
      await sendRealmEvent(tx, events, realm, { op: "update_dict", property: "default", data: { [setting]: result.value } });
      data[setting] = result.requested;
    }
    return data;
  });
}

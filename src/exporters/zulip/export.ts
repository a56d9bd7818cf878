/**
 * Writes one organization in Zulip's export format (what `manage.py export` writes and
 * `manage.py import` reads: realm.json, messages-NNNNNN.json of 1000 messages, attachment.json,
 * uploads/ and emoji/ with their records.json), as a .tar.gz with one top-level directory.
 * Messages are read and written 1000 at a time, so memory stays bounded.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createHash, randomBytes } from "node:crypto";
import { pipeline } from "node:stream/promises";
import { setImmediate as yieldToLoop } from "node:timers/promises";
import * as tar from "tar";
import type { AppContext } from "../../context.js";
import type { Realm } from "../../store/realms.js";
import type { StoredFile } from "../../files/storage.js";
import { SETTING_NAMES } from "../../domain/user_settings.js";
import { REALM_TOPICS_POLICIES } from "../../domain/realm_settings.js";
import { USER_GROUP_SETTINGS } from "../../domain/group_setting_value.js";
import { uploadStorageKey } from "../../actions/uploads.js";
import { emojiStorageKey } from "../../domain/custom_emoji.js";
import { AVATAR_FROM_USER, avatarStorageKeys } from "../../media/avatars.js";
import { CHANNEL_TOPICS_POLICIES, EXPORTED_ZULIP_VERSION, confabFlagsToZulip } from "../../importers/zulip/format.js";
import { CHANNEL_GROUP_SETTINGS } from "../../store/schema.js";

type Row = Record<string, unknown>;

const MESSAGES_PER_FILE = 1000;

/**
 * Zulip's importer builds each row into its model, so a key the model lacks would fail the
 * import: scalar realm fields and personal settings are limited to Zulip's own (the model fields
 * of Zulip 11, whose feature level Confab serves; missing ones take Zulip's defaults).
 */
const ZULIP_REALM_FIELDS = new Set([
  "invite_required", "emails_restricted_to_domains", "disallow_disposable_email_addresses", "enable_spectator_access",
  "want_advertise_in_communities_directory", "inline_image_preview", "inline_url_embed_preview", "digest_emails_enabled",
  "digest_weekday", "mandatory_topics", "require_unique_names", "name_changes_disabled", "email_changes_disabled",
  "avatar_changes_disabled", "move_messages_within_stream_limit_seconds", "move_messages_between_streams_limit_seconds",
  "waiting_period_threshold", "message_content_delete_limit_seconds", "allow_message_editing", "message_content_edit_limit_seconds",
  "default_language", "message_retention_days", "org_type", "plan_type", "video_chat_provider", "jitsi_server_url", "giphy_rating",
  "enable_read_receipts",
  "can_add_custom_emoji_group", "can_create_public_channel_group", "can_create_private_channel_group",
  "can_create_web_public_channel_group", "can_delete_any_message_group", "can_delete_own_message_group",
  "can_move_messages_between_topics_group", "can_invite_users_group", "can_summarize_topics_group", "create_multiuse_invite_group",
  "direct_message_initiator_group", "direct_message_permission_group", "can_access_all_users_group", "can_create_groups",
  "can_manage_all_groups", "can_add_subscribers_group", "can_move_messages_between_channels_group", "can_resolve_topics_group",
  "can_create_bots_group", "can_create_write_only_bots_group", "can_manage_billing_group", "can_mention_many_users_group",
  "can_set_delete_message_policy_group", "can_set_topics_policy_group",
]);
const ZULIP_PERSONAL_SETTINGS = new Set([
  "enter_sends", "left_side_userlist", "default_language", "web_home_view", "web_escape_navigates_to_home_view", "fluid_layout_width",
  "high_contrast_mode", "translate_emoticons", "display_emoji_reaction_users", "twenty_four_hour_time", "starred_message_counts",
  "web_suggest_update_timezone", "color_scheme", "web_font_size_px", "web_line_height_percent", "web_animate_image_previews",
  "demote_inactive_streams", "web_mark_read_on_scroll_policy", "web_channel_default_view", "emojiset", "user_list_style",
  "web_stream_unreads_count_display_policy", "web_navigate_to_sent_message", "email_notifications_batching_period_seconds",
  "enable_stream_desktop_notifications", "enable_stream_email_notifications", "enable_stream_push_notifications",
  "enable_stream_audible_notifications", "notification_sound", "wildcard_mentions_notify",
  "enable_followed_topic_desktop_notifications", "enable_followed_topic_email_notifications", "enable_followed_topic_push_notifications",
  "enable_followed_topic_audible_notifications", "enable_followed_topic_wildcard_mentions_notify", "enable_desktop_notifications",
  "pm_content_in_desktop_notifications", "enable_sounds", "enable_offline_email_notifications", "message_content_in_email_notifications",
  "enable_offline_push_notifications", "enable_online_push_notifications", "desktop_icon_count_display", "enable_digest_emails",
  "enable_login_emails", "enable_marketing_emails", "presence_enabled", "realm_name_in_email_notifications_policy",
  "automatically_follow_topics_policy", "automatically_unmute_topics_in_muted_streams_policy",
  "automatically_follow_topics_where_mentioned", "enable_drafts_synchronization", "send_stream_typing_notifications",
  "send_private_typing_notifications", "send_read_receipts", "allow_private_data_export", "receives_typing_notifications",
  "email_address_visibility", "hide_ai_features",
]);

export interface ZulipExportSummary {
  file: string;
  counts: Record<string, number>;
}

const flag = (v: unknown) => v === 1 || v === true;
const json = (file: string, value: unknown) => fs.writeFileSync(file, JSON.stringify(value, null, 2));
const byId = (rows: Row[]) => rows.sort((a, b) => Number(a.id) - Number(b.id));

export interface ZulipExportOptions {
  /**
   * The target server's migration_status.json (from any export it wrote): Zulip's importer
   * refuses an export whose list of applied migrations differs from its own, a list only that
   * server knows. Without it the export names the Zulip version alone.
   */
  migrationStatus?: { migrations_by_app: Record<string, string[]>; zulip_version: string };
}

export async function exportZulipFormat(app: AppContext, realm: Realm, outputFile: string, options: ZulipExportOptions = {}): Promise<ZulipExportSummary> {
  const db = app.db;
  const realmId = realm.id;
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "confab-zulip-export-"));
  const top = `zulip-export-${randomBytes(4).toString("hex")}`;
  const dir = path.join(work, top);
  fs.mkdirSync(dir);
  const counts: Record<string, number> = {};
  try {
    const realmRow = await db.selectFrom("realms").selectAll().where("id", "=", realmId).executeTakeFirstOrThrow();
    const users = await db.selectFrom("users").selectAll().where("realm_id", "=", realmId).orderBy("id").execute();
    const userIds = users.map((u) => u.id);
    const streams = await db.selectFrom("streams").selectAll().where("realm_id", "=", realmId).orderBy("id").execute();
    const dmGroups = await db.selectFrom("direct_message_groups").selectAll().where("realm_id", "=", realmId).orderBy("id").execute();
    const recipientRows = [
      ...(userIds.length ? await db.selectFrom("recipients").selectAll().where("type", "=", 1).where("type_id", "in", userIds).execute() : []),
      ...(streams.length ? await db.selectFrom("recipients").selectAll().where("type", "=", 2).where("type_id", "in", streams.map((s) => s.id)).execute() : []),
      ...(dmGroups.length ? await db.selectFrom("recipients").selectAll().where("type", "=", 3).where("type_id", "in", dmGroups.map((g) => g.id)).execute() : []),
    ];
    const recipientOf = new Map(recipientRows.map((r) => [`${r.type}:${r.type_id}`, r.id]));
    const groups = await db.selectFrom("user_groups").selectAll().where("realm_id", "=", realmId).orderBy("id").execute();
    const groupIds = groups.map((g) => g.id);
    const members = groupIds.length ? await db.selectFrom("user_group_members").selectAll().where("group_id", "in", groupIds).execute() : [];
    const subgroups = groupIds.length ? await db.selectFrom("user_group_subgroups").selectAll().where("group_id", "in", groupIds).execute() : [];
    const subs = streams.length ? await db.selectFrom("subscriptions").selectAll().where("stream_id", "in", streams.map((s) => s.id)).execute() : [];

    const props = JSON.parse(realmRow.props) as Row;
    const realmGroups = JSON.parse(realmRow.group_settings) as Row;
    const announce = (v: unknown) => (typeof v === "number" && v > 0 ? v : null);
    const zrealm: Row = {
      ...Object.fromEntries(Object.entries({ ...props, ...realmGroups }).filter(([k]) => ZULIP_REALM_FIELDS.has(k))),
      id: realmId,
      name: realmRow.name,
      description: realmRow.description,
      string_id: realmRow.string_id,
      date_created: realmRow.date_created,
      deactivated: false,
      new_stream_announcements_stream: announce(props.new_stream_announcements_stream_id),
      signup_announcements_stream: announce(props.signup_announcements_stream_id),
      zulip_update_announcements_stream: announce(props.zulip_update_announcements_stream_id),
      moderation_request_channel: announce(props.moderation_request_channel_id),
      mandatory_topics: props.topics_policy === "disable_empty_topic",
      topics_policy: REALM_TOPICS_POLICIES[props.topics_policy as keyof typeof REALM_TOPICS_POLICIES] ?? REALM_TOPICS_POLICIES.allow_empty_topic,
      icon_source: "G",
      logo_source: "D",
      night_logo_source: "D",
    };

    // Confab's system bots are Zulip's server-wide ones: exported as cross-realm bots.
    const humans = users.filter((u) => u.is_system_bot === 0);
    const systemBots = users.filter((u) => u.is_system_bot === 1);
    const zusers = humans.map((u) => {
      const p = JSON.parse(u.props) as Row;
      const settings = Object.fromEntries(SETTING_NAMES.filter((n) => n in p && ZULIP_PERSONAL_SETTINGS.has(n)).map((n) => [n, p[n]]));
      return {
        ...settings,
        id: u.id,
        delivery_email: u.delivery_email,
        email: u.email,
        realm: realmId,
        recipient: recipientOf.get(`1:${u.id}`) ?? null,
        full_name: u.full_name,
        date_joined: u.date_joined,
        is_active: flag(u.is_active),
        is_bot: flag(u.is_bot),
        bot_type: u.bot_type,
        bot_owner: u.bot_owner_id,
        role: u.role,
        timezone: u.timezone,
        presence_enabled: flag(u.presence_enabled),
        email_address_visibility: p.email_address_visibility ?? 1,
        allow_private_data_export: p.allow_private_data_export === true,
        avatar_source: u.avatar_source,
        avatar_version: u.avatar_version,
        is_mirror_dummy: false,
        long_term_idle: false,
        tos_version: null,
        last_login: null,
        default_sending_stream: null as number | null,
        default_events_register_stream: null as number | null,
        default_all_public_streams: false,
        groups: [],
        user_permissions: [],
      };
    });
    const botDefaults = userIds.length ? await db.selectFrom("bot_defaults").selectAll().where("user_id", "in", userIds).execute() : [];
    const zuserById = new Map(zusers.map((u) => [u.id, u]));
    for (const d of botDefaults) {
      const u = zuserById.get(d.user_id);
      if (!u) continue;
      u.default_sending_stream = d.default_sending_stream_id;
      u.default_events_register_stream = d.default_events_register_stream_id;
      u.default_all_public_streams = flag(d.default_all_public_streams);
    }

    const zstreams = streams.map((s) => ({
      id: s.id,
      name: s.name,
      realm: realmId,
      date_created: s.date_created,
      creator: s.creator_id,
      deactivated: flag(s.is_archived),
      description: s.description,
      rendered_description: s.rendered_description,
      recipient: s.recipient_id,
      invite_only: flag(s.invite_only),
      history_public_to_subscribers: flag(s.history_public_to_subscribers),
      is_web_public: flag(s.is_web_public),
      is_in_zephyr_realm: false,
      message_retention_days: s.message_retention_days,
      ...Object.fromEntries(CHANNEL_GROUP_SETTINGS.map((k) => [k, s[k]])),
      topics_policy: CHANNEL_TOPICS_POLICIES[s.topics_policy as keyof typeof CHANNEL_TOPICS_POLICIES] ?? CHANNEL_TOPICS_POLICIES.inherit,
      first_message_id: s.first_message_id,
      is_recently_active: true,
    }));

    let subId = 0;
    const zsubs: Row[] = [];
    for (const u of users) {
      const r = recipientOf.get(`1:${u.id}`);
      if (r !== undefined && u.is_system_bot === 0) zsubs.push({ id: ++subId, user_profile: u.id, recipient: r, active: true, is_user_active: flag(u.is_active), is_muted: false, color: "#c2c2c2", pin_to_top: false });
    }
    const activeById = new Map(users.map((u) => [u.id, flag(u.is_active)]));
    for (const s of subs) {
      const p = JSON.parse(s.props) as Row;
      zsubs.push({
        id: ++subId,
        user_profile: s.user_id,
        recipient: recipientOf.get(`2:${s.stream_id}`),
        active: flag(s.active),
        is_user_active: activeById.get(s.user_id) ?? false,
        is_muted: p.is_muted === true,
        color: s.color,
        pin_to_top: p.pin_to_top === true,
        desktop_notifications: p.desktop_notifications ?? null,
        audible_notifications: p.audible_notifications ?? null,
        push_notifications: p.push_notifications ?? null,
        email_notifications: p.email_notifications ?? null,
        wildcard_mentions_notify: p.wildcard_mentions_notify ?? null,
      });
    }
    const zhuddles = dmGroups.map((g) => {
      const ids = g.user_ids.split(",").map(Number);
      const recipient = recipientOf.get(`3:${g.id}`);
      for (const u of ids) zsubs.push({ id: ++subId, user_profile: u, recipient, active: true, is_user_active: activeById.get(u) ?? false, is_muted: false, color: "#c2c2c2", pin_to_top: false });
      return { id: g.id, huddle_hash: createHash("sha1").update(g.user_ids).digest("hex"), recipient, group_size: ids.length };
    });

    const zgroups = groups.map((g) => ({ id: g.id, realm: realmId }));
    const znamed = groups
      .filter((g) => g.name !== null)
      .map((g) => ({
        id: g.id,
        usergroup_ptr: g.id,
        name: g.name,
        description: g.description,
        date_created: g.date_created,
        creator: g.creator_id,
        is_system_group: flag(g.is_system_group),
        ...Object.fromEntries(USER_GROUP_SETTINGS.map((k) => [k, (JSON.parse(g.group_settings) as Row)[k] ?? null])),
        realm_for_sharding: realmId,
        deactivated: flag(g.deactivated),
      }));

    const defaultStreams = await db.selectFrom("default_streams").selectAll().where("realm_id", "=", realmId).execute();
    const fields = await db.selectFrom("custom_profile_fields").selectAll().where("realm_id", "=", realmId).orderBy("id").execute();
    const fieldValues = fields.length ? await db.selectFrom("custom_profile_values").selectAll().where("field_id", "in", fields.map((f) => f.id)).execute() : [];
    const emoji = await db.selectFrom("realm_emoji").selectAll().where("realm_id", "=", realmId).orderBy("id").execute();
    const linkifiers = await db.selectFrom("realm_linkifiers").selectAll().where("realm_id", "=", realmId).orderBy("id").execute();
    const playgrounds = await db.selectFrom("realm_playgrounds").selectAll().where("realm_id", "=", realmId).orderBy("id").execute();
    const userTopics = userIds.length ? await db.selectFrom("user_topics").selectAll().where("user_id", "in", userIds).orderBy("id").execute() : [];
    const muted = userIds.length ? await db.selectFrom("muted_users").selectAll().where("user_id", "in", userIds).execute() : [];
    const alertWords = await db.selectFrom("alert_words").selectAll().where("realm_id", "=", realmId).orderBy("id").execute();
    const services = userIds.length ? await db.selectFrom("bot_services").selectAll().where("user_id", "in", userIds).orderBy("id").execute() : [];

    // Messages: files of 1000, keyset-paged; reactions and clients gathered along the way.
    const clients = new Map<string, number>();
    const clientId = (name: string) => {
      if (!clients.has(name)) clients.set(name, clients.size + 1);
      return clients.get(name)!;
    };
    const reactions: Row[] = [];
    let after = 0;
    let fileNo = 0;
    let copyId = 0;
    let messageCount = 0;
    let copyCount = 0;
    for (;;) {
      const messages = await db.selectFrom("messages").selectAll().where("realm_id", "=", realmId).where("id", ">", after).orderBy("id").limit(MESSAGES_PER_FILE).execute();
      if (!messages.length) break;
      after = messages[messages.length - 1]!.id;
      const ids = messages.map((m) => m.id);
      const copies = await db.selectFrom("user_messages").selectAll().where("message_id", "in", ids).orderBy("message_id").orderBy("user_id").execute();
      for (const r of await db.selectFrom("reactions").selectAll().where("message_id", "in", ids).orderBy("id").execute()) {
        reactions.push({ id: r.id, user_profile: r.user_id, emoji_name: r.emoji_name, reaction_type: r.reaction_type, emoji_code: r.emoji_code, message: r.message_id });
      }
      json(path.join(dir, `messages-${String(++fileNo).padStart(6, "0")}.json`), {
        zerver_message: messages.map((m) => ({
          id: m.id,
          sender: m.sender_id,
          recipient: m.recipient_id,
          realm: realmId,
          type: 1,
          subject: m.topic,
          content: m.content,
          rendered_content: m.rendered_content,
          rendered_content_version: 1,
          date_sent: m.date_sent,
          sending_client: clientId(m.client),
          last_edit_time: m.last_edit_time ?? m.last_moved_time,
          edit_history: m.edit_history,
          has_attachment: m.content.includes("/user_uploads/"),
          has_image: m.rendered_content.includes("<img"),
          has_link: m.rendered_content.includes("<a "),
          is_channel_message: m.stream_id !== null,
        })),
        zerver_usermessage: copies.map((c) => ({ id: ++copyId, user_profile: c.user_id, message: c.message_id, flags_mask: confabFlagsToZulip(c.flags) })),
      });
      messageCount += messages.length;
      copyCount += copies.length;
      await yieldToLoop();
    }
    counts.zerver_message = messageCount;
    counts.zerver_usermessage = copyCount;

    // Uploads and their links to messages.
    const attachments = await db.selectFrom("attachments").selectAll().where("realm_id", "=", realmId).orderBy("id").execute();
    const links = attachments.length ? await db.selectFrom("attachment_messages").selectAll().where("attachment_id", "in", attachments.map((a) => a.id)).execute() : [];
    const uploadRecords: Row[] = [];
    for (const a of attachments) {
      const stored = await app.files.get(uploadStorageKey(a.path_id));
      if (!stored) continue;
      const dest = path.join(dir, "uploads", a.path_id);
      fs.mkdirSync(path.dirname(dest), { recursive: true });
      await writeStored(stored, dest);
      uploadRecords.push({ realm_id: realmId, user_profile_id: a.owner_id, user_profile_email: users.find((u) => u.id === a.owner_id)?.email ?? "", s3_path: a.path_id, path: a.path_id, size: a.size, last_modified: a.create_time, content_type: null });
    }
    const emojiRecords: Row[] = [];
    for (const e of emoji) {
      const stored = e.file_name ? await app.files.get(emojiStorageKey(realmId, e.file_name)) : null;
      if (!stored) continue;
      const rel = `${realmId}/emoji/images/${e.file_name}`;
      const dest = path.join(dir, "emoji", rel);
      fs.mkdirSync(path.dirname(dest), { recursive: true });
      await writeStored(stored, dest);
      emojiRecords.push({ realm_id: realmId, author: e.author_id, path: rel, s3_path: rel, file_name: e.file_name, name: e.name, deactivated: flag(e.deactivated) });
    }

    // Uploaded avatars: the original image, named as Zulip names it (a hash of id and version).
    const avatarRecords: Row[] = [];
    for (const u of humans) {
      if (u.avatar_source !== AVATAR_FROM_USER) continue;
      const stored = await app.files.get(avatarStorageKeys(realmId, u.id, u.avatar_version).original);
      if (!stored) continue;
      const rel = `${realmId}/${createHash("sha256").update(`${u.id}:${u.avatar_version}:${realmRow.string_id}`).digest("hex").slice(0, 40)}.original`;
      const dest = path.join(dir, "avatars", rel);
      fs.mkdirSync(path.dirname(dest), { recursive: true });
      await writeStored(stored, dest);
      avatarRecords.push({ realm_id: realmId, user_profile_id: u.id, user_profile_email: u.email, avatar_version: u.avatar_version, s3_path: rel, path: rel, size: stored.size, last_modified: u.date_joined, content_type: null });
    }

    const realmJson: Row = {
      zerver_realm: [zrealm],
      zerver_realmauthenticationmethod: [],
      zerver_presencesequence: [],
      zerver_scheduledmessage: [],
      zerver_defaultstream: defaultStreams.map((d, i) => ({ id: i + 1, realm: realmId, stream: d.stream_id })),
      zerver_customprofilefield: fields.map((f) => ({ id: f.id, realm: realmId, name: f.name, hint: f.hint, order: f.order, display_in_profile_summary: flag(f.display_in_profile_summary), required: flag(f.required), editable_by_user: flag(f.editable_by_user), field_type: f.field_type, field_data: f.field_data })),
      zerver_realmauditlog: [],
      zerver_realmemoji: emoji.map((e) => ({ id: e.id, author: e.author_id, realm: realmId, name: e.name, file_name: e.file_name, is_animated: flag(e.is_animated), deactivated: flag(e.deactivated) })),
      zerver_realmdomain: [],
      zerver_realmexport: [],
      zerver_realmfilter: linkifiers.map((l) => ({ id: l.id, realm: realmId, pattern: l.pattern, url_template: l.url_template, order: l.order })),
      zerver_realmplayground: playgrounds.map((p) => ({ id: p.id, realm: realmId, url_template: p.url_template, name: p.name, pygments_language: p.pygments_language })),
      zerver_realmuserdefault: [],
      zerver_onboardingusermessage: [],
      zerver_userprofile: zusers,
      zerver_userprofile_mirrordummy: [],
      zerver_userprofile_crossrealm: systemBots.map((b) => ({ email: b.delivery_email, id: b.id, recipient_id: recipientOf.get(`1:${b.id}`) ?? null })),
      zerver_service: services.map((s) => ({ id: s.id, name: s.name, user_profile: s.user_id, base_url: s.base_url, token: "", interface: s.interface })),
      zerver_botstoragedata: [],
      zerver_botconfigdata: [],
      zerver_huddle: zhuddles,
      zerver_alertword: alertWords.map((a) => ({ id: a.id, realm: realmId, user_profile: a.user_id, word: a.word })),
      zerver_customprofilefieldvalue: fieldValues.map((v, i) => ({ id: i + 1, user_profile: v.user_id, field: v.field_id, value: v.value, rendered_value: v.rendered_value })),
      zerver_muteduser: muted.map((m, i) => ({ id: i + 1, user_profile: m.user_id, muted_user: m.muted_user_id, date_muted: m.date_muted })),
      zerver_onboardingstep: [],
      zerver_savedsnippet: [],
      zerver_useractivity: [],
      zerver_useractivityinterval: [],
      zerver_userpresence: [],
      zerver_userstatus: [],
      zerver_usertopic: userTopics.map((t) => ({ id: t.id, user_profile: t.user_id, stream: t.stream_id, recipient: recipientOf.get(`2:${t.stream_id}`) ?? null, topic_name: t.topic_name, last_updated: t.last_updated, visibility_policy: t.visibility_policy })),
      zerver_usergroup: zgroups,
      zerver_usergroupmembership: members.map((m, i) => ({ id: i + 1, user_group: m.group_id, user_profile: m.user_id })),
      zerver_groupgroupmembership: subgroups.map((m, i) => ({ id: i + 1, supergroup: m.group_id, subgroup: m.subgroup_id })),
      zerver_namedusergroup: znamed,
      zerver_stream: zstreams,
      zerver_recipient: byId(recipientRows.map((r) => ({ id: r.id, type_id: r.type_id, type: r.type }))),
      zerver_subscription: zsubs,
      zerver_reaction: byId(reactions),
      zerver_client: [...clients].map(([name, id]) => ({ id, name })),
      import_source: "zulip",
    };
    json(path.join(dir, "realm.json"), realmJson);
    json(path.join(dir, "attachment.json"), {
      zerver_attachment: attachments.map((a) => ({
        id: a.id, file_name: a.file_name, path_id: a.path_id, owner: a.owner_id, realm: realmId, create_time: a.create_time, size: a.size,
        content_type: a.content_type, is_realm_public: flag(a.is_realm_public), is_web_public: flag(a.is_web_public),
        messages: links.filter((l) => l.attachment_id === a.id).map((l) => l.message_id), scheduled_messages: [],
      })),
    });
    fs.mkdirSync(path.join(dir, "uploads"), { recursive: true });
    json(path.join(dir, "uploads", "records.json"), uploadRecords.sort((a, b) => String(a.path).localeCompare(String(b.path))));
    fs.mkdirSync(path.join(dir, "avatars"), { recursive: true });
    json(path.join(dir, "avatars", "records.json"), avatarRecords);
    fs.mkdirSync(path.join(dir, "emoji"), { recursive: true });
    json(path.join(dir, "emoji", "records.json"), emojiRecords);
    fs.mkdirSync(path.join(dir, "realm_icons"), { recursive: true });
    json(path.join(dir, "realm_icons", "records.json"), []);
    json(path.join(dir, "analytics.json"), { analytics_realmcount: [], analytics_usercount: [], analytics_streamcount: [] });
    json(path.join(dir, "migration_status.json"), options.migrationStatus ?? { migrations_by_app: {}, zulip_version: EXPORTED_ZULIP_VERSION });
    for (const [k, v] of Object.entries(realmJson)) if (Array.isArray(v)) counts[k] = v.length;
    counts.zerver_attachment = attachments.length;
    json(path.join(dir, "stats.json"), { realm: Object.fromEntries(Object.entries(counts).filter(([k]) => k in realmJson)), messages: { zerver_message: messageCount, zerver_usermessage: copyCount } });
    await tar.create({ gzip: true, file: outputFile, cwd: work, portable: true }, [top]);
    return { file: outputFile, counts };
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

async function writeStored(stored: StoredFile, dest: string): Promise<void> {
  await pipeline(stored.stream, fs.createWriteStream(dest));
}

/**
 * Row types of the one schema both databases share. Booleans are stored as 0/1 integers
 * so that SQLite and PostgreSQL return the same values; timestamps are UNIX seconds.
 */
import type { Generated, Kysely, Transaction } from "kysely";

export type Flag = 0 | 1;

export interface RealmTable {
  id: Generated<number>;
  string_id: string;
  name: string;
  description: string;
  date_created: number;
  deactivated: Flag;
  /** JSON object of scalar organization settings (see domain/realm_settings.ts). */
  props: string;
  /** JSON object: permission setting name -> user_groups.id. */
  group_settings: string;
}

export interface UserTable {
  id: Generated<number>;
  realm_id: number;
  email: string;
  delivery_email: string;
  full_name: string;
  role: number;
  is_active: Flag;
  is_bot: Flag;
  bot_type: number | null;
  bot_owner_id: number | null;
  is_system_bot: Flag;
  api_key: string;
  password_hash: string | null;
  date_joined: number;
  timezone: string;
  presence_enabled: Flag;
  /** JSON object of further per-user settings. */
  props: string;
  /** "G" (Gravatar) or "U" (uploaded); see media/avatars.ts. */
  avatar_source: Generated<string>;
  avatar_version: Generated<number>;
}

export interface UserGroupTable {
  id: Generated<number>;
  realm_id: number;
  /** null for the anonymous groups that hold a group-setting value. */
  name: string | null;
  description: string;
  is_system_group: Flag;
  date_created: number | null;
  creator_id: number | null;
  deactivated: Flag;
  /** JSON object: permission setting name -> user_groups.id. */
  group_settings: string;
}

export interface UserGroupMemberTable {
  group_id: number;
  user_id: number;
}

export interface UserGroupSubgroupTable {
  group_id: number;
  subgroup_id: number;
}

export interface RecipientTable {
  id: Generated<number>;
  /** 1 = a user (direct messages), 2 = a channel, 3 = a direct-message group. */
  type: number;
  type_id: number;
}

export interface DirectMessageGroupTable {
  id: Generated<number>;
  realm_id: number;
  /** Sorted comma-joined user ids: the group's identity. */
  user_ids: string;
}

export interface ChannelFolderTable {
  id: Generated<number>;
  realm_id: number;
  name: string;
  description: string;
  rendered_description: string;
  order: number;
  date_created: number;
  creator_id: number | null;
  is_archived: Flag;
}

export const CHANNEL_GROUP_SETTINGS = [
  "can_add_subscribers_group",
  "can_administer_channel_group",
  "can_delete_any_message_group",
  "can_delete_own_message_group",
  "can_move_messages_out_of_channel_group",
  "can_move_messages_within_channel_group",
  "can_remove_subscribers_group",
  "can_resolve_topics_group",
  "can_send_message_group",
  "can_subscribe_group",
] as const;
export type ChannelGroupSetting = (typeof CHANNEL_GROUP_SETTINGS)[number];

export type StreamTable = {
  id: Generated<number>;
  realm_id: number;
  name: string;
  description: string;
  rendered_description: string;
  invite_only: Flag;
  is_web_public: Flag;
  history_public_to_subscribers: Flag;
  date_created: number;
  creator_id: number | null;
  /** null = organization default, -1 = unlimited. */
  message_retention_days: number | null;
  is_archived: Flag;
  folder_id: number | null;
  topics_policy: string;
  recipient_id: number | null;
  first_message_id: number | null;
} & { [K in ChannelGroupSetting]: number };

export interface DefaultStreamTable {
  realm_id: number;
  stream_id: number;
}

export interface SubscriptionTable {
  user_id: number;
  stream_id: number;
  active: Flag;
  color: string;
  /** JSON object of per-subscription display and notification settings. */
  props: string;
}

export interface MessageTable {
  id: Generated<number>;
  realm_id: number;
  sender_id: number;
  recipient_id: number;
  /** Channel messages only. */
  stream_id: number | null;
  topic: string;
  /** Direct messages only: sorted comma-joined ids of every participant. */
  dm_key: string | null;
  content: string;
  rendered_content: string;
  client: string;
  date_sent: number;
  last_edit_time: number | null;
  last_moved_time: number | null;
  /** JSON list of edit records, newest first; null until the message is first edited or moved. */
  edit_history: Generated<string | null>;
  /** Moved on by triggers whenever the message or its reactions change (migration 030). */
  version: Generated<number>;
}

export interface UserMessageTable {
  user_id: number;
  message_id: number;
  flags: number;
}

export interface CustomProfileFieldTable {
  id: Generated<number>;
  realm_id: number;
  name: string;
  hint: string;
  field_type: number;
  field_data: string;
  order: number;
  display_in_profile_summary: Flag;
  required: Flag;
  editable_by_user: Flag;
}

export interface CustomProfileValueTable {
  user_id: number;
  field_id: number;
  value: string;
  rendered_value: string | null;
}

export interface DraftTable {
  id: Generated<number>;
  user_id: number;
  stream_id: number | null;
  /** Direct-message drafts: sorted comma-joined ids of every participant, the owner included. */
  dm_key: string | null;
  topic: string;
  content: string;
  /** UNIX seconds, with fractions. */
  last_edit_time: number;
}

export interface SavedSnippetTable {
  id: Generated<number>;
  realm_id: number;
  user_id: number;
  title: string;
  content: string;
  date_created: number;
}

export interface AlertWordTable {
  id: Generated<number>;
  realm_id: number;
  user_id: number;
  /** As the user spelled it; matching ignores case. */
  word: string;
}

export interface RealmLinkifierTable {
  id: Generated<number>;
  realm_id: number;
  pattern: string;
  url_template: string;
  order: number;
}

export interface RealmPlaygroundTable {
  id: Generated<number>;
  realm_id: number;
  name: string;
  pygments_language: string;
  url_template: string;
}

export interface ScheduledMessageTable {
  id: Generated<number>;
  realm_id: number;
  sender_id: number;
  /** Channel messages only. */
  stream_id: number | null;
  /** Direct messages only: sorted comma-joined ids of every participant, the sender included. */
  dm_key: string | null;
  topic: string;
  content: string;
  rendered_content: string;
  /** The client that scheduled or last edited it; the sent message names it. */
  client: string;
  /** UNIX seconds. */
  scheduled_timestamp: number;
  read_by_sender: Flag;
  delivered: Flag;
  delivered_message_id: number | null;
  failed: Flag;
  failure_message: string | null;
  /** 0: sent later by its sender; 1: a reminder, sent to its sender by Notification Bot. */
  delivery_type: Generated<number>;
  reminder_target_message_id: number | null;
  /** The reminder's note, stripped; the reminder's text is written again with it when sent. */
  reminder_note: string | null;
}

export interface NavigationViewTable {
  id: Generated<number>;
  user_id: number;
  fragment: string;
  is_pinned: Flag;
  /** Built-in views have none. */
  name: string | null;
}

export interface UserPresenceTable {
  user_id: number;
  realm_id: number;
  last_connected_time: number | null;
  last_active_time: number | null;
  /** The organization's presence counter when this record last changed. */
  last_update_id: number;
}

export interface PresenceSequenceTable {
  realm_id: number;
  last_update_id: number;
}

export interface PushDeviceTokenTable {
  id: Generated<number>;
  realm_id: number;
  user_id: number;
  /** 1 = APNs, 2 = FCM. */
  kind: number;
  token: string;
  ios_app_id: string | null;
  date_created: number;
}

export interface PushDeviceTable {
  id: Generated<number>;
  realm_id: number;
  user_id: number;
  /** Decimal text of a 64-bit integer. */
  push_account_id: string;
  token_kind: string;
  push_public_key: string;
  bouncer_device_id: string | null;
  error_code: string | null;
  date_created: number;
}

export interface PushUuidTable {
  owner_kind: string;
  owner_id: number;
  uuid: string;
}

/** An email invitation (Zulip's PreregistrationUser), or an email address confirming sign-up through a link. */
export interface EmailInviteTable {
  id: Generated<number>;
  realm_id: number;
  email: string;
  /** null when the address came through a reusable link rather than from someone's invitation. */
  referred_by_id: number | null;
  multiuse_invite_id: number | null;
  invited_as: number;
  include_realm_default_subscriptions: Flag;
  notify_referrer_on_join: Flag;
  /** null = the organization's default welcome text. */
  welcome_message_custom_text: string | null;
  /** JSON arrays of channel and user group ids. */
  stream_ids: string;
  group_ids: string;
  invited_at: number;
  /** null = never expires. */
  expiry_date: number | null;
  /** 0 = pending, 1 = used, 2 = revoked (see domain/invites.ts). */
  status: number;
  created_user_id: number | null;
  confirmation_key: string;
}

/** A reusable invitation link. */
export interface MultiuseInviteTable {
  id: Generated<number>;
  realm_id: number;
  referred_by_id: number;
  invited_as: number;
  include_realm_default_subscriptions: Flag;
  welcome_message_custom_text: string | null;
  stream_ids: string;
  group_ids: string;
  date_created: number;
  expiry_date: number | null;
  status: number;
  confirmation_key: string;
}

/** One invitation email sent, for the organization's daily limit. */
export interface InviteEmailSentTable {
  id: Generated<number>;
  realm_id: number;
  sent_at: number;
}

/** A custom emoji; deactivated ones stay, for the reactions and statuses that use them. */
export interface RealmEmojiTable {
  id: Generated<number>;
  realm_id: number;
  name: string;
  author_id: number | null;
  file_name: string;
  is_animated: Flag;
  deactivated: Flag;
}

/** An organization data export and where its archive is. */
export interface RealmExportTable {
  id: Generated<number>;
  realm_id: number;
  acting_user_id: number | null;
  type: number;
  status: number;
  date_requested: number;
  date_succeeded: number | null;
  date_failed: number | null;
  date_deleted: number | null;
  path: string | null;
}

export interface UserTopicTable {
  id: Generated<number>;
  user_id: number;
  stream_id: number;
  /** The topic as the user last spelled it. */
  topic_name: string;
  /** topic_name lower-cased: topics compare case-insensitively. */
  topic_key: string;
  /** 1 muted, 2 unmuted, 3 followed (no row: inherit). */
  visibility_policy: number;
  last_updated: number;
}

export interface AttachmentTable {
  id: Generated<number>;
  realm_id: number;
  owner_id: number;
  path_id: string;
  file_name: string;
  content_type: string;
  size: number;
  create_time: number;
  is_realm_public: Generated<Flag>;
  is_web_public: Generated<Flag>;
}

/** See migration 033: an upload that is an image, and its thumbnails (a JSON list). */
export interface ImageAttachmentTable {
  attachment_id: number;
  original_width_px: number;
  original_height_px: number;
  frames: number;
  thumbnail_metadata: Generated<string>;
}

export interface AttachmentMessageTable {
  attachment_id: number;
  message_id: number;
}

/** One user muting another (Zulip's MutedUser). */
export interface MutedUserTable {
  user_id: number;
  muted_user_id: number;
  date_muted: number;
}

/** A channel's email-gateway address for one sender (Zulip's ChannelEmailAddress). */
export interface ChannelEmailAddressTable {
  id: Generated<number>;
  realm_id: number;
  stream_id: number;
  creator_id: number | null;
  sender_id: number;
  email_token: string;
  date_created: number;
}

/** A notification email's reply address: the user it went to and the message it was about. */
export interface EmailReplyAddressTable {
  id: Generated<number>;
  /** `mm` + 32 hex digits, as Zulip's. */
  email_token: string;
  user_id: number;
  message_id: number;
  date_created: number;
  times_used: Generated<number>;
}

/** One user's emoji reaction to one message. */
export interface ReactionTable {
  id: Generated<number>;
  message_id: number;
  user_id: number;
  emoji_name: string;
  emoji_code: string;
  reaction_type: string;
}

/** A user's status; empty strings are the defaults (no text, no emoji). */
export interface UserStatusTable {
  user_id: number;
  status_text: Generated<string>;
  emoji_name: Generated<string>;
  emoji_code: Generated<string>;
  reaction_type: Generated<string>;
  timestamp: number;
}

/** A browser session of the web client, found by the SHA-256 of the key in its cookie. */
export interface WebSessionTable {
  id: Generated<number>;
  key_hash: string;
  user_id: number;
  csrf_token: string;
  created_at: number;
  expires_at: number;
}

/**
 * An email or push bouncer call waiting to be made. A worker takes a job by counting an attempt
 * and moving next_attempt_at past the time the attempt may take (its lease); it deletes the job
 * once done.
 */
export interface OutboxJobTable {
  id: Generated<number>;
  kind: string;
  /** JSON; its shape depends on the kind. */
  payload: string;
  /** Attempts started so far: a worker finishing an attempt touches the job only if no other began since. */
  attempts: Generated<number>;
  /** UNIX seconds: when the job is due, or when the lease of the attempt under way ends. */
  next_attempt_at: number;
  created_at: number;
}

/** What a page's link preview shows, kept per URL (Zulip's preview cache). */
export interface LinkPreviewTable {
  /** SHA-256 of the URL, in hex: URLs can be longer than an index entry may be. */
  url_hash: string;
  url: string;
  /** JSON of the title, description and image; null: the page is not one to preview. */
  data: string | null;
  /** UNIX seconds. */
  fetched_at: number;
}

/** A bot's default channels; a bot without a row has none. */
export interface BotDefaultsTable {
  user_id: number;
  default_sending_stream_id: number | null;
  default_events_register_stream_id: number | null;
  default_all_public_streams: Flag;
}

/** An outgoing-webhook bot's service: where messages to it are posted, and how. */
export interface BotServiceTable {
  id: Generated<number>;
  user_id: number;
  name: string;
  base_url: string;
  /** 1 = Zulip's generic format, 2 = Slack's outgoing webhook format. */
  interface: number;
  token: string;
}

/** A key-value entry of a bot: its configuration (bot_config) or its storage (bot_storage). */
export interface BotEntryTable {
  user_id: number;
  key: string;
  value: string;
}

/** A widget on a message (the first, by the message's sender) or one change to it. */
export interface SubmessageTable {
  id: Generated<number>;
  message_id: number;
  sender_id: number;
  msg_type: string;
  /** JSON as the client sent it; the widget's own is `{widget_type, extra_data}`. */
  content: string;
}

/** A message a user is to be emailed about once its batch is due (Zulip's ScheduledMessageNotificationEmail). */
export interface MessageEmailNotificationTable {
  id: Generated<number>;
  user_id: number;
  message_id: number;
  /** Why the user is emailed: one of domain/message_emails.ts's triggers. */
  trigger: string;
  /** UNIX seconds: when the user's batch goes out. */
  scheduled_at: number;
}

/** When a user was last sent a digest, so no week gets two. */
export interface DigestSendTable {
  user_id: number;
  sent_at: number;
}

export interface DB {
  realms: RealmTable;
  users: UserTable;
  user_groups: UserGroupTable;
  user_group_members: UserGroupMemberTable;
  user_group_subgroups: UserGroupSubgroupTable;
  recipients: RecipientTable;
  direct_message_groups: DirectMessageGroupTable;
  channel_folders: ChannelFolderTable;
  streams: StreamTable;
  default_streams: DefaultStreamTable;
  subscriptions: SubscriptionTable;
  messages: MessageTable;
  user_messages: UserMessageTable;
  custom_profile_fields: CustomProfileFieldTable;
  custom_profile_values: CustomProfileValueTable;
  drafts: DraftTable;
  saved_snippets: SavedSnippetTable;
  alert_words: AlertWordTable;
  realm_linkifiers: RealmLinkifierTable;
  realm_playgrounds: RealmPlaygroundTable;
  scheduled_messages: ScheduledMessageTable;
  user_presence: UserPresenceTable;
  presence_sequences: PresenceSequenceTable;
  push_device_tokens: PushDeviceTokenTable;
  push_devices: PushDeviceTable;
  push_uuids: PushUuidTable;
  email_invites: EmailInviteTable;
  multiuse_invites: MultiuseInviteTable;
  invite_emails_sent: InviteEmailSentTable;
  realm_emoji: RealmEmojiTable;
  realm_exports: RealmExportTable;
  user_topics: UserTopicTable;
  navigation_views: NavigationViewTable;
  attachments: AttachmentTable;
  attachment_messages: AttachmentMessageTable;
  image_attachments: ImageAttachmentTable;
  muted_users: MutedUserTable;
  channel_email_addresses: ChannelEmailAddressTable;
  email_reply_addresses: EmailReplyAddressTable;
  reactions: ReactionTable;
  user_status: UserStatusTable;
  web_sessions: WebSessionTable;
  outbox_jobs: OutboxJobTable;
  link_previews: LinkPreviewTable;
  bot_defaults: BotDefaultsTable;
  bot_services: BotServiceTable;
  bot_config: BotEntryTable;
  bot_storage: BotEntryTable;
  submessages: SubmessageTable;
  message_email_notifications: MessageEmailNotificationTable;
  digest_sends: DigestSendTable;
}

export type Db = Kysely<DB>;
/** Anything queries can run on: the database or an open transaction. */
export type Executor = Kysely<DB> | Transaction<DB>;

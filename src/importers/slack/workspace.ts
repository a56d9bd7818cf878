/**
 * A Slack workspace being turned into Zulip's tables, in memory except for messages, which are
 * converted one at a time and handed back for writing. The order of calls follows Zulip's
 * converter: users, then channels, private channels, group DMs and DMs, then messages oldest
 * first (a thread's topic is named after the first message seen in it). The primary owner is
 * the first user.
 */
import { isValidEmail } from "../../domain/users.js";
import {
  type Row,
  RECIPIENT_DIRECT_MESSAGE_GROUP,
  RECIPIENT_PERSONAL,
  RECIPIENT_STREAM,
  defaultStreamRow,
  huddleRow,
  messageRow,
  newUploadPath,
  realmRow,
  realmTables,
  recipientRow,
  streamRow,
  subscriptionRow,
  userMessageFlags,
  userProfileRow,
  CONVERTED_REALM_ID,
} from "../zulip_format.js";
import {
  type SlackUser,
  SlackBotEmails,
  ThreadTopicNames,
  UNTHREADED_TOPIC,
  convertSlackReactions,
  convertSlackText,
  isSlackbot,
  renderBlocksAndAttachments,
  slackUserEmail,
  slackUserFullName,
  slackUserRole,
  slackUserTimezone,
} from "./convert.js";

export class SlackImportError extends Error {
  override name = "SlackImportError";
}

type Json = Record<string, unknown>;

export interface SlackChannel {
  id: string;
  name: string;
  created?: string | number;
  is_archived?: boolean;
  members?: string[];
  purpose?: { value?: string };
}

/** Where a message file came from: a channel's, a group DM's or a DM's folder. */
export type SlackLocation = { channel: string } | { mpim: string } | { dm: string };

export interface SlackFile {
  url: string;
  pathId: string;
}

/**
 * Stores a Slack-hosted file under `pathId` in the output; false when it cannot be had (the
 * message then links to Slack instead).
 */
export type StoreFile = (file: SlackFile) => Promise<boolean>;

export interface ConvertedSlackMessage {
  message: Row;
  userMessages: Row[];
}

/** Channels Slack creates in every workspace, which new Zulip users join. */
const SLACK_DEFAULT_CHANNELS = new Set(["general", "random"]);
const ANNOUNCEMENTS_CHANNEL = "general";
/** Slack's bookkeeping notices, which Zulip has no use for. */
const SKIPPED_SUBTYPES = new Set(["pinned_item", "unpinned_item", "channel_join", "channel_leave", "channel_name"]);
const ME_SUBTYPES = new Set(["bot_add", "sh_room_created", "me_message"]);
/** Custom profile fields Slack keeps outside `fields`. */
const NAMED_PROFILE_FIELDS = ["phone", "skype"];
const LONG_TEXT_OVER = 50;

const float = (v: unknown) => Number.parseFloat(String(v));

export class SlackWorkspace {
  readonly realmId = CONVERTED_REALM_ID;
  readonly realm: Json;
  private readonly zulipRealm: Row;
  private readonly bots = new SlackBotEmails();

  readonly users = new Map<string, SlackUser>();
  readonly userIds = new Map<string, number>();
  private readonly idsByEmail = new Map<string, number>();
  private readonly personalRecipient = new Map<number, number>();
  private readonly subscribers = new Map<number, Set<number>>();
  private readonly sortedCache = new Map<number, number[]>();
  // Ids start at 1 (Zulip's converter starts at 0): the importer may keep them, and 0 is no id.
  private nextUserId = 2;
  private primaryOwnerTaken = false;
  private nextRecipientId = 1;
  private nextSubscriptionId = 1;
  private nextStreamId = 1;
  private nextHuddleId = 1;
  private nextMessageId = 1;
  private nextUserMessageId = 1;
  private nextAttachmentId = 1;
  private nextReactionId = 1;

  /** Slack channel name → [Slack id, Zulip recipient id]. */
  readonly channels = new Map<string, { slackId: string; recipientId: number }>();
  private readonly channelIdsByName = new Map<string, string>();
  readonly mpims = new Map<string, number>();
  readonly dms = new Map<string, [string, string]>();

  private readonly topicNames = new ThreadTopicNames();
  private readonly threadTopics = new Map<string, string>();
  private readonly threadParents = new Map<string, string>();

  readonly attachments: Row[] = [];
  readonly uploads: Row[] = [];
  readonly reactions: Row[] = [];
  skippedFiles = 0;

  private readonly fieldRows: Row[] = [];
  private readonly fieldValueRows: Row[] = [];
  private readonly fieldIds = new Map<string, number>();

  constructor(
    readonly domain: string,
    readonly now: number,
    subdomain = "",
  ) {
    this.zulipRealm = realmRow(this.realmId, subdomain, now, "Slack");
    this.realm = realmTables(this.zulipRealm, domain, "slack");
  }

  private rows(table: string): Row[] {
    return this.realm[table] as Row[];
  }

  /**
   * The workspace's users. `profileSource` is the export's own users.json, which has the custom
   * profile fields that a users.list answer lacks.
   */
  addUsers(users: SlackUser[], profileSource: SlackUser[] = users): void {
    const customFields = new Map<string, Record<string, { value: string }>>();
    for (const u of profileSource) {
      const fields: Record<string, { value: string }> = { ...(u.profile?.fields ?? {}) };
      for (const name of NAMED_PROFILE_FIELDS) if (name in (u.profile ?? {})) fields[name] = { value: String(u.profile[name] ?? "") };
      customFields.set(u.id, fields);
    }
    const emails: string[] = [];
    for (const user of users) {
      const added = this.addUser({ ...user, profile: user.profile ?? {}, is_mirror_dummy: user.is_mirror_dummy ?? false });
      if (added.isNew) emails.push(added.email);
      const fields = customFields.get(user.id);
      if (added.isNew && fields) this.addProfileFieldValues(added.id, fields);
    }
    for (const field of this.fieldRows) {
      if (this.fieldValueRows.some((v) => v.field === field.id && [...String(v.value)].length > LONG_TEXT_OVER)) field.field_type = 2;
    }
    const invalid = emails.filter((e) => !isValidEmail(e));
    if (invalid.length > 0) throw new SlackImportError(`Invalid email format, please fix the following email(s) and try again: ${invalid.join(", ")}`);
  }

  private addProfileFieldValues(userId: number, fields: Record<string, { value: string }>): void {
    for (const [key, v] of Object.entries(fields)) {
      let fieldId = this.fieldIds.get(key);
      if (fieldId === undefined) {
        fieldId = this.fieldRows.length + 1;
        this.fieldIds.set(key, fieldId);
        this.fieldRows.push({
          id: fieldId,
          realm: this.realmId,
          name: NAMED_PROFILE_FIELDS.includes(key) ? key : `Slack custom field ${fieldId}`,
          hint: "",
          order: fieldId,
          field_type: 1,
          field_data: "",
          display_in_profile_summary: false,
          required: false,
          editable_by_user: true,
        });
      }
      if (!v || v.value === "" || v.value === undefined) continue;
      this.fieldValueRows.push({ id: this.fieldValueRows.length + 1, user_profile: userId, field: fieldId, value: String(v.value), rendered_value: null });
    }
  }

  private addUser(user: SlackUser): { id: number; email: string; isNew: boolean } {
    const email = slackUserEmail(user, this.domain, this.bots);
    this.users.set(user.id, user);
    const existing = this.idsByEmail.get(email.toLowerCase());
    if (existing !== undefined) {
      // Accounts sharing an address (the same person in two workspaces) become one user.
      this.userIds.set(user.id, existing);
      return { id: existing, email, isNew: false };
    }
    let id: number;
    if (user.is_primary_owner && !this.primaryOwnerTaken) {
      id = 1;
      this.primaryOwnerTaken = true;
    } else id = this.nextUserId++;
    this.idsByEmail.set(email.toLowerCase(), id);
    this.userIds.set(user.id, id);
    const isBot = isSlackbot(user) || Boolean(user.is_bot) || Boolean(user.is_integration_bot);
    this.rows("zerver_userprofile").push(
      userProfileRow({
        id,
        realmId: this.realmId,
        email,
        fullName: slackUserFullName(user),
        shortName: user.name,
        role: slackUserRole(user),
        isActive: !user.deleted && !user.is_mirror_dummy,
        isMirrorDummy: Boolean(user.is_mirror_dummy),
        isBot,
        botType: isBot ? 1 : null,
        timezone: slackUserTimezone(user),
        dateJoined: Math.trunc(this.now),
        // Slack's avatars need its API to fetch; imported users start with Gravatar.
        avatarSource: "G",
      }),
    );
    const recipientId = this.nextRecipientId++;
    this.rows("zerver_recipient").push(recipientRow(id, recipientId, RECIPIENT_PERSONAL));
    this.personalRecipient.set(id, recipientId);
    this.subscribe(recipientId, [id]);
    return { id, email, isNew: true };
  }

  /**
   * A Slack id that is not among the workspace's users: a member of another workspace in a shared
   * channel, or an integration posting as a bot. Zulip asks Slack's API about them; the export
   * only has what its messages say, which is enough for a name.
   */
  private ensureUser(slackId: string, message?: Json): number {
    const known = this.userIds.get(slackId);
    if (known !== undefined) return known;
    const profile = (message?.user_profile ?? {}) as Json;
    const botProfile = (message?.bot_profile ?? {}) as Json;
    if (message && isIntegrationBotMessage(message)) {
      const name = String(botProfile.name ?? message.username ?? `Deleted Slack Bot ${slackId}`);
      return this.addUser({
        id: slackId,
        name,
        real_name: name,
        deleted: Boolean(botProfile.deleted),
        is_mirror_dummy: false,
        is_integration_bot: true,
        profile: { bot_id: slackId, first_name: name },
      }).id;
    }
    const name = String(profile.name ?? slackId);
    const team = String(profile.team ?? message?.user_team ?? "unknown").toLowerCase();
    return this.addUser({
      id: slackId,
      name,
      deleted: false,
      is_mirror_dummy: true,
      team_domain: team,
      profile: profile.real_name ? { real_name: String(profile.real_name) } : {},
    }).id;
  }

  private subscribe(recipientId: number, userIds: Iterable<number>): void {
    const set = this.subscribers.get(recipientId) ?? new Set<number>();
    this.subscribers.set(recipientId, set);
    for (const userId of userIds) {
      if (set.has(userId)) continue;
      set.add(userId);
      this.rows("zerver_subscription").push(subscriptionRow(this.nextSubscriptionId++, recipientId, userId));
    }
  }

  /** A recipient's subscribers in id order, kept until the set grows (a late mirror dummy). */
  private sortedSubscribers(recipientId: number): number[] {
    let sorted = this.sortedCache.get(recipientId);
    if (!sorted || sorted.length !== (this.subscribers.get(recipientId)?.size ?? 0)) {
      sorted = [...(this.subscribers.get(recipientId) ?? [])].sort((x, y) => x - y);
      this.sortedCache.set(recipientId, sorted);
    }
    return sorted;
  }

  private memberIds(members: string[] | undefined): number[] {
    return (members ?? []).map((m) => this.ensureUser(m));
  }

  /** Channels (`channels.json`) and private channels (`groups.json`, `inviteOnly`). */
  addChannels(channels: SlackChannel[], inviteOnly: boolean): void {
    for (const channel of channels) {
      const streamId = this.nextStreamId++;
      const stream = streamRow({
        id: streamId,
        realmId: this.realmId,
        name: channel.name,
        description: channel.purpose?.value ?? "",
        dateCreated: float(channel.created ?? this.now),
        deactivated: Boolean(channel.is_archived),
        inviteOnly,
      });
      this.rows("zerver_stream").push(stream);
      if (SLACK_DEFAULT_CHANNELS.has(channel.name) && !stream.deactivated) {
        const defaults = this.rows("zerver_defaultstream");
        defaults.push(defaultStreamRow(defaults.length + 1, this.realmId, streamId));
      }
      const recipientId = this.nextRecipientId++;
      this.rows("zerver_recipient").push(recipientRow(streamId, recipientId, RECIPIENT_STREAM));
      this.channels.set(channel.name, { slackId: channel.id, recipientId });
      this.channelIdsByName.set(channel.name, channel.id);
      this.subscribe(recipientId, this.memberIds(channel.members));
      if (channel.name === ANNOUNCEMENTS_CHANNEL) {
        this.zulipRealm.new_stream_announcements_stream = streamId;
        this.zulipRealm.zulip_update_announcements_stream = streamId;
      }
    }
  }

  /** Slack's multi-person DMs (`mpims.json`) become DM groups. */
  addMpims(mpims: SlackChannel[]): void {
    for (const mpim of mpims) {
      const huddleId = this.nextHuddleId++;
      this.rows("zerver_huddle").push(huddleRow(huddleId, (mpim.members ?? []).length));
      const recipientId = this.nextRecipientId++;
      this.rows("zerver_recipient").push(recipientRow(huddleId, recipientId, RECIPIENT_DIRECT_MESSAGE_GROUP));
      this.mpims.set(mpim.name, recipientId);
      this.subscribe(recipientId, this.memberIds(mpim.members));
    }
  }

  /** One-to-one DMs (`dms.json`) stay between the two users' personal recipients. */
  addDms(dms: SlackChannel[]): void {
    for (const dm of dms) {
      const [a, b] = dm.members ?? [];
      if (a === undefined) continue;
      this.ensureUser(a);
      this.ensureUser(b ?? a);
      this.dms.set(dm.id, [a, b ?? a]);
    }
  }

  private parentUser(message: Json, subtype: string | undefined): string | undefined {
    const threadTs = String(message.thread_ts);
    const root = (message.root ?? {}) as Json;
    if (subtype === "thread_broadcast" && (root.user || root.bot_id)) return String(root.user ?? root.bot_id);
    if (message.thread_ts === message.ts && (message.user || message.bot_id)) {
      const parent = String(message.user ?? message.bot_id);
      this.threadParents.set(threadTs, parent);
      return parent;
    }
    if (message.parent_user_id || message.bot_id) return String(message.parent_user_id ?? message.bot_id);
    return this.threadParents.get(threadTs);
  }

  private threadTopic(message: Json, subtype: string | undefined, content: string): string {
    const threadTs = float(message.thread_ts);
    const when = new Date(threadTs * 1000).toISOString().slice(0, 19).replace("T", " ").replace(/-/g, "/");
    const key = `${when}-${this.parentUser(message, subtype) ?? ""}`;
    let topic = this.threadTopics.get(key);
    if (topic === undefined) {
      topic = this.topicNames.next(content, threadTs);
      this.threadTopics.set(key, topic);
    }
    return topic;
  }

  /** One Slack message as a Zulip message and its user messages; undefined when Zulip skips it. */
  async convertMessage(message: Json, location: SlackLocation, storeFile: StoreFile): Promise<ConvertedSlackMessage | undefined> {
    if (message.user === "U00" || message.mimetype === "application/vnd.slack-docs") return undefined;
    const slackSender = sendingUser(message);
    if (!slackSender) return undefined;
    const subtype = typeof message.subtype === "string" ? message.subtype : undefined;
    if (subtype && SKIPPED_SUBTYPES.has(subtype)) return undefined;
    let text = message.text;
    // What an integration posts lives in its blocks and attachments; a person's text already
    // says what their blocks repeat.
    if (isIntegrationBotMessage(message) || !text) {
      const formatted = renderBlocksAndAttachments(message);
      if (formatted !== "") text = formatted;
    }
    if (typeof text !== "string") return undefined;
    const senderId = this.ensureUser(slackSender, message);
    let { content, mentionedUserIds, hasLink } = convertSlackText(text, { users: this.users, channels: this.channelIdsByName, userIds: this.userIds });

    let recipientId: number;
    let senderRecipientId: number | undefined;
    let isPrivate: boolean;
    if ("channel" in location) {
      const channel = this.channels.get(location.channel);
      if (!channel) return undefined;
      recipientId = channel.recipientId;
      isPrivate = false;
    } else if ("mpim" in location) {
      const r = this.mpims.get(location.mpim);
      if (r === undefined) return undefined;
      recipientId = r;
      isPrivate = true;
    } else {
      const members = this.dms.get(location.dm);
      if (!members) return undefined;
      const [a, b] = members;
      const [to, from] = slackSender === a ? [b, a] : [a, b];
      recipientId = this.personalRecipient.get(this.ensureUser(to))!;
      senderRecipientId = this.personalRecipient.get(this.ensureUser(from))!;
      isPrivate = true;
    }

    const messageId = this.nextMessageId++;
    if (Array.isArray(message.reactions)) {
      for (const r of convertSlackReactions(message.reactions as { name: string; users?: string[] }[], this.userIds, new Map())) {
        this.reactions.push({ id: this.nextReactionId++, user_profile: r.userId, emoji_name: r.emojiName, emoji_code: r.emojiCode, reaction_type: r.reactionType, message: messageId });
      }
    }
    if (subtype && ME_SUBTYPES.has(subtype)) content = `/me ${content}`;

    const files = await this.messageFiles(message, subtype, messageId, senderId, storeFile);
    content = [content, files.content].filter((part) => part !== "").join("\n");
    hasLink ||= files.hasLink;

    let topic = UNTHREADED_TOPIC;
    if (!isPrivate && message.thread_ts !== undefined) topic = this.threadTopic(message, subtype, content);

    const row = messageRow({
      id: messageId,
      realmId: this.realmId,
      senderId,
      recipientId,
      topic: isPrivate ? "" : topic,
      content,
      dateSent: float(message.ts),
      isChannelMessage: !isPrivate,
      hasAttachment: files.hasAttachment,
      hasImage: files.hasImage,
      hasLink,
    });
    const userMessages: Row[] = [];
    const receivers = [recipientId, ...(senderRecipientId !== undefined && senderRecipientId !== recipientId ? [senderRecipientId] : [])];
    for (const r of receivers) {
      for (const userId of this.sortedSubscribers(r)) {
        userMessages.push({
          id: this.nextUserMessageId++,
          user_profile: userId,
          message: messageId,
          flags_mask: userMessageFlags({ mentioned: mentionedUserIds.includes(userId), isPrivate }),
        });
      }
    }
    return { message: row, userMessages };
  }

  private async messageFiles(
    message: Json,
    subtype: string | undefined,
    messageId: number,
    ownerId: number,
    storeFile: StoreFile,
  ): Promise<{ content: string; hasAttachment: boolean; hasImage: boolean; hasLink: boolean }> {
    let hasAttachment = false;
    let hasImage = false;
    let hasLink = false;
    const files = (subtype === "file_share" ? [message.file] : Array.isArray(message.files) ? message.files : []) as Json[];
    const links: string[] = [];
    for (const file of files) {
      if (!file || typeof file !== "object") continue;
      if (file.mode === "tombstone" || file.mode === "hidden_by_limit") continue;
      if (file.file_access === "access_denied" || file.file_access === "file_not_found") continue;
      const url = String(file.url_private ?? "");
      const title = String(file.title ?? file.name ?? "");
      let host = "";
      try {
        host = new URL(url).hostname;
      } catch {
        continue;
      }
      hasLink = true;
      if (host === "files.slack.com") {
        const name = String(file.name ?? "file");
        const pathId = newUploadPath(this.realmId, name);
        if (await storeFile({ url, pathId })) {
          hasAttachment = true;
          hasImage ||= String(file.mimetype ?? "").includes("image");
          links.push(`[${title}](/user_uploads/${pathId})`);
          const owner = this.rows("zerver_userprofile").find((u) => u.id === ownerId);
          this.uploads.push({
            path: pathId,
            s3_path: pathId,
            realm_id: this.realmId,
            content_type: null,
            user_profile_id: ownerId,
            user_profile_email: owner?.email ?? "",
            last_modified: file.timestamp ?? null,
            size: file.size ?? null,
          });
          this.attachments.push({
            id: this.nextAttachmentId++,
            file_name: name,
            path_id: pathId,
            owner: ownerId,
            realm: this.realmId,
            create_time: file.created ?? null,
            size: file.size ?? null,
            content_type: file.mimetype ?? null,
            is_realm_public: true,
            is_web_public: false,
            messages: [messageId],
            scheduled_messages: [],
          });
          continue;
        }
        // Not downloadable any more: link to Slack, without the access token in the query.
        this.skippedFiles++;
        links.push(`[${title}](${url.split("?")[0]})`);
        continue;
      }
      links.push(`[${String(file.title ?? file.name ?? "")}](${url})`);
    }
    return { content: links.join("\n"), hasAttachment, hasImage, hasLink };
  }

  /** realm.json's content once every message is converted. */
  realmJson(): Json {
    return {
      ...this.realm,
      zerver_customprofilefield: this.fieldRows,
      zerver_customprofilefieldvalue: this.fieldValueRows,
      zerver_reaction: this.reactions,
    };
  }
}

/** Who sent a message: the user, a shared file's owner, or the posting bot. */
export function sendingUser(message: Json): string | undefined {
  if (typeof message.user === "string") return message.user;
  const file = message.file as Json | undefined;
  if (file && typeof file === "object" && typeof file.user === "string") return file.user;
  if (typeof message.bot_id === "string" && message.bot_id) return message.bot_id;
  return undefined;
}

export function isIntegrationBotMessage(message: Json): boolean {
  return message.subtype === "bot_message" && !("user" in message) && typeof message.bot_id === "string";
}

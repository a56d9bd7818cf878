/**
 * The rows and files of Zulip's export format as Zulip's converters from other products write
 * them (zerver/data_import/import_util.py): only the fields those converters set, `null`
 * rendered content (the importer renders), foreign keys named without `_id`, float timestamps.
 * See ../shared/reference/zulip-export-format.md. Messages are written in files of 1000 as they
 * come, so a conversion holds one file's worth of messages at a time.
 */
import fs from "node:fs";
import path from "node:path";
import { randomBytes, randomInt } from "node:crypto";
import { STREAM_ASSIGNMENT_COLORS } from "../domain/colors.js";
import { messageUploadPath, sanitizeFileName } from "../domain/uploads.js";

export type Row = Record<string, unknown>;

export const RECIPIENT_PERSONAL = 1;
export const RECIPIENT_STREAM = 2;
export const RECIPIENT_DIRECT_MESSAGE_GROUP = 3;

/** The client Zulip's converters name as every imported message's sender client. */
const DATA_IMPORT_CLIENTS: Record<string, number> = { Internal: 1, website: 2, ZulipMobile: 3, ZulipElectron: 4, ZulipDataImport: 5 };
export const DATA_IMPORT_CLIENT_ID = DATA_IMPORT_CLIENTS.ZulipDataImport;

export const MESSAGE_BATCH_SIZE = 1000;

/** UserMessage flag bits (Zulip's ALL_FLAGS order). */
export const FLAG_READ = 1;
export const FLAG_MENTIONED = 8;
export const FLAG_STREAM_WILDCARD_MENTIONED = 16;
export const FLAG_IS_PRIVATE = 2048;

/**
 * Zulip's converters number the organization 0, and its importer always renumbers it. Confab's
 * keeps ids when the database is empty, and no organization should be id 0 (falsy, and never
 * made by a sequence), so converted organizations are 1.
 */
export const CONVERTED_REALM_ID = 1;

export function realmRow(id: number, subdomain: string, dateCreated: number, product: string): Row {
  return {
    id,
    // The organization at the bare host has no subdomain to be named after.
    name: subdomain || `Imported from ${product}`,
    string_id: subdomain,
    description: `Organization imported from ${product}!`,
    date_created: dateCreated,
    deactivated: false,
    invite_only: false,
    emails_restricted_to_domains: false,
    new_stream_announcements_stream: null,
    signup_announcements_stream: null,
    zulip_update_announcements_stream: null,
  };
}

/** realm.json's tables for a converted organization, empty where the product has nothing. */
export function realmTables(realm: Row, domain: string, importSource: string): Record<string, unknown> {
  const realmId = realm.id as number;
  return {
    zerver_client: Object.entries(DATA_IMPORT_CLIENTS).map(([name, id]) => ({ name, id })),
    zerver_customprofilefield: [],
    zerver_customprofilefieldvalue: [],
    zerver_userpresence: [],
    zerver_userprofile_mirrordummy: [],
    zerver_realmdomain: [{ realm: realmId, allow_subdomains: false, domain, id: realmId }],
    zerver_useractivity: [],
    zerver_realm: [realm],
    zerver_huddle: [],
    zerver_userprofile_crossrealm: [],
    zerver_useractivityinterval: [],
    zerver_reaction: [],
    zerver_realmemoji: [],
    zerver_realmfilter: [],
    zerver_realmplayground: [],
    zerver_realmauthenticationmethod: [],
    zerver_userprofile: [],
    zerver_stream: [],
    zerver_recipient: [],
    zerver_subscription: [],
    zerver_defaultstream: [],
    import_source: importSource,
  };
}

export interface UserProfileFields {
  id: number;
  realmId: number;
  email: string;
  fullName: string;
  shortName: string;
  role: number;
  isActive: boolean;
  isMirrorDummy: boolean;
  isBot: boolean;
  botType: number | null;
  timezone: string;
  dateJoined: number;
  avatarSource: "G" | "U";
}

export function userProfileRow(u: UserProfileFields): Row {
  return {
    id: u.id,
    realm: u.realmId,
    email: u.email,
    delivery_email: u.email,
    full_name: u.fullName,
    short_name: u.shortName,
    role: u.role,
    is_active: u.isActive,
    is_mirror_dummy: u.isMirrorDummy,
    is_bot: u.isBot,
    bot_type: u.botType,
    bot_owner: null,
    is_staff: false,
    can_forge_sender: false,
    timezone: u.timezone,
    date_joined: u.dateJoined,
    last_login: u.dateJoined,
    avatar_source: u.avatarSource,
    avatar_version: 1,
    long_term_idle: false,
    last_active_message_id: null,
    enable_desktop_notifications: true,
    tos_version: null,
  };
}

/**
 * A channel. Other products have no "private with shared history", so private channels get
 * protected history, as Zulip's converters do.
 */
export function streamRow(s: { id: number; realmId: number; name: string; description: string; dateCreated: number; deactivated: boolean; inviteOnly: boolean }): Row {
  return {
    id: s.id,
    realm: s.realmId,
    name: s.name,
    description: s.description.replace(/\n/g, " "),
    rendered_description: "",
    date_created: s.dateCreated,
    deactivated: s.deactivated,
    invite_only: s.inviteOnly,
    history_public_to_subscribers: !s.inviteOnly,
    is_web_public: false,
    message_retention_days: null,
    creator: null,
  };
}

export const recipientRow = (typeId: number, id: number, type: number): Row => ({ id, type_id: typeId, type });

export const huddleRow = (id: number, groupSize: number): Row => ({ id, group_size: groupSize, huddle_hash: "" });

export const defaultStreamRow = (id: number, realmId: number, streamId: number): Row => ({ id, realm: realmId, stream: streamId });

export function subscriptionRow(id: number, recipientId: number, userId: number): Row {
  return {
    id,
    user_profile: userId,
    recipient: recipientId,
    active: true,
    is_user_active: true,
    is_muted: false,
    color: STREAM_ASSIGNMENT_COLORS[randomInt(STREAM_ASSIGNMENT_COLORS.length)],
    pin_to_top: false,
    desktop_notifications: null,
    audible_notifications: null,
    push_notifications: null,
    email_notifications: null,
    wildcard_mentions_notify: null,
  };
}

export interface MessageFields {
  id: number;
  realmId: number;
  senderId: number;
  recipientId: number;
  topic: string;
  content: string;
  dateSent: number;
  isChannelMessage: boolean;
  hasAttachment: boolean;
  hasImage: boolean;
  hasLink: boolean;
}

/** A converted message; NUL characters, which no database column takes, are dropped. */
export function messageRow(m: MessageFields): Row {
  return {
    id: m.id,
    sender: m.senderId,
    recipient: m.recipientId,
    realm: m.realmId,
    type: 1,
    subject: m.isChannelMessage ? m.topic : "",
    content: m.content.replace(/\0/g, ""),
    rendered_content: null,
    rendered_content_version: 1,
    date_sent: m.dateSent,
    sending_client: DATA_IMPORT_CLIENT_ID,
    last_edit_time: null,
    edit_history: null,
    has_attachment: m.hasAttachment,
    has_image: m.hasImage,
    has_link: m.hasLink,
    is_channel_message: m.isChannelMessage,
  };
}

export function userMessageFlags(o: { mentioned: boolean; wildcard?: boolean; isPrivate: boolean }): number {
  return FLAG_READ | (o.mentioned ? FLAG_MENTIONED : 0) | (o.wildcard ? FLAG_STREAM_WILDCARD_MENTIONED : 0) | (o.isPrivate ? FLAG_IS_PRIVATE : 0);
}

/** A fresh upload path of Zulip's shape for a file of the organization. */
export function newUploadPath(realmId: number, fileName: string): string {
  return messageUploadPath(realmId, sanitizeFileName(fileName), { byte: randomInt(256), token: randomBytes(18).toString("base64url") });
}

/** Increasing ids per table, from 1, as Zulip's converters' sequencer hands them out. */
export class Sequences {
  private readonly next = new Map<string, number>();
  id(table: string): number {
    const n = this.next.get(table) ?? 1;
    this.next.set(table, n + 1);
    return n;
  }
}

/** Writes one converted organization into `dir`, which must be empty or absent. */
export class ConvertedExportWriter {
  private batch: Row[] = [];
  private batchUserMessages: Row[] = [];
  private fileNumber = 0;
  messageCount = 0;
  userMessageCount = 0;

  readonly dir: string;

  constructor(
    dir: string,
    private readonly batchSize = MESSAGE_BATCH_SIZE,
  ) {
    this.dir = path.resolve(dir);
    fs.mkdirSync(dir, { recursive: true });
    if (fs.readdirSync(dir).length > 0) throw new Error(`Output directory ${dir} should be empty.`);
  }

  async addMessage(message: Row, userMessages: Row[]): Promise<void> {
    this.batch.push(message);
    this.batchUserMessages.push(...userMessages);
    this.messageCount++;
    this.userMessageCount += userMessages.length;
    if (this.batch.length >= this.batchSize) await this.flushMessages();
  }

  async flushMessages(): Promise<void> {
    if (this.batch.length === 0) return;
    this.fileNumber++;
    const name = `messages-${String(this.fileNumber).padStart(6, "0")}.json`;
    await this.writeJson(name, { zerver_message: this.batch, zerver_usermessage: this.batchUserMessages });
    this.batch = [];
    this.batchUserMessages = [];
  }

  /** A file's path inside the output directory, its folders made. */
  filePath(relative: string): string {
    const full = path.join(this.dir, relative);
    if (!full.startsWith(this.dir + path.sep)) throw new Error(`Refusing to write outside the output directory: ${relative}`);
    fs.mkdirSync(path.dirname(full), { recursive: true });
    return full;
  }

  async writeJson(relative: string, value: unknown): Promise<void> {
    await fs.promises.writeFile(this.filePath(relative), JSON.stringify(value));
  }

  /**
   * The remaining files: realm.json, attachment.json and the records of uploads, avatars, emoji
   * and icons (each directory is present, as Zulip's importer requires).
   */
  async finish(o: { realm: Record<string, unknown>; attachments: Row[]; uploads: Row[]; emoji?: Row[]; avatars?: Row[]; realmIcons?: Row[] }): Promise<void> {
    await this.flushMessages();
    await this.writeJson("realm.json", o.realm);
    await this.writeJson("attachment.json", { zerver_attachment: o.attachments });
    await this.writeJson("uploads/records.json", o.uploads);
    await this.writeJson("avatars/records.json", o.avatars ?? []);
    await this.writeJson("emoji/records.json", o.emoji ?? []);
    await this.writeJson("realm_icons/records.json", o.realmIcons ?? []);
  }
}

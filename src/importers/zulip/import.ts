/**
 * Loads an organization from Zulip's export format (`manage.py export`, or what the Slack and
 * Mattermost converters write) into Confab, as a new organization beside any others.
 *
 * Everything happens in one transaction: a failure anywhere leaves the database as it was (files
 * already stored are removed again). Messages are read one messages-NNNNNN.json file at a time
 * and written in batches, so memory stays bounded by a file plus the id maps of the small tables.
 *
 * Ids: users, channels and messages keep their ids when the target holds none of them (an empty
 * database), else all of a table's ids move by one offset, so references and the order of
 * messages survive; every other row gets a new id through a map. Rendered HTML's mention and
 * channel ids are rewritten to match; upload links are rewritten when the organization's id (the
 * first part of each upload path) changes.
 */
import fs from "node:fs";
import path from "node:path";
import { setImmediate as yieldToLoop } from "node:timers/promises";
import { sql } from "kysely";
import type { AppContext } from "../../context.js";
import type { Tx } from "../../actions/run.js";
import type { Executor } from "../../store/schema.js";
import { createUserInTx } from "../../actions/users.js";
import { SYSTEM_BOTS } from "../../actions/realms.js";
import { SYSTEM_GROUPS, SYSTEM_GROUP_NESTING, systemGroupForRole, isFullMember } from "../../domain/system_groups.js";
import { REALM_GROUP_SETTING_DEFAULTS, REALM_PROP_DEFAULTS, REALM_TOPICS_POLICIES, EMAIL_ADDRESS_VISIBILITY } from "../../domain/realm_settings.js";
import { CHANNEL_GROUP_SETTINGS } from "../../store/schema.js";
import { USER_GROUP_SETTINGS } from "../../domain/group_setting_value.js";
import { SETTING_NAMES, settingRefusal } from "../../domain/user_settings.js";
import { addGroupMembers, addSubgroups } from "../../store/groups.js";
import { getRealm, getRealmByStringId } from "../../store/realms.js";
import { dmKeyFor, insertMessageCopies } from "../../store/messages.js";
import { sqliteConnectionOf } from "../../store/db.js";
import { insertRows, resetIdSequences } from "../../store/realm_tables.js";
import { topicKey } from "../../domain/topics.js";
import { emojiStorageKey } from "../../domain/custom_emoji.js";
import { AVATAR_FROM_USER, avatarStorageKeys, makeAvatarImages } from "../../media/avatars.js";
import { uploadStorageKey } from "../../actions/uploads.js";
import { generateApiKey } from "../../security/credentials.js";
import { renderMarkdown } from "../../markdown/render.js";
import { renderContextFor } from "../../markdown/context.js";
import { ZulipImportError } from "./archive.js";
import {
  ZULIP_RECIPIENT,
  channelTopicsPolicyName,
  confabRole,
  idOffset,
  rewriteRenderedIds,
  seconds,
  versionRefusal,
  zulipFlagsToConfab,
  type IdMaps,
} from "./format.js";

export { ZulipImportError } from "./archive.js";

export interface ZulipImportOptions {
  /** The new organization's string id (subdomain); the export's own when absent. */
  stringId?: string;
  /** Called after each messages file, with messages done and the total announced by the export. */
  progress?(done: number, total: number): void;
  /** Largest JSON file read whole (realm.json, a messages file), in bytes. */
  maxJsonBytes?: number;
}

export interface ZulipImportSummary {
  realmId: number;
  stringId: string;
  name: string;
  /** Rows written per Confab table. */
  counts: Record<string, number>;
  seconds: number;
  /** Whether user and message ids were kept as the export had them. */
  idsKept: { users: boolean; messages: boolean };
  /** Bots and their new API keys (keys are not in exports). */
  bots: { id: number; email: string; apiKey: string }[];
}

type Row = Record<string, any>;

const MESSAGE_BATCH = 1000;
const DEFAULT_MAX_JSON = 1024 ** 3;

function readJson(file: string, maxBytes: number): Row {
  const size = fs.statSync(file).size;
  if (size > maxBytes) throw new ZulipImportError(`${path.basename(file)} is larger than ${maxBytes} bytes.`);
  try {
    return JSON.parse(fs.readFileSync(file, "utf8")) as Row;
  } catch (err) {
    throw new ZulipImportError(`${path.basename(file)} is not valid JSON (${(err as Error).message}).`);
  }
}

/** A file the export's rows name, or null when the name would leave the export's directory. */
function exportFile(dir: string, ...parts: string[]): string | null {
  const full = path.resolve(dir, ...parts);
  return full.startsWith(path.resolve(dir) + path.sep) && fs.existsSync(full) && fs.statSync(full).isFile() ? full : null;
}

const table = (data: Row, name: string): Row[] => (Array.isArray(data[name]) ? (data[name] as Row[]) : []);
const bool = (v: unknown): 0 | 1 => (v ? 1 : 0);
const str = (v: unknown, fallback = ""): string => (typeof v === "string" ? v : fallback);

/** The messages files in order of their number. */
function messageFiles(dir: string): string[] {
  return fs
    .readdirSync(dir)
    .filter((f) => /^messages-\d+\.json$/.test(f))
    .sort((a, b) => Number(a.slice(9, -5)) - Number(b.slice(9, -5)))
    .map((f) => path.join(dir, f));
}

function checkVersion(dir: string, realmData: Row, maxBytes: number): void {
  const file = path.join(dir, "migration_status.json");
  if (!fs.existsSync(file)) {
    // Converters (Slack, Mattermost) name their source; a real Zulip export always has the file.
    if (typeof realmData.import_source === "string" && realmData.import_source !== "zulip") return;
    throw new ZulipImportError("This is not a Zulip export: it has no migration_status.json.");
  }
  const refusal = versionRefusal(readJson(file, maxBytes).zulip_version);
  if (refusal) throw new ZulipImportError(refusal);
}

async function maxId(db: Executor, name: "users" | "messages" | "streams" | "recipients"): Promise<number> {
  const row = await db.selectFrom(name).select((eb) => eb.fn.max<number>("id").as("m")).executeTakeFirst();
  return Number(row?.m ?? 0);
}

function minOf(ids: Iterable<number>): number {
  let m = Infinity;
  for (const id of ids) if (id < m) m = id;
  return m;
}

/** The smallest message id of all files, read one file at a time. */
function firstMessageId(files: string[], maxBytes: number): { min: number; total: number } {
  let min = Infinity;
  let total = 0;
  for (const f of files) {
    const rows = table(readJson(f, maxBytes), "zerver_message");
    total += rows.length;
    for (const m of rows) if (m.id < min) min = m.id;
  }
  return { min, total };
}

/**
 * Rows of one shape into a table: on SQLite one prepared single-row insert per row, on the
 * transaction's connection (a many-row statement is compiled anew for each batch size and costs
 * more); on PostgreSQL many-row statements.
 */
async function bulkInsert(tx: Tx, name: string, columns: readonly string[], rows: Row[]): Promise<void> {
  if (!rows.length) return;
  const sqlite = sqliteConnectionOf(tx);
  if (!sqlite) return insertRows(tx, name, rows);
  const insert = sqlite.prepare(`INSERT INTO ${name} (${columns.map((c) => `"${c}"`).join(", ")}) VALUES (${columns.map(() => "?").join(", ")})`);
  for (const row of rows) insert.run(columns.map((c) => row[c] ?? null));
}

/** A file's message copies: on PostgreSQL one statement over three arrays, on SQLite insertMessageCopies' prepared rows. */
async function insertCopies(tx: Tx, copies: Map<number, Map<number, number>>, offset: number): Promise<number> {
  let n = 0;
  if (sqliteConnectionOf(tx)) {
    for (const [messageId, flagsByUser] of copies) {
      await insertMessageCopies(tx, messageId + offset, flagsByUser);
      n += flagsByUser.size;
    }
    return n;
  }
  const users: number[] = [];
  const messages: number[] = [];
  const flags: number[] = [];
  for (const [messageId, flagsByUser] of copies) {
    for (const [userId, f] of flagsByUser) {
      users.push(userId);
      messages.push(messageId + offset);
      flags.push(f);
    }
  }
  if (users.length) {
    await sql`INSERT INTO user_messages (user_id, message_id, flags)
              SELECT * FROM unnest(${users}::integer[], ${messages}::integer[], ${flags}::integer[])`.execute(tx);
  }
  return users.length;
}

const MESSAGE_COLUMNS = ["id", "realm_id", "sender_id", "recipient_id", "stream_id", "topic", "dm_key", "content", "rendered_content", "client", "date_sent", "last_edit_time", "last_moved_time", "edit_history"] as const;
const REACTION_COLUMNS = ["message_id", "user_id", "emoji_name", "emoji_code", "reaction_type"] as const;

class Counter {
  counts: Record<string, number> = {};
  add(name: string, n = 1) {
    this.counts[name] = (this.counts[name] ?? 0) + n;
  }
}

export async function importZulipExport(app: AppContext, dir: string, options: ZulipImportOptions = {}): Promise<ZulipImportSummary> {
  const started = performance.now();
  const maxJson = options.maxJsonBytes ?? DEFAULT_MAX_JSON;
  const realmFile = path.join(dir, "realm.json");
  if (!fs.existsSync(realmFile)) throw new ZulipImportError("This is not a Zulip export: it has no realm.json.");
  const data = readJson(realmFile, maxJson);
  checkVersion(dir, data, maxJson);
  const zrealm = table(data, "zerver_realm")[0];
  if (!zrealm) throw new ZulipImportError("realm.json has no zerver_realm row.");
  const stringId = options.stringId ?? str(zrealm.string_id);
  // Zulip's subdomain rules, as create-realm applies them ("" is the organization at the bare host).
  if (stringId !== "" && !(stringId.length >= 3 && stringId.length <= 40 && /^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/.test(stringId))) {
    throw new ZulipImportError(`'${stringId.slice(0, 60)}' can't be a string id: 3 to 40 lowercase letters, digits and '-'s.`);
  }
  if (await getRealmByStringId(app.db, stringId)) {
    throw new ZulipImportError(`An organization with string id '${stringId}' already exists.`);
  }
  const files = messageFiles(dir);
  const { min: minMessageId, total: totalMessages } = firstMessageId(files, maxJson);
  const attachments = fs.existsSync(path.join(dir, "attachment.json")) ? table(readJson(path.join(dir, "attachment.json"), maxJson), "zerver_attachment") : [];

  const users = [...table(data, "zerver_userprofile"), ...table(data, "zerver_userprofile_mirrordummy")];
  const counter = new Counter();
  const storedFiles: string[] = [];
  const bots: ZulipImportSummary["bots"] = [];
  let realmId = 0;
  const idsKept = { users: true, messages: true };

  try {
    await app.db.transaction().execute(async (tx) => {
      // ---- organization and system groups
      const realmProps: Row = { ...REALM_PROP_DEFAULTS };
      for (const key of Object.keys(REALM_PROP_DEFAULTS)) {
        if (key in zrealm && zrealm[key] !== undefined && (zrealm[key] === null || typeof zrealm[key] === typeof (REALM_PROP_DEFAULTS as Row)[key] || (REALM_PROP_DEFAULTS as Row)[key] === null)) {
          realmProps[key] = zrealm[key];
        }
      }
      // Newer Zulip stores topics_policy (RealmTopicsPolicyEnum); 10.x only mandatory_topics.
      const policy = Object.entries(REALM_TOPICS_POLICIES).find(([, n]) => n === zrealm.topics_policy)?.[0];
      realmProps.topics_policy = policy ?? (zrealm.mandatory_topics === true ? "disable_empty_topic" : "allow_empty_topic");
      // The organization keeps its id when free, and with it the first part of every upload path.
      const idFree = Number.isInteger(zrealm.id) && !(await tx.selectFrom("realms").select("id").where("id", "=", zrealm.id).executeTakeFirst());
      const { id } = await tx
        .insertInto("realms")
        .values({
          ...(idFree ? { id: zrealm.id as number } : {}),
          string_id: stringId,
          name: str(zrealm.name, stringId).slice(0, 40) || stringId,
          description: str(zrealm.description),
          date_created: seconds(zrealm.date_created) ?? Math.floor(app.clock.now()),
          deactivated: 0,
          props: JSON.stringify(realmProps),
          group_settings: "{}",
        })
        .returning("id")
        .executeTakeFirstOrThrow();
      realmId = id;
      if (idFree) await resetIdSequences(tx, app.dialect, [{ name: "realms", columns: ["id"], scope: null }]);
      counter.add("realms");
      const groupMap = await importGroups(tx, realmId, data, counter);
      const system = groupMap.system;

      // ---- users (ids kept unless taken), then this organization's system bots
      const userOffset = idOffset(minOf(users.map((u) => u.id as number)), await maxId(tx, "users"));
      idsKept.users = userOffset === 0;
      const userIds = new Map<number, number>();
      for (const u of users) userIds.set(u.id, u.id + userOffset);
      const now = app.clock.now();
      const waiting = Number(realmProps.waiting_period_threshold) || 0;
      const userRows = users.map((u) => {
        const newId = u.id + userOffset;
        const props: Row = {};
        for (const name of SETTING_NAMES) if (name in u && settingRefusal(name, u[name]) === null) props[name] = u[name];
        const visibility = u.is_bot ? EMAIL_ADDRESS_VISIBILITY.EVERYONE : Number(u.email_address_visibility ?? realmProps.email_address_visibility);
        props.email_address_visibility = visibility;
        if (typeof u.allow_private_data_export === "boolean") props.allow_private_data_export = u.allow_private_data_export;
        const delivery = str(u.delivery_email, str(u.email)).toLowerCase();
        return {
          id: newId,
          realm_id: realmId,
          email: visibility === EMAIL_ADDRESS_VISIBILITY.EVERYONE ? delivery : `user${newId}@${app.config.fakeEmailDomain}`,
          delivery_email: delivery,
          full_name: str(u.full_name, delivery),
          role: confabRole(u.role),
          is_active: bool(u.is_active) as 0 | 1,
          is_bot: bool(u.is_bot),
          bot_type: u.is_bot ? Number(u.bot_type ?? 1) : null,
          bot_owner_id: null as number | null,
          is_system_bot: 0 as const,
          api_key: generateApiKey(),
          password_hash: null,
          date_joined: seconds(u.date_joined) ?? Math.floor(now),
          timezone: str(u.timezone),
          presence_enabled: u.presence_enabled === false ? 0 : 1,
          props: JSON.stringify(props),
        };
      });
      await insertRows(tx, "users", userRows);
      counter.add("users", userRows.length);
      for (const u of users) {
        if (u.bot_owner != null && userIds.has(u.bot_owner)) {
          await tx.updateTable("users").set({ bot_owner_id: userIds.get(u.bot_owner)! }).where("id", "=", userIds.get(u.id)!).execute();
        }
      }
      for (const r of userRows) if (r.is_bot) bots.push({ id: r.id, email: r.delivery_email, apiKey: r.api_key });
      await resetIdSequences(tx, app.dialect, [{ name: "users", columns: ["id"], scope: null }]);

      // ---- group memberships
      if (groupMap.fromExport) {
        const members = new Map<number, Set<number>>();
        for (const m of table(data, "zerver_usergroupmembership")) {
          const g = groupMap.ids.get(m.user_group);
          const u = userIds.get(m.user_profile);
          if (g === undefined || u === undefined) continue;
          if (!members.has(g)) members.set(g, new Set());
          members.get(g)!.add(u);
        }
        for (const [g, us] of members) {
          await addGroupMembers(tx, g, [...us]);
          counter.add("user_group_members", us.size);
        }
        const systemIds = new Set(system.values());
        for (const e of table(data, "zerver_groupgroupmembership")) {
          const sup = groupMap.ids.get(e.supergroup);
          const sub = groupMap.ids.get(e.subgroup);
          if (sup === undefined || sub === undefined || (systemIds.has(sup) && systemIds.has(sub))) continue;
          await addSubgroups(tx, sup, [sub]);
        }
      } else {
        for (const r of userRows) {
          const groups = [system.get(systemGroupForRole(r.role))!];
          if (r.role === 400 && isFullMember(r.role, r.date_joined, waiting, now)) groups.push(system.get("role:fullmembers")!);
          for (const g of groups) await addGroupMembers(tx, g, [r.id]);
          counter.add("user_group_members", groups.length);
        }
      }

      // ---- channels
      const zstreams = table(data, "zerver_stream");
      const streamOffset = idOffset(minOf(zstreams.map((s) => s.id as number)), await maxId(tx, "streams"));
      const streamIds = new Map<number, number>(zstreams.map((s) => [s.id, s.id + streamOffset]));
      const groupOr = (v: unknown, fallback: string) => groupMap.ids.get(v as number) ?? system.get(fallback)!;
      const CHANNEL_DEFAULTS: Record<string, string> = {
        can_remove_subscribers_group: "role:administrators",
        can_send_message_group: "role:everyone",
      };
      const streamRows = zstreams.map((s) => {
        const row: Row = {
          id: s.id + streamOffset,
          realm_id: realmId,
          name: str(s.name),
          description: str(s.description),
          rendered_description: str(s.rendered_description),
          invite_only: bool(s.invite_only),
          is_web_public: bool(s.is_web_public),
          history_public_to_subscribers: bool(s.history_public_to_subscribers ?? !s.invite_only),
          date_created: seconds(s.date_created) ?? Math.floor(now),
          creator_id: s.creator != null ? (userIds.get(s.creator) ?? null) : null,
          message_retention_days: typeof s.message_retention_days === "number" ? s.message_retention_days : null,
          is_archived: bool(s.deactivated),
          folder_id: null,
          topics_policy: channelTopicsPolicyName(s.topics_policy),
          recipient_id: null,
          first_message_id: null,
        };
        for (const setting of CHANNEL_GROUP_SETTINGS) row[setting] = groupOr(s[setting], CHANNEL_DEFAULTS[setting] ?? "role:nobody");
        return row;
      });
      await insertRows(tx, "streams", streamRows);
      await resetIdSequences(tx, app.dialect, [{ name: "streams", columns: ["id"], scope: null }]);
      counter.add("streams", streamRows.length);

      // Realm settings that name channels and groups.
      const announce: Row = {
        new_stream_announcements_stream_id: zrealm.new_stream_announcements_stream,
        signup_announcements_stream_id: zrealm.signup_announcements_stream,
        zulip_update_announcements_stream_id: zrealm.zulip_update_announcements_stream,
        moderation_request_channel_id: zrealm.moderation_request_channel,
      };
      for (const [k, v] of Object.entries(announce)) realmProps[k] = v != null && streamIds.has(v) ? streamIds.get(v) : -1;
      const realmGroups: Row = {};
      for (const [setting, fallback] of Object.entries(REALM_GROUP_SETTING_DEFAULTS)) realmGroups[setting] = groupOr(zrealm[setting], fallback);
      await tx.updateTable("realms").set({ props: JSON.stringify(realmProps), group_settings: JSON.stringify(realmGroups) }).where("id", "=", realmId).execute();

      // ---- recipients (ids kept unless taken, as users'): Zulip's id -> what a message to it is in Confab
      type Target = { kind: "stream"; streamId: number; recipientId: number } | { kind: "personal"; userId: number; recipientId: number } | { kind: "group"; dmKey: string; recipientId: number };
      const recipientRows = table(data, "zerver_recipient");
      const recipientOffset = idOffset(minOf(recipientRows.map((r) => r.id as number)), await maxId(tx, "recipients"));
      const subs = table(data, "zerver_subscription");
      const recipientType = new Map<number, Row>(recipientRows.map((r) => [r.id, r]));
      const groupMembers = new Map<number, number[]>();
      for (const s of subs) {
        const r = recipientType.get(s.recipient);
        if (r?.type !== ZULIP_RECIPIENT.group) continue;
        const u = userIds.get(s.user_profile);
        if (u === undefined) continue;
        if (!groupMembers.has(r.id)) groupMembers.set(r.id, []);
        groupMembers.get(r.id)!.push(u);
      }
      const targets = new Map<number, Target>();
      const personalRecipient = new Map<number, number>();
      const streamRecipient = new Map<number, number>();
      const dmGroupRecipient = new Map<string, number>();
      const explicit: Row[] = [];
      for (const r of recipientRows) {
        const id = r.id + recipientOffset;
        if (r.type === ZULIP_RECIPIENT.personal) {
          const u = userIds.get(r.type_id);
          if (u === undefined || personalRecipient.has(u)) continue;
          personalRecipient.set(u, id);
          explicit.push({ id, type: ZULIP_RECIPIENT.personal, type_id: u });
        } else if (r.type === ZULIP_RECIPIENT.stream) {
          const st = streamIds.get(r.type_id);
          if (st === undefined || streamRecipient.has(st)) continue;
          streamRecipient.set(st, id);
          explicit.push({ id, type: ZULIP_RECIPIENT.stream, type_id: st });
        } else if (r.type === ZULIP_RECIPIENT.group) {
          const dmKey = dmKeyFor(groupMembers.get(r.id) ?? []);
          if (!dmKey) continue;
          if (!dmGroupRecipient.has(dmKey)) {
            const group = await tx.insertInto("direct_message_groups").values({ realm_id: realmId, user_ids: dmKey }).returning("id").executeTakeFirstOrThrow();
            dmGroupRecipient.set(dmKey, id);
            explicit.push({ id, type: ZULIP_RECIPIENT.group, type_id: group.id });
            counter.add("direct_message_groups");
          }
          targets.set(r.id, { kind: "group", dmKey, recipientId: dmGroupRecipient.get(dmKey)! });
        }
      }
      await insertRows(tx, "recipients", explicit);
      await resetIdSequences(tx, app.dialect, [{ name: "recipients", columns: ["id"], scope: null }]);
      // Users and channels the export gave no recipient get a new one.
      for (const u of userRows) {
        if (!personalRecipient.has(u.id)) personalRecipient.set(u.id, (await tx.insertInto("recipients").values({ type: 1, type_id: u.id }).returning("id").executeTakeFirstOrThrow()).id);
      }
      for (const st of streamRows) {
        if (!streamRecipient.has(st.id)) streamRecipient.set(st.id, (await tx.insertInto("recipients").values({ type: 2, type_id: st.id }).returning("id").executeTakeFirstOrThrow()).id);
      }
      counter.add("recipients", personalRecipient.size + streamRecipient.size + dmGroupRecipient.size);
      await sql`UPDATE streams SET recipient_id = (SELECT r.id FROM recipients r WHERE r.type = 2 AND r.type_id = streams.id) WHERE realm_id = ${realmId}`.execute(tx);
      for (const r of recipientRows) {
        if (r.type === ZULIP_RECIPIENT.personal && userIds.has(r.type_id)) {
          const u = userIds.get(r.type_id)!;
          targets.set(r.id, { kind: "personal", userId: u, recipientId: personalRecipient.get(u)! });
        } else if (r.type === ZULIP_RECIPIENT.stream && streamIds.has(r.type_id)) {
          const st = streamIds.get(r.type_id)!;
          targets.set(r.id, { kind: "stream", streamId: st, recipientId: streamRecipient.get(st)! });
        }
      }


      // Zulip's server-wide bots become this organization's own.
      const realm = (await getRealm(tx, realmId))!;
      const systemBotIds = new Map<string, number>();
      for (const bot of SYSTEM_BOTS) {
        const created = await createUserInTx(tx, app, realm, { email: bot.email, fullName: bot.full_name, role: 400, isBot: true, botType: 1, isSystemBot: true });
        systemBotIds.set(bot.email, created.id);
        counter.add("users");
      }
      for (const cross of table(data, "zerver_userprofile_crossrealm")) {
        const mapped = systemBotIds.get(str(cross.email)) ?? systemBotIds.get("notification-bot@zulip.com")!;
        if (!userIds.has(cross.id)) userIds.set(cross.id, mapped);
        // Direct messages to a server-wide bot name its recipient, which the export doesn't list.
        if (typeof cross.recipient_id === "number" && !targets.has(cross.recipient_id)) {
          const recipient = await tx.selectFrom("recipients").select("id").where("type", "=", 1).where("type_id", "=", mapped).executeTakeFirstOrThrow();
          targets.set(cross.recipient_id, { kind: "personal", userId: mapped, recipientId: recipient.id });
        }
      }


      // ---- subscriptions (channels only: the others are implied by users and DM groups)
      const subRows: Row[] = [];
      const seenSub = new Set<string>();
      for (const s of subs) {
        const target = targets.get(s.recipient);
        const u = userIds.get(s.user_profile);
        if (target?.kind !== "stream" || u === undefined) continue;
        const key = `${u},${target.streamId}`;
        if (seenSub.has(key)) continue;
        seenSub.add(key);
        const props: Row = {};
        for (const k of ["is_muted", "pin_to_top", "desktop_notifications", "audible_notifications", "push_notifications", "email_notifications", "wildcard_mentions_notify"]) {
          if (typeof s[k] === "boolean") props[k] = s[k];
        }
        subRows.push({ user_id: u, stream_id: target.streamId, active: bool(s.active ?? true), color: str(s.color, "#c2c2c2"), props: JSON.stringify(props) });
      }
      await insertRows(tx, "subscriptions", subRows);
      counter.add("subscriptions", subRows.length);

      const defaultStreams = [...new Set(table(data, "zerver_defaultstream").map((d) => streamIds.get(d.stream)).filter((s): s is number => s !== undefined))];
      await insertRows(tx, "default_streams", defaultStreams.map((stream_id) => ({ realm_id: realmId, stream_id })));
      counter.add("default_streams", defaultStreams.length);

      // ---- bots' defaults and services
      for (const u of users) {
        if (!u.is_bot) continue;
        const sending = u.default_sending_stream != null ? (streamIds.get(u.default_sending_stream) ?? null) : null;
        const register = u.default_events_register_stream != null ? (streamIds.get(u.default_events_register_stream) ?? null) : null;
        if (sending !== null || register !== null || u.default_all_public_streams) {
          await tx.insertInto("bot_defaults").values({ user_id: userIds.get(u.id)!, default_sending_stream_id: sending, default_events_register_stream_id: register, default_all_public_streams: bool(u.default_all_public_streams) }).execute();
        }
      }
      const services = table(data, "zerver_service").filter((s) => userIds.has(s.user_profile));
      await insertRows(tx, "bot_services", services.map((s) => ({ user_id: userIds.get(s.user_profile)!, name: str(s.name), base_url: str(s.base_url), interface: Number(s.interface ?? 1), token: generateApiKey() })));
      counter.add("bot_services", services.length);

      // ---- smaller per-organization tables
      const emojiIds = await importEmoji(app, tx, dir, realmId, data, userIds, storedFiles, counter);
      await importProfileFields(tx, realmId, data, userIds, counter);
      await importAvatars(app, tx, dir, realmId, users, userIds, storedFiles, counter);
      const linkifiers = table(data, "zerver_realmfilter");
      await insertRows(tx, "realm_linkifiers", linkifiers.map((l, i) => ({ realm_id: realmId, pattern: str(l.pattern), url_template: str(l.url_template), order: Number(l.order ?? i) })));
      counter.add("realm_linkifiers", linkifiers.length);
      const playgrounds = table(data, "zerver_realmplayground");
      await insertRows(tx, "realm_playgrounds", playgrounds.map((p) => ({ realm_id: realmId, name: str(p.name), pygments_language: str(p.pygments_language), url_template: str(p.url_template) })));
      counter.add("realm_playgrounds", playgrounds.length);
      const userTopics = new Map<string, Row>();
      for (const t of table(data, "zerver_usertopic")) {
        const u = userIds.get(t.user_profile);
        const s = streamIds.get(t.stream);
        if (u === undefined || s === undefined || ![1, 2, 3].includes(t.visibility_policy)) continue;
        const topic = str(t.topic_name);
        userTopics.set(`${u},${s},${topicKey(topic)}`, { user_id: u, stream_id: s, topic_name: topic, topic_key: topicKey(topic), visibility_policy: t.visibility_policy, last_updated: seconds(t.last_updated) ?? Math.floor(now) });
      }
      await insertRows(tx, "user_topics", [...userTopics.values()]);
      counter.add("user_topics", userTopics.size);
      const muted = table(data, "zerver_muteduser").filter((m) => userIds.has(m.user_profile) && userIds.has(m.muted_user));
      await insertRows(tx, "muted_users", muted.map((m) => ({ user_id: userIds.get(m.user_profile)!, muted_user_id: userIds.get(m.muted_user)!, date_muted: seconds(m.date_muted) ?? Math.floor(now) })));
      counter.add("muted_users", muted.length);
      const alertWords = table(data, "zerver_alertword").filter((a) => userIds.has(a.user_profile));
      await insertRows(tx, "alert_words", alertWords.map((a) => ({ realm_id: realmId, user_id: userIds.get(a.user_profile)!, word: str(a.word) })));
      counter.add("alert_words", alertWords.length);

      // ---- uploads: new paths under the new organization's id
      const oldRealmId = Number(zrealm.id);
      const movePath = (p: string) => (oldRealmId !== realmId && p.startsWith(`${oldRealmId}/`) ? `${realmId}/${p.slice(String(oldRealmId).length + 1)}` : p);
      const attachmentIds = new Map<number, number>();
      const attachmentOfMessage = new Map<number, number[]>();
      for (const a of attachments) {
        const owner = userIds.get(a.owner);
        const src = a.path_id ? exportFile(dir, "uploads", str(a.path_id)) : null;
        if (owner === undefined || !src) continue;
        const pathId = movePath(a.path_id);
        await app.files.put(uploadStorageKey(pathId), fs.createReadStream(src));
        storedFiles.push(uploadStorageKey(pathId));
        const row = await tx
          .insertInto("attachments")
          .values({ realm_id: realmId, owner_id: owner, path_id: pathId, file_name: str(a.file_name), content_type: str(a.content_type, "application/octet-stream"), size: Number(a.size ?? fs.statSync(src).size), create_time: seconds(a.create_time) ?? Math.floor(now), is_realm_public: bool(a.is_realm_public), is_web_public: bool(a.is_web_public) })
          .returning("id")
          .executeTakeFirstOrThrow();
        attachmentIds.set(a.id, row.id);
        for (const m of (a.messages as number[] | undefined) ?? []) {
          if (!attachmentOfMessage.has(m)) attachmentOfMessage.set(m, []);
          attachmentOfMessage.get(m)!.push(row.id);
        }
        counter.add("attachments");
      }
      const rewriteUploads = (text: string) => (oldRealmId !== realmId && text.includes(`/user_uploads/${oldRealmId}/`) ? text.split(`/user_uploads/${oldRealmId}/`).join(`/user_uploads/${realmId}/`) : text);

      // ---- messages, one file at a time
      const messageOffset = idOffset(minMessageId, await maxId(tx, "messages"));
      idsKept.messages = messageOffset === 0;
      const maps: IdMaps = { user: (i) => userIds.get(i), stream: (i) => streamIds.get(i), group: (i) => groupMap.ids.get(i) };
      const identity = userOffset === 0 && streamOffset === 0 && groupMap.identity;
      const rewrite = (html: string) => rewriteUploads(identity ? html : rewriteRenderedIds(html, maps));
      const clients = new Map<number, string>(table(data, "zerver_client").map((c) => [c.id, str(c.name, "Internal")]));
      const reactions = table(data, "zerver_reaction");
      const reactionsByMessage = new Map<number, Row[]>();
      for (const r of reactions) {
        if (!reactionsByMessage.has(r.message)) reactionsByMessage.set(r.message, []);
        reactionsByMessage.get(r.message)!.push(r);
      }
      let done = 0;
      for (const file of files) {
        const chunk = readJson(file, maxJson);
        const messageRows: Row[] = [];
        const kept = new Set<number>();
        for (const m of table(chunk, "zerver_message")) {
          const target = targets.get(m.recipient);
          const sender = userIds.get(m.sender);
          if (!target || sender === undefined) continue;
          let rendered = typeof m.rendered_content === "string" ? rewrite(m.rendered_content) : null;
          const content = rewrite(str(m.content));
          if (rendered === null) {
            const senderRow = await tx.selectFrom("users").selectAll().where("id", "=", sender).executeTakeFirstOrThrow();
            rendered = renderMarkdown(content, await renderContextFor(app, realm, senderRow, tx)).html;
          }
          const history = editHistory(m.edit_history, userIds, streamIds, rewrite);
          messageRows.push({
            id: m.id + messageOffset,
            realm_id: realmId,
            sender_id: sender,
            recipient_id: target.recipientId,
            stream_id: target.kind === "stream" ? target.streamId : null,
            topic: target.kind === "stream" ? str(m.subject) : "",
            dm_key: target.kind === "stream" ? null : target.kind === "group" ? target.dmKey : dmKeyFor([sender, target.userId]),
            content,
            rendered_content: rendered,
            client: clients.get(m.sending_client) ?? "Internal",
            date_sent: seconds(m.date_sent) ?? 0,
            last_edit_time: history?.lastEdit ?? (history ? null : seconds(m.last_edit_time)),
            last_moved_time: history?.lastMove ?? null,
            edit_history: history?.json ?? null,
          });
          kept.add(m.id);
        }
        await bulkInsert(tx, "messages", MESSAGE_COLUMNS, messageRows);
        counter.add("messages", messageRows.length);
        const copies = new Map<number, Map<number, number>>();
        for (const um of table(chunk, "zerver_usermessage")) {
          const u = userIds.get(um.user_profile);
          if (u === undefined || !kept.has(um.message)) continue;
          if (!copies.has(um.message)) copies.set(um.message, new Map());
          copies.get(um.message)!.set(u, zulipFlagsToConfab(Number(um.flags_mask ?? 0)));
        }
        counter.add("user_messages", await insertCopies(tx, copies, messageOffset));
        const reactionRows = new Map<string, Row>();
        const links: Row[] = [];
        for (const id of kept) {
          for (const r of reactionsByMessage.get(id) ?? []) {
            const u = userIds.get(r.user_profile);
            if (u === undefined) continue;
            const code = r.reaction_type === "realm_emoji" ? String(emojiIds.get(Number(r.emoji_code)) ?? r.emoji_code) : str(r.emoji_code);
            const row = { message_id: id + messageOffset, user_id: u, emoji_name: str(r.emoji_name), emoji_code: code, reaction_type: str(r.reaction_type, "unicode_emoji") };
            reactionRows.set(`${row.user_id},${row.message_id},${code},${row.reaction_type}`, row);
          }
          for (const a of attachmentOfMessage.get(id) ?? []) links.push({ attachment_id: a, message_id: id + messageOffset });
        }
        await bulkInsert(tx, "reactions", REACTION_COLUMNS, [...reactionRows.values()]);
        counter.add("reactions", reactionRows.size);
        await insertRows(tx, "attachment_messages", links);
        done += messageRows.length;
        options.progress?.(done, totalMessages);
        // Lets the server answer other organizations between batches when run in-process.
        await yieldToLoop();
      }
      await resetIdSequences(tx, app.dialect, [{ name: "messages", columns: ["id"], scope: null }]);
      await sql`UPDATE streams SET first_message_id = (SELECT MIN(m.id) FROM messages m WHERE m.stream_id = streams.id) WHERE realm_id = ${realmId}`.execute(tx);
    });
  } catch (err) {
    for (const key of storedFiles) await app.files.delete(key).catch(() => {});
    throw err;
  }
  return {
    realmId,
    stringId,
    name: str(zrealm.name),
    counts: counter.counts,
    seconds: (performance.now() - started) / 1000,
    idsKept,
    bots,
  };
}

/** Zulip's edit history (a JSON string, newest first) with ids moved; when the message was last edited and last moved. */
function editHistory(raw: unknown, users: Map<number, number>, streams: Map<number, number>, rewrite: (html: string) => string): { json: string; lastEdit: number | null; lastMove: number | null } | null {
  if (typeof raw !== "string" || !raw) return null;
  let entries: Row[];
  try {
    entries = JSON.parse(raw) as Row[];
  } catch {
    return null;
  }
  if (!Array.isArray(entries) || !entries.length) return null;
  let lastEdit: number | null = null;
  let lastMove: number | null = null;
  const out = entries.map((e) => {
    const entry: Row = { ...e };
    if (typeof e.user_id === "number") entry.user_id = users.get(e.user_id) ?? e.user_id;
    for (const k of ["stream", "prev_stream"]) if (typeof e[k] === "number") entry[k] = streams.get(e[k]) ?? e[k];
    if (typeof e.prev_rendered_content === "string") entry.prev_rendered_content = rewrite(e.prev_rendered_content);
    const ts = Number(e.timestamp) || 0;
    if ("prev_content" in e) lastEdit = Math.max(lastEdit ?? 0, ts);
    if ("prev_topic" in e || "prev_stream" in e) lastMove = Math.max(lastMove ?? 0, ts);
    return entry;
  });
  return { json: JSON.stringify(out), lastEdit, lastMove };
}

interface GroupMap {
  ids: Map<number, number>;
  system: Map<string, number>;
  /** Whether the export had groups at all (converters write none). */
  fromExport: boolean;
  /** Whether every group kept its id. */
  identity: boolean;
}

/** Confab's system groups, with the export's mapped onto them by name; the export's other groups, named and anonymous. */
async function importGroups(tx: Tx, realmId: number, data: Row, counter: Counter): Promise<GroupMap> {
  const system = new Map<string, number>();
  for (const g of SYSTEM_GROUPS) {
    const { id } = await tx
      .insertInto("user_groups")
      .values({ realm_id: realmId, name: g.name, description: g.description, is_system_group: 1, date_created: null, creator_id: null, deactivated: 0, group_settings: "{}" })
      .returning("id")
      .executeTakeFirstOrThrow();
    system.set(g.name, id);
  }
  const nobody = system.get("role:nobody")!;
  await tx.updateTable("user_groups").set({ group_settings: JSON.stringify(Object.fromEntries(USER_GROUP_SETTINGS.map((s) => [s, nobody]))) }).where("realm_id", "=", realmId).execute();
  for (const [child, parent] of SYSTEM_GROUP_NESTING) await addSubgroups(tx, system.get(parent)!, [system.get(child)!]);
  counter.add("user_groups", SYSTEM_GROUPS.length);

  const groups = table(data, "zerver_usergroup");
  const named = new Map<number, Row>(table(data, "zerver_namedusergroup").map((g) => [g.usergroup_ptr ?? g.id, g]));
  const ids = new Map<number, number>();
  for (const g of groups) {
    const n = named.get(g.id);
    if (n?.is_system_group && system.has(n.name)) {
      ids.set(g.id, system.get(n.name)!);
      continue;
    }
    const { id } = await tx
      .insertInto("user_groups")
      .values({
        realm_id: realmId,
        name: n ? str(n.name) : null,
        description: n ? str(n.description) : "",
        is_system_group: 0,
        date_created: n ? seconds(n.date_created) : null,
        creator_id: null,
        deactivated: bool(n?.deactivated),
        group_settings: "{}",
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    ids.set(g.id, id);
    counter.add("user_groups");
  }
  // Settings point at groups, so they are written once every group has its id.
  const DEFAULTS: Record<string, string> = { can_leave_group: "role:everyone", can_mention_group: "role:everyone" };
  for (const [zid, n] of named) {
    if (n.is_system_group || !ids.has(zid)) continue;
    const settings = Object.fromEntries(USER_GROUP_SETTINGS.map((s) => [s, ids.get(n[s]) ?? system.get(DEFAULTS[s] ?? "role:nobody")!]));
    await tx.updateTable("user_groups").set({ group_settings: JSON.stringify(settings) }).where("id", "=", ids.get(zid)!).execute();
  }
  let identity = true;
  for (const [from, to] of ids) if (from !== to) identity = false;
  return { ids, system, fromExport: groups.length > 0, identity };
}

/** Custom emoji, with their image files; Zulip's emoji id -> Confab's. */
async function importEmoji(app: AppContext, tx: Tx, dir: string, realmId: number, data: Row, users: Map<number, number>, stored: string[], counter: Counter): Promise<Map<number, number>> {
  const ids = new Map<number, number>();
  const oldRealm = table(data, "zerver_realm")[0]!.id;
  for (const e of table(data, "zerver_realmemoji")) {
    const fileName = path.basename(str(e.file_name));
    const src = fileName ? exportFile(dir, "emoji", String(oldRealm), "emoji", "images", fileName) : null;
    if (!src) continue;
    const { id } = await tx
      .insertInto("realm_emoji")
      .values({ realm_id: realmId, name: str(e.name), author_id: e.author != null ? (users.get(e.author) ?? null) : null, file_name: fileName, is_animated: bool(e.is_animated), deactivated: bool(e.deactivated) })
      .returning("id")
      .executeTakeFirstOrThrow();
    await app.files.put(emojiStorageKey(realmId, fileName), fs.createReadStream(src));
    stored.push(emojiStorageKey(realmId, fileName));
    ids.set(e.id, id);
    counter.add("realm_emoji");
  }
  return ids;
}

async function importProfileFields(tx: Tx, realmId: number, data: Row, users: Map<number, number>, counter: Counter): Promise<void> {
  const fields = new Map<number, { id: number; type: number }>();
  for (const f of table(data, "zerver_customprofilefield")) {
    const { id } = await tx
      .insertInto("custom_profile_fields")
      .values({
        realm_id: realmId,
        name: str(f.name),
        hint: str(f.hint),
        field_type: Number(f.field_type),
        field_data: str(f.field_data),
        order: Number(f.order ?? 0),
        display_in_profile_summary: bool(f.display_in_profile_summary),
        required: bool(f.required),
        editable_by_user: bool(f.editable_by_user ?? true),
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    fields.set(f.id, { id, type: Number(f.field_type) });
    counter.add("custom_profile_fields");
  }
  const values: Row[] = [];
  for (const v of table(data, "zerver_customprofilefieldvalue")) {
    const field = fields.get(v.field);
    const user = users.get(v.user_profile);
    if (!field || user === undefined) continue;
    let value = str(v.value);
    if (field.type === 6) {
      // A "users" field lists user ids, which moved with the users.
      try {
        value = JSON.stringify((JSON.parse(value) as number[]).map((id) => users.get(id)).filter((id) => id !== undefined));
      } catch {
        continue;
      }
    }
    values.push({ user_id: user, field_id: field.id, value, rendered_value: typeof v.rendered_value === "string" ? v.rendered_value : null });
  }
  await insertRows(tx, "custom_profile_values", values);
  counter.add("custom_profile_values", values.length);
}

const MAX_AVATAR_BYTES = 20 * 1024 ** 2;

/**
 * Uploaded avatars (avatar_source "U"): the export's original image of each, made into Confab's
 * sizes and stored under the user's new id; an unreadable image leaves the user on Gravatar.
 */
async function importAvatars(app: AppContext, tx: Tx, dir: string, realmId: number, users: Row[], userIds: Map<number, number>, stored: string[], counter: Counter): Promise<void> {
  const recordsFile = exportFile(dir, "avatars", "records.json");
  if (!recordsFile) return;
  const records = readJson(recordsFile, DEFAULT_MAX_JSON) as unknown;
  if (!Array.isArray(records)) return;
  const original = new Map<number, string>();
  for (const r of records as Row[]) {
    const rel = str(r.path);
    if (typeof r.user_profile_id !== "number" || !rel) continue;
    if (rel.endsWith(".original") || !original.has(r.user_profile_id)) original.set(r.user_profile_id, rel);
  }
  for (const u of users) {
    const rel = original.get(u.id);
    const src = u.avatar_source === "U" && rel ? exportFile(dir, "avatars", rel) : null;
    if (!src || fs.statSync(src).size > MAX_AVATAR_BYTES) continue;
    let images;
    try {
      images = await makeAvatarImages({ fieldName: "file", fileName: "avatar.png", mimeType: "image/png", data: fs.readFileSync(src), truncated: false });
    } catch {
      counter.add("avatars_unreadable");
      continue;
    }
    const userId = userIds.get(u.id)!;
    const version = Number.isInteger(u.avatar_version) && u.avatar_version > 0 ? (u.avatar_version as number) : 1;
    const keys = avatarStorageKeys(realmId, userId, version);
    for (const [key, data] of [[keys.small, images.small], [keys.medium, images.medium], [keys.original, images.original]] as const) {
      await app.files.put(key, data);
      stored.push(key);
    }
    await tx.updateTable("users").set({ avatar_source: AVATAR_FROM_USER, avatar_version: version }).where("id", "=", userId).execute();
    counter.add("avatars");
  }
}

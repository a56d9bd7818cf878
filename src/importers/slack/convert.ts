/**
 * Pure rules for turning Slack's data into Zulip's, following Zulip's own Slack importer
 * (zerver/data_import/slack.py and slack_message_conversion.py) choice by choice: user roles,
 * names and emails, mrkdwn → Markdown, mentions, links, thread → topic names, reactions.
 */
import { truncateContent } from "../../domain/text.js";
import { Role } from "../../domain/roles.js";
import { emojiNameForCode } from "../../markdown/emoji.js";
import slackEmoji from "./slack_emoji.json" with { type: "json" };

export interface SlackProfile {
  email?: string;
  real_name?: string;
  real_name_normalized?: string;
  first_name?: string;
  bot_id?: string;
  avatar_hash?: string;
  image_72?: string;
  phone?: string;
  skype?: string;
  fields?: Record<string, { value: string; alt?: string }> | null;
  [key: string]: unknown;
}

export interface SlackUser {
  id: string;
  name: string;
  real_name?: string;
  deleted?: boolean;
  is_bot?: boolean;
  is_owner?: boolean;
  is_primary_owner?: boolean;
  is_admin?: boolean;
  is_restricted?: boolean;
  is_ultra_restricted?: boolean;
  /** Set by the converter: a user of another workspace seen in a shared channel. */
  is_mirror_dummy?: boolean;
  /** Set by the converter: an integration bot known only from its messages. */
  is_integration_bot?: boolean;
  team_id?: string;
  team_domain?: string;
  tz?: string | null;
  profile: SlackProfile;
}

/** The name Zulip gives a Slack user: the real name for current users, the handle otherwise. */
export function slackUserFullName(user: SlackUser): string {
  if (user.deleted === false) return user.real_name || user.name;
  if (user.is_mirror_dummy) return user.profile.real_name ?? user.name;
  return user.name;
}

export function isSlackbot(user: SlackUser): boolean {
  return slackUserFullName(user).toLowerCase() === "slackbot";
}

/** Owners (primary or not) → owner, admins → administrator, either kind of guest → guest. */
export function slackUserRole(user: SlackUser): number {
  let role: number = Role.MEMBER;
  if (user.is_primary_owner || user.is_owner) role = Role.OWNER;
  else if (user.is_admin) role = Role.ADMINISTRATOR;
  if (user.is_restricted || user.is_ultra_restricted) role = Role.GUEST;
  return role;
}

export const DEFAULT_SLACK_TIMEZONE = "America/New_York";

export function slackUserTimezone(user: SlackUser): string {
  const tz = user.tz;
  return typeof tz === "string" && tz.includes("/") ? tz : DEFAULT_SLACK_TIMEZONE;
}

/**
 * Email addresses for Slack bots, which have none: `<name>-bot@<domain>` from the bot's name
 * without "Bot" and spaces, numbered `-2`, `-3`… when names repeat; one address per bot id.
 */
export class SlackBotEmails {
  private readonly counts = new Map<string, number>();
  private readonly assigned = new Map<string, string>();

  emailFor(profile: SlackProfile, domain: string): string {
    const botId = profile.bot_id ?? "";
    const known = this.assigned.get(botId);
    if (known) return known;
    const name = profile.real_name_normalized ?? profile.first_name ?? "";
    const local = name.replace(/Bot/g, "").replace(/ /g, "").toLowerCase() + "-bot";
    let email = `${local}@${domain}`;
    const seen = this.counts.get(email);
    if (seen === undefined) this.counts.set(email, 1);
    else {
      this.counts.set(email, seen + 1);
      email = `${local}-${seen + 1}@${domain}`;
    }
    this.assigned.set(botId, email);
    return email;
  }
}

/**
 * A Slack user's address. Exports made without the users' emails (Slack leaves them out unless
 * asked) get a placeholder on the organization's domain built from the handle, so the import can
 * proceed and an administrator can change it later.
 */
export function slackUserEmail(user: SlackUser, domain: string, bots: SlackBotEmails): string {
  if (user.profile.email) return user.profile.email;
  if (user.is_mirror_dummy) return `${user.name}@${user.team_domain ?? "unknown"}.slack.com`;
  if (user.profile.bot_id) return bots.emailFor(user.profile, domain);
  if (isSlackbot(user)) return `imported-slackbot-bot@${domain}`;
  const local = user.name.toLowerCase().replace(/[^a-z0-9._-]/g, "").replace(/^\.+|\.+$/g, "").replace(/\.{2,}/g, ".");
  return `${local || user.id.toLowerCase()}@${domain}`;
}

// --- mrkdwn → Markdown ----------------------------------------------------------------------

/**
 * Slack formats only whole words: a marker must follow the start of a line or a punctuation mark,
 * space or symbol (not the marker itself, a backquote, `@`, `\` or a closing bracket/quote) and
 * precede the end of a line or one of those (not an opening bracket/quote). The body holds no
 * marker, so every match is found in one left-to-right pass.
 */
function wordFormatRegex(marker: string): RegExp {
  const m = marker === "*" ? "\\*" : marker;
  return new RegExp(
    `((?![${m}\`@\\\\\\p{Pf}\\p{Pe}])[\\p{P}\\p{Zs}\\p{S}]|^)(${m})([^${m}]+)(${m})((?![${m}\`@\\\\\\p{Pi}\\p{Ps}])(?=[\\p{P}\\p{Zs}\\p{S}]|$))`,
    "gmu",
  );
}

const BOLD = wordFormatRegex("*");
const STRIKE = wordFormatRegex("~");
const ITALIC = wordFormatRegex("_");

/** `*bold*` → `**bold**`, `~strike~` → `~~strike~~`, `_italic_` → `*italic*`, in that order. */
export function convertSlackFormatting(text: string): string {
  const apply = (s: string, re: RegExp, zulip: string) => s.replace(re, (_m, before: string, _o, body: string) => before + zulip + body + zulip);
  return apply(apply(apply(text, BOLD, "**"), STRIKE, "~~"), ITALIC, "*");
}

/** Slack's `<!everyone>`, `<!channel>`, `<!here>` all become Zulip's `@**all**`. */
export function convertWorkspaceMentions(text: string): string {
  return text.replaceAll("<!everyone>", "@**all**").replaceAll("<!channel>", "@**all**").replaceAll("<!here>", "@**all**");
}

/** The longest `<…>` body treated as a link; longer ones are left as they are. */
const MAX_BRACKET_BODY = 4096;
const BRACKETED = /<([^>]*)>/g;
const SLACK_LINK = /^(?:https?:\/\/www\.|https?:\/\/|ftp:\/\/)?[a-z0-9]+(?:[-.][a-z0-9]+)*\.[a-z]{2,63}(?::[0-9]{1,5})?(?:\/[^>]*)?(?:\|)?(?:\|[^>]+)?$/;
/** Python's `\w` on text: letters, digits and `_` of any script. */
const EMAIL = "[\\p{L}\\p{N}_.-]+@[\\p{L}\\p{N}_.-]+(?:\\.[\\p{L}\\p{N}_]+)+";
const MAX_MAILTO_BODY = 512;
const SLACK_MAILTO = new RegExp(`^((?:mailto:)?${EMAIL})(?:\\|)?(?:${EMAIL})?$`, "u");

/** `<https://x.org>` → `https://x.org`; `<https://x.org|text>` → `[text](https://x.org)`. */
export function convertLinkFormat(text: string): { text: string; hasLink: boolean } {
  let hasLink = false;
  const out = text.replace(BRACKETED, (whole, body: string) => {
    if (body.length > MAX_BRACKET_BODY || !SLACK_LINK.test(body)) return whole;
    hasLink = true;
    const bar = body.indexOf("|");
    return bar >= 0 ? `[${body.slice(bar + 1)}](${body.slice(0, bar)})` : body;
  });
  return { text: out, hasLink };
}

/** `<mailto:a@b.org|a@b.org>` and `<mailto:a@b.org>` → `mailto:a@b.org`. */
export function convertMailtoFormat(text: string): { text: string; hasLink: boolean } {
  let hasLink = false;
  const out = text.replace(BRACKETED, (whole, body: string) => {
    if (body.length > MAX_MAILTO_BODY || !body.includes("@")) return whole;
    const m = SLACK_MAILTO.exec(body);
    if (!m) return whole;
    hasLink = true;
    return m[1];
  });
  return { text: out, hasLink };
}

const USER_MENTION = /<@([a-zA-Z0-9]+)(\|)?([a-zA-Z0-9]+)?>/g;
const FIRST_USER_MENTION = new RegExp(USER_MENTION.source);

export interface SlackTextContext {
  /** Slack users by id, for mention names. */
  users: ReadonlyMap<string, SlackUser>;
  /** Imported channels: Slack name → Slack channel id. */
  channels: ReadonlyMap<string, string>;
  /** Slack user id → Zulip user id. */
  userIds: ReadonlyMap<string, number>;
}

function mentionFor(slackId: string, shortName: string | undefined, ctx: SlackTextContext): string | undefined {
  const user = ctx.users.get(slackId);
  if (!user || (shortName !== undefined && user.name !== shortName)) return undefined;
  return `@**${slackUserFullName(user)}**`;
}

/**
 * Slack's message text as Zulip Markdown, with the Zulip ids of the users it mentions and whether
 * it has a link. Mentions are found per space-separated word; as in Zulip, a word holding several
 * mentions gets the first one's name for all of them.
 */
export function convertSlackText(text: string, ctx: SlackTextContext): { content: string; mentionedUserIds: number[]; hasLink: boolean } {
  const mentionedUserIds: number[] = [];
  let s = convertWorkspaceMentions(convertSlackFormatting(text));
  for (const [name, id] of ctx.channels) s = s.replaceAll(`<#${id}|${name}>`, `#**${name}**`);
  s = s
    .split(" ")
    .map((token) => {
      if (!token.includes("<@")) return token;
      const first = FIRST_USER_MENTION.exec(token);
      if (!first) return token;
      const mention = mentionFor(first[1], first[3], ctx);
      if (mention === undefined) return token;
      const zulipId = ctx.userIds.get(first[1]);
      if (zulipId !== undefined) mentionedUserIds.push(zulipId);
      return token.replace(USER_MENTION, () => mention);
    })
    .join(" ");
  const links = convertLinkFormat(s);
  const mailto = convertMailtoFormat(links.text);
  return { content: mailto.text, mentionedUserIds, hasLink: links.hasLink || mailto.hasLink };
}

// --- Bot messages: blocks and attachments ---------------------------------------------------

type Json = Record<string, unknown>;
const str = (v: unknown): string => (typeof v === "string" ? v : "");
const textOf = (v: unknown): string => (v && typeof v === "object" ? str((v as Json).text) : "");
const joinPieces = (pieces: string[], sep: string) =>
  pieces
    .map((p) => p.trim())
    .filter((p) => p !== "")
    .join(sep);

function renderBlockElement(el: Json): string {
  return el.type === "image" ? `[${str(el.alt_text)}](${str(el.image_url)})` : "";
}

function renderBlock(block: Json): string {
  switch (block.type) {
    case "context":
      return joinPieces(
        (Array.isArray(block.elements) ? (block.elements as Json[]) : []).map((e) => (e.type === "image" ? renderBlockElement(e) : str(e.text))),
        "\n\n",
      );
    case "divider":
      return "----";
    case "header":
      return "## " + textOf(block.text);
    case "image":
      return `[${block.title ? textOf(block.title) : str(block.alt_text)}](${str(block.image_url)})`;
    case "section": {
      const pieces: string[] = [];
      if (block.text) pieces.push(textOf(block.text));
      if (block.accessory && typeof block.accessory === "object") pieces.push(renderBlockElement(block.accessory as Json));
      if (Array.isArray(block.fields)) {
        const fields = (block.fields as unknown[]).map(textOf);
        if (fields.length === 1) pieces.push(fields[0]);
        else {
          // A table cell holds neither newlines nor pipes.
          const cells = fields.map((f) => f.replace(/\n/g, " ").replace(/\|/g, " "));
          let table = "| | |\n|-|-|\n";
          for (let i = 0; i < cells.length; i += 2) table += `| ${cells[i]} | ${cells[i + 1] ?? ""} |\n`;
          pieces.push(table);
        }
      }
      return joinPieces(pieces, "\n\n");
    }
    default:
      // rich_text repeats the message's text; actions, inputs, calls, files and tables have no
      // Markdown form.
      return "";
  }
}

function renderAttachment(a: Json): string {
  const pieces: string[] = [];
  if (a.title) pieces.push(a.title_link ? `## [${str(a.title)}](${str(a.title_link)})` : `## ${str(a.title)}`);
  if (a.pretext) pieces.push(str(a.pretext));
  if (a.text) pieces.push(str(a.text));
  if (Array.isArray(a.fields)) {
    const fields: string[] = [];
    for (const f of a.fields as Json[]) {
      if (f.title && f.value) fields.push(`*${str(f.title)}*: ${str(f.value)}`);
      else if (f.title) fields.push(`*${str(f.title)}*`);
      else if (f.value) fields.push(str(f.value));
    }
    pieces.push(fields.join("\n"));
  }
  if (Array.isArray(a.blocks)) pieces.push(...(a.blocks as Json[]).map(renderBlock));
  if (a.image_url) pieces.push(`[](${str(a.image_url)})`);
  if (a.footer) pieces.push(str(a.footer));
  if (a.ts !== undefined && a.ts !== null) {
    const seconds = Math.trunc(Number(a.ts));
    if (Number.isFinite(seconds)) pieces.push(`<time:${new Date(seconds * 1000).toISOString().replace(".000Z", "+00:00")}>`);
  }
  return joinPieces(pieces, "\n\n");
}

/** The Markdown of a message's blocks and legacy attachments (what integrations post). */
export function renderBlocksAndAttachments(message: Json): string {
  const pieces: string[] = [];
  if (Array.isArray(message.blocks)) pieces.push(...(message.blocks as Json[]).map(renderBlock));
  if (Array.isArray(message.attachments)) pieces.push(...(message.attachments as Json[]).map(renderAttachment));
  return joinPieces(pieces, "\n");
}

// --- Threads → topics -----------------------------------------------------------------------

/** Zulip's MAX_TOPIC_NAME_LENGTH. */
export const MAX_TOPIC_NAME_LENGTH = 60;
export const UNTHREADED_TOPIC = "imported from Slack";

/**
 * Topic names for threads: the thread's UTC date and the start of its first message, cut to 60
 * characters with "…"; a name already taken gets " (2)", " (3)"… (cut shorter to make room).
 */
export class ThreadTopicNames {
  private readonly taken = new Map<string, number>();

  next(content: string, threadTs: number): string {
    const date = new Date(threadTs * 1000).toISOString().slice(0, 10);
    const full = `${date} ${content}`.trim();
    const truncated = truncateContent(full, MAX_TOPIC_NAME_LENGTH, "…");
    const collisions = this.taken.get(truncated) ?? 0;
    this.taken.set(truncated, collisions + 1);
    const suffix = collisions > 0 ? ` (${collisions + 1})` : "";
    return truncateContent(full, MAX_TOPIC_NAME_LENGTH - suffix.length, "…") + suffix;
  }
}

// --- Reactions ------------------------------------------------------------------------------

const SLACK_EMOJI: Record<string, string> = slackEmoji;

/** The Unicode code Slack (iamcal's emoji data) gives an emoji name. */
export function slackEmojiCode(name: string): string | undefined {
  return Object.prototype.hasOwnProperty.call(SLACK_EMOJI, name) ? SLACK_EMOJI[name] : undefined;
}

export interface ConvertedReaction {
  userId: number;
  emojiName: string;
  emojiCode: string;
  reactionType: "unicode_emoji" | "realm_emoji";
}

/**
 * One Zulip reaction per user and emoji. Skin tones (`clap::skin-tone-2`) are dropped and their
 * users merged; Slack names become Zulip's names for the same code point; custom emoji are looked
 * up by name; emoji Zulip lacks and users not imported are skipped.
 */
export function convertSlackReactions(
  reactions: readonly { name: string; users?: string[] }[],
  userIds: ReadonlyMap<string, number>,
  realmEmoji: ReadonlyMap<string, number>,
): ConvertedReaction[] {
  const merged = new Map<string, Set<string>>();
  for (const r of reactions) {
    const name = r.name.split("::")[0];
    const set = merged.get(name) ?? new Set<string>();
    for (const u of r.users ?? []) set.add(u);
    merged.set(name, set);
  }
  const out: ConvertedReaction[] = [];
  const seen = new Set<string>();
  for (const [name, users] of merged) {
    let emojiName: string;
    let emojiCode: string;
    let reactionType: ConvertedReaction["reactionType"];
    const code = slackEmojiCode(name);
    if (code !== undefined) {
      const zulipName = emojiNameForCode(code);
      if (zulipName === undefined) continue;
      emojiName = zulipName;
      emojiCode = code;
      reactionType = "unicode_emoji";
    } else if (realmEmoji.has(name)) {
      emojiName = name;
      emojiCode = String(realmEmoji.get(name));
      reactionType = "realm_emoji";
    } else continue;
    for (const slackId of users) {
      const userId = userIds.get(slackId);
      if (userId === undefined) continue;
      const key = `${userId}\0${reactionType}\0${emojiCode}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push({ userId, emojiName, emojiCode, reactionType });
    }
  }
  return out;
}

/**
 * Converts Mattermost's bulk export (JSON Lines plus the `data/` attachments and
 * `exported_emoji/` images, as a directory, a .jsonl file beside them, or a zip of both) into
 * Zulip's export format, one team at a time. The JSONL is read line by line, twice: first the
 * teams, users, channels, DM groups, emoji and every post's time; then the posts, which are
 * converted with ids in order of time (Zulip's converter marks its output `sort_by_date` for the
 * importer to do the same) and written out in files of 1000.
 */
import fs from "node:fs";
import path from "node:path";
import readline from "node:readline";
import type { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { isValidEmail } from "../../domain/users.js";
import { emojiCodeForName } from "../../markdown/emoji.js";
import { ZipArchive, ZipError, type ZipLimits } from "../zip.js";
import {
  ConvertedExportWriter,
  RECIPIENT_DIRECT_MESSAGE_GROUP,
  RECIPIENT_PERSONAL,
  RECIPIENT_STREAM,
  type Row,
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
  MATTERMOST_TOPIC,
  MAX_CONVERTED_LENGTH,
  type MattermostChannel,
  type MattermostPost,
  type MattermostUser,
  channelMembers,
  directGroupKey,
  isImageFileName,
  isInTeam,
  maskContent,
  mattermostContent,
  mattermostFullName,
  mattermostRole,
  mentionedUsernames,
} from "./convert.js";

export class MattermostImportError extends Error {
  override name = "MattermostImportError";
}

/** The longest line read from the JSONL (a post with all its replies). */
const MAX_LINE_BYTES = 64 * 1024 * 1024;

/** Where the export's files are: a directory, or a zip holding the same layout. */
interface ExportSource {
  lines(): AsyncIterable<string>;
  /** A file under the export's root (`data/…`, `exported_emoji/…`), or undefined when absent. */
  open(relative: string): Promise<Readable | undefined>;
  close(): void;
}

function safeRelative(relative: string): string | undefined {
  const normal = path.posix.normalize(relative.replace(/\\/g, "/"));
  return normal.startsWith("../") || normal === ".." || path.posix.isAbsolute(normal) ? undefined : normal;
}

async function* readLines(stream: Readable): AsyncIterable<string> {
  let bytes = 0;
  const rl = readline.createInterface({ input: stream, crlfDelay: Infinity });
  // readline buffers a line until its end: a line too long to be an export's is refused as it
  // grows, not once it is whole.
  stream.on("data", (chunk: Buffer) => {
    bytes += chunk.length;
    if (bytes > MAX_LINE_BYTES) stream.destroy(new MattermostImportError(`A line of the export is longer than ${MAX_LINE_BYTES} bytes.`));
  });
  try {
    for await (const line of rl) {
      bytes = 0;
      yield line;
    }
  } catch (e) {
    throw e instanceof MattermostImportError ? e : new MattermostImportError(`The export cannot be read: ${(e as Error).message}`);
  }
}

async function openSource(file: string, zipLimits?: ZipLimits): Promise<ExportSource> {
  const stat = await fs.promises.stat(file).catch(() => undefined);
  if (!stat) throw new MattermostImportError(`${file} does not exist.`);
  if (stat.isDirectory() || !/\.zip$/i.test(file)) {
    const root = stat.isDirectory() ? file : path.dirname(file);
    let jsonl = file;
    if (stat.isDirectory()) {
      const candidates = ["export.json", "import.jsonl", ...fs.readdirSync(file).filter((n) => n.endsWith(".jsonl"))];
      const found = candidates.find((n) => fs.existsSync(path.join(file, n)));
      if (!found) throw new MattermostImportError("The directory has no export.json or .jsonl file from Mattermost's bulk export.");
      jsonl = path.join(file, found);
    }
    return {
      lines: () => readLines(fs.createReadStream(jsonl)),
      async open(relative) {
        const rel = safeRelative(relative);
        const full = rel && path.join(root, rel);
        return full && fs.existsSync(full) && fs.statSync(full).isFile() ? fs.createReadStream(full) : undefined;
      },
      close() {},
    };
  }
  let zip: ZipArchive;
  try {
    zip = await ZipArchive.open(file, zipLimits);
  } catch (e) {
    throw e instanceof ZipError ? new MattermostImportError(e.message) : e;
  }
  const names = zip.entries().map((e) => e.name);
  const jsonl = names.find((n) => n.endsWith(".jsonl")) ?? names.find((n) => path.posix.basename(n) === "export.json");
  if (!jsonl) {
    zip.close();
    throw new MattermostImportError("The zip has no .jsonl file from Mattermost's bulk export.");
  }
  const root = path.posix.dirname(jsonl) === "." ? "" : `${path.posix.dirname(jsonl)}/`;
  return {
    lines: async function* () {
      yield* readLines(await zip.stream(jsonl));
    },
    async open(relative) {
      const rel = safeRelative(relative);
      return rel && zip.has(root + rel) ? zip.stream(root + rel) : undefined;
    },
    close: () => zip.close(),
  };
}

type Line = { type: string } & Record<string, unknown>;

async function* records(source: ExportSource): AsyncIterable<Line> {
  let n = 0;
  for await (const line of source.lines()) {
    n++;
    if (line.trim() === "") continue;
    let row: unknown;
    try {
      row = JSON.parse(line);
    } catch {
      throw new MattermostImportError(`Line ${n} of the export is not valid JSON.`);
    }
    if (!row || typeof row !== "object" || typeof (row as Line).type !== "string") throw new MattermostImportError(`Line ${n} of the export has no type.`);
    yield row as Line;
  }
}

export interface MattermostConvertOptions {
  /** The host of the organization, for the realm's domain. */
  domain: string;
  /** The team to convert; required when the export has several. */
  team?: string;
  /** The organization's string id; the team's name when absent. */
  subdomain?: string;
  /** Replace letters of message content with x and X (for sharing an export in a bug report). */
  masking?: boolean;
  zipLimits?: ZipLimits;
  log?: (line: string) => void;
  now?: number;
}

export interface MattermostConversionSummary {
  team: string;
  users: number;
  channels: number;
  messages: number;
  userMessages: number;
  reactions: number;
  uploads: number;
}

/** The teams an export holds, in order. */
export async function mattermostTeams(file: string, zipLimits?: ZipLimits): Promise<string[]> {
  const source = await openSource(file, zipLimits);
  try {
    const teams: string[] = [];
    for await (const row of records(source)) if (row.type === "team") teams.push(String((row.team as { name: string }).name));
    return teams;
  } finally {
    source.close();
  }
}

interface Gathered {
  teams: string[];
  users: Map<string, MattermostUser>;
  channels: MattermostChannel[];
  directChannels: string[][];
  emoji: { name: string; image: string }[];
  /** Every post's and reply's time, in the order the second pass meets them. */
  times: number[];
  /** Usernames who posted in the team (channel posts; direct posts when there is one team). */
  posters: Set<string>;
}

const postsOf = (post: MattermostPost): MattermostPost[] => [post, ...(post.replies ?? [])];

async function gather(source: ExportSource, pickTeam: (teams: string[]) => string): Promise<Gathered & { team: string }> {
  const g: Gathered = { teams: [], users: new Map(), channels: [], directChannels: [], emoji: [], times: [], posters: new Set() };
  // Every post's and reply's time and team (-1: a direct post), in the order of the file.
  const times: number[] = [];
  const teamOf: number[] = [];
  const postTeams = new Map<string, number>();
  const postersByTeam = new Map<number, Set<string>>();
  const note = (teamIndex: number, post: MattermostPost) => {
    const posters = postersByTeam.get(teamIndex) ?? new Set<string>();
    postersByTeam.set(teamIndex, posters);
    for (const p of postsOf(post)) {
      times.push(Number(p.create_at));
      teamOf.push(teamIndex);
      posters.add(p.user);
    }
  };
  for await (const row of records(source)) {
    switch (row.type) {
      case "team":
        g.teams.push(String((row.team as { name: string }).name));
        break;
      case "user": {
        const u = row.user as MattermostUser;
        g.users.set(u.username, u);
        break;
      }
      case "channel":
        g.channels.push(row.channel as MattermostChannel);
        break;
      case "direct_channel":
        g.directChannels.push(((row.direct_channel as { members?: string[] }).members ?? []).map(String));
        break;
      case "emoji":
        g.emoji.push(row.emoji as { name: string; image: string });
        break;
      case "post": {
        const p = row.post as MattermostPost;
        const name = String(p.team);
        if (!postTeams.has(name)) postTeams.set(name, postTeams.size);
        note(postTeams.get(name)!, p);
        break;
      }
      case "direct_post":
        note(-1, row.direct_post as MattermostPost);
        break;
    }
  }
  const team = pickTeam(g.teams);
  const chosen = postTeams.get(team) ?? -2;
  // Direct posts name no team: they belong to an export's only team, and are left out otherwise.
  const wanted = (t: number) => t === chosen || (t === -1 && g.teams.length === 1);
  for (let i = 0; i < times.length; i++) if (wanted(teamOf[i])) g.times.push(times[i]);
  for (const [t, posters] of postersByTeam) if (wanted(t)) posters.forEach((u) => g.posters.add(u));
  return { ...g, team };
}

/** Converts one team of the export at `file` into `outDir`. */
export async function convertMattermostExport(file: string, outDir: string, options: MattermostConvertOptions): Promise<MattermostConversionSummary> {
  const log = options.log ?? (() => {});
  const source = await openSource(file, options.zipLimits);
  try {
    const g = await gather(source, (teams) => {
      if (teams.length === 0) throw new MattermostImportError("The export has no team.");
      if (options.team !== undefined) {
        if (!teams.includes(options.team)) throw new MattermostImportError(`The export has no team '${options.team}' (it has: ${teams.join(", ")}).`);
        return options.team;
      }
      if (teams.length > 1) throw new MattermostImportError(`The export has several teams (${teams.join(", ")}); name the one to import.`);
      return teams[0];
    });
    const team = g.team;
    const realmId = CONVERTED_REALM_ID;
    const now = options.now ?? Date.now() / 1000;
    log(`Generating data for ${team}`);
    if (g.teams.length > 1) log("Skipping importing direct message groups and DMs since there are multiple teams in the export");

    const zrealm = realmRow(realmId, options.subdomain ?? team, now, "Mattermost");
    const realm = realmTables(zrealm, options.domain, "mattermost");
    realm.sort_by_date = true;
    const rows = (t: string) => realm[t] as Row[];

    // Users: the team's, and those who posted in it after leaving (kept, deactivated).
    const userIds = new Map<string, number>();
    const usernames = new Map<number, string>();
    const fullNames = new Map<number, string>();
    const emails = new Map<number, string>();
    const invalid: string[] = [];
    for (const user of g.users.values()) {
      const inTeam = isInTeam(user, team);
      const mirrorDummy = !inTeam && g.posters.has(user.username);
      if (!inTeam && !mirrorDummy) continue;
      const id = userIds.size + 1;
      userIds.set(user.username, id);
      usernames.set(id, user.username);
      fullNames.set(id, mattermostFullName(user));
      emails.set(id, user.email);
      if (!isValidEmail(user.email)) invalid.push(user.email);
      rows("zerver_userprofile").push(
        userProfileRow({
          id,
          realmId,
          email: user.email,
          fullName: mattermostFullName(user),
          shortName: user.username,
          role: mattermostRole(user, team),
          isActive: !mirrorDummy,
          isMirrorDummy: mirrorDummy,
          isBot: false,
          botType: null,
          timezone: "UTC",
          dateJoined: Math.trunc(now),
          avatarSource: "G",
        }),
      );
    }
    if (invalid.length > 0) throw new MattermostImportError(`Invalid email format, please fix the following email(s) and try again: ${invalid.join(", ")}`);

    let nextRecipient = 1;
    let nextSubscription = 1;
    const subscribers = new Map<number, Set<number>>();
    const subscribe = (recipientId: number, ids: Iterable<number>) => {
      const set = subscribers.get(recipientId) ?? new Set<number>();
      subscribers.set(recipientId, set);
      for (const id of ids) {
        if (set.has(id)) continue;
        set.add(id);
        rows("zerver_subscription").push(subscriptionRow(nextSubscription++, recipientId, id));
      }
    };
    const personal = new Map<number, number>();
    for (const id of userIds.values()) {
      const recipientId = nextRecipient++;
      rows("zerver_recipient").push(recipientRow(id, recipientId, RECIPIENT_PERSONAL));
      personal.set(id, recipientId);
      subscribe(recipientId, [id]);
    }

    // Channels, named by their display names; private ones ("P") invite-only.
    const members = channelMembers(g.users.values(), team);
    const channelRecipient = new Map<string, number>();
    for (const channel of g.channels) {
      if (channel.team !== team) continue;
      if (channel.type !== "O" && channel.type !== "P") throw new MattermostImportError(`Channel ${channel.name} has an unknown type '${channel.type}'.`);
      const streamId = channelRecipient.size + 1;
      rows("zerver_stream").push(
        streamRow({ id: streamId, realmId, name: channel.display_name, description: channel.purpose || channel.header || "", dateCreated: Math.trunc(now), deactivated: false, inviteOnly: channel.type === "P" }),
      );
      const recipientId = nextRecipient++;
      rows("zerver_recipient").push(recipientRow(streamId, recipientId, RECIPIENT_STREAM));
      channelRecipient.set(channel.name, recipientId);
      subscribe(recipientId, (members.get(channel.name) ?? []).map((u) => userIds.get(u)).filter((id): id is number => id !== undefined));
    }

    // DM groups (three or more people), only when the export has a single team.
    const groupRecipient = new Map<string, number>();
    if (g.teams.length === 1) {
      for (const group of g.directChannels) {
        if (group.length <= 2) continue;
        const key = directGroupKey(group);
        if (groupRecipient.has(key)) {
          log("Duplicate direct message group found in the export data. Skipping.");
          continue;
        }
        const ids = group.map((u) => userIds.get(u)).filter((id): id is number => id !== undefined);
        const huddleId = groupRecipient.size + 1;
        rows("zerver_huddle").push(huddleRow(huddleId, ids.length));
        const recipientId = nextRecipient++;
        rows("zerver_recipient").push(recipientRow(huddleId, recipientId, RECIPIENT_DIRECT_MESSAGE_GROUP));
        groupRecipient.set(key, recipientId);
        subscribe(recipientId, ids);
      }
    }

    // Custom emoji, images copied under the names the importer looks for.
    const writer = new ConvertedExportWriter(outDir);
    const realmEmoji = new Map<string, number>();
    const emojiRecords: Row[] = [];
    for (const e of g.emoji) {
      const input = await source.open(String(e.image));
      if (!input) {
        log(`Emoji ${e.name}: image ${e.image} not in the export; skipped.`);
        continue;
      }
      const ext = path.posix.extname(String(e.image)).toLowerCase();
      // Zulip names the file after the emoji; the extension is kept so the image is served
      // with its type.
      const fileName = `${e.name}${/^\.[a-z0-9]{1,5}$/.test(ext) ? ext : ""}`;
      const emojiPath = `${realmId}/emoji/images/${fileName}`;
      await pipeline(input, fs.createWriteStream(writer.filePath(`emoji/${emojiPath}`)));
      const id = realmEmoji.size + 1;
      realmEmoji.set(e.name, id);
      rows("zerver_realmemoji").push({ id, realm: realmId, name: e.name, file_name: fileName, author: null, deactivated: false, is_animated: false });
      emojiRecords.push({ path: emojiPath, s3_path: emojiPath, file_name: fileName, realm_id: realmId, name: e.name });
    }

    // Messages: ids follow time (ties keep the export's order).
    const order = g.times.map((t, i) => [t, i] as const).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    const idOf = new Int32Array(order.length);
    order.forEach(([, i], rank) => (idOf[i] = rank + 1));
    g.times = [];
    let seq = 0;
    let nextUserMessage = 1;
    const attachments: Row[] = [];
    const uploads: Row[] = [];
    const reactions: Row[] = [];

    const convertPost = async (post: MattermostPost, where: { channel: string } | { members: string[] }, isPrivate: boolean) => {
      const messageId = idOf[seq++];
      const senderId = userIds.get(post.user);
      if (senderId === undefined) return;
      let recipientId: number | undefined;
      if ("channel" in where) recipientId = channelRecipient.get(where.channel);
      else if (where.members.length > 2) recipientId = groupRecipient.get(directGroupKey(where.members));
      else if (where.members.length === 2) {
        const [a, b] = where.members.map((u) => userIds.get(u));
        const other = senderId === a ? b : a;
        recipientId = other === undefined ? undefined : personal.get(other);
      }
      if (recipientId === undefined) return;

      const raw = options.masking ? maskContent(String(post.message ?? "")) : String(post.message ?? "");
      const mentioned = [...new Set(mentionedUsernames(raw))].map((u) => userIds.get(u)).filter((id): id is number => id !== undefined);
      let content = mattermostContent(
        raw,
        mentioned.map((id) => ({ username: usernames.get(id)!, fullName: fullNames.get(id)! })),
      );
      if (content.length > MAX_CONVERTED_LENGTH) return;

      let hasAttachment = false;
      let hasImage = false;
      let hasLink = false;
      const files = post.attachments ?? [];
      if (files.length > 0) {
        const links: string[] = [];
        for (const a of files) {
          const relative = `data/${String(a.path)}`;
          const input = await source.open(relative);
          if (!input) {
            log(`Attachment ${a.path} not in the export; skipped.`);
            continue;
          }
          const fileName = path.posix.basename(String(a.path));
          const pathId = newUploadPath(realmId, fileName);
          const target = writer.filePath(`uploads/${pathId}`);
          await pipeline(input, fs.createWriteStream(target));
          const size = (await fs.promises.stat(target)).size;
          hasAttachment = true;
          hasLink = true;
          hasImage ||= isImageFileName(fileName);
          links.push(`[${fileName}](/user_uploads/${pathId})`);
          uploads.push({ path: pathId, s3_path: pathId, realm_id: realmId, content_type: null, user_profile_id: senderId, user_profile_email: emails.get(senderId), last_modified: post.create_at / 1000, size });
          attachments.push({
            id: attachments.length + 1,
            file_name: fileName,
            path_id: pathId,
            owner: senderId,
            realm: realmId,
            create_time: post.create_at / 1000,
            size,
            content_type: null,
            // Zulip's converter marks every file public, DMs' included (a known shortcut there).
            is_realm_public: true,
            is_web_public: false,
            messages: [messageId],
            scheduled_messages: [],
          });
        }
        content += links.join("\n");
      }

      for (const r of post.reactions ?? []) {
        const reactor = userIds.get(r.user);
        if (reactor === undefined) continue;
        const code = emojiCodeForName(r.emoji_name);
        if (code !== undefined) reactions.push({ id: reactions.length + 1, user_profile: reactor, emoji_name: r.emoji_name, emoji_code: code, reaction_type: "unicode_emoji", message: messageId });
        else if (realmEmoji.has(r.emoji_name)) reactions.push({ id: reactions.length + 1, user_profile: reactor, emoji_name: r.emoji_name, emoji_code: String(realmEmoji.get(r.emoji_name)), reaction_type: "realm_emoji", message: messageId });
      }

      const message = messageRow({
        id: messageId,
        realmId,
        senderId,
        recipientId,
        topic: isPrivate ? "" : MATTERMOST_TOPIC,
        content,
        dateSent: Math.trunc(post.create_at / 1000),
        isChannelMessage: !isPrivate,
        hasAttachment,
        hasImage,
        hasLink,
      });
      const receivers = new Set([...(subscribers.get(recipientId) ?? []), senderId]);
      const userMessages = [...receivers].map((userId) => ({
        id: nextUserMessage++,
        user_profile: userId,
        message: messageId,
        flags_mask: userMessageFlags({ mentioned: mentioned.includes(userId), isPrivate }),
      }));
      await writer.addMessage(message, userMessages);
    };

    for await (const row of records(source)) {
      if (row.type === "post") {
        const post = row.post as MattermostPost;
        if (String(post.team) !== team) continue;
        for (const p of postsOf(post)) await convertPost(p, { channel: String(post.channel) }, false);
      } else if (row.type === "direct_post" && g.teams.length === 1) {
        const post = row.direct_post as MattermostPost;
        const membersOf = (post.channel_members ?? []).map(String);
        for (const p of postsOf(post)) await convertPost(p, { members: membersOf }, true);
      }
    }

    realm.zerver_reaction = reactions;
    await writer.finish({ realm, attachments, uploads, emoji: emojiRecords });
    const summary: MattermostConversionSummary = {
      team,
      users: userIds.size,
      channels: channelRecipient.size,
      messages: writer.messageCount,
      userMessages: writer.userMessageCount,
      reactions: reactions.length,
      uploads: uploads.length,
    };
    log(`Mattermost: team ${team}: ${summary.users} users, ${summary.channels} channels, ${summary.messages} messages, ${summary.uploads} files`);
    return summary;
  } catch (e) {
    if (e instanceof ZipError) throw new MattermostImportError(e.message);
    throw e;
  } finally {
    source.close();
  }
}

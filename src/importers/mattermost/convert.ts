/**
 * Pure rules for turning Mattermost's bulk export into Zulip's, following Zulip's own importer
 * (zerver/data_import/mattermost.py): one organization per team, team roles, channel
 * membership from users' team entries, `@username` mentions, message text.
 */
import { createHash } from "node:crypto";
import { Role } from "../../domain/roles.js";

export interface MattermostTeamMembership {
  name: string;
  roles?: string;
  channels?: { name: string; roles?: string }[] | null;
}

export interface MattermostUser {
  username: string;
  email: string;
  first_name?: string;
  last_name?: string;
  roles?: string;
  teams?: MattermostTeamMembership[] | null;
}

export interface MattermostChannel {
  team: string;
  name: string;
  display_name: string;
  type: string;
  header?: string;
  purpose?: string;
}

export interface MattermostReaction {
  user: string;
  emoji_name: string;
  create_at?: number;
}

export interface MattermostPost {
  team?: string;
  channel?: string;
  channel_members?: string[];
  user: string;
  message: string;
  create_at: number;
  reactions?: MattermostReaction[] | null;
  replies?: MattermostPost[] | null;
  attachments?: { path: string }[] | null;
}

export function mattermostFullName(user: MattermostUser): string {
  const full = `${user.first_name ?? ""} ${user.last_name ?? ""}`;
  return full.trim() ? full : user.username;
}

const teamEntry = (user: MattermostUser, team: string) => (user.teams ?? []).find((t) => t.name === team);

export function isInTeam(user: MattermostUser, team: string): boolean {
  return teamEntry(user, team) !== undefined;
}

/** Team administrators own the organization; team guests are guests; everyone else a member. */
export function mattermostRole(user: MattermostUser, team: string): number {
  const roles = teamEntry(user, team)?.roles ?? "";
  if (roles.includes("team_admin")) return Role.OWNER;
  if (roles.includes("team_guest")) return Role.GUEST;
  return Role.MEMBER;
}

/** Channel name → usernames subscribed (channel admins and users; guests' rows say neither). */
export function channelMembers(users: Iterable<MattermostUser>, team: string): Map<string, string[]> {
  const members = new Map<string, string[]>();
  for (const user of users) {
    for (const channel of teamEntry(user, team)?.channels ?? []) {
      const roles = channel.roles ?? "";
      if (!roles.includes("channel_admin") && !roles.includes("channel_user")) continue;
      members.set(channel.name, [...(members.get(channel.name) ?? []), user.username]);
    }
  }
  return members;
}

/** One key per set of members, whatever their order, to find a DM group again. */
export function directGroupKey(members: readonly string[]): string {
  return createHash("md5").update([...members].sort().join("")).digest("hex");
}

/**
 * Usernames `@`-mentioned: letters and digits in runs joined by single `_` or `.` (a trailing one
 * included), after the start or a character that cannot be part of a name, so `a@b.org` is not a
 * mention. (Linear: the runs cannot overlap.)
 */
const MENTION = /(?<![a-zA-Z0-9\-_.])@([A-Za-z0-9]+(?:[_.][A-Za-z0-9]+)*[_.]?)/g;

export function mentionedUsernames(content: string): string[] {
  return [...content.matchAll(MENTION)].map((m) => m[1]);
}

/**
 * The message's Markdown: mentions of known users by full name, `@channel`, `@all` and `@here` as
 * `@**all**` (Zulip has no "online members" mention), ending with a blank line as Zulip's
 * converter leaves it.
 */
export function mattermostContent(content: string, mentioned: readonly { username: string; fullName: string }[]): string {
  let s = content;
  for (const u of mentioned) s = s.replaceAll(`@${u.username}`, `@**${u.fullName}**`);
  s = s.replaceAll("@channel", "@**all**").replaceAll("@all", "@**all**").replaceAll("@here", "@**all**");
  return `${s.trimEnd()}\n\n`;
}

/** Letters hidden for sharing an export in a bug report: `a`–`z` → `x`, `A`–`Z` → `X`. */
export function maskContent(content: string): string {
  return content.replace(/[a-z]/g, "x").replace(/[A-Z]/g, "X");
}

/** Zulip's longest converted message; longer posts are skipped. */
export const MAX_CONVERTED_LENGTH = 10_000;
export const MATTERMOST_TOPIC = "imported from mattermost";

const IMAGE_EXTENSIONS = new Set([".bmp", ".gif", ".jpe", ".jpeg", ".jpg", ".png", ".webp"]);

export function isImageFileName(name: string): boolean {
  const dot = name.lastIndexOf(".");
  return dot >= 0 && IMAGE_EXTENSIONS.has(name.slice(dot).toLowerCase());
}

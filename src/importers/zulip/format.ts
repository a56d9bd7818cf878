/**
 * Pure rules of Zulip's export format (see /work/shared/reference/zulip-export-format.md):
 * flag bits, versions, timestamps and the ids that rendered HTML carries. No I/O here.
 */
import { FLAG_BITS } from "../../domain/message_flags.js";

/** Zulip's AbstractUserMessage.ALL_FLAGS order: bit n of `flags_mask` is the n-th name. */
const ZULIP_FLAG_ORDER = [
  "read",
  "starred",
  "collapsed",
  "mentioned",
  "stream_wildcard_mentioned",
  "topic_wildcard_mentioned",
  "group_mentioned",
  "force_expand",
  "force_collapse",
  "has_alert_word",
  "historical",
  "is_private",
  "active_mobile_push_notification",
] as const;

const TO_CONFAB: [zulipBit: number, confabBit: number][] = [];
for (const [bit, name] of ZULIP_FLAG_ORDER.entries()) {
  const confab = (FLAG_BITS as Record<string, number>)[name];
  // force_expand and force_collapse are obsolete in Zulip and have no Confab bit.
  if (confab !== undefined) TO_CONFAB.push([1 << bit, confab]);
}

export function zulipFlagsToConfab(mask: number): number {
  let flags = 0;
  for (const [z, c] of TO_CONFAB) if (mask & z) flags |= c;
  return flags;
}

export function confabFlagsToZulip(flags: number): number {
  let mask = 0;
  for (const [z, c] of TO_CONFAB) if (flags & c) mask |= z;
  return mask;
}

/** Zulip major versions whose exports this importer reads (field sets differ by a handful per release). */
export const SUPPORTED_ZULIP_MAJORS = { min: 8, max: 12 } as const;

/** The Zulip version Confab's Zulip-format exports name: the release whose API feature level Confab serves. */
export const EXPORTED_ZULIP_VERSION = "11.0";

/** null when supported, else why not. */
export function versionRefusal(zulipVersion: unknown): string | null {
  if (typeof zulipVersion !== "string") return "The export's migration_status.json names no Zulip version.";
  const major = /^(\d+)\./.exec(zulipVersion);
  const n = major ? Number(major[1]) : NaN;
  if (!(n >= SUPPORTED_ZULIP_MAJORS.min && n <= SUPPORTED_ZULIP_MAJORS.max)) {
    return `This export is from Zulip ${zulipVersion}; Confab imports exports of Zulip ${SUPPORTED_ZULIP_MAJORS.min}.x to ${SUPPORTED_ZULIP_MAJORS.max}.x.`;
  }
  return null;
}

/** Export datetimes are float UNIX seconds; Confab keeps whole seconds. */
export function seconds(value: unknown): number | null {
  return typeof value === "number" && Number.isFinite(value) ? Math.floor(value) : null;
}

export interface IdMaps {
  user(id: number): number | undefined;
  stream(id: number): number | undefined;
  group(id: number): number | undefined;
}

/**
 * Rewrites the ids rendered HTML carries (mentions, channel links and their narrow URLs) through
 * the maps; an id the maps don't know is left as it was. Each pattern is a plain scan, linear in
 * the text's length.
 */
export function rewriteRenderedIds(html: string, maps: IdMaps): string {
  if (!html.includes("data-") && !html.includes("#narrow/")) return html;
  const via = (map: (id: number) => number | undefined) => (whole: string, head: string, id: string) => {
    const to = map(Number(id));
    return to === undefined ? whole : `${head}${to}`;
  };
  return html
    .replace(/(data-user-id=")(\d+)/g, via(maps.user))
    .replace(/(data-stream-id=")(\d+)/g, via(maps.stream))
    .replace(/(data-user-group-id=")(\d+)/g, via(maps.group))
    .replace(/(#narrow\/(?:channel|stream)\/)(\d+)/g, via(maps.stream));
}

/** The roles Zulip stores are Confab's (100 owner … 600 guest); anything else becomes a member. */
export function confabRole(role: unknown): number {
  return role === 100 || role === 200 || role === 300 || role === 400 || role === 600 ? role : 400;
}

/** Zulip's recipient types. */
export const ZULIP_RECIPIENT = { personal: 1, stream: 2, group: 3 } as const;

/** Offsets message or user ids when the target already holds some of them, so the import never collides; 0 keeps them. */
export function idOffset(minImported: number, maxExisting: number): number {
  return maxExisting >= minImported ? maxExisting - minImported + 1 : 0;
}

/** Zulip's StreamTopicsPolicyEnum, stored as numbers; Confab stores the names. */
export const CHANNEL_TOPICS_POLICIES = { inherit: 1, allow_empty_topic: 2, disable_empty_topic: 3, empty_topic_only: 4 } as const;

export function channelTopicsPolicyName(value: unknown): string {
  return Object.entries(CHANNEL_TOPICS_POLICIES).find(([, n]) => n === value)?.[0] ?? "inherit";
}

/**
 * Per-user message flags, stored as one integer bitmask in `user_messages.flags`.
 * The bit positions are ours; the names and which of them the API shows are Zulip's.
 */
export const FLAG_BITS = {
  read: 1 << 0,
  starred: 1 << 1,
  collapsed: 1 << 2,
  mentioned: 1 << 3,
  stream_wildcard_mentioned: 1 << 4,
  topic_wildcard_mentioned: 1 << 5,
  group_mentioned: 1 << 6,
  has_alert_word: 1 << 7,
  historical: 1 << 8,
  /** Internal: the message is a direct message. */
  is_private: 1 << 9,
  /** Internal: a mobile push notification is outstanding. */
  active_mobile_push_notification: 1 << 10,
} as const;
export type FlagName = keyof typeof FLAG_BITS;

/** Flags the API never shows. */
const INTERNAL_FLAGS: ReadonlySet<FlagName> = new Set(["is_private", "active_mobile_push_notification", "group_mentioned"]);

/** Flags a user may change themselves (POST /messages/flags). */
export const USER_EDITABLE_FLAGS: readonly FlagName[] = ["read", "starred", "collapsed"];

/** Any kind of mention, as `is:mentioned` searches for it. */
export const MENTION_MASK =
  FLAG_BITS.mentioned | FLAG_BITS.stream_wildcard_mentioned | FLAG_BITS.topic_wildcard_mentioned | FLAG_BITS.group_mentioned;

export function flagMask(names: Iterable<FlagName>): number {
  let mask = 0;
  for (const n of names) mask |= FLAG_BITS[n];
  return mask;
}

export function hasFlag(mask: number, name: FlagName): boolean {
  return (mask & FLAG_BITS[name]) !== 0;
}

/**
 * The API list for a bitmask, in Zulip's order. `wildcard_mentioned` is the legacy union of
 * the two wildcard flags and is listed right after them.
 */
export function flagsForApi(mask: number): string[] {
  const out: string[] = [];
  for (const name of Object.keys(FLAG_BITS) as FlagName[]) {
    if (INTERNAL_FLAGS.has(name) || !hasFlag(mask, name)) continue;
    out.push(name);
    if (name === "topic_wildcard_mentioned" || (name === "stream_wildcard_mentioned" && !hasFlag(mask, "topic_wildcard_mentioned"))) {
      out.push("wildcard_mentioned");
    }
  }
  return out;
}

/** Flags Zulip knows but that are never set: clients may name them, not change them. */
const UNUSED_FLAGS = ["force_expand", "force_collapse"] as const;

/** What `read | historical` means: a channel message the user can read but never received. */
export const HISTORICAL_FLAGS = FLAG_BITS.read | FLAG_BITS.historical;

/**
 * Checks a requested flag change in Zulip's order (flag known, flag editable, operation) and
 * returns the error text, or null with the flag's name when the change is allowed.
 */
export function flagChangeRefusal(flag: string, op: string): { refusal: string } | { flag: FlagName; adding: boolean } {
  const known = (name: string): name is FlagName => Object.prototype.hasOwnProperty.call(FLAG_BITS, name);
  const apiFlag = (known(flag) && !["is_private", "active_mobile_push_notification"].includes(flag)) || (UNUSED_FLAGS as readonly string[]).includes(flag);
  if (!apiFlag) return { refusal: `Invalid flag: '${flag}'` };
  if (!known(flag) || !USER_EDITABLE_FLAGS.includes(flag)) return { refusal: `Flag not editable: '${flag}'` };
  if (op !== "add" && op !== "remove") return { refusal: `Invalid message flag operation: '${op}'` };
  return { flag, adding: op === "add" };
}

/**
 * The messages whose flag would actually change. Messages without a row of their own are taken
 * to have HISTORICAL_FLAGS.
 */
export function messagesToChange(ids: readonly number[], flagsById: ReadonlyMap<number, number>, flag: FlagName, adding: boolean): number[] {
  const bit = FLAG_BITS[flag];
  const target = adding ? bit : 0;
  const seen = new Set<number>();
  return ids.filter((id) => {
    if (seen.has(id)) return false;
    seen.add(id);
    return ((flagsById.get(id) ?? HISTORICAL_FLAGS) & bit) !== target;
  });
}

/** At most this many messages per POST /messages/flags/narrow, to bound the transaction. */
export const MAX_MESSAGES_PER_UPDATE = 5000;

/**
 * Cuts a requested range down to MAX_MESSAGES_PER_UPDATE messages, as Zulip does: the part
 * before the anchor keeps at least half when both sides ask for more.
 */
export function clampFlagRange(numBefore: number, numAfter: number): { numBefore: number; numAfter: number } {
  const before = Math.min(numBefore, Math.max(MAX_MESSAGES_PER_UPDATE - numAfter, MAX_MESSAGES_PER_UPDATE / 2));
  return { numBefore: before, numAfter: Math.min(numAfter, MAX_MESSAGES_PER_UPDATE - before) };
}

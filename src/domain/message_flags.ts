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

/** Changing a user's own message flags: read, starred, collapsed, and marking conversations read. */
import type { AppContext } from "../context.js";
import { runAction, type PendingEvents, type Tx } from "./run.js";
import type { Realm } from "../store/realms.js";
import type { UserRow } from "../store/users.js";
import { listStreams } from "../store/streams.js";
import {
  channelOfMessages,
  flagsOf,
  insertUserMessages,
  markUnreadBatchRead,
  receivedInTopic,
  setFlagBit,
  unreadIdsInChannel,
  unreadRowsFor,
} from "../store/message_flags.js";
import { topicPolicies, mutedStreamIds } from "../store/unreads.js";
import { badRequest } from "../http/errors.js";
import { FLAG_BITS, HISTORICAL_FLAGS, clampFlagRange, flagChangeRefusal, messagesToChange, type FlagName } from "../domain/message_flags.js";
import { buildUnreads, unreadMessageDetails } from "../domain/unreads.js";
import { canAccessHistory } from "../domain/channel_access.js";
import { readEmptyTopicAliases } from "../domain/topics.js";
import type { NarrowTerm } from "../domain/narrow.js";
import { channelFacts, subscribedChannelIds, userFacts } from "./channel_context.js";
import { accessStreamById } from "./streams.js";
import { fetchMessageWindow, parseAnchor } from "./message_fetch.js";

export interface FlagChange {
  flag: FlagName;
  adding: boolean;
}

export function checkFlagChange(flag: string, op: string): FlagChange {
  const checked = flagChangeRefusal(flag, op);
  if ("refusal" in checked) throw badRequest(checked.refusal);
  return checked;
}

/**
 * Channel messages among `ids` the user may not mark unread: every unread message must be in a
 * channel they are subscribed to. Returns those messages and their channels.
 */
async function unsubscribedChannelMessages(app: AppContext, tx: Tx, user: UserRow, ids: readonly number[]) {
  const channelOf = await channelOfMessages(tx, user.realm_id, ids);
  const subscribed = await subscribedChannelIds(app, tx, user.id);
  const skipped = new Set<number>();
  const channels = new Set<number>();
  for (const [id, streamId] of channelOf) {
    if (subscribed.has(streamId)) continue;
    skipped.add(id);
    channels.add(streamId);
  }
  return { skipped, channels: [...channels].sort((a, b) => a - b) };
}

/** Messages the user never received are theirs to flag only if they may read the channel's history. */
async function checkHistoricalAccess(app: AppContext, tx: Tx, user: UserRow, ids: readonly number[]): Promise<void> {
  if (!ids.length) return;
  const channelOf = await channelOfMessages(tx, user.realm_id, ids);
  if (channelOf.size !== new Set(ids).size) throw badRequest("Invalid message(s)");
  const streams = new Map((await listStreams(tx, user.realm_id)).map((s) => [s.id, s]));
  const subscribed = await subscribedChannelIds(app, tx, user.id);
  const facts = await userFacts(app, tx, user);
  for (const streamId of new Set(channelOf.values())) {
    const stream = streams.get(streamId)!;
    if (!canAccessHistory(facts, channelFacts(stream), subscribed.has(streamId))) throw badRequest("Invalid message(s)");
  }
}

/**
 * Sets or clears one flag on these messages for the user, inside the caller's transaction, and
 * queues the update_message_flags event (sent even when nothing changed, as Zulip does).
 * Returns the messages that changed and, when marking unread, the channels skipped.
 */
export async function updateMessageFlagsInTx(
  app: AppContext,
  tx: Tx,
  events: PendingEvents,
  user: UserRow,
  realm: Realm,
  change: FlagChange,
  ids: readonly number[],
): Promise<{ changed: number[]; ignoredChannels: number[] | undefined }> {
  const { flag, adding } = change;
  const bit = FLAG_BITS[flag];
  const markingUnread = flag === "read" && !adding;
  let candidates = ids;
  let ignoredChannels: number[] | undefined;
  if (markingUnread) {
    const { skipped, channels } = await unsubscribedChannelMessages(app, tx, user, ids);
    candidates = ids.filter((id) => !skipped.has(id));
    ignoredChannels = channels;
  }
  const own = await flagsOf(tx, user.id, candidates);
  const changed = messagesToChange(candidates, own, flag, adding);
  // Without a row, a message reads as `read | historical`; a change from that needs a row of its own.
  if ((HISTORICAL_FLAGS & bit) !== (adding ? bit : 0)) {
    const historical = changed.filter((id) => !own.has(id));
    await checkHistoricalAccess(app, tx, user, historical);
    await insertUserMessages(tx, user.id, historical, adding ? HISTORICAL_FLAGS | bit : HISTORICAL_FLAGS & ~bit);
  }
  await setFlagBit(tx, user.id, changed.filter((id) => own.has(id)), bit, adding);

  const event: Record<string, unknown> = { type: "update_message_flags", op: adding ? "add" : "remove", operation: adding ? "add" : "remove", flag, messages: changed, all: false };
  if (markingUnread) {
    const raw = buildUnreads(user.id, await unreadRowsFor(tx, user.id, changed), await mutedStreamIds(tx, user.id), await topicPolicies(tx, user.id));
    event.message_details = unreadMessageDetails(raw, user.id);
  }
  events.send({ realmId: realm.id, userIds: [user.id], event });
  return { changed, ignoredChannels };
}

/** POST /messages/flags. The response lists the ids as requested, as Zulip's does. */
export async function updateMessageFlags(app: AppContext, user: UserRow, realm: Realm, op: string, flag: string, ids: number[]) {
  const change = checkFlagChange(flag, op);
  const { ignoredChannels } = await runAction(app, (tx, events) => updateMessageFlagsInTx(app, tx, events, user, realm, change, ids));
  return { messages: ids, ...(ignoredChannels ? { ignored_because_not_subscribed_channels: ignoredChannels } : {}) };
}

export interface NarrowFlagRequest {
  anchor: string;
  includeAnchor: boolean;
  numBefore: number;
  numAfter: number;
  narrow: NarrowTerm[];
  op: string;
  flag: string;
}

/** POST /messages/flags/narrow: the GET /messages window, then the flag change on it. */
export async function updateMessageFlagsForNarrow(app: AppContext, user: UserRow, realm: Realm, req: NarrowFlagRequest) {
  const anchor = parseAnchor(req.anchor, false);
  if (req.numBefore > 0 && req.numAfter > 0 && !req.includeAnchor) {
    throw badRequest("The anchor can only be excluded at an end of the range");
  }
  const { numBefore, numAfter } = clampFlagRange(req.numBefore, req.numAfter);
  return runAction(app, async (tx, events) => {
    const window = await fetchMessageWindow(app, tx, realm, user, { anchor, includeAnchor: req.includeAnchor, numBefore, numAfter, narrow: req.narrow });
    const change = checkFlagChange(req.flag, req.op);
    const ids = window.rows.map((r) => r.id);
    const { changed, ignoredChannels } = await updateMessageFlagsInTx(app, tx, events, user, realm, change, ids);
    return {
      processed_count: ids.length,
      updated_count: changed.length,
      first_processed_id: ids[0] ?? null,
      last_processed_id: ids.at(-1) ?? null,
      found_oldest: window.foundOldest,
      found_newest: window.foundNewest,
      ...(ignoredChannels ? { ignored_because_not_subscribed_channels: ignoredChannels } : {}),
    };
  });
}

const MARK_ALL_BATCH = 2000;
/** Past this many batches a request stops and reports `complete: false`; the client repeats it. */
const MARK_ALL_MAX_BATCHES = 25;

/**
 * POST /mark_all_as_read: in batches, newest first, each its own transaction, so that progress
 * survives a long run. The event says `all` rather than listing the messages.
 */
export async function markAllAsRead(app: AppContext, user: UserRow, realm: Realm) {
  for (let batch = 0; batch < MARK_ALL_MAX_BATCHES; batch++) {
    const updated = await runAction(app, (tx) => markUnreadBatchRead(tx, user.id, MARK_ALL_BATCH));
    if (updated < MARK_ALL_BATCH) {
      await app.bus.publish({
        realmId: realm.id,
        userIds: [user.id],
        event: { type: "update_message_flags", op: "add", operation: "add", flag: "read", messages: [], all: true },
      });
      return { complete: true };
    }
  }
  return { complete: false };
}

/** POST /mark_stream_as_read and /mark_topic_as_read. No event when nothing was unread. */
export async function markChannelAsRead(app: AppContext, user: UserRow, realm: Realm, streamId: number, topicName: string | null) {
  await runAction(app, async (tx, events) => {
    const { stream } = await accessStreamById(app, tx, user, streamId);
    const topic = topicName === null ? null : readEmptyTopicAliases(topicName);
    if (topic !== null && !(await receivedInTopic(tx, user.id, stream.id, topic))) throw badRequest(`No such topic '${topicName}'`);
    const ids = await unreadIdsInChannel(tx, user.id, stream.id, topic);
    if (!ids.length) return;
    await setFlagBit(tx, user.id, ids, FLAG_BITS.read, true);
    events.send({
      realmId: realm.id,
      userIds: [user.id],
      event: { type: "update_message_flags", op: "add", operation: "add", flag: "read", messages: ids, all: false },
    });
  });
  return {};
}

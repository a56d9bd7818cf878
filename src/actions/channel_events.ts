/**
 * The events and Notification Bot notices that changes to channels produce, shaped as Zulip
 * sends them. Callers decide who may see each one.
 */
import type { AppContext } from "../context.js";
import type { PendingEvents, Tx } from "./run.js";
import type { Executor } from "../store/schema.js";
import type { Realm } from "../store/realms.js";
import { getNotificationBot, type UserRow } from "../store/users.js";
import { defaultStreamIds, getStream, type StreamRow } from "../store/streams.js";
import { activeUsers, streamDisplayData } from "./channel_context.js";
import { sendMessageInTx } from "./messages.js";
import { formatStream } from "../format/streams.js";
import { CHANNEL_EVENTS_TOPIC } from "../domain/topics.js";

const sorted = (ids: Iterable<number>) => [...new Set(ids)].sort((a, b) => a - b);

/**
 * `stream`/`create` with the full channel object. New channels have no traffic yet; channels
 * that become visible later report theirs.
 */
export async function sendStreamCreate(
  db: Executor,
  app: AppContext,
  events: PendingEvents,
  realm: Realm,
  stream: StreamRow,
  userIds: Iterable<number>,
  opts: { newChannel?: boolean; forUnarchiving?: boolean } = {},
) {
  const to = sorted(userIds);
  if (!to.length) return;
  const data = await streamDisplayData(app, db, [stream]);
  if (opts.newChannel ?? true) data.weeklyTraffic.set(stream.id, null);
  const event: Record<string, unknown> = { type: "stream", op: "create", streams: [formatStream(stream, data)] };
  // Queues give this copy only to clients that do not understand archived channels.
  if (opts.forUnarchiving) event.for_unarchiving = true;
  events.send({ realmId: realm.id, event, userIds: to });
}

/** `stream`/`delete`: the deprecated `streams` objects carry only the id since feature level 343. */
export function sendStreamDelete(
  events: PendingEvents,
  realm: Realm,
  streamIds: number[],
  userIds: Iterable<number>,
  opts: { forArchiving?: boolean } = {},
) {
  const to = sorted(userIds);
  if (!to.length || !streamIds.length) return;
  const event: Record<string, unknown> = {
    type: "stream",
    op: "delete",
    streams: streamIds.map((stream_id) => ({ stream_id })),
    stream_ids: streamIds,
  };
  if (opts.forArchiving) event.for_archiving = true;
  events.send({ realmId: realm.id, event, userIds: to });
}

/** One `stream`/`update` per changed property, naming the channel as it is called now (unless given). */
export function sendStreamUpdate(
  events: PendingEvents,
  realm: Realm,
  stream: StreamRow,
  property: string,
  value: unknown,
  userIds: Iterable<number>,
  extra: Record<string, unknown> = {},
) {
  const to = sorted(userIds);
  if (!to.length) return;
  events.send({
    realmId: realm.id,
    event: { type: "stream", op: "update", property, value, ...extra, stream_id: stream.id, name: extra.name ?? stream.name },
    userIds: to,
  });
}

/** `subscription`/`peer_add` of a channel's subscribers, to users who did not know them. */
export function sendPeerAdd(events: PendingEvents, realm: Realm, streamId: number, subscriberIds: number[], userIds: Iterable<number>) {
  const to = sorted(userIds);
  if (!to.length || !subscriberIds.length) return;
  events.send({
    realmId: realm.id,
    event: { type: "subscription", op: "peer_add", stream_ids: [streamId], user_ids: sorted(subscriberIds) },
    userIds: to,
  });
}

/** `default_streams` with every default channel's id, to all active non-guests. */
export async function sendDefaultStreams(db: Executor, events: PendingEvents, realm: Realm) {
  const users = await activeUsers(db, realm.id);
  events.send({
    realmId: realm.id,
    event: { type: "default_streams", default_streams: sorted(await defaultStreamIds(db, realm.id)) },
    userIds: users.filter((u) => u.role !== 600).map((u) => u.id),
  });
}

/** Zulip's silent mention of the acting user in notices. */
export const silentMention = (u: UserRow) => `@_**${u.full_name}|${u.id}**`;

/** The topic of a channel's notices: "channel events", or the empty topic where only that is allowed. */
export const channelEventsTopic = (stream: StreamRow) => (stream.topics_policy === "empty_topic_only" ? "" : CHANNEL_EVENTS_TOPIC);

/**
 * Notification Bot's notice in the channel's events topic, when the organization posts them.
 * `markReadFor` lists the users for whom it starts out read.
 */
export async function sendChannelNotice(
  tx: Tx,
  app: AppContext,
  events: PendingEvents,
  realm: Realm,
  streamId: number,
  content: string,
  markReadFor: readonly number[] = [],
) {
  if (!realm.props.send_channel_events_messages) return;
  const stream = (await getStream(tx, realm.id, streamId))!;
  const bot = await getNotificationBot(tx, realm.id);
  await sendMessageInTx(tx, app, events, realm, bot, { kind: "stream", stream, topic: channelEventsTopic(stream) }, content, {
    clientName: "Internal",
    readBySender: false,
    markReadFor,
  });
}

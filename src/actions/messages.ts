/** Sending messages and reading single messages. */
import { claimMessageUploads } from "./uploads.js";
import type { AppContext } from "../context.js";
import { runAction, type PendingEvents, type Tx } from "./run.js";
import type { Notice } from "../events/bus.js";
import { queueMessagePushNotifications } from "./push_devices.js";
import { queueMessageEmails } from "../notifications/message_emails.js";
import { queueOutgoingWebhooks } from "./outgoing_webhooks.js";
import { queueLinkPreviews } from "../media/link_previews.js";
import type { Executor } from "../store/schema.js";
import type { Realm } from "../store/realms.js";
import type { UserRow } from "../store/users.js";
import { userProps } from "../format/users.js";
import { getUserById, getUserByAnyEmail } from "../store/users.js";
import type { StreamRow } from "../store/streams.js";
import { usersMuting } from "./muted_users.js";
import {
  directMessageGroupRecipientId,
  dmKeyFor,
  dmKeyUserIds,
  getMessage,
  insertMessageCopies,
  personalRecipientId,
  topicParticipantIds,
  userMessageFlags,
  type MessageRow,
} from "../store/messages.js";
import { isUserInGroup, recursiveMemberIds, systemGroupIds } from "../store/groups.js";
import { badRequest, streamDoesNotExistById, streamDoesNotExistByName } from "../http/errors.js";
import { renderMarkdown, type Rendered } from "../markdown/render.js";
import { realmLinkifiers, renderContextFor } from "../markdown/context.js";
import { uploadImagePreviews } from "../media/thumbnails.js";
import { reactionsByMessage, type MessageReaction } from "../store/reactions.js";
import { submessagesByMessage, type Submessage } from "../store/submessages.js";
import { createWidget } from "./submessages.js";
import { FLAG_BITS, HISTORICAL_FLAGS, flagsForApi } from "../domain/message_flags.js";
import { realmAlertWordMatcher } from "./alert_words.js";
import { LIMITS } from "../domain/limits.js";
import { checkChannelName } from "../domain/channels.js";
import { checkTopicAllowed, effectiveTopicsPolicy, normalizeTopic } from "../domain/topics.js";
import { canAccessHistory, postRefusal } from "../domain/channel_access.js";
import { channelFacts, channelSubscriberLists, senderFacts, subscribedChannelIds, userFacts } from "./channel_context.js";
import { realmUserRows } from "./users.js";
import { findChannel, realmStreamRows } from "./streams.js";
import { formatMessage, type MessageContext, type MessageFormatOptions } from "../format/messages.js";
import { idList, preparedRead } from "../store/prepared.js";
import { indexById } from "../store/read_cache.js";
import { readsCommittedState } from "../store/table_versions.js";

export type MessageTarget = { kind: "stream"; stream: StreamRow; topic: string } | { kind: "direct"; recipients: UserRow[] };

/** Clients whose users read what they send as they send it (Zulip's `sent_by_human` heuristic). */
const HUMAN_CLIENTS = new Set([
  "zulipandroid",
  "zulipios",
  "zulipdesktop",
  "zulipmobile",
  "zulipelectron",
  "zulipterminal",
  "snipe",
  "website",
  "ios",
  "android",
]);

export function defaultReadBySender(clientName: string): boolean {
  const name = clientName.toLowerCase();
  return HUMAN_CLIENTS.has(name) || name.includes("desktop app");
}

/** Trailing whitespace and leading blank lines go; an overlong message is cut with a notice. */
export function normalizeContent(raw: string): string {
  const body = raw.replace(/\s+$/u, "").replace(/^\n+/, "");
  if (body.length === 0) throw badRequest("Message must not be empty");
  if (body.includes("\u0000")) throw badRequest("Message must not contain null bytes");
  const notice = "\n[message truncated]";
  const chars = [...body];
  return chars.length > LIMITS.maxMessageLength
    ? chars.slice(0, LIMITS.maxMessageLength - notice.length).join("") + notice
    : body;
}

const usersWithIds = preparedRead((db, ids: readonly number[]) => db.selectFrom("users").selectAll().where("id", "in", idList(db, ids)));
const streamNamesWithIds = preparedRead((db, ids: readonly number[]) => db.selectFrom("streams").select(["id", "name"]).where("id", "in", idList(db, ids)));

/**
 * The rows with these ids: from the organization's cached rows, unless this transaction has
 * written their table; any not among them (another organization's account) read by id.
 */
async function rowsWithIds<T extends { id: number }>(
  db: Executor,
  table: string,
  ids: ReadonlySet<number>,
  cached: () => Promise<readonly T[]>,
  read: (db: Executor, ids: readonly number[]) => Promise<T[]>,
): Promise<Map<number, T>> {
  const found = new Map<number, T>();
  if (!ids.size) return found;
  const index = readsCommittedState(db, [table]) ? indexById(await cached()) : new Map<number, T>();
  const missing: number[] = [];
  for (const id of ids) {
    const row = index.get(id);
    if (row) found.set(id, row);
    else missing.push(id);
  }
  if (missing.length) for (const row of await read(db, missing)) found.set(row.id, row);
  return found;
}

/** The cached tables messageContext reads from, besides the message itself. */
const MESSAGE_CONTEXT_TABLES = ["users", "streams", "realms", "realm_linkifiers"];

/**
 * The versions of those tables: a message shown under the same versions (and at the same
 * version of the message) is shown the same.
 */
export function messageContextVersions(app: AppContext): string {
  return MESSAGE_CONTEXT_TABLES.map((t) => app.versions.of(t)).join(",");
}

/** Users, channel names, linkifiers, reactions and submessages (read unless given) needed to show these messages. */
export async function messageContext(
  app: AppContext,
  db: Executor,
  realm: Realm,
  messages: readonly MessageRow[],
  reactions?: Map<number, MessageReaction[]>,
  submessages?: Map<number, Submessage[]>,
): Promise<MessageContext> {
  const userIds = new Set<number>();
  const streamIds = new Set<number>();
  for (const m of messages) {
    userIds.add(m.sender_id);
    if (m.dm_key) dmKeyUserIds(m.dm_key).forEach((id) => userIds.add(id));
    if (m.stream_id !== null) streamIds.add(m.stream_id);
  }
  const users = await rowsWithIds(db, "users", userIds, () => realmUserRows(app, realm.id, db), usersWithIds);
  const streams = await rowsWithIds(db, "streams", streamIds, () => realmStreamRows(app, realm.id, db), streamNamesWithIds);
  return {
    realmStringId: realm.string_id,
    users,
    streamNames: new Map([...streams.values()].map((s) => [s.id, s.name])),
    linkifiers: streamIds.size ? await realmLinkifiers(app, realm.id, db) : [],
    reactions: reactions ?? (await reactionsByMessage(db, messages.map((m) => m.id))),
    submessages: submessages ?? (await submessagesByMessage(db, messages.map((m) => m.id))),
  };
}

export interface SendOptions {
  clientName: string;
  readBySender: boolean;
  /** Further users whose copy starts out read (the acting user, for notices they caused). */
  markReadFor?: readonly number[];
  /** The sending client's event queue and its id for the message, echoed back for local echo. */
  senderQueueId?: string;
  localId?: string;
}

/** The flags a rendering of the content sets: mentions, wildcard mentions and alert words. */
export const CONTENT_FLAG_MASK =
  FLAG_BITS.mentioned | FLAG_BITS.has_alert_word | FLAG_BITS.stream_wildcard_mentioned | FLAG_BITS.topic_wildcard_mentioned;

/**
 * Each user's content flags for this rendering. A topic wildcard mention notifies the topic's
 * participants in a channel, and everyone in a direct message.
 */
export async function contentFlagBits(
  tx: Tx,
  app: AppContext,
  realm: Realm,
  rendered: Rendered,
  content: string,
  channelTopic: { stream: StreamRow; topic: string } | null,
): Promise<((userId: number) => number) & { mentioned: ReadonlySet<number> }> {
  const mentioned = new Set(rendered.mentionedUserIds);
  for (const groupId of rendered.mentionedGroupIds) {
    for (const id of await recursiveMemberIds(tx, realm.id, groupId)) mentioned.add(id);
  }
  const topicParticipants =
    rendered.topicWildcardMentioned && channelTopic
      ? await topicParticipantIds(tx, channelTopic.stream.id, channelTopic.topic)
      : new Set<number>();
  const alerted = (await realmAlertWordMatcher(app, tx, realm.id))(content);
  const flagsOf = (userId: number) => {
    let flags = 0;
    if (mentioned.has(userId)) flags |= FLAG_BITS.mentioned;
    if (alerted.has(userId)) flags |= FLAG_BITS.has_alert_word;
    if (rendered.wildcardMentioned) flags |= FLAG_BITS.stream_wildcard_mentioned;
    if (topicParticipants.has(userId) || (rendered.topicWildcardMentioned && !channelTopic)) flags |= FLAG_BITS.topic_wildcard_mentioned;
    return flags;
  };
  // Outgoing-webhook bots are triggered by mentions whether or not they receive the message.
  return Object.assign(flagsOf, { mentioned });
}

/**
 * Stores a message already checked by the caller, with a copy for every recipient, and queues
 * the `message` event for after commit. Returns the new message id.
 */
export async function sendMessageInTx(
  tx: Tx,
  app: AppContext,
  events: PendingEvents,
  realm: Realm,
  sender: UserRow,
  target: MessageTarget,
  content: string,
  opts: SendOptions,
): Promise<number> {
  const uploads = await uploadImagePreviews(tx, app.dialect, realm.id, content, { lock: true });
  const rendered = renderMarkdown(content, await renderContextFor(app, realm, sender, tx), uploads);
  let recipientId: number;
  let recipientUserIds: readonly number[];
  let dmKey: string | null = null;
  if (target.kind === "stream") {
    recipientId = target.stream.recipient_id!;
    const streamId = target.stream.id;
    recipientUserIds = (await channelSubscriberLists(app, tx, [streamId])).get(streamId)!;
  } else {
    const participants = [...new Set([sender.id, ...target.recipients.map((u) => u.id)])];
    dmKey = dmKeyFor(participants);
    if (participants.length === 1) recipientId = await personalRecipientId(tx, sender.id);
    else if (participants.length === 2) {
      recipientId = await personalRecipientId(tx, participants.find((id) => id !== sender.id)!);
    } else recipientId = await directMessageGroupRecipientId(tx, realm.id, dmKey);
    recipientUserIds = participants.sort((a, b) => a - b);
  }

  const message = await tx
    .insertInto("messages")
    .values({
      realm_id: realm.id,
      sender_id: sender.id,
      recipient_id: recipientId,
      stream_id: target.kind === "stream" ? target.stream.id : null,
      topic: target.kind === "stream" ? target.topic : "",
      dm_key: dmKey,
      content,
      rendered_content: rendered.html,
      client: opts.clientName,
      date_sent: Math.floor(app.clock.now()),
      last_edit_time: null,
      last_moved_time: null,
    })
    .returningAll()
    .executeTakeFirstOrThrow();

  const contentFlags = await contentFlagBits(tx, app, realm, rendered, content, target.kind === "stream" ? target : null);
  const readers = new Set([...(opts.markReadFor ?? []), ...(await usersMuting(app, tx, sender.id))]);
  if (opts.readBySender) readers.add(sender.id);
  const flagsByUser = new Map<number, number>();
  for (const userId of recipientUserIds) {
    let flags = contentFlags(userId);
    if (target.kind === "direct") flags |= FLAG_BITS.is_private;
    if (readers.has(userId)) flags |= FLAG_BITS.read;
    flagsByUser.set(userId, flags);
  }
  await insertMessageCopies(tx, message.id, flagsByUser);
  if (target.kind === "stream" && target.stream.first_message_id === null) {
    await tx.updateTable("streams").set({ first_message_id: message.id }).where("id", "=", target.stream.id).execute();
  }

  await claimMessageUploads(tx, events, realm, sender, message.id, target.kind === "stream" ? target.stream : null, rendered.html);

  const widget = await createWidget(tx, message);
  // A message just sent has no reactions yet, and no submessages but its widget.
  const ctx = await messageContext(app, tx, realm, [message], new Map(), new Map([[message.id, widget]]));
  const notice: Notice = {
    realmId: realm.id,
    event: {
      type: "message",
      message: {
        ...formatMessage(message, ctx, EVENT_FORMAT),
        content: message.content,
        rendered_content: message.rendered_content,
        sender_email_address_visibility: userProps(sender).email_address_visibility,
        sender_avatar_source: sender.avatar_source,
      },
      ...(target.kind === "stream" && target.stream.invite_only === 0
        ? { invite_only: false, web_public: target.stream.is_web_public === 1 }
        : {}),
      ...(opts.senderQueueId !== undefined ? { sender_queue_id: opts.senderQueueId, local_id: opts.localId ?? null } : {}),
    },
    userIds: [...flagsByUser.keys()],
    perUser: new Map([...flagsByUser].map(([id, flags]) => [id, { flags: flagsForApi(flags) }])),
  };
  events.send(notice);
  await queueMessagePushNotifications(app, tx, events, notice);
  await queueMessageEmails(app, tx, events, realm, message, flagsByUser);
  await queueOutgoingWebhooks(app, tx, events, realm, sender, target, contentFlags.mentioned, () => ({
    ...formatMessage(message, ctx, OUTGOING_WEBHOOK_FORMAT),
    rendered_content: message.rendered_content,
  }));
  await queueLinkPreviews(app, tx, events, realm, sender, message.id, content, rendered);
  return message.id;
}

/** Message events carry rendered content and full avatar URLs; queues adapt them per client. */
const EVENT_FORMAT: MessageFormatOptions = { applyMarkdown: true, clientGravatar: false, allowEmptyTopicName: true };
/** Bot servers get the Markdown source, with the rendering beside it. */
const OUTGOING_WEBHOOK_FORMAT: MessageFormatOptions = { applyMarkdown: false, clientGravatar: false, allowEmptyTopicName: true };

export interface SendMessageRequest {
  type: "direct" | "private" | "stream" | "channel";
  to: string | undefined;
  topic: string | undefined;
  content: string;
  readBySender: boolean | undefined;
  queueId?: string;
  localId?: string;
}

export type StreamIndicator = string | number;

/** What JSON can start with (after white space); anything else is a plain name, and not thrown over. */
const JSON_START = /^\s*[[{"\-\dtfn]/;

function parseJsonOrRaw(s: string): unknown {
  // A thrown SyntaxError costs more than the rest of checking a message's addressee.
  if (!JSON_START.test(s)) return s;
  try {
    return JSON.parse(s);
  } catch {
    return s;
  }
}

/** A channel given by name, id, JSON-encoded name, or a one-element JSON list of either. */
function streamIndicator(to: string): StreamIndicator {
  let data = parseJsonOrRaw(to);
  if (Array.isArray(data)) {
    if (data.length !== 1) throw badRequest("Expected exactly one channel");
    data = data[0];
  }
  if (typeof data === "string") return data;
  if (typeof data === "number" && Number.isInteger(data)) return data;
  throw badRequest("Invalid data type for channel");
}

/** Recipients as a JSON list of ids or emails, or comma-separated emails. */
function directRecipients(to: string): string[] | number[] {
  let data = parseJsonOrRaw(to);
  if (typeof data === "string") data = data.split(",");
  if (!Array.isArray(data)) throw badRequest("Invalid data type for recipients");
  if (!data.length) return [];
  if (typeof data[0] === "string") {
    if (!data.every((d) => typeof d === "string")) throw badRequest("Recipient lists may contain emails or user IDs, but not both.");
    return [...new Set((data as string[]).map((e) => e.trim()))];
  }
  if (typeof data[0] !== "number" || !Number.isInteger(data[0])) throw badRequest("Invalid data type for recipients");
  if (!data.every((d) => typeof d === "number" && Number.isInteger(d))) {
    throw badRequest("Recipient lists may contain emails or user IDs, but not both.");
  }
  return [...new Set(data as number[])];
}

async function resolveDirectRecipients(db: Executor, realmId: number, given: readonly (string | number)[]): Promise<UserRow[]> {
  const users: UserRow[] = [];
  for (const g of given) {
    const user = typeof g === "number" ? await getUserById(db, realmId, g) : await getUserByAnyEmail(db, realmId, g);
    if (!user) throw badRequest(typeof g === "number" ? `Invalid user ID ${g}` : `Invalid email '${g}'`);
    users.push(user);
  }
  return users;
}

async function checkDirectMessagePermission(db: Executor, realm: Realm, sender: UserRow, recipients: UserRow[]): Promise<void> {
  if (sender.is_bot === 1) return;
  if (recipients.every((u) => u.is_bot === 1 || u.id === sender.id)) return;
  const system = await systemGroupIds(db, realm.id);
  const permissionGroup = realm.groupSettings.direct_message_permission_group;
  const everyone = [sender, ...recipients];
  const allowed = await Promise.all(everyone.map((u) => isUserInGroup(db, realm.id, u.id, permissionGroup)));
  if (!allowed.some(Boolean)) {
    throw badRequest(
      permissionGroup === system.get("role:nobody")
        ? "Direct messages are disabled in this organization."
        : "This conversation does not include any users who can authorize it.",
    );
  }
  if (await isUserInGroup(db, realm.id, sender.id, realm.groupSettings.direct_message_initiator_group)) return;
  const key = dmKeyFor([sender.id, ...recipients.map((u) => u.id)]);
  const earlier = await db.selectFrom("messages").select("id").where("realm_id", "=", realm.id).where("dm_key", "=", key).executeTakeFirst();
  if (!earlier) throw badRequest("You do not have permission to initiate direct message conversations.");
}

/** Refuses a sender who may not post in this channel, with Zulip's errors. */
export async function checkMayPost(app: AppContext, db: Executor, sender: UserRow, stream: StreamRow): Promise<void> {
  const subscribed = (await subscribedChannelIds(app, db, sender.id)).has(stream.id);
  const refusal = postRefusal(await senderFacts(app, db, sender, stream.id), channelFacts(stream), subscribed);
  if (refusal === "no_post_permission") throw badRequest("You do not have permission to post in this channel.");
  if (refusal === "not_authorized") throw badRequest(`Not authorized to send to channel '${stream.name}'`);
}

async function checkedStreamTarget(
  app: AppContext,
  db: Executor,
  realm: Realm,
  sender: UserRow,
  indicator: StreamIndicator,
  topic: string,
): Promise<MessageTarget> {
  let stream: StreamRow | undefined;
  if (typeof indicator === "number") {
    stream = await findChannel(app, db, realm.id, indicator);
    if (!stream) throw streamDoesNotExistById(indicator);
  } else {
    const name = indicator.trim();
    checkChannelName(name);
    stream = await findChannel(app, db, realm.id, name);
    if (!stream) throw streamDoesNotExistByName(name);
  }
  await checkMayPost(app, db, sender, stream);
  checkTopicAllowed(effectiveTopicsPolicy(realm.props.topics_policy, stream.topics_policy), topic);
  return { kind: "stream", stream, topic };
}

/** Whom a message is for, as the sender named it: a channel and topic, or direct recipients. */
export type Addressee =
  | { kind: "stream"; channel: StreamIndicator | undefined; topic: string | undefined }
  | { kind: "direct"; recipients: readonly (string | number)[] };

/**
 * Checks a message about to be sent, now or at a scheduled time, in Zulip's order: the
 * addressee's shape, the content, then the target itself and the sender's right to reach it.
 * Returns where it goes and the content as it is stored.
 */
export async function checkMessage(
  app: AppContext,
  db: Executor,
  realm: Realm,
  sender: UserRow,
  addressee: Addressee,
  rawContent: string,
): Promise<{ target: MessageTarget; content: string }> {
  if (addressee.kind === "stream") {
    if (addressee.channel === undefined) throw badRequest("Missing channel");
    if (addressee.topic === undefined) throw badRequest("Missing topic");
    const topic = normalizeTopic(addressee.topic);
    const content = normalizeContent(rawContent);
    return { target: await checkedStreamTarget(app, db, realm, sender, addressee.channel, topic), content };
  }
  if (!addressee.recipients.length) throw badRequest("Message must have recipients");
  const recipients = await resolveDirectRecipients(db, realm.id, addressee.recipients);
  const content = normalizeContent(rawContent);
  const gone = recipients.find((u) => u.is_active !== 1);
  if (gone) throw badRequest(`'${gone.email}' is no longer using Zulip.`);
  await checkDirectMessagePermission(db, realm, sender, recipients);
  return { target: { kind: "direct", recipients }, content };
}

/** POST /messages. */
export async function sendMessageFromRequest(app: AppContext, caller: { user: UserRow; realm: Realm; clientName: string }, req: SendMessageRequest) {
  const { user: sender, realm } = caller;
  return runAction(app, async (tx, events) => {
    const addressee: Addressee =
      req.type === "stream" || req.type === "channel"
        ? { kind: "stream", channel: req.to === undefined ? undefined : streamIndicator(req.to), topic: req.topic }
        : { kind: "direct", recipients: req.to === undefined ? [] : directRecipients(req.to) };
    const { target, content } = await checkMessage(app, tx, realm, sender, addressee, req.content);
    const id = await sendMessageInTx(tx, app, events, realm, sender, target, content, {
      clientName: caller.clientName,
      readBySender: req.readBySender ?? defaultReadBySender(caller.clientName),
      senderQueueId: req.queueId,
      localId: req.localId,
    });
    return { id };
  });
}

/** Whether the user may read this message, and their flags for it. */
export async function accessMessage(app: AppContext, db: Executor, user: UserRow, messageId: number): Promise<{ message: MessageRow; flags: string[] }> {
  const message = await getMessage(db, user.realm_id, messageId);
  if (!message) throw badRequest("Invalid message(s)");
  const flags = (await userMessageFlags(db, user.id, [message.id])).get(message.id);
  if (flags !== undefined) return { message, flags: flagsForApi(flags) };
  if (message.stream_id !== null) {
    const stream = (await findChannel(app, db, user.realm_id, message.stream_id))!;
    const subscribed = (await subscribedChannelIds(app, db, user.id)).has(stream.id);
    if (canAccessHistory(await userFacts(app, db, user), channelFacts(stream), subscribed)) {
      return { message, flags: flagsForApi(HISTORICAL_FLAGS) };
    }
  }
  throw badRequest("Invalid message(s)");
}

export async function getSingleMessage(app: AppContext, user: UserRow, realm: Realm, messageId: number, opts: MessageFormatOptions) {
  const { message, flags } = await accessMessage(app, app.db, user, messageId);
  const ctx = await messageContext(app, app.db, realm, [message]);
  return { raw_content: message.content, message: { ...formatMessage(message, ctx, opts), flags } };
}

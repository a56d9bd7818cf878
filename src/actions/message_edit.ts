/**
 * Editing, moving and deleting messages (PATCH and DELETE /messages/{id}), checked in Zulip's
 * order with the organization's and the channels' permissions, in one transaction each.
 */
import { createHash } from "node:crypto";
import { sql } from "kysely";
import type { AppContext } from "../context.js";
import { runAction, type PendingEvents, type Tx } from "./run.js";
import type { Realm } from "../store/realms.js";
import type { UserRow } from "../store/users.js";
import { getRealm } from "../store/realms.js";
import { getNotificationBot, getUserById } from "../store/users.js";
import { updateMessageUploads, type ApiAttachment } from "./uploads.js";
import { refreshAttachmentPublicity } from "../store/attachments.js";
import { getStream, getSubscription, subscribersByStream, type StreamRow } from "../store/streams.js";
import { messagesAudience, type MessageRow } from "../store/messages.js";
import { badRequest } from "../http/errors.js";
import { expectationMismatch } from "../domain/group_setting_value.js";
import { Role, isGuest, isModeratorOrAbove } from "../domain/roles.js";
import { FLAG_BITS, flagsForApi } from "../domain/message_flags.js";
import { checkTopicAllowed, effectiveTopicsPolicy } from "../domain/topics.js";
import { hashEncode } from "../markdown/patterns.js";
import { renderMarkdown } from "../markdown/render.js";
import { uploadImagePreviews } from "../media/thumbnails.js";
import { renderContextFor } from "../markdown/context.js";
import {
  canAccessHistory,
  canEditTopic,
  canMoveMessagesOutOfChannel,
  canResolveTopics,
  deleteMessageRefusal,
  postRefusal,
  type UserFacts,
} from "../domain/channel_access.js";
import {
  checkEditPayload,
  describeTopicChange,
  moveDeadlineSeconds,
  moveTimeLimitExceeded,
  pastDeadline,
  requestedTopic,
  topicLinkSyntax,
  type PropagateMode,
  type TopicChange,
} from "../domain/message_edit.js";
import { CONTENT_FLAG_MASK, accessMessage, contentFlagBits, normalizeContent, sendMessageInTx } from "./messages.js";
import { accessStreamById } from "./streams.js";
import { channelEventUserIds, channelFacts, senderFacts, userFacts } from "./channel_context.js";
import { sendStreamUpdate, silentMention } from "./channel_events.js";
import { carryUserTopics } from "./user_topics.js";
import { queueLinkPreviews } from "../media/link_previews.js";

export interface MessageEditRequest {
  streamId: number | undefined;
  topic: string | undefined;
  propagateMode: PropagateMode;
  sendNotificationToOldThread: boolean;
  sendNotificationToNewThread: boolean;
  content: string | undefined;
  prevContentSha256: string | undefined;
}

const sha256 = (s: string) => createHash("sha256").update(s).digest("hex");
const sortedIds = (ids: Iterable<number>) => [...new Set(ids)].sort((a, b) => a - b);

/**
 * The messages of a channel topic (topics compare case-insensitively) the user may see, by id;
 * with `newest`, only that many of the most recent ones.
 */
export async function visibleTopicMessageIds(
  tx: Tx,
  user: UserRow,
  stream: StreamRow,
  topic: string,
  seesHistory: boolean,
  newest?: number,
): Promise<number[]> {
  let q = tx
    .selectFrom("messages")
    .select("messages.id")
    .where("messages.stream_id", "=", stream.id)
    .where(sql<string>`lower(messages.topic)`, "=", topic.toLowerCase());
  if (!seesHistory) {
    q = q.innerJoin("user_messages", "user_messages.message_id", "messages.id").where("user_messages.user_id", "=", user.id);
  }
  if (newest === undefined) return (await q.orderBy("messages.id").execute()).map((r) => r.id);
  return (await q.orderBy("messages.id", "desc").limit(newest).execute()).map((r) => r.id).reverse();
}

export async function seesHistoryOf(tx: Tx, user: UserRow, facts: UserFacts, stream: StreamRow): Promise<boolean> {
  const subscribed = (await getSubscription(tx, user.id, stream.id))?.active === 1;
  return canAccessHistory(facts, channelFacts(stream), subscribed);
}

/** Zulip keeps a channel's oldest message id; deleting and moving messages can change it. */
async function refreshFirstMessageId(tx: Tx, events: PendingEvents, realm: Realm, streamId: number) {
  const stream = (await getStream(tx, realm.id, streamId))!;
  const oldest = await tx
    .selectFrom("messages")
    .select((eb) => eb.fn.min<number>("id").as("id"))
    .where("stream_id", "=", streamId)
    .executeTakeFirst();
  const first = oldest?.id === null || oldest?.id === undefined ? null : Number(oldest.id);
  if (first === stream.first_message_id) return;
  await tx.updateTable("streams").set({ first_message_id: first }).where("id", "=", streamId).execute();
  sendStreamUpdate(events, realm, stream, "first_message_id", first, await channelEventUserIds(tx, realm, stream));
}

/** Zulip's message link: the message in its channel and topic, from the organization's address. */
function messageLink(app: AppContext, stream: StreamRow, topic: string, messageId: number): string {
  const base = app.config.externalUrl.replace(/\/+$/, "");
  const channel = `${stream.id}-${hashEncode(stream.name.replace(/ /g, "-"))}`;
  return `${base}/#narrow/channel/${channel}/topic/${hashEncode(topic)}/near/${messageId}`;
}

interface ChannelMove {
  origin: StreamRow;
  target: StreamRow;
  topic: TopicChange | null;
}

/**
 * Refuses changing this message's content: only its sender may, while the organization allows
 * it. Saving an edit gets a grace period (the default buffer); announcing one does not.
 */
export function checkMayEditContent(realm: Realm, user: UserRow, message: MessageRow, ageSeconds: number, bufferSeconds?: number): void {
  if (!realm.props.allow_message_editing) throw badRequest("Your organization has turned off message editing");
  if (message.sender_id !== user.id) throw badRequest("You don't have permission to edit this message");
  if (pastDeadline(ageSeconds, realm.props.message_content_edit_limit_seconds, bufferSeconds)) {
    throw badRequest("The time limit for editing this message has passed");
  }
}

/** PATCH /messages/{message_id}. Returns Zulip's response data. */
export async function editMessage(app: AppContext, user: UserRow, messageId: number, req: MessageEditRequest) {
  return runAction(app, async (tx, events) => {
    const realm = (await getRealm(tx, user.realm_id))!;
    const { message } = await accessMessage(app, tx, user, messageId);
    const origin = message.stream_id === null ? null : (await getStream(tx, realm.id, message.stream_id))!;
    // Messages in archived channels can be read but not changed.
    if (origin?.is_archived === 1) throw badRequest("Invalid message(s)");
    const age = app.clock.now() - Number(message.date_sent);
    const props = realm.props;

    if (req.content !== undefined) checkMayEditContent(realm, user, message, age);
    const topic = requestedTopic(req.topic, message.topic);
    checkEditPayload({ isChannelMessage: origin !== null, streamId: req.streamId, topic, propagateMode: req.propagateMode, content: req.content });
    if (req.prevContentSha256 !== undefined && req.prevContentSha256 !== sha256(message.content)) {
      throw expectationMismatch("prev_content_sha256");
    }
    const content = req.content === undefined ? undefined : normalizeContent(req.content.trimEnd() === "" ? "(deleted)" : req.content);

    let move: ChannelMove | null = null;
    const facts = await userFacts(app, tx, user);
    if (origin) {
      const target = req.streamId === undefined ? origin : (await accessStreamById(app, tx, user, req.streamId)).stream;
      const topicChange = topic === null ? null : describeTopicChange(message.topic, topic);
      const targetTopic = topicChange?.target ?? message.topic;
      const policy = effectiveTopicsPolicy(props.topics_policy, target.topics_policy);
      if (targetTopic === "" && (topicChange || target.id !== origin.id) && policy === "disable_empty_topic") {
        checkTopicAllowed(policy, targetTopic);
      }
      if (policy === "empty_topic_only") checkTopicAllowed(policy, targetTopic);
      move = { origin, target, topic: topicChange };
      await checkMovePermissions(app, tx, realm, user, facts, message, move, req.propagateMode, app.clock.now());
    }

    const timestamp = Math.floor(app.clock.now());
    const change = await applyEdit(tx, app, events, realm, user, message, { content, move, propagateMode: req.propagateMode, timestamp });
    if (move && (move.topic || move.target.id !== move.origin.id)) {
      if (change.movedAllVisible) {
        await carryUserTopics(tx, events, realm, {
          origin: move.origin,
          originTopic: message.topic,
          target: move.target,
          targetTopic: move.topic?.target ?? message.topic,
          movedIds: change.changedIds,
          losingAccess: change.losingAccess,
          now: timestamp,
        });
      }
      await sendMoveNotices(tx, app, events, realm, user, message, move, change, req);
    }
    return { detached_uploads: change.detachedUploads };
  });
}

async function checkMovePermissions(
  app: AppContext,
  tx: Tx,
  realm: Realm,
  user: UserRow,
  facts: UserFacts,
  message: MessageRow,
  move: ChannelMove,
  propagateMode: PropagateMode,
  now: number,
) {
  const { origin, target, topic } = move;
  const age = now - Number(message.date_sent);
  const groups = realm.groupSettings;
  const limits = { withinChannel: realm.props.move_messages_within_stream_limit_seconds, betweenChannels: realm.props.move_messages_between_streams_limit_seconds };
  const limitsApply = !isModeratorOrAbove(user.role);
  const resolving = !!topic && (topic.resolved || topic.unresolved);
  if (topic) {
    if (resolving) {
      if (!canResolveTopics(facts, groups, channelFacts(origin), channelFacts(target))) {
        throw badRequest("You don't have permission to resolve topics in this channel.");
      }
    } else {
      if (!canEditTopic(facts, groups, channelFacts(origin), channelFacts(target))) {
        throw badRequest("You don't have permission to edit this message");
      }
      if (limitsApply && pastDeadline(age, limits.withinChannel)) {
        throw badRequest("The time limit for editing this message's topic has passed.");
      }
    }
  }
  const channelChanged = target.id !== origin.id;
  if (channelChanged) {
    if (!canMoveMessagesOutOfChannel(facts, groups, channelFacts(origin))) throw badRequest("You don't have permission to move this message");
    if (postRefusal(await senderFacts(app, tx, user, target.id), channelFacts(target), true) === "no_post_permission") {
      throw badRequest("You do not have permission to post in this channel.");
    }
    if (limitsApply && pastDeadline(age, limits.betweenChannels)) {
      throw badRequest("The time limit for editing this message's channel has passed");
    }
  }
  if (propagateMode === "change_all" && limitsApply && (topic || channelChanged) && !resolving) {
    const deadline = moveDeadlineSeconds(!!topic, channelChanged, limits);
    if (deadline === null) return;
    const seesHistory = await seesHistoryOf(tx, user, facts, origin);
    const ids = await visibleTopicMessageIds(tx, user, origin, message.topic, seesHistory);
    const rows = ids.length ? await tx.selectFrom("messages").select(["id", "date_sent"]).where("id", "in", ids).orderBy("id").execute() : [];
    const oldestAllowed = now - deadline;
    const allowed = rows.filter((r) => Number(r.date_sent) > oldestAllowed).map((r) => r.id);
    if (allowed.length !== rows.length) throw moveTimeLimitExceeded(allowed, rows.length);
  }
}

interface AppliedEdit {
  changedIds: number[];
  /** Whether the acting user can see nothing left behind in the old topic. */
  movedAllVisible: boolean;
  /** Users who can no longer see the moved messages. */
  losingAccess: number[];
  /** The sender's uploads the new content no longer links and no other message does. */
  detachedUploads: ApiAttachment[];
}

async function applyEdit(
  tx: Tx,
  app: AppContext,
  events: PendingEvents,
  realm: Realm,
  user: UserRow,
  message: MessageRow,
  edit: { content: string | undefined; move: ChannelMove | null; propagateMode: PropagateMode; timestamp: number },
): Promise<AppliedEdit> {
  const { content, move, timestamp } = edit;
  const event: Record<string, unknown> = {
    type: "update_message",
    user_id: user.id,
    edit_timestamp: timestamp,
    message_id: message.id,
    rendering_only: false,
  };
  const history: Record<string, unknown> = { user_id: user.id, timestamp };
  const updates: Partial<MessageRow> = {};
  let detachedUploads: ApiAttachment[] = [];

  if (content !== undefined) {
    const sender = (await getUserById(tx, realm.id, message.sender_id))!;
    const uploads = await uploadImagePreviews(tx, app.dialect, realm.id, content, { lock: true });
    const rendered = renderMarkdown(content, await renderContextFor(app, realm, sender, tx), uploads);
    Object.assign(history, { prev_content: message.content, prev_rendered_content: message.rendered_content });
    Object.assign(event, {
      orig_content: message.content,
      orig_rendered_content: message.rendered_content,
      content,
      rendered_content: rendered.html,
      is_me_message: /^\/me\s/.test(content),
    });
    Object.assign(updates, { content, rendered_content: rendered.html, last_edit_time: timestamp });
    await queueLinkPreviews(app, tx, events, realm, sender, message.id, content, rendered);
    const channel = move?.target ?? (message.stream_id === null ? null : ((await getStream(tx, realm.id, message.stream_id)) ?? null));
    detachedUploads = await updateMessageUploads(tx, events, realm, sender, message.id, channel, rendered.html);
    const topicTarget = move ? { stream: move.origin, topic: move.topic?.target ?? message.topic } : null;
    const flagsFor = await contentFlagBits(tx, app, realm, rendered, content, topicTarget);
    const rows = await tx.selectFrom("user_messages").select(["user_id", "flags"]).where("message_id", "=", message.id).execute();
    for (const row of rows) {
      const flags = (row.flags & ~CONTENT_FLAG_MASK) | flagsFor(row.user_id);
      if (flags !== row.flags) {
        await tx.updateTable("user_messages").set({ flags }).where("message_id", "=", message.id).where("user_id", "=", row.user_id).execute();
      }
    }
  }

  if (!move) {
    await saveWithHistory(tx, message, updates, history);
    event.message_ids = [message.id];
    await sendUpdateEvent(tx, realm, events, event, message.id, []);
    return { changedIds: [message.id], movedAllVisible: false, losingAccess: [], detachedUploads };
  }

  const { origin, target, topic } = move;
  const channelChanged = target.id !== origin.id;
  event.stream_name = origin.name;
  event.stream_id = origin.id;
  const moved = channelChanged || !!topic;
  if (moved) event.propagate_mode = edit.propagateMode;
  if (channelChanged) {
    Object.assign(history, { prev_stream: origin.id, stream: target.id });
    Object.assign(event, { orig_subject: message.topic, new_stream_id: target.id });
    Object.assign(updates, { stream_id: target.id, recipient_id: target.recipient_id! });
  }
  if (topic) {
    Object.assign(history, { prev_topic: message.topic, topic: topic.target });
    Object.assign(event, { orig_subject: message.topic, subject: topic.target, topic_links: [] });
    updates.topic = topic.target;
  }
  // Resolving a topic is not a move as far as the "moved" indicator goes.
  if (channelChanged || (topic && !topic.resolved && !topic.unresolved)) updates.last_moved_time = timestamp;

  const facts = await userFacts(app, tx, user);
  const seesHistory = await seesHistoryOf(tx, user, facts, origin);
  let changedIds = [message.id];
  if (moved && edit.propagateMode !== "change_one") {
    const inTopic = await visibleTopicMessageIds(tx, user, origin, message.topic, seesHistory);
    changedIds = sortedIds([message.id, ...inTopic.filter((id) => edit.propagateMode === "change_all" || id >= message.id)]);
  }
  await saveWithHistory(tx, message, updates, history);
  const others = changedIds.filter((id) => id !== message.id);
  if (others.length) {
    // The other messages' history records only where they went.
    const moveOnly = Object.fromEntries(Object.entries(history).filter(([k]) => !k.includes("content")));
    const moveUpdates = Object.fromEntries(Object.entries(updates).filter(([k]) => !["content", "rendered_content", "last_edit_time"].includes(k)));
    for (const row of await tx.selectFrom("messages").selectAll().where("id", "in", others).execute()) {
      await saveWithHistory(tx, row, moveUpdates, moveOnly);
    }
  }
  // Zulip re-derives which files are public from where their messages now are.
  if (channelChanged) await refreshAttachmentPublicity(tx, changedIds);

  let losingAccess: number[] = [];
  let losingRows = new Set<number>();
  if (channelChanged) {
    ({ losingAccess, losingRows } = await moveUserMessages(tx, origin, target, changedIds));
    if (losingAccess.length) {
      events.send({
        realmId: realm.id,
        event: { type: "delete_message", message_ids: changedIds, message_type: "stream", stream_id: origin.id, topic: message.topic },
        userIds: losingAccess,
      });
    }
  }
  event.message_ids = changedIds;
  const subscribersToTell = origin.history_public_to_subscribers === 1 ? await moveAudience(tx, origin, target, channelChanged, losingAccess) : [];
  await sendUpdateEvent(tx, realm, events, event, message.id, subscribersToTell, losingRows);
  if (channelChanged) {
    await refreshFirstMessageId(tx, events, realm, origin.id);
    await refreshFirstMessageId(tx, events, realm, target.id);
  }

  const remaining = moved ? await visibleTopicMessageIds(tx, user, origin, message.topic, seesHistory) : [];
  return {
    changedIds,
    movedAllVisible: edit.propagateMode === "change_all" || remaining.length === 0,
    losingAccess,
    detachedUploads,
  };
}

async function saveWithHistory(tx: Tx, message: MessageRow, updates: Partial<MessageRow>, entry: Record<string, unknown>) {
  const history = [entry, ...(message.edit_history ? (JSON.parse(message.edit_history) as unknown[]) : [])];
  await tx
    .updateTable("messages")
    .set({ ...updates, edit_history: JSON.stringify(history) })
    .where("id", "=", message.id)
    .execute();
}

/**
 * Moving to another channel: everyone who ever subscribed to the old channel but is not on the
 * new one loses their copies; guests (for a public channel) or all of them (for a private one)
 * lose access. A channel with protected history gives its subscribers copies, marked read.
 */
async function moveUserMessages(tx: Tx, origin: StreamRow, target: StreamRow, messageIds: number[]) {
  const everSubscribed = await tx
    .selectFrom("subscriptions")
    .innerJoin("users", "users.id", "subscriptions.user_id")
    .select(["users.id", "users.role"])
    .where("subscriptions.stream_id", "=", origin.id)
    .execute();
  const targetSubscribers = (
    await tx.selectFrom("subscriptions").select("user_id").where("stream_id", "=", target.id).where("active", "=", 1).execute()
  ).map((r) => r.user_id);
  const onTarget = new Set(targetSubscribers);
  const losing = everSubscribed.filter((u) => !onTarget.has(u.id));
  const losingRows = new Set(losing.map((u) => u.id));
  const losingAccess = sortedIds((target.invite_only === 1 ? losing : losing.filter((u) => isGuest(u.role))).map((u) => u.id));
  if (losingRows.size) {
    await tx.deleteFrom("user_messages").where("user_id", "in", [...losingRows]).where("message_id", "in", messageIds).execute();
  }
  if (target.history_public_to_subscribers === 0 && targetSubscribers.length) {
    await tx
      .insertInto("user_messages")
      .values(targetSubscribers.flatMap((user_id) => messageIds.map((message_id) => ({ user_id, message_id, flags: FLAG_BITS.read }))))
      .onConflict((oc) => oc.columns(["user_id", "message_id"]).doNothing())
      .execute();
  }
  return { losingAccess, losingRows };
}

/**
 * Subscribers who can read the channel's history hear of the move even without a copy of the
 * message; guests newly able to see the messages are left out, as Zulip does.
 */
async function moveAudience(tx: Tx, origin: StreamRow, target: StreamRow, channelChanged: boolean, losingAccess: number[]): Promise<number[]> {
  const subscribers = await subscribersByStream(tx, [origin.id, target.id]);
  const onTarget = subscribers.get(target.id)!;
  if (!channelChanged) return onTarget;
  const onOrigin = new Set(subscribers.get(origin.id));
  const guestRows = onTarget.length
    ? await tx.selectFrom("users").select("id").where("id", "in", onTarget).where("role", "=", Role.GUEST).execute()
    : [];
  const guests = new Set(guestRows.map((r) => r.id));
  const excluded = new Set(losingAccess);
  const fromTarget = onTarget.filter((id) => !excluded.has(id) && !(guests.has(id) && !onOrigin.has(id)));
  const onlyOrigin = [...onOrigin].filter((id) => !onTarget.includes(id) && !excluded.has(id));
  return sortedIds([...fromTarget, ...onlyOrigin]);
}

/** The update event: users with a copy get their flags for it; other listed users get `read`. */
async function sendUpdateEvent(
  tx: Tx,
  realm: Realm,
  events: PendingEvents,
  event: Record<string, unknown>,
  messageId: number,
  alsoTell: number[],
  without: ReadonlySet<number> = new Set(),
) {
  const rows = await tx.selectFrom("user_messages").select(["user_id", "flags"]).where("message_id", "=", messageId).execute();
  const perUser = new Map<number, Record<string, unknown>>();
  for (const r of rows) if (!without.has(r.user_id)) perUser.set(r.user_id, { flags: flagsForApi(r.flags) });
  for (const id of alsoTell) if (!perUser.has(id)) perUser.set(id, { flags: ["read"] });
  if (!perUser.size) return;
  events.send({ realmId: realm.id, event, userIds: sortedIds(perUser.keys()), perUser });
}

/**
 * Notification Bot's notices after a move: the topic was (un)resolved, and breadcrumbs in the
 * old and new topics, as the request asked.
 */
async function sendMoveNotices(
  tx: Tx,
  app: AppContext,
  events: PendingEvents,
  realm: Realm,
  user: UserRow,
  message: MessageRow,
  move: ChannelMove,
  change: AppliedEdit,
  req: MessageEditRequest,
) {
  const { origin, target, topic } = move;
  const bot = await getNotificationBot(tx, realm.id);
  const targetTopic = topic?.target ?? message.topic;
  const mention = silentMention(user);
  const send = async (stream: StreamRow, topicName: string, content: string, markReadFor: readonly number[]) =>
    sendMessageInTx(tx, app, events, realm, bot, { kind: "stream", stream: (await getStream(tx, realm.id, stream.id))!, topic: topicName }, content, {
      clientName: "Internal",
      readBySender: false,
      markReadFor,
    });

  let resolveNoticeId: number | null = null;
  if (topic && (topic.resolved || topic.unresolved)) {
    // Only the topic's participants are left with it unread.
    const senders = await tx.selectFrom("messages").select("sender_id").distinct().where("id", "in", change.changedIds).execute();
    const participants = new Set(senders.map((r) => r.sender_id));
    const readers = (await tx.selectFrom("subscriptions").select("user_id").where("stream_id", "=", target.id).where("active", "=", 1).execute())
      .map((r) => r.user_id)
      .filter((id) => !participants.has(id) || id === user.id);
    const verb = topic.resolved ? "resolved" : "unresolved";
    resolveNoticeId = await send(target, targetTopic, `${mention} has marked this topic as ${verb}.`, [...readers, user.id]);
  }

  const count = change.changedIds.length;
  const channelChanged = target.id !== origin.id;
  const pureResolve = !!topic && (topic.resolved || topic.unresolved);
  if (req.sendNotificationToNewThread && (channelChanged || (topic && !pureResolve))) {
    const facts = await userFacts(app, tx, user);
    const seesHistory = await seesHistoryOf(tx, user, facts, target);
    const excluded = new Set([...change.changedIds, ...(resolveNoticeId === null ? [] : [resolveNoticeId])]);
    const preexisting = (await visibleTopicMessageIds(tx, user, target, targetTopic, seesHistory)).filter((id) => !excluded.has(id));
    const oldLocation = topicLinkSyntax(origin.name, message.topic);
    const targetRow = (await getStream(tx, realm.id, target.id))!;
    let content: string;
    if (!preexisting.length && change.movedAllVisible) content = `This topic was moved here from ${oldLocation} by ${mention}.`;
    else if (count === 1) content = `[A message](${messageLink(app, targetRow, targetTopic, message.id)}) was moved here from ${oldLocation} by ${mention}.`;
    else content = `${count} messages were moved here from ${oldLocation} by ${mention}.`;
    await send(target, targetTopic, content, [user.id]);
  }
  if (req.sendNotificationToOldThread) {
    const newLocation = topicLinkSyntax(target.name, targetTopic);
    let content: string;
    if (change.movedAllVisible) content = `This topic was moved to ${newLocation} by ${mention}.`;
    else if (count === 1) content = `A message was moved from this topic to ${newLocation} by ${mention}.`;
    else content = `${count} messages were moved from this topic to ${newLocation} by ${mention}.`;
    await send(origin, message.topic, content, [user.id]);
  }
}

/** DELETE /messages/{message_id}. */
export async function deleteMessage(app: AppContext, user: UserRow, messageId: number) {
  return runAction(app, async (tx, events) => {
    const realm = (await getRealm(tx, user.realm_id))!;
    const { message } = await accessMessage(app, tx, user, messageId);
    const stream = message.stream_id === null ? null : (await getStream(tx, realm.id, message.stream_id))!;
    const sender = (await getUserById(tx, realm.id, message.sender_id))!;
    const refusal = deleteMessageRefusal(
      await userFacts(app, tx, user),
      realm.groupSettings,
      { senderId: sender.id, senderBotOwnerId: sender.is_bot === 1 ? sender.bot_owner_id : null, ageSeconds: app.clock.now() - Number(message.date_sent) },
      stream ? channelFacts(stream) : null,
      realm.props.message_content_delete_limit_seconds,
    );
    if (refusal === "not_allowed") throw badRequest("You don't have permission to delete this message");
    if (refusal === "time_limit") throw badRequest("The time limit for deleting this message has passed");

    await deleteMessagesInTx(tx, events, realm, user, stream, [message]);
    return {};
  });
}

/**
 * Deletes messages of one conversation (a channel topic or a direct-message conversation) and
 * tells everyone who had them, or could read them in the channel's history, in one event.
 */
export async function deleteMessagesInTx(
  tx: Tx,
  events: PendingEvents,
  realm: Realm,
  actor: UserRow,
  stream: StreamRow | null,
  messages: readonly Pick<MessageRow, "id" | "topic">[],
): Promise<void> {
  if (!messages.length) return;
  const ids = sortedIds(messages.map((m) => m.id));
  const audience = (await messagesAudience(tx, ids, stream?.id ?? null)).add(actor.id);
  await tx.deleteFrom("user_messages").where("message_id", "in", ids).execute();
  await tx.deleteFrom("messages").where("id", "in", ids).execute();
  const event: Record<string, unknown> = { type: "delete_message", message_ids: ids };
  Object.assign(event, stream ? { message_type: "stream", stream_id: stream.id, topic: messages[0].topic } : { message_type: "private" });
  events.send({ realmId: realm.id, event, userIds: sortedIds(audience) });
  if (stream) await refreshFirstMessageId(tx, events, realm, stream.id);
}

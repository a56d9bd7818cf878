/** Scheduling messages, editing and cancelling them, and sending them when they fall due. */
import type { AppContext } from "../context.js";
import type { Caller } from "../http/auth.js";
import { ZulipError, badRequest, notFound, realmDeactivated, userDeactivated } from "../http/errors.js";
import { renderMarkdown } from "../markdown/render.js";
import { renderContextFor } from "../markdown/context.js";
import { checkTopicAllowed, effectiveTopicsPolicy, normalizeTopic } from "../domain/topics.js";
import {
  DELIVERY_TYPE,
  channelIdFrom,
  checkDeliveryTime,
  directRecipientIds,
  failureNotice,
  formatScheduledMessage,
  isTooLate,
  recipientIdsFrom,
  scheduledMessageType,
  type ApiScheduledMessage,
  type ScheduledTo,
} from "../domain/scheduled_messages.js";
import { dmKeyFor } from "../store/messages.js";
import { getRealm, type Realm } from "../store/realms.js";
import { getStream } from "../store/streams.js";
import { getNotificationBot, getUserById, type UserRow } from "../store/users.js";
import {
  claimDueScheduledMessage,
  deleteScheduledMessage,
  getOwnScheduledMessage,
  insertScheduledMessage,
  markScheduledMessageFailed,
  undeliveredScheduledMessages,
  updateScheduledMessage,
  type ScheduledMessageChanges,
  type ScheduledMessageRow,
} from "../store/scheduled_messages.js";
import type { Executor } from "../store/schema.js";
import { checkMessage, defaultReadBySender, sendMessageInTx, type Addressee, type MessageTarget } from "./messages.js";
import { sendReminderInTx } from "./reminders.js";
import { runAction, type PendingEvents, type Tx } from "./run.js";

type MessageType = "direct" | "private" | "stream" | "channel";

export interface ScheduleRequest {
  type: MessageType;
  to: ScheduledTo;
  topic: string | undefined;
  content: string;
  scheduledDeliveryTimestamp: number;
  readBySender: boolean | undefined;
}

export interface EditScheduledRequest {
  type: MessageType | undefined;
  to: ScheduledTo | undefined;
  topic: string | undefined;
  content: string | undefined;
  scheduledDeliveryTimestamp: number | undefined;
}

const scheduledMessageNotFound = () => notFound("Scheduled message does not exist");

function sendScheduledEvent(events: PendingEvents, realmId: number, userId: number, event: Record<string, unknown>): void {
  events.send({ realmId, event: { type: "scheduled_messages", ...event }, userIds: [userId] });
}

function targetColumns(target: MessageTarget, senderId: number) {
  return target.kind === "stream"
    ? { stream_id: target.stream.id, topic: target.topic, dm_key: null }
    : { stream_id: null, topic: "", dm_key: dmKeyFor([senderId, ...target.recipients.map((u) => u.id)]) };
}

async function render(app: AppContext, db: Executor, realm: Realm, sender: UserRow, content: string): Promise<string> {
  return renderMarkdown(content, await renderContextFor(app, realm, sender, db)).html;
}

/** GET /scheduled_messages and the register state: the caller's messages not sent yet. */
export async function getScheduledMessages(db: Executor, userId: number): Promise<ApiScheduledMessage[]> {
  return scheduledMessagesAmong(await undeliveredScheduledMessages(db, userId));
}

/** The messages to be sent later among a user's undelivered scheduled messages, as the API shows them. */
export function scheduledMessagesAmong(rows: readonly ScheduledMessageRow[]): ApiScheduledMessage[] {
  return rows.filter((r) => r.delivery_type === DELIVERY_TYPE.SEND_LATER).map(formatScheduledMessage);
}

/**
 * Schedules a message, checked as if it were sent now, in Zulip's order; returns its id.
 * Inside the caller's transaction, for code that schedules messages along with other changes.
 */
export async function scheduleMessageInTx(
  tx: Tx,
  app: AppContext,
  events: PendingEvents,
  caller: Caller,
  req: ScheduleRequest,
): Promise<number> {
  const { user: sender, realm } = caller;
  checkDeliveryTime(req.scheduledDeliveryTimestamp, app.clock.now());
  const addressee: Addressee =
    scheduledMessageType(req.type) === "stream"
      ? { kind: "stream", channel: channelIdFrom(req.to), topic: req.topic }
      : { kind: "direct", recipients: recipientIdsFrom(req.to) };
  const { target, content } = await checkMessage(app, tx, realm, sender, addressee, req.content);
  // By default a message sent from a person's client reads as read by them, unless it is a note to self.
  const toSelf = target.kind === "direct" && target.recipients.every((u) => u.id === sender.id);
  const readBySender = req.readBySender ?? (defaultReadBySender(caller.clientName) && !toSelf);
  const row = await insertScheduledMessage(tx, {
    realm_id: realm.id,
    sender_id: sender.id,
    ...targetColumns(target, sender.id),
    content,
    rendered_content: await render(app, tx, realm, sender, content),
    client: caller.clientName,
    scheduled_timestamp: req.scheduledDeliveryTimestamp,
    read_by_sender: readBySender ? 1 : 0,
    delivered: 0,
    delivered_message_id: null,
    failed: 0,
    failure_message: null,
  });
  sendScheduledEvent(events, realm.id, sender.id, { op: "add", scheduled_messages: [formatScheduledMessage(row)] });
  return row.id;
}

/** POST /scheduled_messages. */
export async function doScheduleMessage(app: AppContext, caller: Caller, req: ScheduleRequest): Promise<number> {
  return runAction(app, (tx, events) => scheduleMessageInTx(tx, app, events, caller, req));
}

/** Where an edited message goes: what the request changes, and the rest as it was. */
function editedAddressee(row: ScheduledMessageRow, senderId: number, req: EditScheduledRequest): Addressee {
  const existingType = row.stream_id !== null ? "stream" : "private";
  const type = req.type === undefined ? existingType : scheduledMessageType(req.type);
  if (type === "stream") {
    return { kind: "stream", channel: req.to === undefined ? row.stream_id! : channelIdFrom(req.to), topic: req.topic ?? row.topic };
  }
  return { kind: "direct", recipients: req.to === undefined ? directRecipientIds(row.dm_key!, senderId) : recipientIdsFrom(req.to) };
}

/**
 * A new topic alone for a channel message: checked as a topic, and against the channel's
 * policy on the empty topic, without checking the rest of the message again.
 */
async function editedTopic(db: Executor, realm: Realm, row: ScheduledMessageRow, rawTopic: string): Promise<string> {
  const topic = normalizeTopic(rawTopic);
  const stream = (await getStream(db, realm.id, row.stream_id!))!;
  checkTopicAllowed(effectiveTopicsPolicy(realm.props.topics_policy, stream.topics_policy), topic);
  return topic;
}

/** PATCH /scheduled_messages/{id}, checked in Zulip's order. */
export async function doEditScheduledMessage(app: AppContext, caller: Caller, id: number, req: EditScheduledRequest): Promise<void> {
  const { user: sender, realm } = caller;
  if (Object.values(req).every((v) => v === undefined)) throw badRequest("Nothing to change");
  if (req.type !== undefined && req.to === undefined) throw badRequest("Recipient required when updating type of scheduled message.");
  if (req.type !== undefined && scheduledMessageType(req.type) === "stream" && req.topic === undefined) {
    throw badRequest("Topic required when updating scheduled message type to channel.");
  }
  if (req.scheduledDeliveryTimestamp !== undefined) checkDeliveryTime(req.scheduledDeliveryTimestamp, app.clock.now());
  await runAction(app, async (tx, events) => {
    const row = await getOwnScheduledMessage(tx, app.dialect, sender.id, id, true);
    if (!row) throw scheduledMessageNotFound();
    if (row.delivered === 1) throw badRequest("Scheduled message was already sent");
    // A message the server failed to send needs a new time to be tried again.
    if (row.failed === 1 && req.scheduledDeliveryTimestamp === undefined) {
      throw badRequest("Scheduled delivery time must be in the future.");
    }
    const changes: ScheduledMessageChanges = { client: caller.clientName, failed: 0, failure_message: null };
    if (req.type !== undefined || req.to !== undefined || req.content !== undefined) {
      const { target, content } = await checkMessage(app, tx, realm, sender, editedAddressee(row, sender.id, req), req.content ?? row.content);
      Object.assign(changes, targetColumns(target, sender.id));
      if (req.content !== undefined) {
        changes.content = content;
        changes.rendered_content = await render(app, tx, realm, sender, content);
      }
    } else if (req.topic !== undefined && row.stream_id !== null) {
      changes.topic = await editedTopic(tx, realm, row, req.topic);
    }
    if (req.scheduledDeliveryTimestamp !== undefined) changes.scheduled_timestamp = req.scheduledDeliveryTimestamp;
    const updated = await updateScheduledMessage(tx, row.id, changes);
    sendScheduledEvent(events, realm.id, sender.id, { op: "update", scheduled_message: formatScheduledMessage(updated) });
  });
}

/** DELETE /scheduled_messages/{id}: cancels sending it. */
export async function doDeleteScheduledMessage(app: AppContext, caller: Caller, id: number): Promise<void> {
  await runAction(app, async (tx, events) => {
    const row = await getOwnScheduledMessage(tx, app.dialect, caller.user.id, id, true);
    if (!row) throw scheduledMessageNotFound();
    await deleteScheduledMessage(tx, row.id);
    sendScheduledEvent(events, caller.realm.id, caller.user.id, { op: "remove", scheduled_message_id: row.id });
  });
}

export type DeliveryOutcome = "none" | "delivered" | "failed";

/**
 * Checks again, at delivery time, everything a send checks, since the organization, the sender,
 * the channel or the recipients may have changed since the message was scheduled.
 */
async function checkDelivery(app: AppContext, tx: Tx, realm: Realm, sender: UserRow, row: ScheduledMessageRow, now: number) {
  if (realm.deactivated) throw realmDeactivated();
  if (sender.is_active !== 1) throw userDeactivated();
  // A reminder is still worth sending late (after the server was down, say); a message may not be.
  const late = row.delivery_type !== DELIVERY_TYPE.REMINDER && isTooLate(Number(row.scheduled_timestamp), now);
  if (late) throw badRequest("Message could not be sent at the scheduled time.");
  const addressee: Addressee =
    row.stream_id !== null
      ? { kind: "stream", channel: row.stream_id, topic: row.topic }
      : { kind: "direct", recipients: directRecipientIds(row.dm_key!, sender.id) };
  return checkMessage(app, tx, realm, sender, addressee, row.content);
}

/**
 * Tells the sender their message was not sent: an update showing it failed, and a direct
 * message from Notification Bot with the reason. Nobody is told when the organization or the
 * sender's account is deactivated, nor about reminders.
 */
async function reportFailure(tx: Tx, app: AppContext, events: PendingEvents, realm: Realm, sender: UserRow, row: ScheduledMessageRow) {
  // Reminders have no failed state for clients to show, and the notice speaks of scheduled messages.
  if (realm.deactivated || sender.is_active !== 1 || row.delivery_type === DELIVERY_TYPE.REMINDER) return;
  sendScheduledEvent(events, realm.id, sender.id, { op: "update", scheduled_message: formatScheduledMessage(row) });
  const bot = await getNotificationBot(tx, realm.id);
  const content = failureNotice(Number(row.scheduled_timestamp), row.failure_message!);
  await sendMessageInTx(tx, app, events, realm, bot, { kind: "direct", recipients: [sender] }, content, {
    clientName: "Internal",
    readBySender: false,
  });
}

async function senderAndRealm(tx: Tx, row: ScheduledMessageRow): Promise<{ realm: Realm; sender: UserRow }> {
  return { realm: (await getRealm(tx, row.realm_id))!, sender: (await getUserById(tx, row.realm_id, row.sender_id))! };
}

/**
 * Sends the earliest scheduled message that is due, with its sender's identity, or records why
 * it could not be sent. Claiming, sending and marking it sent are one transaction, so however
 * many servers share the database, each message is sent at most once.
 */
export async function deliverNextScheduledMessage(app: AppContext): Promise<DeliveryOutcome> {
  let claimedId: number | undefined;
  try {
    return await runAction(app, async (tx, events) => {
      const now = app.clock.now();
      const row = await claimDueScheduledMessage(tx, app.dialect, now);
      if (!row) return "none";
      claimedId = row.id;
      const { realm, sender } = await senderAndRealm(tx, row);
      let checked: Awaited<ReturnType<typeof checkDelivery>>;
      try {
        checked = await checkDelivery(app, tx, realm, sender, row, now);
      } catch (error) {
        if (!(error instanceof ZulipError)) throw error;
        const failed = await updateScheduledMessage(tx, row.id, { delivered: 0, failed: 1, failure_message: error.msg });
        await reportFailure(tx, app, events, realm, sender, failed);
        return "failed";
      }
      if (row.delivery_type === DELIVERY_TYPE.REMINDER) {
        const messageId = await sendReminderInTx(tx, app, events, realm, sender, row);
        await updateScheduledMessage(tx, row.id, { delivered_message_id: messageId });
        return "delivered";
      }
      const messageId = await sendMessageInTx(tx, app, events, realm, sender, checked.target, checked.content, {
        clientName: row.client,
        readBySender: row.read_by_sender === 1,
      });
      await updateScheduledMessage(tx, row.id, { delivered_message_id: messageId });
      sendScheduledEvent(events, realm.id, sender.id, { op: "remove", scheduled_message_id: row.id });
      return "delivered";
    });
  } catch (error) {
    // Nothing was claimed (the database is busy or down): the worker tries again later.
    if (claimedId === undefined) throw error;
    app.log.error({ err: error, scheduled_message_id: claimedId }, "unexpected error sending a scheduled message");
    const id = claimedId;
    await runAction(app, async (tx, events) => {
      const row = await markScheduledMessageFailed(tx, id, "Internal server error");
      if (!row) return;
      const { realm, sender } = await senderAndRealm(tx, row);
      await reportFailure(tx, app, events, realm, sender, row);
    });
    return "failed";
  }
}

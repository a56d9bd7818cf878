/** Reminders: scheduled messages Notification Bot sends the user about a message, and their delivery. */
import type { AppContext } from "../context.js";
import type { Caller } from "../http/auth.js";
import { ZulipError, notFound } from "../http/errors.js";
import { formatReminder, normalizeReminderNote, reminderContent, type ApiReminder, type RemindedMessage } from "../domain/reminders.js";
import { DELIVERY_TYPE, checkDeliveryTime } from "../domain/scheduled_messages.js";
import { renderMarkdown } from "../markdown/render.js";
import { renderContextFor } from "../markdown/context.js";
import { dmKeyFor, dmKeyUserIds } from "../store/messages.js";
import type { Realm } from "../store/realms.js";
import { deleteScheduledMessage, getOwnScheduledMessage, insertScheduledMessage, undeliveredScheduledMessages, type ScheduledMessageRow } from "../store/scheduled_messages.js";
import type { Executor } from "../store/schema.js";
import { getStream } from "../store/streams.js";
import { getNotificationBot, getUserById, type UserRow } from "../store/users.js";
import { accessMessage, checkMessage, normalizeContent, sendMessageInTx } from "./messages.js";
import { runAction, type PendingEvents, type Tx } from "./run.js";

function sendReminderEvent(events: PendingEvents, realmId: number, userId: number, event: Record<string, unknown>): void {
  events.send({ realmId, event: { type: "reminders", ...event }, userIds: [userId] });
}

/** GET /reminders and the register state: the user's reminders not sent yet, the earliest first. */
export async function getReminders(db: Executor, userId: number): Promise<ApiReminder[]> {
  return remindersAmong(await undeliveredScheduledMessages(db, userId));
}

/** The reminders among a user's undelivered scheduled messages, as the API shows them. */
export function remindersAmong(rows: readonly ScheduledMessageRow[]): ApiReminder[] {
  return rows.filter((r) => r.delivery_type === DELIVERY_TYPE.REMINDER).map(formatReminder);
}

async function remindedMessage(app: AppContext, tx: Tx, realm: Realm, user: UserRow, messageId: number): Promise<RemindedMessage> {
  const { message } = await accessMessage(app, tx, user, messageId);
  const sender = (await getUserById(tx, realm.id, message.sender_id))!;
  const reminded: RemindedMessage = { id: message.id, content: message.content, sender: { id: sender.id, fullName: sender.full_name } };
  if (message.stream_id !== null) {
    const stream = (await getStream(tx, realm.id, message.stream_id))!;
    reminded.channel = { id: stream.id, name: stream.name, topic: message.topic };
  } else {
    const rows = await tx
      .selectFrom("users")
      .select(["id", "full_name"])
      .where("realm_id", "=", realm.id)
      .where("id", "in", dmKeyUserIds(message.dm_key!))
      .orderBy("id")
      .execute();
    reminded.participants = rows.map((u) => ({ id: u.id, fullName: u.full_name }));
  }
  return reminded;
}

/** POST /reminders; returns the reminder's id. */
export async function doCreateReminder(app: AppContext, caller: Caller, messageId: number, deliverAt: number, note: string | undefined): Promise<number> {
  const { user, realm } = caller;
  checkDeliveryTime(deliverAt, app.clock.now());
  return runAction(app, async (tx, events) => {
    const reminded = await remindedMessage(app, tx, realm, user, messageId);
    const normalizedNote = note ? normalizeReminderNote(note) : "";
    const text = reminderContent(app.config.externalUrl, reminded, normalizedNote);
    // Checked as a direct message to oneself, which the user could in principle be refused.
    const { content } = await checkMessage(app, tx, realm, user, { kind: "direct", recipients: [user.id] }, text);
    const row = await insertScheduledMessage(tx, {
      realm_id: realm.id,
      sender_id: user.id,
      stream_id: null,
      dm_key: dmKeyFor([user.id]),
      topic: "",
      content,
      rendered_content: renderMarkdown(content, await renderContextFor(app, realm, user, tx)).html,
      client: caller.clientName,
      scheduled_timestamp: deliverAt,
      read_by_sender: 0,
      delivered: 0,
      delivered_message_id: null,
      failed: 0,
      failure_message: null,
      delivery_type: DELIVERY_TYPE.REMINDER,
      reminder_target_message_id: reminded.id,
      reminder_note: normalizedNote || null,
    });
    sendReminderEvent(events, realm.id, user.id, { op: "add", reminders: [formatReminder(row)] });
    return row.id;
  });
}

/** DELETE /reminders/{id}. */
export async function doDeleteReminder(app: AppContext, caller: Caller, id: number): Promise<void> {
  await runAction(app, async (tx, events) => {
    const row = await getOwnScheduledMessage(tx, app.dialect, caller.user.id, id, true, DELIVERY_TYPE.REMINDER);
    if (!row) throw notFound("Reminder does not exist");
    await deleteScheduledMessage(tx, row.id);
    sendReminderEvent(events, caller.realm.id, caller.user.id, { op: "remove", reminder_id: row.id });
  });
}

/**
 * The reminder's text at delivery: written again from the message as it is now, or, if the user
 * can no longer read it, as it was when the reminder was set.
 */
async function deliveredContent(tx: Tx, app: AppContext, realm: Realm, user: UserRow, row: ScheduledMessageRow): Promise<string> {
  try {
    const reminded = await remindedMessage(app, tx, realm, user, row.reminder_target_message_id!);
    return normalizeContent(reminderContent(app.config.externalUrl, reminded, row.reminder_note ?? ""));
  } catch (error) {
    if (error instanceof ZulipError) return row.content;
    throw error;
  }
}

/** Notification Bot sends a due reminder to the user who asked for it. */
export async function sendReminderInTx(tx: Tx, app: AppContext, events: PendingEvents, realm: Realm, user: UserRow, row: ScheduledMessageRow): Promise<number> {
  const bot = await getNotificationBot(tx, realm.id);
  const content = await deliveredContent(tx, app, realm, user, row);
  const messageId = await sendMessageInTx(tx, app, events, realm, bot, { kind: "direct", recipients: [user] }, content, {
    clientName: row.client,
    readBySender: false,
  });
  sendReminderEvent(events, realm.id, user.id, { op: "remove", reminder_id: row.id });
  return messageId;
}

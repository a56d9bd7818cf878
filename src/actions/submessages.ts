/** Submessages: the widget a /poll or /todo message starts with, and what its readers do with it. */
import type { AppContext } from "../context.js";
import type { UserRow } from "../store/users.js";
import type { MessageRow } from "../store/messages.js";
import { messageAudience } from "../store/messages.js";
import { insertSubmessage, widgetSubmessage, type Submessage } from "../store/submessages.js";
import { checkWidgetData, MAX_SUBMESSAGE_LENGTH, widgetFromContent, widgetTypeOf } from "../domain/widgets.js";
import { badRequest } from "../http/errors.js";
import { runAction, type PendingEvents, type Tx } from "./run.js";
import { accessMessage } from "./messages.js";

/**
 * Stores the widget a new message's content creates, if any, as its first submessage (sent by
 * the message's sender). Returns the message's submessages, for its event.
 */
export async function createWidget(tx: Tx, message: Pick<MessageRow, "id" | "sender_id" | "content">): Promise<Submessage[]> {
  const widget = widgetFromContent(message.content);
  if (!widget) return [];
  return [await insertSubmessage(tx, { message_id: message.id, sender_id: message.sender_id, msg_type: "widget", content: JSON.stringify(widget) })];
}

export interface SubmessageRequest {
  messageId: number;
  msgType: string;
  content: string;
}

/** POST /submessage: anyone who can read a widget's message may act on it, within the widget's rules. */
export async function addSubmessage(app: AppContext, user: UserRow, req: SubmessageRequest): Promise<void> {
  await runAction(app, async (tx, events) => {
    const { message } = await accessMessage(app, tx, user, req.messageId);
    // Only the send path makes the first submessage, so a widget is always its message's sender's.
    const widget = await widgetSubmessage(tx, message.id);
    if (!widget || widget.sender_id !== message.sender_id) throw badRequest("You cannot attach a submessage to this message.");
    if (req.msgType.length > 100) throw badRequest("msg_type is too long (limit: 100 characters)");
    if (req.content.length > MAX_SUBMESSAGE_LENGTH) throw badRequest(`content is too long (limit: ${MAX_SUBMESSAGE_LENGTH} characters)`);
    let data: unknown;
    try {
      data = JSON.parse(req.content);
    } catch {
      throw badRequest("Invalid json for submessage");
    }
    checkWidgetData(widgetTypeOf(widget.content), data, message.sender_id === user.id);
    const submessage = await insertSubmessage(tx, { message_id: message.id, sender_id: user.id, msg_type: req.msgType, content: req.content });
    await announce(tx, events, user, message, submessage);
  });
}

async function announce(tx: Tx, events: PendingEvents, user: UserRow, message: MessageRow, s: Submessage): Promise<void> {
  events.send({
    realmId: user.realm_id,
    event: { type: "submessage", msg_type: s.msg_type, message_id: s.message_id, submessage_id: s.id, sender_id: s.sender_id, content: s.content },
    // As for reactions: everyone who has the message, and subscribers who can read its history.
    userIds: [...(await messageAudience(tx, message))].sort((a, b) => a - b),
  });
}

/**
 * Typing notifications. They change nothing stored, so they publish at once, without a
 * transaction, but only after the same access checks as sending or editing.
 */
import type { AppContext } from "../context.js";
import type { Executor } from "../store/schema.js";
import type { UserRow } from "../store/users.js";
import { getRealm } from "../store/realms.js";
import { dmKeyUserIds } from "../store/messages.js";
import { isStorableId } from "../store/ids.js";
import { userProps } from "../format/users.js";
import { badRequest } from "../http/errors.js";
import { accessStreamById } from "./streams.js";
import { accessMessage, checkMayPost } from "./messages.js";
import { checkMayEditContent } from "./message_edit.js";
import { readEmptyTopicAliases, truncateTopic } from "../domain/topics.js";
import { MAX_CHANNEL_SIZE_FOR_TYPING_NOTIFICATIONS, directTypingParticipants, typingSettingOn } from "../domain/typing.js";

export type TypingOp = "start" | "stop";

export interface TypingRequest {
  op: TypingOp;
  type: "direct" | "stream" | "channel";
  to?: number[];
  streamId?: number;
  topic?: string;
}

const receives = (u: UserRow) => u.is_active === 1 && typingSettingOn(userProps(u), "receives_typing_notifications");

/** The channel's active subscribers who want typing notifications; nobody in a channel too big for them. */
async function channelTypingAudience(db: Executor, streamId: number): Promise<number[]> {
  const subscribers = await db
    .selectFrom("subscriptions")
    .innerJoin("users", "users.id", "subscriptions.user_id")
    .selectAll("users")
    .where("subscriptions.stream_id", "=", streamId)
    .where("subscriptions.active", "=", 1)
    .where("users.is_active", "=", 1)
    .limit(MAX_CHANNEL_SIZE_FOR_TYPING_NOTIFICATIONS + 1)
    .execute();
  if (subscribers.length > MAX_CHANNEL_SIZE_FOR_TYPING_NOTIFICATIONS) return [];
  return subscribers.filter(receives).map((u) => u.id).sort((a, b) => a - b);
}

/** The named users of the sender's organization, in order; the first unknown id is refused. */
async function directParticipants(db: Executor, sender: UserRow, ids: readonly number[]): Promise<UserRow[]> {
  const wanted = [...new Set(ids.filter(isStorableId))];
  const found = new Map<number, UserRow>();
  for (let i = 0; i < wanted.length; i += 500) {
    const rows = await db.selectFrom("users").selectAll().where("realm_id", "=", sender.realm_id).where("id", "in", wanted.slice(i, i + 500)).execute();
    for (const u of rows) found.set(u.id, u);
  }
  return ids.map((id) => {
    const user = found.get(id);
    if (!user) throw badRequest(`Invalid user ID ${id}`);
    return user;
  });
}

/** POST /typing. */
export async function sendTypingNotification(app: AppContext, sender: UserRow, req: TypingRequest): Promise<void> {
  const db = app.db;
  const props = userProps(sender);
  const person = (u: UserRow) => ({ user_id: u.id, email: u.email });
  if (req.type !== "direct") {
    if (req.streamId === undefined) throw badRequest("Missing 'stream_id' argument");
    if (req.topic === undefined) throw badRequest("Missing topic");
    if (!typingSettingOn(props, "send_stream_typing_notifications")) {
      throw badRequest("User has disabled typing notifications for channel messages");
    }
    const { stream } = await accessStreamById(app, db, sender, req.streamId, { requireContentAccess: false });
    await checkMayPost(app, db, sender, stream);
    const topic = truncateTopic(readEmptyTopicAliases(req.topic));
    const userIds = await channelTypingAudience(db, stream.id);
    if (!userIds.length) return;
    await app.bus.publish({
      realmId: sender.realm_id,
      event: { type: "typing", op: req.op, message_type: "stream", sender: person(sender), stream_id: stream.id, topic },
      userIds,
    });
    return;
  }
  if (req.to === undefined) throw badRequest("Missing 'to' argument");
  if (req.to.length === 0) throw badRequest("Empty 'to' list");
  if (!typingSettingOn(props, "send_private_typing_notifications")) {
    throw badRequest("User has disabled typing notifications for direct messages");
  }
  const participants = await directParticipants(db, sender, directTypingParticipants(sender.id, req.to));
  const userIds = [...new Set(participants.filter(receives).map((u) => u.id))];
  if (!userIds.length) return;
  await app.bus.publish({
    realmId: sender.realm_id,
    event: { type: "typing", op: req.op, message_type: "direct", sender: person(sender), recipients: participants.map(person) },
    userIds,
  });
}

/** POST /messages/{message_id}/typing: the sender is editing the message's content. */
export async function sendEditTypingNotification(app: AppContext, editor: UserRow, messageId: number, op: TypingOp): Promise<void> {
  const db = app.db;
  const realm = (await getRealm(db, editor.realm_id))!;
  const { message } = await accessMessage(app, db, editor, messageId);
  if (message.stream_id !== null && (await db.selectFrom("streams").select("is_archived").where("id", "=", message.stream_id).executeTakeFirstOrThrow()).is_archived === 1) {
    throw badRequest("Invalid message(s)");
  }
  checkMayEditContent(realm, editor, message, app.clock.now() - Number(message.date_sent), 0);
  const props = userProps(editor);
  let recipient: Record<string, unknown>;
  let userIds: number[];
  if (message.stream_id !== null) {
    if (!typingSettingOn(props, "send_stream_typing_notifications")) {
      throw badRequest("User has disabled typing notifications for channel messages");
    }
    userIds = await channelTypingAudience(db, message.stream_id);
    recipient = { type: "channel", channel_id: message.stream_id, topic: message.topic };
  } else {
    if (!typingSettingOn(props, "send_private_typing_notifications")) {
      throw badRequest("User has disabled typing notifications for direct messages");
    }
    const others = dmKeyUserIds(message.dm_key!).filter((id) => id !== editor.id);
    const participants = await directParticipants(db, editor, [editor.id, ...others]);
    userIds = participants.filter(receives).map((u) => u.id);
    recipient = { type: "direct", user_ids: userIds };
  }
  if (!userIds.length) return;
  await app.bus.publish({
    realmId: editor.realm_id,
    event: { type: "typing_edit_message", op, sender_id: editor.id, message_id: message.id, recipient },
    userIds,
  });
}

import type { Executor } from "./schema.js";
import { idList, preparedRead } from "./prepared.js";

/** A submessage as a message shows it (MessagesBase `submessages`). */
export interface Submessage {
  id: number;
  message_id: number;
  sender_id: number;
  msg_type: string;
  content: string;
}

const submessagesOf = preparedRead((db, messageIds: readonly number[]) =>
  db
    .selectFrom("submessages")
    .select(["id", "message_id", "sender_id", "msg_type", "content"])
    .where("message_id", "in", idList(db, messageIds))
    .orderBy("id"),
);

/** Every submessage of these messages, oldest first (the order clients replay them in), in one query. */
export async function submessagesByMessage(db: Executor, messageIds: readonly number[]): Promise<Map<number, Submessage[]>> {
  const byMessage = new Map<number, Submessage[]>();
  if (!messageIds.length) return byMessage;
  for (const row of await submessagesOf(db, messageIds)) {
    const list = byMessage.get(row.message_id);
    if (list) list.push(row);
    else byMessage.set(row.message_id, [row]);
  }
  return byMessage;
}

/** The message's widget: its first submessage of type "widget", if it has one. */
export async function widgetSubmessage(db: Executor, messageId: number): Promise<Pick<Submessage, "sender_id" | "content"> | undefined> {
  return db
    .selectFrom("submessages")
    .select(["sender_id", "content"])
    .where("message_id", "=", messageId)
    .where("msg_type", "=", "widget")
    .orderBy("id")
    .limit(1)
    .executeTakeFirst();
}

export async function insertSubmessage(db: Executor, row: Omit<Submessage, "id">): Promise<Submessage> {
  const { id } = await db.insertInto("submessages").values(row).returning("id").executeTakeFirstOrThrow();
  return { id, ...row };
}

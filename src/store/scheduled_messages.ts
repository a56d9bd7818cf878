import type { Insertable, Selectable, Updateable } from "kysely";
import type { Executor, ScheduledMessageTable } from "./schema.js";
import type { Dialect } from "./db.js";
import { isStorableId } from "./ids.js";
import { DELIVERY_TYPE } from "../domain/scheduled_messages.js";
import { preparedRead } from "./prepared.js";

export type ScheduledMessageRow = Selectable<ScheduledMessageTable>;
export type NewScheduledMessage = Omit<Insertable<ScheduledMessageTable>, "id">;
export type ScheduledMessageChanges = Updateable<ScheduledMessageTable>;

/**
 * The user's messages and reminders not sent yet, failed ones included, the earliest first: one
 * read for both, which POST /register shows side by side.
 */
export const undeliveredScheduledMessages: (db: Executor, senderId: number) => Promise<ScheduledMessageRow[]> = preparedRead((db, senderId: number) =>
  db
    .selectFrom("scheduled_messages")
    .selectAll()
    .where("sender_id", "=", senderId)
    .where("delivered", "=", 0)
    .orderBy("scheduled_timestamp")
    .orderBy("id"),
);

/**
 * One of the user's scheduled messages (or reminders); another user's is not found. With `lock`,
 * PostgreSQL holds the row until the transaction ends, so an edit waits for a delivery in progress.
 */
export async function getOwnScheduledMessage(
  db: Executor,
  dialect: Dialect,
  senderId: number,
  id: number,
  lock = false,
  deliveryType: number = DELIVERY_TYPE.SEND_LATER,
): Promise<ScheduledMessageRow | undefined> {
  if (!isStorableId(id)) return undefined;
  return db
    .selectFrom("scheduled_messages")
    .selectAll()
    .where("id", "=", id)
    .where("sender_id", "=", senderId)
    .where("delivery_type", "=", deliveryType)
    .$if(lock && dialect === "postgres", (q) => q.forUpdate())
    .executeTakeFirst();
}

export async function insertScheduledMessage(db: Executor, row: NewScheduledMessage): Promise<ScheduledMessageRow> {
  return db.insertInto("scheduled_messages").values(row).returningAll().executeTakeFirstOrThrow();
}

export async function updateScheduledMessage(db: Executor, id: number, changes: ScheduledMessageChanges): Promise<ScheduledMessageRow> {
  return db.updateTable("scheduled_messages").set(changes).where("id", "=", id).returningAll().executeTakeFirstOrThrow();
}

export async function deleteScheduledMessage(db: Executor, id: number): Promise<void> {
  await db.deleteFrom("scheduled_messages").where("id", "=", id).execute();
}

/**
 * Claims the earliest message due at `now` by marking it delivered, and returns it; undefined
 * when none is due. Only one transaction can claim a row: the update is conditional, and on
 * PostgreSQL rows another transaction holds are skipped rather than waited for. Run it first in
 * its transaction, so SQLite takes the write lock before reading anything.
 */
export async function claimDueScheduledMessage(db: Executor, dialect: Dialect, now: number): Promise<ScheduledMessageRow | undefined> {
  return db
    .updateTable("scheduled_messages")
    .set({ delivered: 1 })
    .where("id", "=", (eb) =>
      eb
        .selectFrom("scheduled_messages")
        .select("id")
        .where("delivered", "=", 0)
        .where("failed", "=", 0)
        .where("scheduled_timestamp", "<=", Math.floor(now))
        .orderBy("scheduled_timestamp")
        .orderBy("id")
        .limit(1)
        .$if(dialect === "postgres", (q) => q.forUpdate().skipLocked()),
    )
    .where("delivered", "=", 0)
    .where("failed", "=", 0)
    .returningAll()
    .executeTakeFirst();
}

/** Marks an unclaimed message failed, unless it was meanwhile sent or failed; returns it if so. */
export async function markScheduledMessageFailed(db: Executor, id: number, failureMessage: string): Promise<ScheduledMessageRow | undefined> {
  return db
    .updateTable("scheduled_messages")
    .set({ failed: 1, failure_message: failureMessage })
    .where("id", "=", id)
    .where("delivered", "=", 0)
    .where("failed", "=", 0)
    .returningAll()
    .executeTakeFirst();
}

/** When the next message waiting to be sent is due, if any. */
export async function nextScheduledTimestamp(db: Executor): Promise<number | undefined> {
  const row = await db
    .selectFrom("scheduled_messages")
    .select((eb) => eb.fn.min("scheduled_timestamp").as("next"))
    .where("delivered", "=", 0)
    .where("failed", "=", 0)
    .executeTakeFirst();
  return row?.next === null || row?.next === undefined ? undefined : Number(row.next);
}

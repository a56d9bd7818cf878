import type { Insertable, Selectable } from "kysely";
import type { AttachmentTable, Executor } from "./schema.js";
import { isStorableId } from "./ids.js";

export type AttachmentRow = Selectable<AttachmentTable>;

export async function insertAttachment(db: Executor, row: Insertable<AttachmentTable>): Promise<AttachmentRow> {
  return db.insertInto("attachments").values(row).returningAll().executeTakeFirstOrThrow();
}

export async function getAttachmentByPath(db: Executor, pathId: string): Promise<AttachmentRow | undefined> {
  return db.selectFrom("attachments").selectAll().where("path_id", "=", pathId).executeTakeFirst();
}

export async function getOwnAttachment(db: Executor, ownerId: number, id: number): Promise<AttachmentRow | undefined> {
  if (!isStorableId(id)) return undefined;
  return db.selectFrom("attachments").selectAll().where("id", "=", id).where("owner_id", "=", ownerId).executeTakeFirst();
}

export async function attachmentsOwnedBy(db: Executor, ownerId: number): Promise<AttachmentRow[]> {
  return db.selectFrom("attachments").selectAll().where("owner_id", "=", ownerId).orderBy("id").execute();
}

export async function attachmentsByPaths(db: Executor, realmId: number, pathIds: readonly string[]): Promise<AttachmentRow[]> {
  if (!pathIds.length) return [];
  return db.selectFrom("attachments").selectAll().where("realm_id", "=", realmId).where("path_id", "in", [...pathIds]).execute();
}

/** The attachments a message links, by path. */
export async function attachmentsOfMessage(db: Executor, messageId: number): Promise<AttachmentRow[]> {
  return db
    .selectFrom("attachment_messages as am")
    .innerJoin("attachments as a", "a.id", "am.attachment_id")
    .selectAll("a")
    .where("am.message_id", "=", messageId)
    .execute();
}

/** For each attachment, the messages linking it: id and send time. */
export async function linkingMessages(
  db: Executor,
  attachmentIds: readonly number[],
): Promise<Map<number, { id: number; date_sent: number }[]>> {
  const out = new Map<number, { id: number; date_sent: number }[]>(attachmentIds.map((id) => [id, []]));
  if (!attachmentIds.length) return out;
  const rows = await db
    .selectFrom("attachment_messages as am")
    .innerJoin("messages as m", "m.id", "am.message_id")
    .select(["am.attachment_id", "m.id", "m.date_sent"])
    .where("am.attachment_id", "in", [...attachmentIds])
    .orderBy("m.id")
    .execute();
  for (const r of rows) out.get(r.attachment_id)!.push({ id: r.id, date_sent: Number(r.date_sent) });
  return out;
}

export async function linkAttachment(db: Executor, attachmentId: number, messageId: number): Promise<void> {
  await db
    .insertInto("attachment_messages")
    .values({ attachment_id: attachmentId, message_id: messageId })
    .onConflict((oc) => oc.columns(["attachment_id", "message_id"]).doNothing())
    .execute();
}

export async function unlinkAttachments(db: Executor, messageId: number, attachmentIds: readonly number[]): Promise<void> {
  if (!attachmentIds.length) return;
  await db.deleteFrom("attachment_messages").where("message_id", "=", messageId).where("attachment_id", "in", [...attachmentIds]).execute();
}

export async function markAttachmentPublic(db: Executor, id: number, flags: { realm: boolean; web: boolean }): Promise<void> {
  const set: { is_realm_public?: 1; is_web_public?: 1 } = {};
  if (flags.realm) set.is_realm_public = 1;
  if (flags.web) set.is_web_public = 1;
  if (Object.keys(set).length) await db.updateTable("attachments").set(set).where("id", "=", id).execute();
}

export async function deleteAttachmentRow(db: Executor, id: number): Promise<void> {
  await db.deleteFrom("attachments").where("id", "=", id).execute();
}

/** Bytes of all files uploaded in the organization. */
export async function realmUploadSpaceUsed(db: Executor, realmId: number): Promise<number> {
  const row = await db
    .selectFrom("attachments")
    .select((eb) => eb.fn.sum<number | string | null>("size").as("total"))
    .where("realm_id", "=", realmId)
    .executeTakeFirst();
  return Number(row?.total ?? 0);
}

/** Whether the user received, or as a subscriber with shared history can see, a message linking it. */
export async function canSeeLinkingMessage(db: Executor, userId: number, attachmentId: number): Promise<boolean> {
  const received = await db
    .selectFrom("attachment_messages as am")
    .innerJoin("user_messages as um", "um.message_id", "am.message_id")
    .select("am.message_id")
    .where("am.attachment_id", "=", attachmentId)
    .where("um.user_id", "=", userId)
    .limit(1)
    .executeTakeFirst();
  if (received) return true;
  const viaHistory = await db
    .selectFrom("attachment_messages as am")
    .innerJoin("messages as m", "m.id", "am.message_id")
    .innerJoin("streams as s", "s.id", "m.stream_id")
    .innerJoin("subscriptions as sub", "sub.stream_id", "s.id")
    .select("am.message_id")
    .where("am.attachment_id", "=", attachmentId)
    .where("s.history_public_to_subscribers", "=", 1)
    .where("sub.user_id", "=", userId)
    .where("sub.active", "=", 1)
    .limit(1)
    .executeTakeFirst();
  return !!viaHistory;
}

/**
 * Recomputes whether the uploads these messages link are realm- or web-public, from all the
 * messages linking them (after messages moved between channels).
 */
export async function refreshAttachmentPublicity(db: Executor, messageIds: readonly number[]): Promise<void> {
  if (!messageIds.length) return;
  const ids = (
    await db.selectFrom("attachment_messages").select("attachment_id").distinct().where("message_id", "in", [...messageIds]).execute()
  ).map((r) => r.attachment_id);
  if (!ids.length) return;
  const channels = await db
    .selectFrom("attachment_messages as am")
    .innerJoin("messages as m", "m.id", "am.message_id")
    .innerJoin("streams as s", "s.id", "m.stream_id")
    .select(["am.attachment_id", "s.invite_only", "s.is_web_public"])
    .where("am.attachment_id", "in", ids)
    .execute();
  for (const id of ids) {
    const linked = channels.filter((c) => c.attachment_id === id && c.invite_only === 0);
    await db
      .updateTable("attachments")
      .set({ is_realm_public: linked.length ? 1 : 0, is_web_public: linked.some((c) => c.is_web_public === 1) ? 1 : 0 })
      .where("id", "=", id)
      .execute();
  }
}

/** Uploaded files: storing them, the messages that claim them, listing and deleting them. */
import { createHmac, randomBytes, randomInt, timingSafeEqual } from "node:crypto";
import type { AppContext } from "../context.js";
import type { Caller } from "../http/auth.js";
import { badRequest } from "../http/errors.js";
import type { Realm } from "../store/realms.js";
import type { UserRow } from "../store/users.js";
import type { StreamRow } from "../store/streams.js";
import type { Executor } from "../store/schema.js";
import type { UploadedFile } from "../files/multipart.js";
import { isGuest } from "../domain/roles.js";
import { PLAN_TYPE_SELF_HOSTED } from "../domain/realm_settings.js";
import {
  linkedUploadPaths,
  messageUploadPath,
  sanitizeFileName,
  uploadContentType,
  uploadedFileName,
} from "../domain/uploads.js";
import {
  attachmentsByPaths,
  attachmentsOfMessage,
  attachmentsOwnedBy,
  canSeeLinkingMessage,
  deleteAttachmentRow,
  getAttachmentByPath,
  getOwnAttachment,
  insertAttachment,
  linkAttachment,
  linkingMessages,
  markAttachmentPublic,
  realmUploadSpaceUsed,
  unlinkAttachments,
  type AttachmentRow,
} from "../store/attachments.js";
import { runAction, type PendingEvents, type Tx } from "./run.js";
import { deleteThumbnails, probeUpload, recordUploadedImage } from "../media/thumbnails.js";

export interface ApiAttachment {
  id: number;
  name: string;
  path_id: string;
  size: number;
  create_time: number;
  messages: { id: number; date_sent: number }[];
}

/** Storage keys of message uploads; custom emoji live beside them under `avatars/`. */
export const uploadStorageKey = (pathId: string) => `files/${pathId}`;

async function formatAttachments(db: Executor, rows: AttachmentRow[]): Promise<ApiAttachment[]> {
  const messages = await linkingMessages(db, rows.map((r) => r.id));
  // Zulip shows times in milliseconds, for JavaScript clients.
  return rows.map((r) => ({
    id: r.id,
    name: r.file_name,
    path_id: r.path_id,
    size: Number(r.size),
    create_time: Number(r.create_time) * 1000,
    messages: messages.get(r.id)!.map((m) => ({ id: m.id, date_sent: m.date_sent * 1000 })),
  }));
}

async function sendAttachmentEvent(
  tx: Tx,
  events: PendingEvents,
  realmId: number,
  userId: number,
  op: "add" | "update" | "remove",
  attachment: ApiAttachment | { id: number },
): Promise<void> {
  events.send({
    realmId,
    event: { type: "attachment", op, attachment, upload_space_used: await realmUploadSpaceUsed(tx, realmId) },
    userIds: [userId],
  });
}

function tooLarge(realm: Realm, maxMib: number) {
  // Zulip's wording depends on whether the limit comes from the server or from a Zulip Cloud plan.
  const selfHosted = realm.props.plan_type === undefined || realm.props.plan_type === PLAN_TYPE_SELF_HOSTED;
  return badRequest(
    selfHosted
      ? `File is larger than this server's configured maximum upload size (${maxMib} MiB).`
      : `File is larger than the maximum upload size (${maxMib} MiB) allowed by your organization's plan.`,
  );
}

/** POST /user_uploads: exactly one file within the server's limit. */
export async function doUploadFile(app: AppContext, caller: Caller, files: UploadedFile[]): Promise<{ url: string; filename: string }> {
  if (files.length === 0) throw badRequest("You must specify a file to upload");
  if (files.length !== 1) throw badRequest("You may only upload one file at a time");
  const [file] = files;
  const maxMib = app.config.maxFileUploadSizeMib;
  if (file.truncated || file.data.length > maxMib * 1024 * 1024) throw tooLarge(caller.realm, maxMib);

  const fileName = uploadedFileName(file.fileName);
  const pathId = messageUploadPath(caller.realm.id, sanitizeFileName(fileName), {
    byte: randomInt(256),
    token: randomBytes(18).toString("base64url"),
  });
  const contentType = uploadContentType(file.mimeType, fileName);
  // Only the header is read here; thumbnails are made by the outbox worker.
  const image = await probeUpload(contentType, file.data);
  await app.files.put(uploadStorageKey(pathId), file.data);
  try {
    await runAction(app, async (tx, events) => {
      const row = await insertAttachment(tx, {
        realm_id: caller.realm.id,
        owner_id: caller.user.id,
        path_id: pathId,
        file_name: fileName,
        content_type: contentType,
        size: file.data.length,
        create_time: Math.floor(app.clock.now()),
      });
      if (image) await recordUploadedImage(app, tx, events, row.id, image);
      const [attachment] = await formatAttachments(tx, [row]);
      await sendAttachmentEvent(tx, events, caller.realm.id, caller.user.id, "add", attachment);
    });
  } catch (err) {
    await app.files.delete(uploadStorageKey(pathId));
    throw err;
  }
  return { url: `/user_uploads/${pathId}`, filename: fileName };
}

/** GET /attachments. */
export async function listAttachments(db: Executor, caller: Caller): Promise<{ attachments: ApiAttachment[]; upload_space_used: number }> {
  const rows = await attachmentsOwnedBy(db, caller.user.id);
  return { attachments: await formatAttachments(db, rows), upload_space_used: await realmUploadSpaceUsed(db, caller.realm.id) };
}

/** DELETE /attachments/{id}: only one's own; the file goes once the row is gone. */
export async function doDeleteAttachment(app: AppContext, caller: Caller, id: number): Promise<void> {
  const pathId = await runAction(app, async (tx, events) => {
    const row = await getOwnAttachment(tx, caller.user.id, id);
    if (!row) throw badRequest("Invalid attachment");
    await deleteAttachmentRow(tx, row.id);
    await sendAttachmentEvent(tx, events, caller.realm.id, caller.user.id, "remove", { id: row.id });
    return row.path_id;
  });
  await app.files.delete(uploadStorageKey(pathId));
  await deleteThumbnails(app, pathId);
}

/**
 * Zulip's validate_attachment_request: undefined if no such upload, else whether `user` may
 * read it. Spectators (`user` null) may read files linked from web-public channels.
 */
export async function mayReadUpload(
  db: Executor,
  user: UserRow | null,
  pathId: string,
  spectatorsAllowed: (realmId: number) => Promise<boolean>,
): Promise<{ attachment: AttachmentRow; allowed: boolean } | undefined> {
  const attachment = await getAttachmentByPath(db, pathId);
  if (!attachment) return undefined;
  if (!user) return { attachment, allowed: attachment.is_web_public === 1 && (await spectatorsAllowed(attachment.realm_id)) };
  if (user.id === attachment.owner_id) return { attachment, allowed: true };
  if (attachment.is_realm_public === 1 && attachment.realm_id === user.realm_id && !isGuest(user.role)) {
    return { attachment, allowed: true };
  }
  return { attachment, allowed: attachment.realm_id === user.realm_id && (await canSeeLinkingMessage(db, user.id, attachment.id)) };
}

/**
 * Links a message to the uploads its rendered content points at, where the sender may read
 * them (others are ignored, as in Zulip), and tells the sender.
 */
async function claimUploads(
  tx: Tx,
  events: PendingEvents,
  realm: Realm,
  sender: UserRow,
  messageId: number,
  stream: StreamRow | null,
  pathIds: readonly string[],
): Promise<void> {
  const publicity = { realm: !!stream && stream.invite_only === 0, web: !!stream && stream.is_web_public === 1 };
  for (const row of await attachmentsByPaths(tx, realm.id, pathIds)) {
    const access = await mayReadUpload(tx, sender, row.path_id, async () => false);
    if (!access?.allowed) continue;
    await linkAttachment(tx, row.id, messageId);
    await markAttachmentPublic(tx, row.id, publicity);
    const [attachment] = await formatAttachments(tx, [row]);
    await sendAttachmentEvent(tx, events, realm.id, sender.id, "update", attachment);
  }
}

/** For a new message: claims what it links. */
export async function claimMessageUploads(
  tx: Tx,
  events: PendingEvents,
  realm: Realm,
  sender: UserRow,
  messageId: number,
  stream: StreamRow | null,
  renderedHtml: string,
): Promise<void> {
  await claimUploads(tx, events, realm, sender, messageId, stream, linkedUploadPaths(renderedHtml));
}

/**
 * For edited content: drops links the message no longer has, claims new ones, and returns the
 * sender's uploads no message links any more (`detached_uploads`).
 */
export async function updateMessageUploads(
  tx: Tx,
  events: PendingEvents,
  realm: Realm,
  sender: UserRow,
  messageId: number,
  stream: StreamRow | null,
  renderedHtml: string,
): Promise<ApiAttachment[]> {
  const previous = await attachmentsOfMessage(tx, messageId);
  const wanted = new Set(linkedUploadPaths(renderedHtml));
  const dropped = previous.filter((a) => !wanted.has(a.path_id));
  await unlinkAttachments(tx, messageId, dropped.map((a) => a.id));
  const had = new Set(previous.map((a) => a.path_id));
  await claimUploads(tx, events, realm, sender, messageId, stream, [...wanted].filter((p) => !had.has(p)));
  const droppedOwn = dropped.filter((a) => a.owner_id === sender.id);
  const detached = (await formatAttachments(tx, droppedOwn)).filter((a) => a.messages.length === 0);
  return detached;
}

/** Temporary URLs carry the path and their issue time, signed with the server's key. */
export const TEMPORARY_URL_VALIDITY_SECS = 60;

function sign(key: Buffer, payload: string): Buffer {
  return createHmac("sha256", key).update(payload).digest();
}

export function temporaryUploadUrl(app: AppContext, pathId: string): string {
  const payload = `${pathId}:${Math.floor(app.clock.now())}`;
  const token = Buffer.concat([Buffer.from(payload, "utf8"), Buffer.from(":"), sign(app.uploadTokenKey, payload)]).toString("hex").toUpperCase();
  const fileName = pathId.split("/").pop()!;
  return `/user_uploads/temporary/${token}/${encodeURIComponent(fileName)}`;
}

/** The path a temporary URL's token grants, if it is genuine and still valid. */
export function pathFromToken(app: AppContext, token: string): string | undefined {
  if (!/^(?:[0-9A-Fa-f]{2})+$/.test(token) || token.length > 4096) return undefined;
  const raw = Buffer.from(token, "hex");
  const macStart = raw.length - 32;
  if (macStart < 2 || raw[macStart - 1] !== 0x3a) return undefined;
  const payload = raw.subarray(0, macStart - 1).toString("utf8");
  const mac = raw.subarray(macStart);
  if (!timingSafeEqual(mac, sign(app.uploadTokenKey, payload))) return undefined;
  const sep = payload.lastIndexOf(":");
  const issued = Number(payload.slice(sep + 1));
  if (!Number.isFinite(issued) || app.clock.now() - issued > TEMPORARY_URL_VALIDITY_SECS) return undefined;
  return payload.slice(0, sep);
}

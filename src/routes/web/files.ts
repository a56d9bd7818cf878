/**
 * Uploaded files as messages link them (`/user_uploads/<realm_id>/…`), their temporary URLs,
 * and custom emoji images. Outside the API: browsers and clients fetch these directly, with
 * API-key Basic auth, a signed token, or (for web-public files) nothing.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { AppContext } from "../../context.js";
import { authenticate } from "../../http/auth.js";
import { ZulipError, badRequest } from "../../http/errors.js";
import { readCookie, SESSION_COOKIE } from "../../http/session.js";
import { getRealm } from "../../store/realms.js";
import { getAttachmentByPath, type AttachmentRow } from "../../store/attachments.js";
import { mayReadUpload, pathFromToken, uploadStorageKey } from "../../actions/uploads.js";
import { emojiFileType, emojiStorageKey } from "../../domain/custom_emoji.js";
import { contentDisposition, requestedRange, servedInline, UPLOAD_CSP } from "../../domain/uploads.js";
import { parseFormatName, thumbnailStorageKey } from "../../media/thumbnails.js";

type Params = Record<string, string>;

function html(reply: FastifyReply, status: number, body: string): FastifyReply {
  return reply.status(status).header("Vary", "Accept").type("text/html; charset=utf-8").send(body);
}

export const uploadNotFound = (reply: FastifyReply) => html(reply, 404, "<p>This file does not exist or has been deleted.</p>");
export const uploadForbidden = (reply: FastifyReply) => html(reply, 403, "<p>You are not authorized to view this file.</p>");

async function sendStored(
  app: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  attachment: AttachmentRow,
  forceDownload: boolean,
): Promise<FastifyReply> {
  const size = Number(attachment.size);
  // Media players (video on iOS above all) fetch in ranges.
  const range = requestedRange(request.headers.range, size);
  if (range === "unsatisfiable") {
    return reply.status(416).header("Content-Range", `bytes */${size}`).send();
  }
  const stored = await app.files.get(uploadStorageKey(attachment.path_id), range);
  if (!stored) return uploadNotFound(reply);
  if (range) reply.status(206).header("Content-Range", `bytes ${range.start}-${range.end}/${stored.size}`);
  else reply.status(200);
  return reply
    .header("Content-Type", attachment.content_type)
    .header("Content-Length", String(range ? range.end - range.start + 1 : stored.size))
    .header("Accept-Ranges", "bytes")
    .header("Content-Disposition", contentDisposition(attachment.file_name, forceDownload || !servedInline(attachment.content_type)))
    .header("Cache-Control", "private, immutable")
    .header("X-Content-Type-Options", "nosniff")
    .header("Content-Security-Policy", UPLOAD_CSP)
    .send(stored.stream);
}

export async function spectatorsAllowed(app: AppContext, realmId: number): Promise<boolean> {
  const realm = await getRealm(app.db, realmId);
  return !!realm && !realm.deactivated && app.config.webPublicStreamsEnabled && realm.props.enable_spectator_access === true;
}

/** The upload if the requester may read it; else the refusal has been sent. */
async function readableUpload(app: AppContext, request: FastifyRequest, reply: FastifyReply, pathId: string): Promise<AttachmentRow | FastifyReply> {
  const caller = request.headers.authorization ? await authenticate(app, request) : await sessionCaller(app, request);
  if (caller) request.callerId = caller.user.id;
  const access = await mayReadUpload(app.db, caller?.user ?? null, pathId, (realmId) => spectatorsAllowed(app, realmId));
  if (!access) return uploadNotFound(reply);
  if (!access.allowed) {
    if (!caller) return reply.redirect(`/login/?next=${encodeURIComponent(request.url.split("?")[0])}`);
    return uploadForbidden(reply);
  }
  return access.attachment;
}

async function serveUpload(app: AppContext, request: FastifyRequest, reply: FastifyReply, forceDownload: boolean) {
  const params = request.params as Params;
  const attachment = await readableUpload(app, request, reply, `${params.realm_id_str}/${params["*"]}`);
  if (!("path_id" in attachment)) return attachment;
  return sendStored(app, request, reply, attachment, forceDownload);
}

/** `/user_uploads/thumbnail/<path_id>/<format>`: readable by whoever may read the upload. */
async function serveThumbnail(app: AppContext, request: FastifyRequest, reply: FastifyReply) {
  const parts = (request.params as Params)["*"].split("/");
  const format = parts.pop()!;
  const pathId = parts.join("/");
  if (!/^\d+\//.test(pathId) || !parseFormatName(format)) return uploadNotFound(reply);
  const attachment = await readableUpload(app, request, reply, pathId);
  if (!("path_id" in attachment)) return attachment;
  const stored = await app.files.get(thumbnailStorageKey(attachment.path_id, format));
  if (!stored) return uploadNotFound(reply);
  return reply
    .status(200)
    .header("Content-Type", "image/webp")
    .header("Content-Length", String(stored.size))
    .header("Cache-Control", "private, immutable")
    .header("X-Content-Type-Options", "nosniff")
    .header("Content-Security-Policy", UPLOAD_CSP)
    .send(stored.stream);
}

/** The web client's signed-in user; a stale session is treated as no one, and gets the sign-in redirect. */
async function sessionCaller(app: AppContext, request: FastifyRequest) {
  if (!readCookie(request, SESSION_COOKIE)) return null;
  try {
    return await authenticate(app, request);
  } catch (err) {
    if (err instanceof ZulipError) return null;
    throw err;
  }
}

export function registerFilePages(server: FastifyInstance, app: AppContext): void {
  // A wildcard: tokens are longer than a route parameter may be.
  server.get("/user_uploads/temporary/*", async (request, reply) => {
    const [token, filename, ...rest] = (request.params as Params)["*"].split("/");
    if (!token || !filename || rest.length) return uploadNotFound(reply);
    const pathId = pathFromToken(app, token);
    if (!pathId) throw badRequest("Invalid token");
    if (pathId.split("/").pop() !== filename) throw badRequest("Invalid filename");
    const attachment = await getAttachmentByPath(app.db, pathId);
    if (!attachment) throw badRequest("Invalid token");
    return sendStored(app, request, reply, attachment, false);
  });

  server.get("/user_uploads/thumbnail/*", (request, reply) => serveThumbnail(app, request, reply));
  server.get("/user_uploads/download/:realm_id_str(^\\d+$)/*", (request, reply) => serveUpload(app, request, reply, true));
  server.get("/user_uploads/:realm_id_str(^\\d+$)/*", (request, reply) => serveUpload(app, request, reply, false));

  // Custom emoji images are public, as Zulip serves them.
  server.get("/user_avatars/:realm_id/emoji/images/:file_name", async (request, reply) => {
    const { realm_id, file_name } = request.params as Params;
    if (!/^\d+$/.test(realm_id) || !/^[0-9a-f]{8}\.[a-z]+$/.test(file_name)) return uploadNotFound(reply);
    const stored = await app.files.get(emojiStorageKey(Number(realm_id), file_name));
    if (!stored) return uploadNotFound(reply);
    return reply
      .status(200)
      .type(emojiFileType(file_name))
      .header("Content-Length", String(stored.size))
      .header("Cache-Control", "public, max-age=31536000, immutable")
      .header("X-Content-Type-Options", "nosniff")
      .send(stored.stream);
  });
}


/**
 * Thumbnails of uploaded images, as Zulip 11 makes them: an upload whose header parses as an
 * image gets an `image_attachments` row and a thumbnail job on the outbox (so it is made off the
 * request path, once across processes); the job writes each format beside the upload in the
 * file storage, then re-renders the messages linking the image (an `update_message` event with
 * `rendering_only`). An upload that fails to decode loses its row and its previews.
 */
import type { AppContext } from "../context.js";
import type { Dialect } from "../store/db.js";
import type { Executor } from "../store/schema.js";
import { runAction, type PendingEvents, type Tx } from "../actions/run.js";
import { queueOutboxJob } from "../outbound/outbox.js";
import { uploadStorageKey } from "../actions/uploads.js";
import { bareContentType, INLINE_MIME_TYPES } from "../domain/uploads.js";
import { storeRerenderedMessage } from "../actions/rendering_updates.js";
import { ImageError, probeImage, resizeImageWithInfo, type ImageInfo } from "./images.js";
import { rewriteThumbnailedImages, type UploadImagePreview } from "./thumbnail_html.js";

export interface ThumbnailFormat {
  extension: "webp";
  maxWidth: number;
  maxHeight: number;
  animated: boolean;
}

/**
 * The formats made of every image (animated ones only of animated images). The first still and
 * the first animated format are the ones rendered into messages.
 */
export const THUMBNAIL_OUTPUT_FORMATS: readonly ThumbnailFormat[] = [
  { extension: "webp", maxWidth: 840, maxHeight: 560, animated: true },
  { extension: "webp", maxWidth: 840, maxHeight: 560, animated: false },
];

/** Also made of images browsers cannot show (TIFF, HEIC): a large still to view instead. */
const TRANSCODED_FORMAT: ThumbnailFormat = { extension: "webp", maxWidth: 4032, maxHeight: 3024, animated: false };

/** Content types whose bytes we try to parse at all; the bytes still decide. */
export const THUMBNAIL_ACCEPT_IMAGE_TYPES: ReadonlySet<string> = new Set([
  "image/avif",
  "image/gif",
  "image/heic",
  "image/jpeg",
  "image/png",
  "image/tiff",
  "image/webp",
  "image/svg+xml",
]);

export const formatName = (f: ThumbnailFormat) => `${f.maxWidth}x${f.maxHeight}${f.animated ? "-anim" : ""}.${f.extension}`;

/** A format's name as it appears in thumbnail URLs; undefined unless one we might have made. */
export function parseFormatName(name: string): ThumbnailFormat | undefined {
  const m = /^(\d{1,5})x(\d{1,5})(-anim)?\.(webp)$/.exec(name);
  if (!m) return undefined;
  return { maxWidth: Number(m[1]), maxHeight: Number(m[2]), animated: m[3] !== undefined, extension: "webp" };
}

/** Where a thumbnail lives in the file storage, beside `files/<path_id>`. */
export const thumbnailStorageKey = (pathId: string, format: string) => `thumbnails/${pathId}/${format}`;
export const thumbnailUrl = (pathId: string, format: string) => `/user_uploads/thumbnail/${pathId}/${format}`;

/** One made thumbnail, as kept in `thumbnail_metadata` (Zulip's StoredThumbnailFormat fields). */
export interface StoredThumbnail {
  extension: string;
  content_type: string;
  max_width: number;
  max_height: number;
  animated: boolean;
  width: number;
  height: number;
  byte_size: number;
}

const storedName = (t: StoredThumbnail) => `${t.max_width}x${t.max_height}${t.animated ? "-anim" : ""}.${t.extension}`;

interface ImageRow {
  attachment_id: number;
  realm_id: number;
  path_id: string;
  content_type: string;
  original_width_px: number;
  original_height_px: number;
  frames: number;
  thumbnail_metadata: string;
}

function selectImages(db: Executor) {
  return db
    .selectFrom("image_attachments as i")
    .innerJoin("attachments as a", "a.id", "i.attachment_id")
    .select([
      "i.attachment_id",
      "a.realm_id",
      "a.path_id",
      "a.content_type",
      "i.original_width_px",
      "i.original_height_px",
      "i.frames",
      "i.thumbnail_metadata",
    ]);
}

const thumbnailsOf = (row: ImageRow) => JSON.parse(row.thumbnail_metadata) as StoredThumbnail[];

function neededFormats(row: ImageRow): ThumbnailFormat[] {
  const formats = [...THUMBNAIL_OUTPUT_FORMATS];
  if (!INLINE_MIME_TYPES.has(bareContentType(row.content_type))) {
    const landscape = row.original_width_px >= row.original_height_px;
    formats.push(
      landscape ? TRANSCODED_FORMAT : { ...TRANSCODED_FORMAT, maxWidth: TRANSCODED_FORMAT.maxHeight, maxHeight: TRANSCODED_FORMAT.maxWidth },
    );
  }
  const made = new Set(thumbnailsOf(row).map(storedName));
  return formats.filter((f) => !made.has(formatName(f)) && (row.frames > 1 || !f.animated));
}

/** What rendering shows of an image: the default thumbnail for its kind, once there is one. */
function previewOf(row: ImageRow): UploadImagePreview {
  const contentType = bareContentType(row.content_type);
  const base = { width: row.original_width_px, height: row.original_height_px, contentType };
  const made = thumbnailsOf(row);
  if (!made.length) return { ...base, url: null, animated: false };
  const animated = row.frames > 1;
  const format = THUMBNAIL_OUTPUT_FORMATS.find((f) => f.animated === animated) ?? THUMBNAIL_OUTPUT_FORMATS[0];
  const transcoded = INLINE_MIME_TYPES.has(contentType)
    ? undefined
    : made.reduce<StoredThumbnail | undefined>((big, t) => (!big || t.width * t.height > big.width * big.height ? t : big), undefined);
  return {
    ...base,
    url: thumbnailUrl(row.path_id, formatName(format)),
    animated: format.animated,
    transcoded: transcoded && storedName(transcoded),
  };
}

/** At most this many distinct uploads of one message are looked up (Zulip previews no more than 24 links anyway). */
const MAX_LOOKED_UP_UPLOADS = 100;
const UPLOAD_PATH_RE = /\/user_uploads\/(\d+\/[\p{L}\p{N}_./-]+)/gu;

/**
 * The uploaded images `content` links, for rendering it. Inside a sending or editing
 * transaction on PostgreSQL the rows are locked, so a thumbnail job finishing meanwhile either
 * committed first (and its thumbnail is rendered) or waits and then sees the new message.
 */
export async function uploadImagePreviews(
  db: Executor,
  dialect: Dialect,
  realmId: number,
  content: string,
  opts: { lock?: boolean } = {},
): Promise<Map<string, UploadImagePreview>> {
  const out = new Map<string, UploadImagePreview>();
  if (!content.includes("/user_uploads/")) return out;
  const paths = new Set<string>();
  for (const m of content.matchAll(UPLOAD_PATH_RE)) {
    paths.add(m[1]);
    if (paths.size >= MAX_LOOKED_UP_UPLOADS) break;
  }
  if (!paths.size) return out;
  const rows = await selectImages(db)
    .where("a.realm_id", "=", realmId)
    .where("a.path_id", "in", [...paths])
    .orderBy("i.attachment_id")
    .$if(dialect === "postgres" && opts.lock === true, (q) => q.forUpdate("i"))
    .execute();
  for (const row of rows) out.set(row.path_id, previewOf(row));
  return out;
}

/**
 * For a new upload: reads its header if its claimed type is an image type we handle. Done
 * before the upload's transaction, as it waits on the image workers.
 */
export async function probeUpload(contentType: string, data: Uint8Array): Promise<ImageInfo | null> {
  if (!THUMBNAIL_ACCEPT_IMAGE_TYPES.has(bareContentType(contentType))) return null;
  const probe = await probeImage(data);
  return probe.ok ? probe : null;
}

/** In the upload's transaction: records the image and queues its thumbnails. */
export async function recordUploadedImage(app: AppContext, tx: Tx, events: PendingEvents, attachmentId: number, image: ImageInfo): Promise<void> {
  await tx
    .insertInto("image_attachments")
    .values({
      attachment_id: attachmentId,
      original_width_px: image.width,
      original_height_px: image.height,
      frames: image.frames,
    })
    .execute();
  await queueOutboxJob(app, tx, events, "thumbnail", { attachmentId });
}

export interface ThumbnailJob {
  attachmentId: number;
}

async function readStored(app: AppContext, key: string): Promise<Buffer | null> {
  const stored = await app.files.get(key);
  if (!stored) return null;
  const chunks: Buffer[] = [];
  for await (const chunk of stored.stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** The outbox job: makes the missing thumbnails of one image, then updates the messages showing it. */
export async function makeThumbnails(app: AppContext, job: ThumbnailJob): Promise<void> {
  const row = await selectImages(app.db).where("i.attachment_id", "=", job.attachmentId).executeTakeFirst();
  if (!row) return;
  const needed = neededFormats(row);
  if (!needed.length) return;
  const original = await readStored(app, uploadStorageKey(row.path_id));
  if (!original) return;

  const made: StoredThumbnail[] = [];
  for (const format of needed) {
    let out;
    try {
      out = await resizeImageWithInfo(original, {
        width: format.maxWidth,
        height: format.maxHeight,
        fit: "inside",
        format: format.extension,
        animated: format.animated,
      });
    } catch (err) {
      // Busy image workers or a failing storage are worth another attempt; bad bytes are not.
      if (!(err instanceof ImageError) || err.reason === "busy") throw err;
      app.log.warn({ err: err.message, path_id: row.path_id, attachment_id: row.attachment_id }, "thumbnailing failed");
      if (made.length === 0 && thumbnailsOf(row).length === 0) return forgetImage(app, row);
      break;
    }
    await app.files.put(thumbnailStorageKey(row.path_id, formatName(format)), out.data);
    made.push({
      extension: format.extension,
      content_type: `image/${format.extension}`,
      max_width: format.maxWidth,
      max_height: format.maxHeight,
      animated: format.animated,
      width: out.width,
      height: out.height,
      byte_size: out.data.length,
    });
  }
  if (!made.length) return;

  await runAction(app, async (tx, events) => {
    // Read again under the transaction: another attempt may have recorded thumbnails meanwhile.
    const current = await selectImages(tx)
      .where("i.attachment_id", "=", row.attachment_id)
      .$if(app.dialect === "postgres", (q) => q.forUpdate("i"))
      .executeTakeFirst();
    if (!current) return;
    const names = new Set(thumbnailsOf(current).map(storedName));
    const metadata = [...thumbnailsOf(current), ...made.filter((t) => !names.has(storedName(t)))];
    const thumbnail_metadata = JSON.stringify(metadata);
    await tx.updateTable("image_attachments").set({ thumbnail_metadata }).where("attachment_id", "=", row.attachment_id).execute();
    const preview = previewOf({ ...current, thumbnail_metadata });
    await rerenderLinkingMessages(app, tx, events, current, (html) => rewriteThumbnailedImages(html, new Map([[current.path_id, preview]])).html);
  });
}

/** Not an image after all: no row, and no preview in the messages that show one. */
async function forgetImage(app: AppContext, row: ImageRow): Promise<void> {
  await runAction(app, async (tx, events) => {
    await tx.deleteFrom("image_attachments").where("attachment_id", "=", row.attachment_id).execute();
    await rerenderLinkingMessages(app, tx, events, row, (html) => rewriteThumbnailedImages(html, new Map(), new Set([row.path_id])).html);
  });
}

/** Zulip's do_update_embedded_data for each message linking the image whose HTML changes. */
async function rerenderLinkingMessages(
  app: AppContext,
  tx: Tx,
  events: PendingEvents,
  row: ImageRow,
  rewrite: (html: string) => string | null,
): Promise<void> {
  const messages = await tx
    .selectFrom("attachment_messages as am")
    .innerJoin("messages as m", "m.id", "am.message_id")
    .select(["m.id", "m.content", "m.rendered_content"])
    .where("am.attachment_id", "=", row.attachment_id)
    .orderBy("m.id")
    // Two images of one message may finish at once: each rewrites the HTML the other last wrote.
    .$if(app.dialect === "postgres", (q) => q.forUpdate("m"))
    .execute();
  for (const message of messages) {
    const html = rewrite(message.rendered_content);
    if (html === null) continue;
    await storeRerenderedMessage(app, tx, events, row.realm_id, message, html);
  }
}

/** Removes an upload's thumbnails from the storage, when the upload goes. */
export async function deleteThumbnails(app: AppContext, pathId: string): Promise<void> {
  const formats = [...THUMBNAIL_OUTPUT_FORMATS, TRANSCODED_FORMAT, { ...TRANSCODED_FORMAT, maxWidth: 3024, maxHeight: 4032 }];
  await Promise.all(formats.map((f) => app.files.delete(thumbnailStorageKey(pathId, formatName(f)))));
}

/** Zulip's rules for custom emoji: names and accepted images. */
import { createHash } from "node:crypto";
import { badRequest, ZulipError } from "../http/errors.js";

/** Where an emoji image is stored, and the URL it is served at. */
export const emojiStorageKey = (realmId: number, fileName: string) => `avatars/${realmId}/emoji/images/${fileName}`;
export const emojiUrl = (realmId: number, fileName: string) => `/user_avatars/${realmId}/emoji/images/${fileName}`;

/** The name as given in the URL, stripped, spaces read as underscores. */
export const normalizeEmojiName = (raw: string) => raw.trim().replace(/ /g, "_");

export function checkEmojiName(name: string): void {
  if (!name) throw badRequest("Emoji name is missing");
  if (/^[0-9a-z_-]+$/.test(name)) {
    if (/[_-]$/.test(name)) throw badRequest("Emoji names must end with either a letter or digit.");
    return;
  }
  throw badRequest("Emoji names must contain only lowercase English letters, digits, spaces, dashes, and underscores.");
}

/** Types Zulip accepts for custom emoji (its thumbnailer's input types). */
export const EMOJI_IMAGE_TYPES: ReadonlySet<string> = new Set([
  "image/avif",
  "image/gif",
  "image/heic",
  "image/jpeg",
  "image/png",
  "image/tiff",
  "image/webp",
]);

const EXTENSIONS: Record<string, string> = {
  "image/avif": ".avif",
  "image/gif": ".gif",
  "image/heic": ".heic",
  "image/jpeg": ".jpg",
  "image/png": ".png",
  "image/tiff": ".tiff",
  "image/webp": ".webp",
};

/** The type of a stored emoji image, from the extension we gave it. */
export const emojiFileType = (fileName: string) =>
  Object.entries(EXTENSIONS).find(([, ext]) => fileName.endsWith(ext))?.[0] ?? "application/octet-stream";

const startsWith = (data: Buffer, bytes: number[], at = 0) => bytes.every((b, i) => data[at + i] === b);
const ascii = (s: string) => [...s].map((c) => c.charCodeAt(0));

/** The image type the content really is, from its first bytes. */
export function sniffImageType(data: Buffer): string | undefined {
  if (startsWith(data, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return "image/png";
  if (startsWith(data, ascii("GIF87a")) || startsWith(data, ascii("GIF89a"))) return "image/gif";
  if (startsWith(data, [0xff, 0xd8, 0xff])) return "image/jpeg";
  if (startsWith(data, ascii("RIFF")) && startsWith(data, ascii("WEBP"), 8)) return "image/webp";
  if (startsWith(data, ascii("II*\0")) || startsWith(data, ascii("MM\0*"))) return "image/tiff";
  if (startsWith(data, ascii("ftyp"), 4)) {
    const brand = data.subarray(8, 12).toString("latin1");
    if (brand === "avif" || brand === "avis") return "image/avif";
    if (["heic", "heix", "mif1"].includes(brand)) return "image/heic";
  }
  return undefined;
}

export const badImage = (msg: string) => new ZulipError(msg, "BAD_IMAGE", 400);

/** Checks an emoji upload and returns its image type; `declared` is the type the client sent (or guessed). */
export function checkEmojiImage(data: Buffer, declared: string): string {
  if (!EMOJI_IMAGE_TYPES.has(declared)) throw badImage("Invalid image format");
  const actual = sniffImageType(data);
  if (!actual) throw badImage("Could not decode image; did you upload an image file?");
  return actual;
}

/** A stored name clients can't enumerate: a keyed hash of the id, with the type's extension. */
export function emojiFileName(key: Buffer, emojiId: number, imageType: string): string {
  const hash = createHash("sha256").update(key).update(`:${emojiId}`).digest("hex").slice(0, 8);
  return hash + (EXTENSIONS[imageType] ?? "");
}

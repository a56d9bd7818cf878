/**
 * Uploaded avatars: where their files are stored, the URLs they are served at, and how an upload
 * becomes Zulip's two square sizes. Avatars whose source is Gravatar keep the Gravatar URL.
 */
import { createHash } from "node:crypto";
import type { UploadedFile } from "../files/multipart.js";
import { badRequest } from "../http/errors.js";
import { EMOJI_IMAGE_TYPES } from "../domain/custom_emoji.js";
import { uploadContentType, uploadedFileName } from "../domain/uploads.js";
import { probeImage, resizeImage, ImageError } from "./images.js";

export const AVATAR_FROM_GRAVATAR = "G";
export const AVATAR_FROM_USER = "U";

/** Zulip's DEFAULT_AVATAR_SIZE and MEDIUM_AVATAR_SIZE, in pixels. */
export const DEFAULT_AVATAR_SIZE = 100;
export const MEDIUM_AVATAR_SIZE = 500;

/** Zulip's MAX_AVATAR_FILE_SIZE_MIB (and the icon and logo limits, which default to it). */
export const MAX_AVATAR_FILE_SIZE_MIB = 5;

/** The avatar fields of a user row. */
export interface AvatarFields {
  id: number;
  realm_id: number;
  delivery_email: string;
  avatar_source: string;
  avatar_version: number;
}

/**
 * The file name of one version of a user's avatar: a new name per version, so a cached old
 * picture is never served for a new one, and not a Gravatar-style hash of the address.
 */
function avatarHash(userId: number, version: number): string {
  return createHash("sha1").update(`confab-avatar:${userId}:${version}`).digest("hex");
}

/** Storage keys of one version's files; beside custom emoji under `avatars/<realm_id>/`. */
export function avatarStorageKeys(realmId: number, userId: number, version: number) {
  const base = `avatars/${realmId}/${avatarHash(userId, version)}`;
  return { small: `${base}.png`, medium: `${base}-medium.png`, original: `${base}.original` };
}

/** Storage key of a file named in a `/user_avatars/<realm_id>/<file>` URL. */
export const avatarFileKey = (realmId: number, fileName: string) => `avatars/${realmId}/${fileName}`;
export const AVATAR_FILE_NAME = /^[0-9a-f]{40}(-medium)?\.png$/;

const GRAVATAR_BASE = "https://secure.gravatar.com/avatar/";
const gravatarHashes = new Map<string, string>();
const GRAVATAR_HASHES_KEPT = 20_000;

/** Gravatar's MD5 of the address, remembered: every user list and message page asks again. */
export function gravatarHash(email: string): string {
  let hash = gravatarHashes.get(email);
  if (hash === undefined) {
    hash = createHash("md5").update(email.trim().toLowerCase()).digest("hex");
    if (gravatarHashes.size >= GRAVATAR_HASHES_KEPT) gravatarHashes.delete(gravatarHashes.keys().next().value!);
    gravatarHashes.set(email, hash);
  }
  return hash;
}

/** The user's avatar URL as Zulip's get_avatar_field gives it, with the version for caches. */
export function avatarUrl(user: AvatarFields, medium = false): string {
  if (user.avatar_source === AVATAR_FROM_USER) {
    return `/user_avatars/${user.realm_id}/${avatarHash(user.id, user.avatar_version)}${medium ? "-medium" : ""}.png?version=${user.avatar_version}`;
  }
  return `${GRAVATAR_BASE}${gravatarHash(user.delivery_email)}?d=identicon${medium ? `&s=${MEDIUM_AVATAR_SIZE}` : ""}&version=${user.avatar_version}`;
}

/** Whether a client that computes Gravatar URLs itself can compute this one. */
export const isGravatar = (user: AvatarFields) => user.avatar_source !== AVATAR_FROM_USER;

/** What Zulip's image checks say, as a 400. */
function imageRefusal(err: unknown): never {
  if (err instanceof ImageError) throw badRequest(err.message);
  throw err;
}

/**
 * The one file of an avatar, icon or logo upload, checked as Zulip checks it: exactly one file
 * (`what` names it in the error), at most the size limit, a declared image type.
 */
export function checkImageUpload(files: UploadedFile[], what: string, maxMib: number): UploadedFile {
  if (files.length !== 1) throw badRequest(`You must upload exactly one ${what}.`);
  const [file] = files;
  if (file.truncated || file.data.length > maxMib * 1024 * 1024) {
    throw badRequest(`Uploaded file is larger than the allowed limit of ${maxMib} MiB`);
  }
  return file;
}

/** Decodable formats whose declared type Zulip's thumbnailer accepts. */
const RASTER_FORMATS = new Set(["jpeg", "png", "gif", "webp", "tiff", "heif"]);

/** Refuses what is not a raster image Zulip would accept, before any pixel is decoded. */
async function checkImage(file: UploadedFile): Promise<void> {
  const declared = uploadContentType(file.mimeType, uploadedFileName(file.fileName)).split(";")[0].trim().toLowerCase();
  if (!EMOJI_IMAGE_TYPES.has(declared)) throw badRequest("Invalid image format");
  const probe = await probeImage(file.data);
  if (!probe.ok) throw badRequest(probe.reason === "unsupported" ? "Could not decode image; did you upload an image file?" : probe.message);
  if (!RASTER_FORMATS.has(probe.format)) throw badRequest("Could not decode image; did you upload an image file?");
}

/** A square crop of the image's first frame, as PNG. */
export async function squarePng(data: Buffer, size: number): Promise<Buffer> {
  return resizeImage(data, { width: size, height: size, fit: "cover", format: "png" }).catch(imageRefusal);
}

export interface AvatarImages {
  small: Buffer;
  medium: Buffer;
  original: Buffer;
}

/** An avatar upload made into Zulip's two sizes, off the event loop (sharp's threads). */
export async function makeAvatarImages(file: UploadedFile): Promise<AvatarImages> {
  await checkImage(file);
  const [small, medium] = await Promise.all([squarePng(file.data, DEFAULT_AVATAR_SIZE), squarePng(file.data, MEDIUM_AVATAR_SIZE)]);
  return { small, medium, original: file.data };
}

/** An organization icon: one square of the default avatar size. */
export async function makeIconImage(file: UploadedFile): Promise<Buffer> {
  await checkImage(file);
  return squarePng(file.data, DEFAULT_AVATAR_SIZE);
}

/** A wide logo: scaled to fit Zulip's 8:1 box of the default avatar height, never enlarged. */
export async function makeLogoImage(file: UploadedFile): Promise<Buffer> {
  await checkImage(file);
  return resizeImage(file.data, { width: 8 * DEFAULT_AVATAR_SIZE, height: DEFAULT_AVATAR_SIZE, fit: "inside", format: "png" }).catch(
    imageRefusal,
  );
}

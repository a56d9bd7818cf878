/** Zulip's rules for uploaded files: stored names, URLs, content types and how files are served. */

/** Most Linux filesystems limit a path component to 255 bytes; the sanitized name is the last one. */
export const MAX_FILE_NAME_BYTES = 255;

const utf8 = (s: string) => Buffer.byteLength(s, "utf8");

/** Cuts a name to `max` UTF-8 bytes, keeping its extension when that leaves room for the rest. */
export function truncateFileName(name: string, max: number): string {
  if (utf8(name) <= max) return name;
  const dot = name.lastIndexOf(".");
  let stem = dot > 0 ? name.slice(0, dot) : name;
  let ext = dot > 0 ? name.slice(dot) : "";
  if (utf8(ext) >= max) {
    stem = name;
    ext = "";
  }
  let budget = max - utf8(ext);
  let out = "";
  for (const ch of stem) {
    budget -= utf8(ch);
    if (budget < 0) break;
    out += ch;
  }
  return out + ext;
}

/**
 * A name safe in a filesystem path, an S3 key and a URL: letters and digits of any script,
 * `_`, `.` and `-`; runs of spaces and dashes become one dash.
 */
export function sanitizeFileName(value: string): string {
  let v = value.normalize("NFKC").replace(/[^\p{L}\p{N}_\s.-]/gu, "").trim();
  v = v.replace(/[-\s]+/g, "-");
  v = truncateFileName(v, MAX_FILE_NAME_BYTES);
  return v === "" || v === "." || v === ".." ? "uploaded-file" : v;
}

/** The name as the client sent it, URL-unquoted as Zulip does, without NUL characters. */
export function uploadedFileName(raw: string): string {
  let name = raw;
  try {
    name = decodeURIComponent(raw);
  } catch {
    // Not valid percent-encoding: keep it as sent.
  }
  return name.replace(/\0/g, "");
}

/** Types served inline; anything else is downloaded, so a file can never run as a page of ours. */
export const INLINE_MIME_TYPES: ReadonlySet<string> = new Set([
  "application/pdf",
  "audio/aac",
  "audio/flac",
  "audio/mp4",
  "audio/mpeg",
  "audio/wav",
  "audio/webm",
  "image/apng",
  "image/avif",
  "image/gif",
  "image/jpeg",
  "image/png",
  "image/webp",
  "text/plain",
  "video/mp4",
  "video/webm",
]);

export const bareContentType = (contentType: string) => contentType.split(";")[0].trim().toLowerCase();

const TYPES_BY_EXTENSION: Record<string, string> = {
  avif: "image/avif",
  bmp: "image/bmp",
  csv: "text/csv",
  gif: "image/gif",
  htm: "text/html",
  html: "text/html",
  jpeg: "image/jpeg",
  jpg: "image/jpeg",
  json: "application/json",
  md: "text/markdown",
  mov: "video/quicktime",
  mp3: "audio/mpeg",
  mp4: "video/mp4",
  ogg: "audio/ogg",
  pdf: "application/pdf",
  png: "image/png",
  svg: "image/svg+xml",
  tif: "image/tiff",
  tiff: "image/tiff",
  txt: "text/plain",
  wav: "audio/wav",
  webm: "video/webm",
  webp: "image/webp",
  zip: "application/zip",
};

/** The type a name suggests, as Python's mimetypes would guess it, for the common extensions. */
export function guessContentType(fileName: string): string | undefined {
  const dot = fileName.lastIndexOf(".");
  return dot < 0 ? undefined : TYPES_BY_EXTENSION[fileName.slice(dot + 1).toLowerCase()];
}

/**
 * The stored type: what the client declared, else a guess from the name, else octet-stream.
 * The multipart parser reports a part without a Content-Type as text/plain, so text/plain
 * also yields to what the name suggests.
 */
export function uploadContentType(declared: string | undefined, fileName: string): string {
  const bare = declared ? bareContentType(declared) : "";
  const guessed = guessContentType(fileName);
  if (!bare || bare === "application/octet-stream" || bare === "text/plain") {
    if (guessed) return guessed === "text/plain" && bare === "text/plain" ? declared!.trim() : guessed;
  }
  return declared?.trim() || "application/octet-stream";
}

/** RFC 6266 `Content-Disposition`, as Django writes it: quoted ASCII or RFC 8187 UTF-8. */
export function contentDisposition(fileName: string, asAttachment: boolean): string {
  const kind = asAttachment ? "attachment" : "inline";
  // Control characters can't appear in a header.
  const name = fileName.replace(/[\u0000-\u001f\u007f]/g, "");
  if (/^[\x00-\x7f]*$/.test(name)) return `${kind}; filename="${name.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;
  return `${kind}; filename*=utf-8''${encodeURIComponent(name).replace(/['()*]/g, (c) => "%" + c.charCodeAt(0).toString(16).toUpperCase())}`;
}

export const servedInline = (contentType: string) => INLINE_MIME_TYPES.has(bareContentType(contentType));

/** Keeps what the browser may do with a served file to showing it. */
export const UPLOAD_CSP = "default-src 'none'; style-src 'self' 'unsafe-inline'; img-src 'self'; object-src 'self';";

// Links into the organization's own URL are rendered relative, without the leading slash.
const UPLOAD_LINK_RE = /href="\/?user_uploads\/([^"?#]+)[^"]*"/g;
const ENTITIES: Record<string, string> = { "&amp;": "&", "&quot;": '"', "&#39;": "'", "&lt;": "<", "&gt;": ">", "&#x27;": "'" };

/** The upload paths (`<realm_id>/…`) a rendered message links to, each once. */
export function linkedUploadPaths(renderedHtml: string): string[] {
  const out = new Set<string>();
  for (const m of renderedHtml.matchAll(UPLOAD_LINK_RE)) {
    let path = m[1].replace(/&(?:amp|quot|#39|lt|gt|#x27);/g, (e) => ENTITIES[e]);
    try {
      path = decodeURIComponent(path);
    } catch {
      continue;
    }
    if (/^\d+\//.test(path)) out.add(path);
  }
  return [...out];
}

/** Zulip's message upload path: realm, one of 256 directories, a random part, the sanitized name. */
export function messageUploadPath(realmId: number, sanitizedName: string, random: { byte: number; token: string }): string {
  return `${realmId}/${random.byte.toString(16)}/${random.token}/${sanitizedName}`;
}

/**
 * The one byte range a `Range` header asks for, within a file of `size` bytes: undefined to send
 * the whole file (no header, or one we don't serve: several ranges, other units), "unsatisfiable"
 * when it lies outside the file.
 */
export function requestedRange(header: string | undefined, size: number): { start: number; end: number } | "unsatisfiable" | undefined {
  const m = header ? /^bytes=(\d*)-(\d*)$/.exec(header.trim()) : null;
  if (!m || (m[1] === "" && m[2] === "")) return undefined;
  if (m[1] === "") {
    const suffix = Number(m[2]);
    if (suffix === 0 || size === 0) return "unsatisfiable";
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(m[1]);
  const end = m[2] === "" ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (start >= size || end < start) return "unsatisfiable";
  return { start, end };
}

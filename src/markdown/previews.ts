/**
 * Inline previews: a link to an image, video or YouTube video gets a preview after the paragraph
 * (or inside the list item) that contains it. A paragraph holding nothing but the link is
 * replaced by the preview. Links inside quotes get no preview. Nothing is fetched.
 */
import { El, textOf } from "./engine/tree.js";
import { splitUrl } from "./links.js";
import type { RenderContext } from "./context.js";
import { proxied } from "./patterns.js";
import { placeholderAttributes, type UploadImagePreviews } from "../media/thumbnail_html.js";

const IMAGE_EXTENSIONS = [".bmp", ".gif", ".jpe", ".jpeg", ".jpg", ".png", ".webp"];
const VIDEO_EXTENSIONS = [".mp4", ".webm"];
const AUDIO_TYPES: Record<string, string> = {
  ".mp3": "audio/mpeg",
  ".wav": "audio/x-wav",
  ".ogg": "audio/ogg",
  ".oga": "audio/ogg",
  ".opus": "audio/ogg",
  ".m4a": "audio/mp4",
  ".aac": "audio/aac",
  ".flac": "audio/flac",
  ".weba": "audio/webm",
};
const PREVIEW_LIMIT = 24;
const PREVIEW_CLASSES = ["message_inline_image", "message_inline_ref", "inline-preview-twitter"];

const extensionOf = (path: string) => {
  const m = /\.[^./]*$/.exec(path);
  return m ? m[0].toLowerCase() : "";
};

export function audioMimeType(url: string): string | undefined {
  return AUDIO_TYPES[extensionOf(splitUrl(url).path)];
}

function isImage(url: string): boolean {
  if (url.startsWith("/user_uploads/") || url.startsWith("user_uploads/")) return false;
  const { netloc, path } = splitUrl(url);
  if (netloc === "pasteboard.co") return false;
  return IMAGE_EXTENSIONS.some((ext) => path.toLowerCase().endsWith(ext));
}

const isVideo = (url: string) => !/[?#]/.test(url) && VIDEO_EXTENSIONS.includes(extensionOf(url));

function youtubeId(url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return null;
  let id: string | null = null;
  const host = parsed.hostname;
  if (["m.youtube.com", "www.youtube.com", "www.youtube-nocookie.com", "youtube.com", "youtube-nocookie.com"].includes(host)) {
    const path = parsed.pathname;
    if ((path === "/watch" || path === "/watch_popup") && parsed.searchParams.has("v")) id = parsed.searchParams.get("v");
    else if (path === "/watch_videos" && parsed.searchParams.has("video_ids")) id = parsed.searchParams.get("video_ids")!.split(",")[0];
    else if (/^\/(embed|shorts|v)\//.test(path)) id = path.split("/")[2] ?? null;
  } else if (host === "youtu.be" && parsed.pathname.startsWith("/")) {
    id = parsed.pathname.slice(1);
  }
  return id && /^[0-9A-Za-z_-]+$/.test(id) ? id : null;
}

interface FoundLink {
  a: El;
  parent: El;
  grandparent: El | null;
  inQuote: boolean;
}

/** Links in breadth-first order, as previews are placed in that order. */
function findLinks(root: El): FoundLink[] {
  const found: FoundLink[] = [];
  const queue: { el: El; parent: El | null; inQuote: boolean }[] = [{ el: root, parent: null, inQuote: false }];
  while (queue.length) {
    const { el, parent, inQuote } = queue.shift()!;
    const quoted = inQuote || el.tag === "blockquote";
    for (const child of el.children) {
      queue.push({ el: child, parent: el, inQuote: quoted });
      if (child.tag === "a") found.push({ a: child, parent: el, grandparent: parent, inQuote: quoted });
    }
  }
  return found;
}

interface Placement {
  parent: El;
  title?: string;
  index?: number;
  remove?: El;
}

function placement(root: El, link: FoundLink): Placement {
  const url = link.a.get("href")!;
  const text = textOf(link.a.text);
  const urlIsText = link.a.text === null || url === text;
  const info: Placement = { parent: root, title: urlIsText ? undefined : text };
  const { parent, grandparent, a } = link;
  if (parent.tag === "li") {
    info.parent = parent;
    if (!textOf(parent.text) && !textOf(a.tail) && urlIsText) info.remove = a;
  } else if (parent.tag === "p" && grandparent) {
    info.parent = grandparent;
    const ptext = textOf(parent.text);
    if (parent.children.length === 1 && (!ptext || ptext === "\n") && !textOf(a.tail) && urlIsText) info.remove = parent;
    const at = grandparent.children.indexOf(parent);
    if (at >= 0) info.index = insertionIndex(grandparent, parent, at);
  }
  return info;
}

/** After any previews already placed for links of the same paragraph. */
function insertionIndex(grandparent: El, parent: El, at: number): number {
  const links = new Set([...parent.iter()].filter((e) => e.tag === "a").map((e) => e.get("href")));
  let i = at;
  for (;;) {
    i++;
    if (i >= grandparent.children.length) return i;
    const uncle = grandparent.children[i];
    const classes = (uncle.get("class") ?? "").split(/\s+/);
    if (uncle.tag !== "div" || !classes.some((c) => PREVIEW_CLASSES.includes(c))) return i;
    const a = uncle.children.find((c) => c.tag === "a");
    if (!a || !links.has(a.get("href"))) return i;
  }
}

function addPreview(info: Placement, className: string, href: string, media: El, title?: string): void {
  const div = new El("div").set("class", className);
  const a = div.sub("a").set("href", href);
  if (title) a.set("title", title);
  a.append(media);
  if (info.index !== undefined) info.parent.insert(info.index, div);
  else info.parent.append(div);
  if (info.remove) {
    const holder = [...info.parent.iter()].find((e) => e.children.includes(info.remove!));
    if (holder) holder.children.splice(holder.children.indexOf(info.remove), 1);
  }
}

export interface PreviewResult {
  hasLink: boolean;
  hasImage: boolean;
}

/** `uploads`: what is known of the uploaded images the content links (only those get a preview). */
export function addInlinePreviews(root: El, ctx: RenderContext, uploads?: UploadImagePreviews): PreviewResult {
  const links = findLinks(root);
  const result: PreviewResult = { hasLink: links.length > 0, hasImage: false };
  if (ctx.inlineImagePreview === false || !links.length) return result;
  const previewable = new Set(links.filter((l) => !l.inQuote).map((l) => l.a.get("href")!));
  if (previewable.size > PREVIEW_LIMIT) return result;
  const done = new Set<string>();
  for (const link of links) {
    const url = link.a.get("href")!;
    if (!previewable.has(url) || done.has(url)) continue;
    done.add(url);
    const src = (u: string) => proxied(ctx.camo, ctx.realmUrl, u);
    const upload = url.startsWith("/user_uploads/") ? uploads?.get(url.slice("/user_uploads/".length)) : undefined;
    if (upload) {
      const info = placement(root, link);
      const img = new El("img");
      for (const [k, v] of placeholderAttributes(upload)) img.set(k, v);
      addPreview(info, "message_inline_image", url, img, info.title);
      result.hasImage = true;
    } else if (isVideo(url)) {
      const info = placement(root, link);
      const video = new El("video").set("preload", "metadata").set("src", src(url));
      addPreview(info, "message_inline_image message_inline_video", url, video, info.title);
    } else if (isImage(url)) {
      const info = placement(root, link);
      addPreview(info, "message_inline_image", url, new El("img").set("loading", "lazy").set("src", src(url)), info.title);
      result.hasImage = true;
    } else {
      const yt = youtubeId(url);
      if (yt === null) continue;
      const info = placement(root, link);
      const img = new El("img").set("loading", "lazy").set("src", src(`https://i.ytimg.com/vi/${yt}/default.jpg`));
      const div = new El("div").set("class", "youtube-video message_inline_image");
      const a = div.sub("a").set("href", url).set("data-id", yt);
      a.append(img);
      if (info.index !== undefined) info.parent.insert(info.index, div);
      else info.parent.append(div);
      result.hasImage = true;
    }
  }
  return result;
}

/**
 * The links whose pages a link preview (`inline_url_embed_preview`) is fetched for, in order:
 * links outside quotes to other sites that get no image, video or YouTube preview; none when
 * the message has more previewable links than the limit, as for the other previews.
 */
export function linksForEmbeds(root: El, ctx: RenderContext): string[] {
  const urls = [...new Set(findLinks(root).filter((l) => !l.inQuote).map((l) => l.a.get("href")!))];
  if (!urls.length || urls.length > PREVIEW_LIMIT) return [];
  const ownHost = ctx.realmUrl ? new URL(ctx.realmUrl).host : undefined;
  return urls.filter((url) => {
    if (isVideo(url) || isImage(url) || youtubeId(url) !== null) return false;
    try {
      const parsed = new URL(url);
      return (parsed.protocol === "http:" || parsed.protocol === "https:") && parsed.host !== ownHost;
    } catch {
      return false;
    }
  });
}

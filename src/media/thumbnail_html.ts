/**
 * How previews of uploaded images appear in rendered messages, and how a message's HTML is
 * brought up to date once thumbnails exist. Pure: no database, no image work.
 *
 * As in Zulip, the renderer always emits a loading placeholder for an uploaded image; the
 * placeholder is then swapped for the thumbnail, at render time if the thumbnail is already
 * made, else by the thumbnail job, which re-renders the messages linking the image.
 */
import { escapeAttr } from "../markdown/engine/tree.js";

/** What rendering knows about one uploaded image (Zulip's MarkdownImageMetadata). */
export interface UploadImagePreview {
  /** The default thumbnail's URL; null while the thumbnails are not made yet. */
  url: string | null;
  animated: boolean;
  width: number;
  height: number;
  contentType: string;
  /** For types browsers cannot show: the name of the large transcoded thumbnail. */
  transcoded?: string;
}

export type UploadImagePreviews = ReadonlyMap<string, UploadImagePreview>;

export const LOADING_PLACEHOLDER_SRC = "/static/images/loading/loader-black.svg";

/** Attributes of the placeholder `<img>`, whose class the rewrite below looks for. */
export function placeholderAttributes(preview: UploadImagePreview): [string, string][] {
  return [
    ["class", "image-loading-placeholder"],
    ["src", LOADING_PLACEHOLDER_SRC],
    ["data-original-dimensions", `${preview.width}x${preview.height}`],
    ["data-original-content-type", preview.contentType],
  ];
}

/** The finished `<img>`, attributes in Zulip's order. */
function thumbnailImg(preview: UploadImagePreview & { url: string }): string {
  const attrs: [string, string][] = [
    ["src", preview.url],
    ["data-original-dimensions", `${preview.width}x${preview.height}`],
    ["data-original-content-type", preview.contentType],
  ];
  if (preview.animated) attrs.push(["data-animated", "true"]);
  if (preview.transcoded) attrs.push(["data-transcoded-image", preview.transcoded]);
  return `<img${attrs.map(([k, v]) => ` ${k}="${escapeAttr(v)}"`).join("")}>`;
}

// Only our own renderer's output is matched: the div, link and placeholder exactly as
// previews.ts serializes them (attribute values escaped, so `"` and `>` never occur raw).
const PLACEHOLDER_RE =
  /<div class="message_inline_image"><a href="\/user_uploads\/([^"]+)"((?: [a-z-]+="[^"]*")*)><img class="image-loading-placeholder"[^>]*><\/a><\/div>/g;

const unescapeAttr = (s: string) =>
  s.replace(/&(?:amp|quot|lt|gt|#39);/g, (e) => ({ "&amp;": "&", "&quot;": '"', "&lt;": "<", "&gt;": ">", "&#39;": "'" })[e]!);

export interface RewriteResult {
  /** The new HTML, or null if nothing changed. */
  html: string | null;
  /** Images still waiting for thumbnails. */
  remaining: Set<string>;
}

/**
 * Swaps placeholders of images in `images` that have thumbnails for the thumbnail, and drops
 * the previews of `toDelete` (uploads that turned out not to be images we can thumbnail).
 */
export function rewriteThumbnailedImages(
  html: string,
  images: UploadImagePreviews,
  toDelete: ReadonlySet<string> = new Set(),
): RewriteResult {
  const remaining = new Set<string>();
  let changed = false;
  const out = html.replace(PLACEHOLDER_RE, (whole, rawPath: string, linkAttrs: string) => {
    const pathId = unescapeAttr(rawPath);
    if (toDelete.has(pathId)) {
      changed = true;
      return "";
    }
    const preview = images.get(pathId);
    if (!preview || preview.url === null) {
      remaining.add(pathId);
      return whole;
    }
    changed = true;
    return `<div class="message_inline_image"><a href="/user_uploads/${rawPath}"${linkAttrs}>${thumbnailImg({ ...preview, url: preview.url })}</a></div>`;
  });
  // As Zulip does, a dropped preview leaves no blank line at the end.
  return { html: changed ? out.trim() : null, remaining };
}

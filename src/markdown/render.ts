/**
 * Zulip-flavored Markdown to HTML. The pipeline: line preprocessing (hanging lists, fenced
 * blocks), block parsing, inline patterns, layout newlines, inline previews, serialization and
 * finally substitution of trusted HTML (code, math) for its placeholders. No HTML in the input
 * passes through: it is escaped like any other text.
 */
import { BlockParser } from "./engine/blocks.js";
import { InlineProcessor } from "./engine/inline.js";
import { FencedBlocks, normalizeWhitespace, separateHangingLists } from "./engine/preprocess.js";
import { El, escapeText, isBlockLevel, prettify, serialize, textOf } from "./engine/tree.js";
import { formatFencedCode, formatIndentedCode } from "./code.js";
import { formatTexBlock } from "./tex.js";
import { patternsFor, type Mentions } from "./patterns.js";
import { addInlinePreviews, linksForEmbeds } from "./previews.js";
import type { RenderContext } from "./context.js";
import { MAX_RENDERED_LENGTH, unableToRender, withRenderDeadline } from "./budget.js";
import { rewriteThumbnailedImages, type UploadImagePreviews } from "../media/thumbnail_html.js";

export type { RenderContext } from "./context.js";

export interface Rendered {
  html: string;
  /** Users mentioned by a notifying (not silent) mention. */
  mentionedUserIds: number[];
  /** A notifying channel-wide mention (`@**all**`, `@**everyone**`, `@**channel**`, `@**stream**`). */
  wildcardMentioned: boolean;
  /** A notifying `@**topic**` mention. */
  topicWildcardMentioned: boolean;
  /** Groups mentioned by a notifying mention. */
  mentionedGroupIds: number[];
  hasLink: boolean;
  hasImage: boolean;
  /** Links whose pages a link preview would show (see linksForEmbeds). */
  linksForPreview?: string[];
}

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
export const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => ESCAPES[c]);

const STASH_RE = /<p>\u0002wzxhzdk:([0-9]+)\u0003<\/p>|\u0002wzxhzdk:([0-9]+)\u0003/g;

function isBlockHtml(html: string): boolean {
  const m = /^<\/?([^ >]+)/.exec(html);
  if (!m) return false;
  return "!?@%".includes(m[1][0]) || isBlockLevel(m[1]);
}

/** Puts the stored HTML back in place of its placeholders (a block replaces its whole `<p>`). */
function restoreStash(text: string, stash: string[]): string {
  for (let depth = 0; depth < 10; depth++) {
    const next = text.replace(STASH_RE, (all, inP: string | undefined, bare: string | undefined) => {
      const html = stash[Number(inP ?? bare)];
      if (html === undefined) return all;
      if (inP !== undefined) return isBlockHtml(html) ? html : `<p>${html}</p>`;
      return html;
    });
    if (next === text) return next;
    text = next;
  }
  return text;
}

/** Indented code blocks get the same highlighted markup as fenced ones. */
function highlightCodeBlocks(root: El, stashHtml: (html: string) => string): void {
  for (const pre of [...root.iter()]) {
    if (pre.tag !== "pre" || pre.children.length !== 1 || pre.children[0].tag !== "code") continue;
    const code = textOf(pre.children[0].text).replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");
    pre.tag = "p";
    pre.children = [];
    pre.attrs.clear();
    pre.text = stashHtml(formatIndentedCode(code));
  }
}

const NO_CONTEXT: RenderContext = {};

/**
 * Zulip-flavored Markdown to HTML; refuses (Zulip's "Unable to render message") what exceeds the
 * bounds in budget.ts. `uploads`: the uploaded images the content links (see uploadImagePreviews).
 */
export function renderMarkdown(content: string, ctx: RenderContext = NO_CONTEXT, uploads?: UploadImagePreviews): Rendered {
  const rendered = withRenderDeadline(() => renderUnbounded(content, ctx, uploads));
  if (rendered.html.length > MAX_RENDERED_LENGTH) throw unableToRender();
  return rendered;
}

function renderUnbounded(content: string, ctx: RenderContext, uploads: UploadImagePreviews | undefined): Rendered {
  const mentions: Mentions = { userIds: new Set(), groupIds: new Set(), streamWildcard: false, topicWildcard: false };
  const result = (html: string, hasLink = false, hasImage = false): Rendered => ({
    html,
    mentionedUserIds: [...mentions.userIds].sort((a, b) => a - b),
    wildcardMentioned: mentions.streamWildcard,
    topicWildcardMentioned: mentions.topicWildcard,
    mentionedGroupIds: [...mentions.groupIds].sort((a, b) => a - b),
    hasLink,
    hasImage,
  });
  if (!content.trim()) return result("");

  const stash: string[] = [];
  const stashHtml = (html: string) => {
    stash.push(html);
    return `\u0002wzxhzdk:${stash.length - 1}\u0003`;
  };

  let lines = separateHangingLists(content.split("\n"));
  lines = normalizeWhitespace(lines);
  lines = new FencedBlocks({ stash: stashHtml, formatCode: formatFencedCode, formatTex: formatTexBlock }).run(lines);
  const root = new BlockParser().parseDocument(lines);
  highlightCodeBlocks(root, stashHtml);

  const inline = new InlineProcessor();
  inline.patterns = patternsFor(ctx, { mentions, inline, stashHtml });
  inline.run(root);
  prettify(root);
  const linksForPreview = linksForEmbeds(root, ctx);
  const previews = addInlinePreviews(root, ctx, uploads);

  const out: string[] = [root.text === null ? "" : escapeText(textOf(root.text))];
  for (const child of root.children) serialize(child, out);
  let html = restoreStash(out.join("").trim(), stash).trim();
  // Images already thumbnailed show their thumbnail at once, as the thumbnail job would make them.
  if (uploads?.size) html = rewriteThumbnailedImages(html, uploads).html ?? html;
  return { ...result(html, previews.hasLink, previews.hasImage), linksForPreview };
}

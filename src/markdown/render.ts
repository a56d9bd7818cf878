/**
 * Message rendering. A plain renderer until the Zulip-flavored one lands: paragraphs split on
 * blank lines, single newlines become <br>, and everything is HTML-escaped.
 */
export interface Rendered {
  html: string;
  /** User ids mentioned by the content. */
  mentionedUserIds: number[];
  wildcardMentioned: boolean;
}

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
export const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => ESCAPES[c]);

export function renderMarkdown(content: string): Rendered {
  const paragraphs = content
    .trim()
    .split(/\n\s*\n/)
    .filter((p) => p.trim())
    .map((p) => `<p>${escapeHtml(p.trim()).replace(/\n/g, "<br>\n")}</p>`);
  return { html: paragraphs.join("\n"), mentionedUserIds: [], wildcardMentioned: false };
}

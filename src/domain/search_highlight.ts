/**
 * Highlighting of full-text search matches, as `match_content` and `match_subject` show them:
 * each case-insensitive occurrence of a search word in the text (never inside a tag or an
 * entity) is wrapped in `<span class="highlight">`.
 */
import type { NarrowTerm } from "./narrow.js";

/** The words of a narrow's non-negated `search` terms, lowercased. */
export function searchWords(narrow: readonly NarrowTerm[]): string[] {
  return narrow
    .filter((t) => t.operator === "search" && !t.negated)
    .flatMap((t) => String(t.operand).toLowerCase().split(/\s+/))
    .filter(Boolean);
}

function matchRanges(text: string, words: readonly string[]): [number, number][] {
  const lower = text.toLowerCase();
  // Lowercasing a few characters changes the length; offsets would not line up, so skip those.
  if (lower.length !== text.length) return [];
  const ranges: [number, number][] = [];
  for (const w of words) {
    for (let at = lower.indexOf(w); at !== -1; at = lower.indexOf(w, at + w.length)) ranges.push([at, at + w.length]);
  }
  ranges.sort((a, b) => a[0] - b[0]);
  const merged: [number, number][] = [];
  for (const r of ranges) {
    const last = merged.at(-1);
    if (last && r[0] <= last[1]) last[1] = Math.max(last[1], r[1]);
    else merged.push([r[0], r[1]]);
  }
  return merged;
}

function highlightText(text: string, words: readonly string[]): string {
  let out = "";
  let pos = 0;
  for (const [start, end] of matchRanges(text, words)) {
    out += text.slice(pos, start) + `<span class="highlight">${text.slice(start, end)}</span>`;
    pos = end;
  }
  return out + text.slice(pos);
}

/** `html`: rendered content or an escaped topic. */
export function highlightHtml(html: string, words: readonly string[]): string {
  if (!words.length) return html;
  let out = "";
  let pos = 0;
  for (const m of html.matchAll(/<[^>]*>|&[#\w]+;/g)) {
    out += highlightText(html.slice(pos, m.index), words) + m[0];
    pos = m.index + m[0].length;
  }
  return out + highlightText(html.slice(pos), words);
}

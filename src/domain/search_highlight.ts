/**
 * What a `search:` operand asks for, and the highlighting of its matches as `match_content` and
 * `match_subject` show them (each match wrapped in `<span class="highlight">`, never inside a tag
 * or an entity).
 *
 * As Zulip's full-text search: an operand is words, each of which a message must contain (any
 * case, any word with the same stem, stop words ignored), and quoted phrases, each of which must
 * also appear as written. Words of scripts written without spaces (Chinese, Japanese, Korean,
 * Thai...) are found as substrings, since no word index splits them as a reader would.
 */
import type { NarrowTerm } from "./narrow.js";
import { STOP_WORDS } from "./stop_words.js";
import { porterStem } from "./porter_stem.js";

const STOPS = new Set(STOP_WORDS);
/** A word as the index splits text: letters, combining marks and digits. */
export const WORD = /[\p{L}\p{M}\p{N}]+/gu;
const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;

export interface SearchQuery {
  /** Lowercased words for the word index: no stop words, no unspaced-script words. */
  words: string[];
  /** Lowercased text every match contains as written: quoted phrases and unspaced-script words. */
  substrings: string[];
}

/** The terms of a narrow's non-negated `search` operands, lowercased: words and quoted phrases. */
export function searchWords(narrow: readonly NarrowTerm[]): string[] {
  return narrow.filter((t) => t.operator === "search" && !t.negated).flatMap((t) => searchTerms(String(t.operand)));
}

function searchTerms(operand: string): string[] {
  return operand.toLowerCase().match(/"[^"]+"|\S+/g) ?? [];
}

/** The parts of search terms (from `searchWords`, or an operand's) that a match must satisfy. */
export function parseSearch(terms: readonly string[] | string): SearchQuery {
  const words = new Set<string>();
  const substrings = new Set<string>();
  for (const term of typeof terms === "string" ? searchTerms(terms) : terms) {
    const phrase = term.length > 2 && term.startsWith('"') && term.endsWith('"');
    if (phrase) substrings.add(term.slice(1, -1));
    for (const w of term.match(WORD) ?? []) {
      if (UNSPACED.test(w)) substrings.add(phrase ? w : term.replace(/^"|"$/g, ""));
      else if (!STOPS.has(w)) words.add(w);
    }
  }
  return { words: [...words], substrings: [...substrings] };
}

function matchRanges(text: string, query: SearchQuery, stems: ReadonlySet<string>): [number, number][] {
  const lower = text.toLowerCase();
  // Lowercasing a few characters changes the length; offsets would not line up, so skip those.
  if (lower.length !== text.length) return [];
  const ranges: [number, number][] = [];
  for (const s of query.substrings) {
    for (let at = lower.indexOf(s); at !== -1; at = lower.indexOf(s, at + s.length)) ranges.push([at, at + s.length]);
  }
  if (stems.size) {
    for (const m of lower.matchAll(WORD)) if (stems.has(porterStem(m[0]))) ranges.push([m.index, m.index + m[0].length]);
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

function highlightText(text: string, query: SearchQuery, stems: ReadonlySet<string>): string {
  let out = "";
  let pos = 0;
  for (const [start, end] of matchRanges(text, query, stems)) {
    out += text.slice(pos, start) + `<span class="highlight">${text.slice(start, end)}</span>`;
    pos = end;
  }
  return out + text.slice(pos);
}

/** `html`: rendered content or an escaped topic; `terms`: from `searchWords`. */
export function highlightHtml(html: string, terms: readonly string[]): string {
  if (!terms.length) return html;
  const query = parseSearch(terms);
  const stems = new Set(query.words.map(porterStem));
  let out = "";
  let pos = 0;
  for (const m of html.matchAll(/<[^>]*>|&[#\w]+;/g)) {
    out += highlightText(html.slice(pos, m.index), query, stems) + m[0];
    pos = m.index + m[0].length;
  }
  return out + highlightText(html.slice(pos), query, stems);
}

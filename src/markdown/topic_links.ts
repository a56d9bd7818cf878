/**
 * A message's `topic_links`: what in its topic the organization's linkifiers match, and the web
 * addresses in it, as clients show them. Unlike links in messages, the URLs are neither checked
 * nor made relative; clients escape them.
 */
import { cachedLinkifier, type Linkifier } from "./linkifiers.js";
import { joinUrl, splitUrl, WEB_LINK_RE } from "./links.js";

export interface TopicLink {
  url: string;
  text: string;
}

interface Candidate extends TopicLink {
  index: number;
  /** The linkifier's position in the order; web addresses (null) come after every linkifier. */
  precedence: number | null;
}

/** Web addresses are looked for in each run of text between these characters. */
const LINK_SPLITTER = /[ !;),'"]/g;
const WEB_LINK_AT_START = new RegExp(WEB_LINK_RE.source, WEB_LINK_RE.flags.replace("g", "") + "y");

function linkifierMatches(topic: string, linkifiers: readonly Linkifier[]): Candidate[] {
  const found: Candidate[] = [];
  linkifiers.forEach((l, precedence) => {
    const compiled = cachedLinkifier(l);
    if (!compiled) return;
    let pos = 0;
    while (pos < topic.length) {
      const m = compiled.find(topic, pos);
      if (!m) break;
      // The character after the match may begin the next one. (A match of nothing at all must
      // still move on, or this would never end.)
      pos = Math.max(m.end, pos + 1);
      found.push({ url: m.url, text: m.text, index: m.matchStart, precedence });
    }
  });
  // Stable: by linkifier, then by position.
  return found.sort((a, b) => a.precedence! - b.precedence! || a.index - b.index);
}

/** Without a scheme, an address is taken to be https, its host ending at the first slash. */
function absoluteUrl(address: string): string {
  const parts = splitUrl(address);
  if (parts.scheme) return address;
  if (!parts.netloc) {
    const slash = (parts.path + "/").indexOf("/");
    return joinUrl({ ...parts, scheme: "https", netloc: parts.path.slice(0, slash), path: parts.path.slice(slash) });
  }
  return joinUrl({ ...parts, scheme: "https" });
}

function webLinks(topic: string): Candidate[] {
  const found: Candidate[] = [];
  let pos = 0;
  while (pos < topic.length) {
    LINK_SPLITTER.lastIndex = pos;
    const split = LINK_SPLITTER.exec(topic);
    const end = split ? split.index : topic.length;
    WEB_LINK_AT_START.lastIndex = 0;
    const m = WEB_LINK_AT_START.exec(topic.slice(pos, end));
    if (m) found.push({ url: absoluteUrl(m.groups!.url), text: m.groups!.url, index: pos, precedence: null });
    pos = end + 1;
  }
  return found;
}

const overlap = (a: Candidate, b: Candidate) =>
  (b.index <= a.index && a.index < b.index + b.text.length) || (a.index <= b.index && b.index < a.index + a.text.length);

/** Earlier linkifiers win over later ones, and linkifiers over web addresses, where they overlap. */
export function topicLinks(topic: string, linkifiers: readonly Linkifier[]): TopicLink[] {
  const applied: Candidate[] = [];
  for (const candidate of [...linkifierMatches(topic, linkifiers), ...webLinks(topic)]) {
    if (applied.every((a) => !overlap(a, candidate))) applied.push(candidate);
  }
  return applied.sort((a, b) => a.index - b.index).map(({ url, text }) => ({ url, text }));
}

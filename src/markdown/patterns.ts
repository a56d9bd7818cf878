/**
 * Zulip's inline syntax, highest priority first: code spans, mentions, math, channel links,
 * times, links, linkifiers, emphasis, emoji and line breaks.
 */
import { Atomic, El } from "./engine/tree.js";
import { codeEscape, USER_MENTION_RE, GROUP_MENTION_RE, BEFORE_MENTION } from "./engine/blocks.js";
import { overlapsPlaceholder, regexPattern, type InlinePattern, type InlineProcessor, type InlineResult } from "./engine/inline.js";
import { relativeToRealm, sanitizeUrl, WEB_LINK_RE } from "./links.js";
import { cachedLinkifier, type CompiledLinkifier } from "./linkifiers.js";
import { renderTex } from "./tex.js";
import { parseTimestamp } from "./timestamp.js";
import {
  EMOTICON_RE,
  EMOTICONS,
  POSSIBLE_EMOJI_RE,
  TEXT_PRESENTATION_RE,
  ZULIP_EMOJI_URL,
  emojiCode,
  emojiCodeForName,
  emojiNameForCode,
  imageEmojiElement,
  unicodeEmojiElement,
} from "./emoji.js";
import type { RenderChannel, RenderContext, RenderGroup, RenderUser } from "./context.js";
import { audioMimeType } from "./previews.js";
import type { CamoConfig } from "./camo.js";
import { camoUrl } from "./camo.js";

/** What rendering found out, for message flags. */
export interface Mentions {
  userIds: Set<number>;
  groupIds: Set<number>;
  streamWildcard: boolean;
  topicWildcard: boolean;
}

/** Lookups built once per render context. */
export interface Lookups {
  usersByName: Map<string, RenderUser>;
  usersById: Map<number, RenderUser>;
  groupsByName: Map<string, RenderGroup>;
  channelsByName: Map<string, RenderChannel>;
  linkifiers: CompiledLinkifier[];
}

const lookupCache = new WeakMap<RenderContext, Lookups>();
const patternCache = new WeakMap<RenderContext, { env: PatternEnv; patterns: InlinePattern<any>[] }>();
export function lookupsFor(ctx: RenderContext): Lookups {
  let l = lookupCache.get(ctx);
  if (!l) {
    l = {
      usersByName: new Map((ctx.users ?? []).map((u) => [u.fullName.toLowerCase(), u])),
      usersById: new Map((ctx.users ?? []).map((u) => [u.id, u])),
      groupsByName: new Map((ctx.groups ?? []).map((g) => [g.name.toLowerCase(), g])),
      channelsByName: new Map((ctx.channels ?? []).map((c) => [c.name, c])),
      linkifiers: (ctx.linkifiers ?? []).map(cachedLinkifier).filter((c): c is CompiledLinkifier => c !== null),
    };
    lookupCache.set(ctx, l);
  }
  return l;
}

const STREAM_WILDCARDS = new Set(["all", "everyone", "stream", "channel"]);
const TOPIC_WILDCARD = "topic";

/** Zulip's URL-fragment encoding of channel and topic names (`.` for `%`). */
export function hashEncode(s: string): string {
  return encodeURIComponent(s)
    .replace(/[!'()*]/g, (c) => "%" + c.charCodeAt(0).toString(16).toUpperCase())
    .replace(/\./g, "%2E")
    .replace(/%/g, ".");
}

const encodeChannel = (c: RenderChannel) => `${c.id}-${hashEncode(c.name.replace(/ /g, "-"))}`;

function textEl(tag: string, text: string): El {
  const el = new El(tag);
  el.text = new Atomic(text);
  return el;
}

/** The link text that would be shown, and its href, or null when the URL is not allowed. */
function linkElement(ctx: RenderContext, url: string, text: string | null): El | null {
  const href = sanitizeUrl(url);
  if (href === null) return null;
  const a = new El("a").set("href", relativeToRealm(ctx.realmUrl, href));
  a.text = new Atomic(text ?? url);
  return a;
}

interface LinkParts {
  text: string;
  href: string;
  end: number;
}

/**
 * For each `[` of the text, the index of the `]` that balances it (-1 when none does), found in
 * one pass: scanning forward from every `[` would be quadratic in a run of brackets. The last
 * text is kept, since one inline pass asks about many brackets of the same text.
 */
let bracketsOf: { data: string; closing: Map<number, number> } | null = null;

function closingBrackets(data: string): Map<number, number> {
  if (bracketsOf?.data === data) return bracketsOf.closing;
  const closing = new Map<number, number>();
  const open: number[] = [];
  for (let i = 0; i < data.length; i++) {
    if (data[i] === "[") open.push(i);
    else if (data[i] === "]" && open.length) closing.set(open.pop()!, i);
  }
  for (const i of open) closing.set(i, -1);
  bracketsOf = { data, closing };
  return closing;
}

/** `[text](href)` starting after the `[` at `index`: text with balanced brackets, then the target. */
function parseLink(data: string, index: number): LinkParts | null {
  const close = closingBrackets(data).get(index - 1) ?? -1;
  if (close < 0) return null;
  const text = data.slice(index, close);
  const pos = close + 1;
  const target = parseTarget(data, pos);
  return target && { text, href: target.href, end: target.end };
}

function parseTarget(data: string, index: number): { href: string; end: number } | null {
  const m = /\(\s*(?:(<[^<>]*>)\s*(?:('[^']*'|"[^"]*")\s*)?\))?/y;
  m.lastIndex = index;
  const match = m.exec(data);
  if (!match) return null;
  if (match[1]) return { href: match[1].slice(1, -1).trim(), end: index + match[0].length };
  // Parentheses in the URL must balance; a quoted title may follow the URL.
  let depth = 1;
  let backtrack = 1;
  const start = index + match[0].length;
  let pos = start;
  let lastBracket = -1;
  let quote: string | null = null;
  let startQuote = -1;
  let exitQuote = -1;
  let ignore = false;
  let altQuote: string | null = null;
  let startAlt = -1;
  let exitAlt = -1;
  let last = "";
  let href = "";
  for (let i = pos; i < data.length; i++) {
    const c = data[i];
    if (c === "(") {
      if (!ignore) depth++;
      else if (backtrack > 0) backtrack--;
    } else if (c === ")") {
      if ((exitQuote !== -1 && quote === last) || (exitAlt !== -1 && altQuote === last)) depth = 0;
      else if (!ignore) depth--;
      else if (backtrack > 0) {
        backtrack--;
        if (backtrack === 0) lastBracket = pos + 1;
      }
    } else if (c === "'" || c === '"') {
      if (!quote) {
        ignore = true;
        backtrack = depth;
        depth = 1;
        startQuote = pos + 1;
        quote = c;
      } else if (c !== quote && !altQuote) {
        startAlt = pos + 1;
        altQuote = c;
      } else if (c === quote) {
        exitQuote = pos + 1;
      } else if (altQuote && c === altQuote) {
        exitAlt = pos + 1;
      }
    }
    pos++;
    if (depth === 0) {
      if (exitQuote >= 0 && quote === last) href = data.slice(start, startQuote - 1);
      else if (exitAlt >= 0 && altQuote === last) href = data.slice(start, startAlt - 1);
      else href = data.slice(start, pos - 1);
      break;
    }
    if (c !== " ") last = c;
  }
  if (depth !== 0 && backtrack === 0) {
    href = data.slice(start, lastBracket - 1);
    pos = lastBracket;
    depth = 0;
  }
  return depth === 0 ? { href: href.trim(), end: pos } : null;
}

/** What patterns work with; `mentions`, `inline` and `stashHtml` change with every render. */
export interface PatternEnv {
  ctx: RenderContext;
  lookups: Lookups;
  mentions: Mentions;
  inline: InlineProcessor;
  /** Stores trusted HTML (KaTeX output, entities) and returns its placeholder. */
  stashHtml(html: string): string;
}

/**
 * The inline patterns for a context, built once and reused: rendering is synchronous, so the
 * per-render parts of the environment are swapped in before each use.
 */
export function patternsFor(
  ctx: RenderContext,
  render: Pick<PatternEnv, "mentions" | "inline" | "stashHtml">,
): InlinePattern<any>[] {
  let cached = patternCache.get(ctx);
  if (!cached) {
    const env: PatternEnv = { ctx, lookups: lookupsFor(ctx), ...render };
    cached = { env, patterns: buildPatterns(env) };
    patternCache.set(ctx, cached);
  }
  Object.assign(cached.env, render);
  return cached.patterns;
}

const simple = (tag: string, group: number) => (m: RegExpExecArray): InlineResult => {
  const el = new El(tag);
  el.text = m[group];
  return { node: el };
};

function buildPatterns(env: PatternEnv): InlinePattern<any>[] {
  const { ctx, lookups } = env;

  const backtick = regexPattern(/(?:(?<!\\)((?:\\{2})+)(?=`+)|(?<!\\)(`+)(.+?)(?<!`)\2(?!`))/s, (m) => {
    if (m[3] !== undefined) return { node: textEl("code", codeEscape(m[3])) };
    return { node: m[1].slice(0, m[1].length / 2) };
  });

  const strongEm = regexPattern(
    /(\*\*\*)(?!\s+)([^*^\n]+)(?<!\s)\*\*\*/s,
    (m) => {
      const strong = new El("strong");
      strong.sub("em").text = m[2];
      return { node: strong };
    },
    true,
  );

  const userMention = regexPattern(USER_MENTION_RE, (m) => {
    let silent = m[1] === "_";
    let name = m[2];
    const isStreamWildcard = STREAM_WILDCARDS.has(name);
    const isTopicWildcard = name === TOPIC_WILDCARD;
    let user: RenderUser | undefined;
    const idSyntax = /^(.+)?\|(\d+)$/s.exec(name);
    if (idSyntax) {
      user = lookups.usersById.get(Number(idSyntax[2]));
      if (idSyntax[1] && user && user.fullName !== idSyntax[1]) return null;
    } else {
      user = lookups.usersByName.get(name.toLowerCase());
    }
    let userId: string | null = null;
    if (isStreamWildcard) {
      if (!silent) env.mentions.streamWildcard = true;
      userId = "*";
    } else if (isTopicWildcard) {
      if (!silent) env.mentions.topicWildcard = true;
    } else if (user) {
      if (!user.isActive) silent = true;
      if (!silent) env.mentions.userIds.add(user.id);
      name = user.fullName;
      userId = String(user.id);
    } else {
      return null;
    }
    const el = new El("span");
    if (userId) el.set("data-user-id", userId);
    let cls = isTopicWildcard ? "topic-mention" : isStreamWildcard ? "user-mention channel-wildcard-mention" : "user-mention";
    if (silent) cls += " silent";
    el.set("class", cls);
    el.text = new Atomic(silent ? name : `@${name}`);
    return { node: el };
  });

  const tex = regexPattern(
    /(?<![\p{L}\p{N}_])(?<!\$)\$\$([^\n_$](?:\\\$|[^$\n])*)\$\$(?!\$)(?![\p{L}\p{N}_])/su,
    (m) => {
      const html = renderTex(m[1], false);
      if (html !== null) return { node: env.stashHtml(html) };
      const span = new El("span").set("class", "tex-error");
      span.text = new Atomic(`$$${m[1]}$$`);
      return { node: span };
    },
    true,
  );

  const channelLink = (name: string) => lookups.channelsByName.get(name);

  const messageLink = regexPattern(
    new RegExp(String.raw`${BEFORE_MENTION}#\*\*([^*>]+)>([^*]*)@(\d+)\*\*`, "s"),
    (m) => {
      const channel = channelLink(m[1]);
      if (!channel) return null;
      const a = new El("a").set("class", "message-link");
      a.set("href", `/#narrow/channel/${encodeChannel(channel)}/topic/${hashEncode(m[2])}/near/${m[3]}`);
      a.text = new Atomic(`#${m[1]} > ${m[2]} @ 💬`);
      return { node: a };
    },
  );

  const topicLink = regexPattern(new RegExp(String.raw`${BEFORE_MENTION}#\*\*([^*>]+)>([^*]*)\*\*`, "s"), (m) => {
    const channel = channelLink(m[1]);
    if (!channel) return null;
    const topic = m[2];
    const a = new El("a").set("class", "stream-topic").set("data-stream-id", String(channel.id));
    let href = `/#narrow/channel/${encodeChannel(channel)}/topic/${hashEncode(topic)}`;
    const latest = ctx.topicLatestMessageId?.(channel.id, topic);
    if (latest !== undefined) href += `/with/${latest}`;
    a.set("href", href);
    if (topic === "") {
      a.text = new Atomic(`#${m[1]} > `);
      a.sub("em").text = new Atomic(ctx.emptyTopicDisplayName ?? "general chat");
    } else {
      a.text = new Atomic(`#${m[1]} > ${topic}`);
    }
    return { node: a };
  });

  const streamLink = regexPattern(new RegExp(String.raw`${BEFORE_MENTION}#\*\*([^*]+)\*\*`, "s"), (m) => {
    const channel = channelLink(m[1]);
    if (!channel) return null;
    const a = new El("a").set("class", "stream").set("data-stream-id", String(channel.id));
    a.set("href", `/#narrow/channel/${encodeChannel(channel)}`);
    a.text = new Atomic(`#${m[1]}`);
    return { node: a };
  });

  const timestamp = regexPattern(
    /<time:([^>]*?)>/s,
    (m) => {
      const iso = parseTimestamp(m[1]);
      if (iso === null) return { node: m[0] };
      const el = new El("time").set("datetime", iso);
      el.text = new Atomic(m[1]);
      return { node: el };
    },
    true,
  );

  const groupMention = regexPattern(GROUP_MENTION_RE, (m) => {
    const group = lookups.groupsByName.get(m[2].toLowerCase());
    if (!group) return null;
    const silent = m[1] === "_" || group.deactivated;
    if (!silent) env.mentions.groupIds.add(group.id);
    const name = group.displayName ?? group.name;
    const el = new El("span").set("data-user-group-id", String(group.id));
    el.set("class", silent ? "user-group-mention silent" : "user-group-mention");
    el.text = new Atomic(silent ? name : `@${name}`);
    return { node: el };
  });

  const link = regexPattern(/(?<!!)\[/, (m, data) => {
    const parts = parseLink(data, m.index + 1);
    if (!parts) return null;
    const href = sanitizeUrl(env.inline.unescape(parts.href).trim());
    if (href === null) return null;
    const a = new El("a").set("href", relativeToRealm(ctx.realmUrl, href));
    a.text = new Atomic(parts.text.trim() ? parts.text : href);
    return { node: a, start: m.index, end: parts.end };
  });

  const imageLink = regexPattern(/!\[/, (m, data) => {
    const parts = parseLink(data, m.index + 2);
    if (!parts) return null;
    const url = env.inline.unescape(parts.href).trim();
    const href = sanitizeUrl(url);
    if (href === null || !audioMimeType(href)) return null;
    const audio = new El("audio").set("controls", "controls").set("preload", "metadata");
    audio.set("data-original-url", href).set("src", proxied(ctx.camo, ctx.realmUrl, href));
    if (parts.text.trim()) audio.set("title", parts.text);
    audio.text = new Atomic("");
    return { node: audio, start: m.index, end: parts.end };
  });

  // Matches are leftmost, and a web address cannot begin inside text that ran up to an earlier
  // one without that text having matched first; so the search can go on after each link.
  const autolink: InlinePattern = {
    ...regexPattern(
      WEB_LINK_RE,
      (m) => {
        const url = m.groups!.url;
        return { node: linkElement(ctx, url, null) ?? url };
      },
      true,
    ),
    resumeAfterMatch: true,
  };

  // A linkifier never links text that other syntax has already turned into something else:
  // a pattern that can match placeholders would otherwise link its own output forever.
  const linkifiers: InlinePattern<any>[] = lookups.linkifiers.map((l) => ({
    legacy: false,
    resumeAfterMatch: true,
    find: (data: string, from: number) => {
      const found = l.find(data, from);
      return found && { ...found, start: found.start, end: found.matchEnd };
    },
    handle: (f: { start: number; end: number; text: string; url: string }, data: string) => {
      if (overlapsPlaceholder(data, f.start, f.start + f.text.length)) return null;
      const a = linkElement(ctx, f.url, f.text);
      if (!a) return null;
      return { node: a, start: f.start, end: f.start + f.text.length };
    },
  }));

  const entity = regexPattern(/&(?:#[0-9]+|#x[0-9a-fA-F]+|[a-zA-Z0-9]+);/, (m) => ({ node: env.stashHtml(m[0]) }));

  const strong = regexPattern(/\*\*([^\n]+?)\*\*/s, simple("strong", 1), true);
  const emphasis = regexPattern(/\*(?!\s+)([^*^\n]+)(?<!\s)\*/s, simple("em", 1), true);
  const del = regexPattern(/(?<!~)~~([^~\n]+?)~~(?!~)/s, simple("del", 1), true);
  const notStrong = regexPattern(/(?:^|(?<=\s))(\*{1,3}|_{1,3})(?=\s|$)/, (m) => ({ node: m[1] }));

  // An emoji name has no control characters, so no match can reach into a placeholder.
  const emoji: InlinePattern = {
    ...regexPattern(
      /:[\p{L}\p{N}_\-+]+:/u,
      (m) => {
        const name = m[0].slice(1, -1);
        const custom = ctx.realmEmoji && Object.prototype.hasOwnProperty.call(ctx.realmEmoji, name) ? ctx.realmEmoji[name] : undefined;
        if (custom !== undefined) return { node: imageEmojiElement(custom, name) };
        if (name === "zulip") return { node: imageEmojiElement(ZULIP_EMOJI_URL, name) };
        const code = emojiCodeForName(name);
        return { node: code ? unicodeEmojiElement(code, name) : m[0] };
      },
      true,
    ),
    resumeAfterMatch: true,
  };

  const emoticon = regexPattern(
    EMOTICON_RE,
    (m) => {
      if (!ctx.translateEmoticons) return null;
      const name = EMOTICONS[m[1]];
      return { node: unicodeEmojiElement(emojiCodeForName(name)!, name) };
    },
    true,
  );

  const lineBreak = regexPattern(/\n/, () => ({ node: new El("br") }));

  const unicodeEmoji = regexPattern(POSSIBLE_EMOJI_RE, (m) => {
    if (TEXT_PRESENTATION_RE.test(m[0])) return null;
    const code = emojiCode(m[0]);
    const name = emojiNameForCode(code);
    return name ? { node: unicodeEmojiElement(code, name) } : null;
  });

  return [
    backtick,
    strongEm,
    userMention,
    tex,
    messageLink,
    topicLink,
    streamLink,
    timestamp,
    groupMention,
    link,
    imageLink,
    autolink,
    ...linkifiers,
    entity,
    strong,
    emphasis,
    del,
    notStrong,
    emoji,
    emoticon,
    lineBreak,
    unicodeEmoji,
  ];
}

/** The URL to load external media from: through the camo proxy when one is configured. */
export function proxied(camo: CamoConfig | undefined, realmUrl: string | undefined, url: string): string {
  if (!camo || isOwnUrl(realmUrl, url)) return url;
  return camoUrl(camo, url);
}

function isOwnUrl(realmUrl: string | undefined, url: string): boolean {
  if (url.startsWith("/") && !url.startsWith("//")) return true;
  if (!/^[a-z][a-z0-9+.-]*:/i.test(url)) return true;
  if (!realmUrl) return false;
  try {
    return new URL(url).host === new URL(realmUrl).host;
  } catch {
    return false;
  }
}

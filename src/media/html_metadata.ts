/**
 * What a web page says about itself, for its link preview: OpenGraph tags (`og:title`,
 * `og:description`, `og:image`), then the generic fallbacks Zulip uses (`<title>` or the first
 * `<h1>`, `<meta name="description">` or the first paragraph, an image after the first `<h1>`),
 * and the page's oEmbed discovery link.
 *
 * A single forward scan with `indexOf` and character loops: every position is looked at a
 * bounded number of times, whatever the markup, so a hostile page costs time linear in the
 * (already capped) bytes read. No regular expression runs over the page.
 */

export interface PageMetadata {
  title?: string;
  description?: string;
  image?: string;
  /** The page's `<link rel="alternate" type="application/json+oembed">`. */
  oembedUrl?: string;
}

/** Texts longer than this are cut: a preview shows a line or two. */
const MAX_TEXT = 1000;
/** The most markup read for one element's text. */
const MAX_ELEMENT_SPAN = 4000;
/** Paragraphs looked into for a description; empty ones are skipped, but not endlessly. */
const MAX_PARAGRAPHS = 50;
/** Elements whose content is not markup. */
const RAW_TEXT = new Set(["script", "style", "textarea", "template", "noscript"]);

const NAMED_ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: "\u00a0", "#39": "'" };

/** Decodes character references: named ones a page's metadata commonly uses, and all numeric ones. */
export function decodeEntities(s: string): string {
  if (!s.includes("&")) return s;
  let out = "";
  let i = 0;
  while (i < s.length) {
    const amp = s.indexOf("&", i);
    if (amp < 0) break;
    out += s.slice(i, amp);
    const semi = s.indexOf(";", amp);
    // References are short; a far semicolon belongs to other text.
    if (semi < 0 || semi - amp > 10) {
      out += "&";
      i = amp + 1;
      continue;
    }
    const name = s.slice(amp + 1, semi);
    let decoded: string | undefined = NAMED_ENTITIES[name.toLowerCase()];
    if (decoded === undefined && name.startsWith("#")) {
      const code = name[1] === "x" || name[1] === "X" ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      if (Number.isInteger(code) && code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff)) decoded = String.fromCodePoint(code);
    }
    if (decoded === undefined) {
      out += "&";
      i = amp + 1;
    } else {
      out += decoded;
      i = semi + 1;
    }
  }
  return out + s.slice(i);
}

const isSpace = (c: string) => c === " " || c === "\n" || c === "\t" || c === "\r" || c === "\f";
const isNameChar = (c: string) => /[A-Za-z0-9:_.-]/.test(c);

/** Collapses white space and cuts, as a preview shows text. */
function cleanText(raw: string): string | undefined {
  let out = "";
  let space = false;
  for (let i = 0; i < raw.length && out.length < MAX_TEXT; i++) {
    const c = raw[i];
    if (isSpace(c)) space = out.length > 0;
    else {
      if (space) out += " ";
      space = false;
      out += c;
    }
  }
  const text = decodeEntities(out).trim();
  return text || undefined;
}

/** The text of markup (tags dropped), as far as the cap. */
function textOfMarkup(html: string): string | undefined {
  let out = "";
  let i = 0;
  while (i < html.length && out.length < MAX_TEXT * 2) {
    const lt = html.indexOf("<", i);
    if (lt < 0) {
      out += html.slice(i);
      break;
    }
    out += html.slice(i, lt);
    const gt = html.indexOf(">", lt);
    if (gt < 0) break;
    i = gt + 1;
  }
  return cleanText(out);
}

interface Tag {
  name: string;
  closing: boolean;
  attrs: Map<string, string>;
  /** Just past the tag's `>`. */
  end: number;
}

/**
 * Reads the tag starting at `html[lt] === "<"`: undefined when it is not one (text `<`), "eof"
 * when it never ends (nothing after it can be markup).
 */
function readTag(html: string, lt: number): Tag | undefined | "eof" {
  let i = lt + 1;
  const closing = html[i] === "/";
  if (closing) i++;
  const nameStart = i;
  while (i < html.length && isNameChar(html[i])) i++;
  if (i === nameStart) return undefined;
  const name = html.slice(nameStart, i).toLowerCase();
  const attrs = new Map<string, string>();
  while (i < html.length) {
    while (i < html.length && (isSpace(html[i]) || html[i] === "/")) i++;
    if (i >= html.length) return "eof";
    if (html[i] === ">") return { name, closing, attrs, end: i + 1 };
    const attrStart = i;
    while (i < html.length && !isSpace(html[i]) && html[i] !== "=" && html[i] !== ">" && html[i] !== "/") i++;
    const attr = html.slice(attrStart, i).toLowerCase();
    if (i === attrStart) {
      i++;
      continue;
    }
    while (i < html.length && isSpace(html[i])) i++;
    let value = "";
    if (html[i] === "=") {
      i++;
      while (i < html.length && isSpace(html[i])) i++;
      const quote = html[i];
      if (quote === '"' || quote === "'") {
        const close = html.indexOf(quote, i + 1);
        if (close < 0) return "eof";
        value = html.slice(i + 1, close);
        i = close + 1;
      } else {
        const valueStart = i;
        while (i < html.length && !isSpace(html[i]) && html[i] !== ">") i++;
        value = html.slice(valueStart, i);
      }
    }
    if (!attrs.has(attr)) attrs.set(attr, decodeEntities(value.slice(0, MAX_ELEMENT_SPAN)));
  }
  return "eof";
}

/**
 * Where the element whose content starts at `from` ends (its closing tag), or the text's end.
 * The last answer per name is kept, so unclosed elements do not each search to the end.
 */
function closingTags(lower: string): (name: string, from: number) => number {
  const found = new Map<string, number>();
  return (name, from) => {
    const known = found.get(name);
    if (known !== undefined && known >= from) return known;
    const at = lower.indexOf(`</${name}`, from);
    const end = at < 0 ? lower.length : at;
    found.set(name, end);
    return end;
  };
}

/** An element's content, read no further than MAX_ELEMENT_SPAN. */
const span = (html: string, from: number, close: number) => html.slice(from, Math.min(close, from + MAX_ELEMENT_SPAN));

/** The page's metadata, from its markup. */
export function parsePageMetadata(html: string): PageMetadata {
  // Tag names are found in a lower-cased copy: `</TITLE>` closes `<title>`.
  const lower = html.toLowerCase();
  const closingTagAt = closingTags(lower);
  const og: PageMetadata = {};
  let title: string | undefined;
  let h1Text: string | undefined;
  let seenH1 = false;
  let metaDescription: string | undefined;
  let paragraphAfterH1: string | undefined;
  let firstParagraph: string | undefined;
  let imageAfterH1: string | undefined;
  let oembedUrl: string | undefined;
  let paragraphsRead = 0;

  let i = 0;
  while (i < html.length) {
    const lt = html.indexOf("<", i);
    if (lt < 0) break;
    if (html.startsWith("<!--", lt)) {
      const close = html.indexOf("-->", lt + 4);
      i = close < 0 ? html.length : close + 3;
      continue;
    }
    if (html[lt + 1] === "!" || html[lt + 1] === "?") {
      const gt = html.indexOf(">", lt);
      i = gt < 0 ? html.length : gt + 1;
      continue;
    }
    const tag = readTag(html, lt);
    if (tag === "eof") break;
    if (!tag) {
      i = lt + 1;
      continue;
    }
    i = tag.end;
    if (tag.closing) continue;
    const { name, attrs } = tag;
    if (RAW_TEXT.has(name)) {
      const close = closingTagAt(name, i);
      i = close;
      continue;
    }
    if (name === "meta") {
      const key = (attrs.get("property") ?? attrs.get("name") ?? "").toLowerCase();
      const content = attrs.get("content");
      if (content === undefined) continue;
      if (key === "og:title" && og.title === undefined) og.title = cleanText(content);
      else if (key === "og:description" && og.description === undefined) og.description = cleanText(content);
      else if ((key === "og:image" || key === "og:image:url") && og.image === undefined) og.image = content.trim() || undefined;
      else if (key === "description" && metaDescription === undefined) metaDescription = cleanText(content);
    } else if (name === "link") {
      const type = (attrs.get("type") ?? "").toLowerCase();
      if (type === "application/json+oembed" && oembedUrl === undefined && attrs.get("href")) oembedUrl = attrs.get("href")!.trim();
    } else if (name === "title" && title === undefined) {
      const close = closingTagAt("title", i);
      title = cleanText(span(html, i, close));
      i = close;
    } else if (name === "h1" && !seenH1) {
      seenH1 = true;
      const close = closingTagAt("h1", i);
      h1Text = textOfMarkup(span(html, i, close));
    } else if (name === "p" && paragraphsRead < MAX_PARAGRAPHS && (firstParagraph === undefined || (seenH1 && paragraphAfterH1 === undefined))) {
      paragraphsRead++;
      const close = closingTagAt("p", i);
      const text = textOfMarkup(span(html, i, close));
      if (text !== undefined) {
        firstParagraph ??= text;
        if (seenH1) paragraphAfterH1 ??= text;
      }
    } else if (name === "img" && seenH1 && imageAfterH1 === undefined) {
      const src = attrs.get("src")?.trim();
      if (src) imageAfterH1 = src;
    }
  }
  return {
    title: og.title ?? title ?? h1Text,
    description: og.description ?? metaDescription ?? paragraphAfterH1 ?? firstParagraph,
    image: og.image ?? imageAfterH1,
    oembedUrl,
  };
}

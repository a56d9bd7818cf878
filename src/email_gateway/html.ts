/**
 * A mail's HTML part as Markdown, for mails without a text part (or addresses asking for
 * HTML). One pass over the input with indexOf, no backtracking patterns, so its cost is
 * linear in the input; the input is bounded by the caller.
 */

/** Elements whose content is never text of the message. */
const DROPPED = new Set(["script", "style", "head", "title", "template", "noscript"]);
/** Elements without content or end tag. */
const VOID = new Set(["br", "hr", "img", "meta", "link", "input", "wbr", "col", "area", "base", "source"]);
/** Elements that start and end a block of text. */
const BLOCK = new Set([
  "p", "div", "section", "article", "header", "footer", "table", "tr", "ul", "ol", "dl", "dt", "dd",
  "h1", "h2", "h3", "h4", "h5", "h6", "center", "address", "figure", "form", "fieldset",
]);

/**
 * Links and quotes are built from their content when they close; deeper ones are taken as
 * plain text, so nesting cannot make the work grow with the square of the input.
 */
const MAX_NESTING = 16;

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " " };

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]{1,6}|#[0-9]{1,7}|[a-z]{2,8});/gi, (whole, name: string) => {
    if (name[0] === "#") {
      const cp = name[1] === "x" || name[1] === "X" ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      return cp > 0 && cp <= 0x10ffff && !(cp >= 0xd800 && cp <= 0xdfff) ? String.fromCodePoint(cp) : whole;
    }
    return ENTITIES[name.toLowerCase()] ?? whole;
  });
}

function attribute(attrs: string, name: string): string | undefined {
  const m = new RegExp(`(?:^|\\s)${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s>]+))`, "i").exec(attrs);
  return m ? decodeEntities(m[1] ?? m[2] ?? m[3]) : undefined;
}

function isNameChar(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57);
}

/** Mail clients' markers of the earlier mail quoted below a reply. */
function isQuoteContainer(tag: string, attrs: string): boolean {
  if (!/quote|cite|appendonsend|divRplyFwdMsg/i.test(attrs)) return false;
  if (tag === "blockquote" && /\btype\s*=\s*["']?cite/i.test(attrs)) return true;
  const cls = attribute(attrs, "class") ?? "";
  const id = attribute(attrs, "id") ?? "";
  return /\b(gmail_quote|yahoo_quoted|moz-cite-prefix|protonmail_quote)\b/.test(cls) || /^(appendonsend|divRplyFwdMsg)$/.test(id);
}

interface Frame {
  tag: string;
  out: string[];
  href?: string;
}

/**
 * Markdown for the HTML. Without `includeQuotes`, the quoted earlier mail is left out where the
 * client marked it (Gmail, Apple Mail and Thunderbird's cite blocks, Yahoo, Outlook), together
 * with everything after Outlook's reply header.
 */
export function htmlToMarkdown(html: string, includeQuotes: boolean): string {
  const stack: Frame[] = [{ tag: "", out: [] }];
  const top = () => stack[stack.length - 1];
  const emit = (s: string) => top().out.push(s);
  /** Skipping the content of a dropped or quote element: its name and nesting depth. */
  let skip: { tag: string; depth: number } | undefined;
  let preDepth = 0;
  let stop = false;
  let i = 0;
  while (i < html.length && !stop) {
    const lt = html.indexOf("<", i);
    const textEnd = lt === -1 ? html.length : lt;
    if (textEnd > i && !skip) {
      const raw = decodeEntities(html.slice(i, textEnd));
      emit(preDepth ? raw : raw.replace(/\s+/g, " "));
    }
    if (lt === -1) break;
    if (html.startsWith("<!--", lt)) {
      const end = html.indexOf("-->", lt + 4);
      i = end === -1 ? html.length : end + 3;
      continue;
    }
    const gt = html.indexOf(">", lt + 1);
    if (gt === -1) break;
    i = gt + 1;
    const closing = html[lt + 1] === "/";
    let nameEnd = lt + (closing ? 2 : 1);
    const nameStart = nameEnd;
    while (nameEnd < gt && isNameChar(html.charCodeAt(nameEnd))) nameEnd++;
    if (nameEnd === nameStart) continue;
    const tag = html.slice(nameStart, nameEnd).toLowerCase();
    const attrs = html.slice(nameEnd, gt);
    if (skip) {
      if (tag === skip.tag && !VOID.has(tag)) skip.depth += closing ? -1 : 1;
      if (skip.depth === 0) skip = undefined;
      continue;
    }
    if (closing) {
      closeTag(tag);
      continue;
    }
    if (DROPPED.has(tag) || (!includeQuotes && isQuoteContainer(tag, attrs))) {
      if (!VOID.has(tag) && !attrs.trimEnd().endsWith("/")) skip = { tag, depth: 1 };
      // Outlook puts no container around the quoted mail: everything after its header goes.
      if (!includeQuotes && /^(appendonsend|divRplyFwdMsg)$/.test(attribute(attrs, "id") ?? "")) stop = true;
      continue;
    }
    openTag(tag, attrs);
  }
  while (stack.length > 1) closeTag(top().tag);
  return top()
    .out.join("")
    .split("\n")
    .map((l) => l.trimEnd())
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();

  function openTag(tag: string, attrs: string): void {
    if (tag === "br") emit("\n");
    else if (tag === "hr") emit("\n\n* * *\n\n");
    else if (tag === "img") {
      const alt = attribute(attrs, "alt");
      if (alt) emit(alt);
    } else if (tag === "li") emit("\n* ");
    else if (/^h[1-6]$/.test(tag)) emit(`\n\n${"#".repeat(Number(tag[1]))} `);
    else if (BLOCK.has(tag)) emit("\n\n");
    else if (tag === "b" || tag === "strong") emit("**");
    else if (tag === "i" || tag === "em") emit("*");
    else if (tag === "code" && !preDepth) emit("`");
    else if (tag === "pre") {
      preDepth++;
      emit("\n\n```\n");
    } else if ((tag === "a" || tag === "blockquote") && stack.length < MAX_NESTING) {
      stack.push({ tag, out: [], href: attribute(attrs, "href") });
    }
    if (tag === "td" || tag === "th") emit(" ");
  }

  function closeTag(tag: string): void {
    if (tag === "a" || tag === "blockquote") {
      // Close what was left open inside, up to the matching element.
      let at = stack.length - 1;
      while (at > 0 && stack[at].tag !== tag) at--;
      if (at < 1) return;
      while (stack.length - 1 > at) closeTag(top().tag);
      const frame = stack.pop()!;
      const inner = frame.out.join("");
      if (tag === "blockquote") {
        const lines = inner.trim().split("\n");
        emit(`\n\n${lines.map((l) => `> ${l.trim()}`.trimEnd()).join("\n")}\n\n`);
      } else {
        const text = inner.trim();
        const href = frame.href;
        emit(href && /^(https?|mailto):/i.test(href) && text !== href ? `[${text || href}](${href})` : text);
      }
      return;
    }
    if (/^h[1-6]$/.test(tag) || BLOCK.has(tag)) emit("\n\n");
    else if (tag === "b" || tag === "strong") emit("**");
    else if (tag === "i" || tag === "em") emit("*");
    else if (tag === "code" && !preDepth) emit("`");
    else if (tag === "pre" && preDepth) {
      preDepth--;
      emit("\n```\n\n");
    }
  }
}

/**
 * Freshdesk ticket webhooks: new tickets (their HTML description turned into Markdown as Zulip
 * turns it), notes, and status or priority changes, one topic per ticket. Freshdesk
 * authenticates with HTTP Basic (the endpoint's part).
 */
import { field, str } from "./git.js";
import { AnomalousPayload, type Integration } from "./types.js";

/** Freshdesk's API names statuses and priorities only by number; these are the defaults Zulip assumes. */
const STATUSES = ["", "", "Open", "Pending", "Resolved", "Closed", "Waiting on Customer", "Job Application", "Monthly"];
const PRIORITIES = ["", "Low", "Medium", "High", "Urgent"];

function propertyValue(property: string, index: number): string {
  const names = property === "status" ? STATUSES : property === "priority" ? PRIORITIES : undefined;
  if (names === undefined) return "";
  if (index >= names.length) return String(index);
  // Python indexes lists from the end with negative numbers; beyond that it fails.
  const name = names.at(index);
  if (name === undefined) throw new AnomalousPayload();
  return name;
}

/**
 * `{ticket_action:created}` → [ticket_action, created]; `{status:{from:4,to:6}}` → [status, Resolved,
 * Waiting on Customer]. The event is not JSON (its words are unquoted).
 */
function parseEvent(event: string): string[] {
  const parts = event.replaceAll("{", "").replaceAll("}", "").replaceAll(",", ":").split(":");
  if (parts.length === 2) return parts;
  if (parts.length !== 5) throw new AnomalousPayload();
  const [property, , from, , to] = parts as [string, string, string, string, string];
  return [property, propertyValue(property, pythonInt(from)), propertyValue(property, pythonInt(to))];
}

function pythonInt(text: string): number {
  const trimmed = text.trim();
  if (!/^[+-]?\d+$/.test(trimmed)) throw new AnomalousPayload();
  return Number(trimmed);
}

const capitalize = (word: string) => word.charAt(0).toUpperCase() + word.slice(1).toLowerCase();

export const freshdesk: Integration = {
  name: "freshdesk",
  displayName: "Freshdesk",
  handle(request) {
    const ticket = field(request.json, "freshdesk_webhook");
    const ticketField = (name: string) => str(ticket, name);
    const topic = `#${ticketField("ticket_id")}: ${ticketField("ticket_subject")}`;
    const [kind, first, second] = parseEvent(ticketField("triggered_event"));
    const who = `${ticketField("requester_name")} <${ticketField("requester_email")}>`;
    const link = `[ticket #${ticketField("ticket_id")}](${ticketField("ticket_url")})`;
    let content: string;
    if (first === "created") {
      content =
        `${who} created ${link}:\n\n\`\`\` quote\n${htmlToMarkdown(ticketField("ticket_description"))}\n\`\`\`\n\n` +
        `* **Type**: ${ticketField("ticket_type")}\n* **Priority**: ${ticketField("ticket_priority")}\n* **Status**: ${ticketField("ticket_status")}`;
    } else if (kind === "note_type") {
      content = `${who} added a ${first} note to ${link}.`;
    } else if (kind === "status" || kind === "priority") {
      content = `${who} updated ${link}:\n\n* **${capitalize(kind)}**: ${first} -> ${second}`;
    } else {
      return { messages: [] };
    }
    return { messages: [{ topic, content }] };
  },
};

/** Paragraphs are filled to this width, as html2text does by default. */
const WRAP_WIDTH = 78;

/**
 * HTML to Markdown the way Zulip converts Freshdesk's descriptions (html2text's defaults, then
 * inline images shown as links named by their file): paragraphs, line breaks, links, images,
 * bold and italics; other tags keep only their text.
 */
export function htmlToMarkdown(html: string): string {
  const out = new MarkdownWriter();
  let i = 0;
  while (i < html.length) {
    if (html.startsWith("<!--", i)) {
      const end = html.indexOf("-->", i + 4);
      i = end < 0 ? html.length : end + 3;
      continue;
    }
    if (html[i] === "<") {
      const end = html.indexOf(">", i);
      if (end < 0) {
        out.text(html.slice(i));
        break;
      }
      out.tag(html.slice(i + 1, end));
      i = end + 1;
      continue;
    }
    const next = html.indexOf("<", i);
    const stop = next < 0 ? html.length : next;
    out.text(html.slice(i, stop));
    i = stop;
  }
  return linkImages(fill(out.finish()).trim());
}

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " " };

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]{1,6}|#[0-9]{1,7}|[a-z]{2,8});/gi, (whole, name: string) => {
    if (name[0] === "#") {
      const code = name[1] === "x" || name[1] === "X" ? Number.parseInt(name.slice(2), 16) : Number(name.slice(1));
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[name.toLowerCase()] ?? whole;
  });
}

/** Backslashes before Markdown punctuation, and list-like starts of a line, are escaped as html2text escapes text. */
function escapeText(text: string): string {
  return text
    .replace(/\\(?=[\\`*_{}[\]()#+\-.!])/g, "\\\\")
    .replace(/^([^\S\n]*\d+)\.(?=\s)/gm, "$1\\.")
    .replace(/^([^\S\n]*)\+(?=\s)/gm, "$1\\+")
    .replace(/^([^\S\n]*)-(?=\s|-)/gm, "$1\\-");
}

/** Brackets, parentheses and backslashes in link parts. */
const escapeLinkPart = (text: string) => text.replace(/[\\[\]()]/g, (c) => `\\${c}`);

function attribute(tag: string, name: string): string | undefined {
  const match = new RegExp(`\\s${name}\\s*=\\s*("[^"]*"|'[^']*'|[^\\s"'>]+)`, "i").exec(tag);
  if (!match) return undefined;
  const raw = match[1]!;
  return decodeEntities(raw[0] === '"' || raw[0] === "'" ? raw.slice(1, -1) : raw);
}

/** html2text's output state: paragraph breaks and spaces are owed, then written before the next text. */
class MarkdownWriter {
  private readonly parts: string[] = [];
  private atStart = true;
  private owedNewlines = 0;
  private owedSpace = false;
  private lastWasNewline = false;
  private linkHref: string | undefined;

  text(raw: string): void {
    this.write(escapeText(decodeEntities(raw)), true);
  }

  tag(inner: string): void {
    const closing = inner.startsWith("/");
    const name = /^\/?\s*([a-z0-9]+)/i.exec(inner)?.[1]?.toLowerCase() ?? "";
    switch (name) {
      case "p":
      case "div":
        this.owedNewlines = 2;
        break;
      case "br":
        if (!closing) this.write("  \n");
        break;
      case "strong":
      case "b":
        this.write("**");
        break;
      case "em":
      case "i":
        this.write("_");
        break;
      case "a":
        if (!closing) {
          this.linkHref = attribute(inner, "href");
          if (this.linkHref !== undefined) this.write("[");
        } else if (this.linkHref !== undefined) {
          this.write(`](${escapeLinkPart(this.linkHref)})`);
          this.linkHref = undefined;
        }
        break;
      case "img": {
        const src = attribute(inner, "src");
        if (!closing && src !== undefined) this.write(`![${escapeLinkPart(attribute(inner, "alt") ?? "")}](${escapeLinkPart(src)})`);
        break;
      }
    }
  }

  private write(data: string, pure = false): void {
    let text = data;
    if (pure) {
      text = text.replace(/\s+/g, " ");
      if (text.startsWith(" ")) {
        this.owedSpace = true;
        text = text.slice(1);
      }
    }
    if (!text) return;
    if (this.atStart) {
      this.owedSpace = false;
      this.owedNewlines = 0;
      this.atStart = false;
    }
    if (this.owedNewlines) {
      this.emit("\n".repeat(this.owedNewlines));
      this.owedSpace = false;
    }
    if (this.owedSpace) {
      if (!this.lastWasNewline) this.emit(" ");
      this.owedSpace = false;
    }
    this.owedNewlines = 0;
    this.emit(text);
  }

  private emit(text: string): void {
    this.parts.push(text);
    this.lastWasNewline = text.endsWith("\n");
  }

  finish(): string {
    return this.parts.join("");
  }
}

/** Lines html2text leaves unfilled: code, lists and tables. */
function keepsShape(line: string): boolean {
  if (line.startsWith("    ") || line.startsWith("\t")) return true;
  const stripped = line.trimStart();
  if (stripped.startsWith("--") && stripped.length > 2 && stripped[2] !== "-") return false;
  if ((stripped.startsWith("-") || stripped.startsWith("*")) && !stripped.startsWith("**")) return true;
  if (line.includes("|")) return true;
  return /^(\d+\.|[-*+])\s/.test(stripped);
}

/** html2text's paragraph filling: each line becomes a paragraph wrapped at the width, with at most one blank line between. */
function fill(text: string): string {
  let result = "";
  let newlines = 0;
  for (const line of text.split("\n")) {
    if (line.length === 0) {
      if (newlines < 2) {
        result += "\n";
        newlines++;
      }
    } else if (!keepsShape(line)) {
      result += wrap(line, WRAP_WIDTH).join("\n");
      if (line.endsWith("  ")) {
        result += "  \n";
        newlines = 1;
      } else {
        result += "\n\n";
        newlines = 2;
      }
    } else if (line.trim() !== "") {
      result += `${line}\n`;
      newlines = 1;
    }
  }
  return result;
}

/** Greedy filling on spaces, words longer than the width left whole, spaces at line ends dropped (Python's textwrap). */
function wrap(line: string, width: number): string[] {
  const lines: string[] = [];
  let current = "";
  for (const chunk of line.replace(/\s/g, " ").split(/( +)/)) {
    if (!chunk) continue;
    const isSpace = chunk.startsWith(" ");
    if (Array.from(current + chunk).length <= width) {
      if (!(isSpace && current === "")) current += chunk;
    } else if (isSpace) {
      lines.push(current.trimEnd());
      current = "";
    } else {
      if (current.trim() !== "") lines.push(current.trimEnd());
      current = chunk;
    }
  }
  if (current.trim() !== "") lines.push(current.trimEnd());
  return lines;
}

/**
 * Zulip shows an inline image `![](https://host/path/name.png?v=1)` as the link `[name.png](https://host/path/name.png)`.
 * Its pattern spans one run of non-space characters, so each run is examined once.
 */
function linkImages(markdown: string): string {
  let result = "";
  let pos = 0;
  for (;;) {
    const start = markdown.indexOf("![](", pos);
    if (start < 0) break;
    let runEnd = start + 4;
    while (runEnd < markdown.length && !/\s/.test(markdown[runEnd]!)) runEnd++;
    const run = markdown.slice(start + 4, runEnd);
    const paren = run.lastIndexOf(")");
    const query = paren > 0 ? run.lastIndexOf("?", paren - 1) : -1;
    const slash = query > 0 ? run.lastIndexOf("/", query - 1) : -1;
    if (slash < 0) {
      result += markdown.slice(pos, runEnd);
      pos = runEnd;
      continue;
    }
    const [base, name] = [run.slice(0, slash), run.slice(slash + 1, query)];
    result += `${markdown.slice(pos, start)}[${name}](${base}/${name})`;
    pos = start + 4 + paren + 1;
  }
  return result + markdown.slice(pos);
}

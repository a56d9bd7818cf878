/**
 * Slack-compatible incoming webhooks: a Slack message payload (JSON body, or form field
 * `payload`) becomes Zulip Markdown — Block Kit blocks, legacy attachments, then plain `text`,
 * with Slack's `<url|label>` links and `*bold*` / `_italic_` marks translated.
 */
import { missingArgument } from "../http/errors.js";
import { AnomalousPayload, type Integration, type WebhookRequest } from "./types.js";

type Json = unknown;
type Obj = Record<string, Json>;

const isObj = (v: Json): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
/** Python truthiness of a JSON value. */
const truthy = (v: Json): boolean =>
  v !== undefined && v !== null && v !== false && v !== 0 && v !== "" && !(Array.isArray(v) && !v.length) && !(isObj(v) && !Object.keys(v).length);

function str(v: Json): string {
  if (typeof v !== "string") throw new AnomalousPayload();
  return v;
}
function list(v: Json): Json[] {
  if (!Array.isArray(v)) throw new AnomalousPayload();
  return v;
}
function obj(v: Json): Obj {
  if (!isObj(v)) throw new AnomalousPayload();
  return v;
}
function oneOf(v: Json, allowed: readonly string[]): string {
  const s = str(v);
  if (!allowed.includes(s)) throw new AnomalousPayload();
  return s;
}
/** A text object: `{type: "plain_text" | "mrkdwn", text}`. */
function textOf(v: Json, plainOnly = false): string {
  const o = obj(v);
  oneOf(o.type, plainOnly ? ["plain_text"] : ["plain_text", "mrkdwn"]);
  return str(o.text);
}

/** Pieces stripped, empty ones dropped, joined by blank lines. */
function joinPieces(pieces: string[]): string {
  return pieces
    .map((p) => p.trim())
    .filter((p) => p !== "")
    .join("\n\n");
}

function payloadOf(request: WebhookRequest): Json {
  // Slack posts `payload=<JSON>` as a form, or the JSON itself as the body.
  const raw = request.form.payload ?? request.params.payload;
  if (raw !== undefined) {
    try {
      return JSON.parse(raw);
    } catch {
      throw new AnomalousPayload();
    }
  }
  if (request.json !== undefined) return request.json;
  const contentType = (request.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
  if (contentType === "application/json") throw new AnomalousPayload();
  throw missingArgument("payload");
}

function renderElement(element: Json): string {
  const e = obj(element);
  if (str(e.type) !== "image") return "";
  return `[${str(e.alt_text)}](${str(e.image_url)})`;
}

function renderBlock(block: Json): string {
  const b = obj(block);
  const type = oneOf(b.type, ["actions", "context", "divider", "header", "image", "input", "section"]);
  switch (type) {
    case "context": {
      if (!truthy(b.elements)) return "";
      return joinPieces(
        list(b.elements).map((element) => {
          const kind = oneOf(obj(element).type, ["image", "plain_text", "mrkdwn"]);
          return kind === "image" ? renderElement(element) : textOf(element);
        }),
      );
    }
    case "divider":
      return "----";
    case "header":
      return "## " + textOf(b.text, true);
    case "image": {
      const url = str(b.image_url);
      let alt = str(b.alt_text);
      if ("title" in b) alt = textOf(b.title, true);
      return `[${alt}](${url})`;
    }
    case "section": {
      const pieces: string[] = [];
      if ("text" in b) pieces.push(textOf(b.text));
      if ("accessory" in b) pieces.push(renderElement(b.accessory));
      if ("fields" in b) {
        const fields = list(b.fields).map((f) => textOf(f));
        if (fields.length === 1) pieces.push(fields[0]!);
        else {
          // A table cannot hold newlines or unescaped pipes; Slack shows fields in two columns.
          const cells = fields.map((f) => f.replaceAll("\n", " ").replaceAll("|", " "));
          let table = "| | |\n|-|-|\n";
          for (let i = 0; i < cells.length; i += 2) table += `| ${cells[i]} | ${cells[i + 1] ?? ""} |\n`;
          pieces.push(table);
        }
      }
      return joinPieces(pieces);
    }
    default:
      // actions and input are interactive; nothing to show.
      return "";
  }
}

function renderAttachment(attachment: Json): string {
  const a = obj(attachment);
  const pieces: string[] = [];
  if (truthy(a.title)) {
    const title = str(a.title);
    pieces.push(truthy(a.title_link) ? `## [${title}](${str(a.title_link)})` : `## ${title}`);
  }
  if (truthy(a.pretext)) pieces.push(str(a.pretext));
  if (truthy(a.text)) pieces.push(str(a.text));
  if ("fields" in a) {
    const lines: string[] = [];
    for (const field of list(a.fields)) {
      const f = obj(field);
      if (truthy(f.title) && truthy(f.value)) lines.push(`*${str(f.title)}*: ${str(f.value)}`);
      else if (truthy(f.title)) lines.push(`*${str(f.title)}*`);
      else if (truthy(f.value)) lines.push(str(f.value));
    }
    pieces.push(lines.join("\n"));
  }
  if (truthy(a.blocks)) pieces.push(...list(a.blocks).map(renderBlock));
  if (truthy(a.image_url)) pieces.push(`[](${str(a.image_url)})`);
  if (truthy(a.footer)) pieces.push(str(a.footer));
  if (truthy(a.ts)) {
    if (typeof a.ts !== "number" || !Number.isInteger(a.ts)) throw new AnomalousPayload();
    pieces.push(`<time:${a.ts}>`);
  }
  return joinPieces(pieces);
}

const WORD = /[\p{L}\p{N}_]/u;

/**
 * Slack's `<scheme://target|label>` links as Markdown links, with the matches Python's
 * `<(\w+?://.*?)\|(.*?)>` would find, in one pass (the regular expression is quadratic on
 * hostile input): the target runs to the first `|` of the line, the label to the next `>`.
 */
export function replaceLinks(text: string): string {
  const n = text.length;
  // Next `|`, `>` and newline at or after each position.
  const nextOf = (ch: string) => {
    const next = new Int32Array(n + 1).fill(n);
    for (let i = n - 1; i >= 0; i--) next[i] = text[i] === ch ? i : next[i + 1]!;
    return next;
  };
  const nextPipe = nextOf("|");
  const nextGt = nextOf(">");
  const nextNl = nextOf("\n");
  let out = "";
  let copied = 0;
  let i = 0;
  while (i < n) {
    if (text[i] !== "<") {
      i++;
      continue;
    }
    let j = i + 1;
    while (j < n && WORD.test(text[j]!)) j++;
    const schemeOk = j > i + 1 && text.startsWith("://", j);
    if (schemeOk) {
      const lineEnd = nextNl[i]!;
      const pipe = nextPipe[j + 3]!;
      const gt = pipe < lineEnd ? nextGt[pipe + 1]! : n;
      if (pipe < lineEnd && gt < lineEnd) {
        out += text.slice(copied, i) + `[${text.slice(pipe + 1, gt)}](${text.slice(i + 1, pipe)})`;
        copied = gt + 1;
        i = gt + 1;
        continue;
      }
    }
    i++;
  }
  return out + text.slice(copied);
}

/** Slack's `*bold*` is Zulip's `**bold**`; Slack's `_italic_` is Zulip's `*italic*`. */
export function replaceFormatting(text: string): string {
  return text
    .replace(/([^\p{L}\p{N}_]|^)\*(?!\s)([^*\n]+)(?<!\s)\*((?=[^\p{L}\p{N}_])|$)/gu, "$1**$2**$3")
    .replace(/([^\p{L}\p{N}_]|^)_(?!\s)([^_\n]+)(?<!\s)_((?=[^\p{L}\p{N}_])|$)/gu, "$1*$2*$3");
}

export const slackIncoming: Integration = {
  name: "slack_incoming",
  displayName: "SlackIncoming",
  handle(request) {
    const payload = obj(payloadOf(request));
    let topic = request.params.topic;
    if (topic === undefined && "channel" in payload) topic = str(payload.channel).replace(/^[@#]/, "");
    topic ??= "(no topic)";

    const pieces: string[] = [];
    if (truthy(payload.blocks)) pieces.push(...list(payload.blocks).map(renderBlock));
    if (truthy(payload.attachments)) pieces.push(...list(payload.attachments).map(renderAttachment));
    let body = joinPieces(pieces);
    if (body === "" && truthy(payload.text)) {
      if (truthy(payload.icon_emoji)) body = str(payload.icon_emoji) + " ";
      body = (body + str(payload.text)).trim();
    }
    if (body === "") return { messages: [] };
    return { messages: [{ topic, content: replaceFormatting(replaceLinks(body).trim()) }] };
  },
};

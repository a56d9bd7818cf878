/**
 * Jira: issues created, updated (assignment, status and field changes, comments) and deleted,
 * and the newer comment events, as Zulip words them. Jira's wiki markup in comments becomes
 * Markdown by single passes over the text, so no input can make the conversion backtrack.
 */
import { display, has, payloadObject } from "./format.js";
import { field, str, truthy } from "./git.js";
import { AnomalousPayload, UnsupportedEvent, type Integration, type WebhookRequest } from "./types.js";

const IGNORED_EVENTS = new Set([
  "attachment_created",
  "issuelink_created",
  "issuelink_deleted",
  "jira:version_released",
  "jira:worklog_updated",
  "sprint_closed",
  "sprint_started",
  "worklog_created",
  "worklog_updated",
]);

/** Python's `string.punctuation`. */
const PUNCTUATION = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~";

/** The first index ≥ from where `needle` occurs, remembered so that scanning the text left to right stays linear. */
function nextFinder(text: string, needle: string): (from: number) => number {
  let found = -2;
  return (from) => {
    if (found === -1 || (found >= from && found !== -2)) return found;
    found = text.indexOf(needle, from);
    return found;
  };
}

/** `*bold*` → `**bold**`. */
function bold(text: string): string {
  return text.replace(/\*([^*]+)\*/g, "**$1**");
}

/** `{{mono}}` → `` `mono` ``: the shortest run up to `}}` that holds no `*`. */
function monospace(text: string): string {
  const close = nextFinder(text, "}}");
  const star = nextFinder(text, "*");
  let out = "";
  let last = 0;
  let i = text.indexOf("{{");
  while (i >= 0) {
    const end = close(i + 3);
    if (end < 0) break;
    const s = star(i + 2);
    if (s < 0 || s >= end) {
      out += text.slice(last, i) + "`" + text.slice(i + 2, end) + "`";
      last = end + 2;
      i = text.indexOf("{{", last);
    } else {
      i = text.indexOf("{{", i + 1);
    }
  }
  return out + text.slice(last);
}

/** `{tag}…{tag}` blocks, the shortest span each. */
function blocks(text: string, tag: string, open: string): string {
  let out = "";
  let last = 0;
  for (let i = text.indexOf(tag); i >= 0; ) {
    const end = text.indexOf(tag, i + tag.length);
    if (end < 0) break;
    out += text.slice(last, i) + `${open}\n${text.slice(i + tag.length, end)}\n~~~`;
    last = end + tag.length;
    i = text.indexOf(tag, last);
  }
  return out + text.slice(last);
}

/** `{code[:lang]}…{code}`: the opener runs to the last `}` on its line that still leaves a closing `{code}`. */
function codeBlocks(text: string): string {
  let out = "";
  let last = 0;
  let i = text.indexOf("{code");
  while (i >= 0) {
    const lineEnd = text.indexOf("\n", i);
    let limit = text.length;
    let match: [number, number] | undefined;
    for (let b = text.lastIndexOf("}", lineEnd < 0 ? text.length : lineEnd); b >= i + 5; b = text.lastIndexOf("}", b - 1)) {
      const c = text.indexOf("{code}", b + 1);
      if (c >= 0 && c < limit) {
        match = [b, c];
        break;
      }
      limit = Math.min(limit, b);
      if (b === 0) break;
    }
    if (!match) {
      i = text.indexOf("{code", i + 1);
      continue;
    }
    const [brace, end] = match;
    out += text.slice(last, i) + `~~~\n${text.slice(brace + 1, end)}\n~~~`;
    last = end + 6;
    i = text.indexOf("{code", last);
  }
  return out + text.slice(last);
}

/** `[url]` → `[url](url)`: the shortest bracketed run without `|` or `~`. */
function bareLinks(text: string): string {
  const close = nextFinder(text, "]");
  const pipe = nextFinder(text, "|");
  const tilde = nextFinder(text, "~");
  let out = "";
  let last = 0;
  let i = text.indexOf("[");
  while (i >= 0) {
    const end = close(i + 2);
    if (end < 0) break;
    const p = pipe(i + 1);
    const t = tilde(i + 1);
    if ((p < 0 || p >= end) && (t < 0 || t >= end)) {
      const inner = text.slice(i + 1, end);
      out += text.slice(last, i) + `[${inner}](${inner})`;
      last = end + 1;
      i = text.indexOf("[", last);
    } else {
      i = text.indexOf("[", i + 1);
    }
  }
  return out + text.slice(last);
}

/** `[title|url]` → `[title](url)`. */
function titledLinks(text: string): string {
  const close = nextFinder(text, "]");
  const pipe = nextFinder(text, "|");
  const tilde = nextFinder(text, "~");
  let out = "";
  let last = 0;
  let i = text.indexOf("[");
  while (i >= 0) {
    const p = pipe(i + 1);
    if (p < 0) break;
    const t = tilde(i + 1);
    const end = close(p + 1);
    if (end < 0) break;
    if (p > i + 1 && (t < 0 || t > p)) {
      out += text.slice(last, i) + `[${text.slice(i + 1, p)}](${text.slice(p + 1, end)})`;
      last = end + 1;
      i = text.indexOf("[", last);
    } else {
      i = text.indexOf("[", i + 1);
    }
  }
  return out + text.slice(last);
}

/** `[~username]` → `**username**`: Zulip's guess at a matching Zulip user needs the organization's users, so the Jira name is shown. */
function mentions(text: string): string {
  let out = "";
  let last = 0;
  for (let i = text.indexOf("[~"); i >= 0; ) {
    const end = text.indexOf("]", i + 2);
    if (end < 0) break;
    const name = text.slice(i + 2, end);
    if (name.includes("\n")) {
      i = text.indexOf("[~", i + 1);
      continue;
    }
    out += text.slice(last, i) + `**${name}**`;
    last = end + 1;
    i = text.indexOf("[~", last);
  }
  return out + text.slice(last);
}

export function convertJiraMarkup(content: string): string {
  let text = monospace(bold(content));
  text = text.replace(/bq\. ([^\n]*)/g, "> $1");
  text = blocks(text, "{quote}", "~~~ quote");
  text = blocks(text, "{noformat}", "~~~");
  text = codeBlocks(text);
  return mentions(titledLinks(bareLinks(text)));
}

/** A string at `path`, or `fallback` where some step of it is missing. */
function textAt(payload: unknown, path: string[], fallback = ""): string {
  const v = field(payload, ...path);
  return v === undefined ? fallback : display(v);
}

function issueId(payload: Record<string, unknown>): string {
  // Ancient Jira versions post comment events without the issue: its internal id is in the comment's URL.
  if (!has(payload, "issue")) return str(payload, "comment", "self").split("/").at(-3) ?? "";
  return textAt(payload, ["issue", "key"]);
}

function issueTitle(payload: Record<string, unknown>): string {
  if (!has(payload, "issue")) return "Upgrade Jira to get the issue title here.";
  return textAt(payload, ["issue", "fields", "summary"]);
}

/** The issue as a link to its browse page, guessed from its REST URL (the payload has no browse URL). */
function issueString(payload: Record<string, unknown>, id = issueId(payload), withTitle = false): string {
  const text = withTitle ? `${id}: ${issueTitle(payload)}` : id;
  const self = textAt(payload, ["issue", "self"]).split("\n")[0]!;
  const rest = self.lastIndexOf("/rest/api/");
  return rest >= 0 ? `[${text}](${self.slice(0, rest)}/browse/${id})` : text;
}

const author = (payload: unknown) => textAt(payload, ["user", "displayName"]);

function changeLine(field: string | null, from: string | null, to: string): string {
  let line = `* Changed ${display(field)}`;
  if (from) line += ` from **${from}**`;
  return line + ` to ${to}\n`;
}

function subEvent(payload: Record<string, unknown>): string {
  const sub = textAt(payload, ["issue_event_type_name"]);
  if (sub !== "") return sub;
  if (truthy(payload.comment)) return "issue_commented";
  if (truthy(payload.transition)) return "issue_transited";
  return sub;
}

function updatedIssue(payload: Record<string, unknown>, request: WebhookRequest): string {
  const issue = issueString(payload, textAt(payload, ["issue", "key"]), true);
  // Zulip names the assignee by the full name of the organization's user with this email, if any.
  const assigneeEmail = textAt(payload, ["issue", "fields", "assignee", "emailAddress"]);
  const assigneeMention = assigneeEmail === "" ? "" : `**${request.userName?.(assigneeEmail) ?? assigneeEmail}**`;
  const assigneeBlurb = assigneeMention ? ` (assigned to ${assigneeMention})` : "";
  const sub = subEvent(payload);
  if (sub.includes("comment")) {
    const verb =
      sub === "issue_commented" ? "commented on" : sub === "issue_comment_edited" ? "edited a comment on" : "deleted a comment from";
    const who =
      payload.webhookEvent === "comment_created" ? str(payload, "comment", "author", "displayName") : author(payload);
    const content = `${who} ${verb} ${issue}${assigneeBlurb}`;
    const comment = textAt(payload, ["comment", "body"]);
    return comment ? `${content}:\n\n\`\`\` quote\n${convertJiraMarkup(comment)}\n\`\`\`` : `${content}.`;
  }
  let content = `${author(payload)} updated ${issue}${assigneeBlurb}:\n\n`;
  const changelog = payload.changelog;
  if (truthy(changelog)) {
    const items = field(changelog, "items");
    for (const item of Array.isArray(items) ? items : []) {
      const name = field(item, "field");
      const to = name === "assignee" && assigneeMention ? assigneeMention : `**${display(field(item, "toString") ?? null)}**`;
      const from = field(item, "fromString");
      content += changeLine(name === undefined ? null : display(name), typeof from === "string" ? from : null, to);
    }
  } else if (sub === "issue_transited") {
    content += changeLine("status", textAt(payload, ["transition", "from_status"]), `**${textAt(payload, ["transition", "to_status"])}**`);
  }
  return content;
}

function createdIssue(payload: Record<string, unknown>): string {
  return (
    `${author(payload)} created ${issueString(payload, undefined, true)}:\n\n` +
    `* **Priority**: ${textAt(payload, ["issue", "fields", "priority", "name"])}\n` +
    `* **Assignee**: ${textAt(payload, ["issue", "fields", "assignee", "displayName"], "no one")}`
  );
}

function deletedIssue(payload: Record<string, unknown>): string {
  const title = issueTitle(payload);
  const punctuation = title.length > 0 && PUNCTUATION.includes(title.at(-1)!) ? "" : ".";
  return `${author(payload)} deleted ${issueString(payload, undefined, true)}${punctuation}`;
}

/** Jira escapes `!` in comment bodies. */
const commentBody = (payload: unknown) => str(payload, "comment", "body").replaceAll("\\!", "!");

const commentEvent = (verb: string, wrap = (s: string) => s) => (payload: Record<string, unknown>) =>
  `${str(payload, "comment", "author", "displayName")} ${verb} ${issueString(payload, undefined, true)}\n` +
  `\`\`\` quote\n${wrap(commentBody(payload))}\n\`\`\``;

const CONTENT: Record<string, (payload: Record<string, unknown>, request: WebhookRequest) => string> = {
  "jira:issue_created": createdIssue,
  "jira:issue_deleted": deletedIssue,
  "jira:issue_updated": updatedIssue,
  comment_created: commentEvent("commented on"),
  comment_updated: commentEvent("updated their comment on"),
  comment_deleted: commentEvent("deleted their comment on", (s) => `~~${s}~~`),
};

export const jira: Integration = {
  name: "jira",
  displayName: "Jira",
  handle(request) {
    const payload = payloadObject(request.json);
    let event = payload.webhookEvent;
    if ((event === undefined || event === null) && truthy(payload.transition)) event = "jira:issue_updated";
    if (typeof event === "string" && IGNORED_EVENTS.has(event)) return { messages: [] };
    if (event === undefined || event === null) throw new AnomalousPayload();
    const name = display(event);
    const content = Object.hasOwn(CONTENT, name) ? CONTENT[name] : undefined;
    if (!content) throw new UnsupportedEvent(name);
    return {
      event: name,
      unquoteTopic: true,
      messages: [{ topic: `${issueId(payload)}: ${issueTitle(payload)}`, content: content(payload, request) }],
    };
  },
};


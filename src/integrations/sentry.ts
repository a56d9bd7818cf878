/**
 * Sentry: issue alerts and events from the internal integration, the same events from a plain
 * webhook, and the old plugin's payload, as Zulip words them.
 */
import { at, display, has, isObject, payloadObject } from "./format.js";
import { field, list, str, truthy } from "./git.js";
import { AnomalousPayload, UnsupportedEvent, type Integration, type WebhookMessage } from "./types.js";

/** Sentry's platform names → the code block language of the traceback. */
const HIGHLIGHT: Record<string, string> = {
  go: "go",
  java: "java",
  javascript: "javascript",
  node: "javascript",
  python: "python3",
  ruby: "ruby",
};

/** An ISO time as Zulip shows it: seconds precision, a space for the T, the zone left off. */
function shortTime(iso: string): string {
  return iso.split(".")[0]!.replace("T", " ");
}

function tracebackLines(lines: unknown): string {
  if (!Array.isArray(lines)) return "";
  return lines.map((line) => (line === "" ? "\n" : `     ${display(line)}\n`)).join("");
}

function eventMessage(event: unknown): WebhookMessage {
  const title = str(event, "title");
  const platform = display(at(event, "platform"));
  // The deprecated Raven Python SDKs are refused; Sentry's sample event still carries their version.
  if (platform === "python" && Number.parseInt(display(at(event, "version")), 10) < 7 && title !== "This is an example Python exception") {
    throw new UnsupportedEvent("Raven SDK");
  }
  const head = (kind: string) =>
    `**${kind}:** [${title}](${display(at(event, "web_url"))})\n\`\`\`quote\n**level:** ${display(at(event, "level"))}\n**timestamp:** ${shortTime(str(event, "datetime"))}\n`;

  if (has(event, "exception")) {
    const filename = field(event, "metadata", "filename") ?? null;
    const values = list(event, "exception", "values");
    const stacktrace = [...values].reverse().find((v) => has(v, "stacktrace"));
    const frames = stacktrace && filename !== null ? field(stacktrace, "stacktrace", "frames") : undefined;
    const frame = Array.isArray(frames) ? [...frames].reverse().find((f) => isObject(f) && f.filename === filename) : undefined;
    let body = `${head("New exception")}**filename:** ${display(filename)}\n\`\`\``;
    const contextLine = field(frame, "context_line");
    if (truthy(stacktrace) && frame !== undefined && contextLine !== undefined && contextLine !== null) {
      body +=
        `\n\nTraceback:\n\`\`\`${HIGHLIGHT[platform] ?? ""}\n` +
        `${tracebackLines(field(frame, "pre_context"))}---> ${display(contextLine)}\n${tracebackLines(field(frame, "post_context"))}\`\`\``;
    }
    return { topic: title, content: body };
  }
  if (has(event, "logentry")) return { topic: title, content: `${head("New message event")}\`\`\`` };
  throw new UnsupportedEvent("unknown-event type");
}

function issueMessage(action: unknown, issue: unknown, actor: unknown): WebhookMessage {
  const title = str(issue, "title");
  const assignedTo = at(issue, "assignedTo");
  const assignee = !truthy(assignedTo)
    ? "No one"
    : field(assignedTo, "type") === "team"
      ? `team ${display(at(assignedTo, "name"))}`
      : display(at(assignedTo, "name"));
  const actorName = () => display(at(actor, "name"));
  switch (action) {
    case "created":
      return {
        topic: title,
        content:
          `**New issue created:** ${title}\n\`\`\`quote\n**level:** ${display(at(issue, "level"))}\n` +
          `**timestamp:** ${shortTime(str(issue, "lastSeen"))}\n**assignee:** ${assignee}\n\`\`\``,
      };
    case "resolved":
      return { topic: title, content: `Issue **${title}** was marked as resolved by **${actorName()}**.` };
    case "assigned":
      return { topic: title, content: `Issue **${title}** has now been assigned to **${assignee}** by **${actorName()}**.` };
    case "ignored":
      return { topic: title, content: `Issue **${title}** was ignored by **${actorName()}**.` };
    default:
      throw new UnsupportedEvent("unknown-issue-action type");
  }
}

/** A plain webhook's event lacks the link and time fields the integration's events carry; they are derived from it. */
function webhookEventData(payload: Record<string, unknown>): Record<string, unknown> | undefined {
  const event = field(payload, "event");
  const eventId = field(event, "event_id");
  if (!isObject(event) || !truthy(eventId)) return undefined;
  const seconds = event.timestamp ?? at(event, "received");
  if (typeof seconds !== "number") throw new AnomalousPayload();
  const time = new Date(seconds * 1000);
  let webUrl: string;
  try {
    webUrl = new URL(`events/${display(eventId)}/`, str(payload, "url")).href;
  } catch {
    throw new AnomalousPayload();
  }
  if (Number.isNaN(time.getTime())) throw new AnomalousPayload();
  return { event: { ...event, web_url: webUrl, datetime: time.toISOString() } };
}

export const sentry: Integration = {
  name: "sentry",
  displayName: "Sentry",
  handle(request) {
    const payload = payloadObject(request.json);
    const data = payload.data ?? webhookEventData(payload);
    if (truthy(data)) {
      if (has(data, "event")) return { messages: [eventMessage(at(data, "event"))] };
      if (has(data, "issue")) return { messages: [issueMessage(at(payload, "action"), at(data, "issue"), at(payload, "actor"))] };
      throw new UnsupportedEvent(JSON.stringify(isObject(data) ? Object.keys(data) : []));
    }
    return {
      messages: [
        {
          topic: display(field(payload, "project_name") ?? null),
          content:
            `New [issue](${display(field(payload, "url") ?? null)}) (level: ${str(payload, "level").toUpperCase()}):\n\n` +
            `\`\`\` quote\n${display(field(payload, "message") ?? null)}\n\`\`\``,
        },
      ],
    };
  },
};

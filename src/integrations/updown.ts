/**
 * Updown checks going down and coming back up, one topic per checked URL. One payload carries
 * several events, so each is filtered by the URL's `only_events`/`exclude_events` on its own.
 */
import { field, int, list, optStr, str, truthy } from "./git.js";
import { eventWanted } from "./outcome.js";
import { UnsupportedEvent, type Integration, type WebhookMessage } from "./types.js";

/** `check.up` → `up` (Zulip matches `check.(.*)`: any one character after `check`, up to a line end). */
function eventType(event: unknown): "up" | "down" {
  const name = str(event, "event");
  const rest = name.length > 5 && name.startsWith("check") && name[5] !== "\n" ? name.slice(6).split("\n")[0] : undefined;
  if (rest === "up" || rest === "down") return rest;
  throw new UnsupportedEvent(name);
}

/** 265 → `4 minutes 25 seconds`. */
function duration(seconds: number): string {
  const parts: [number, string][] = [
    [Math.floor(seconds / 86400), "day"],
    [Math.floor((seconds % 86400) / 3600), "hour"],
    [Math.floor((seconds % 3600) / 60), "minute"],
    [seconds % 60, "second"],
  ];
  return parts
    .filter(([n]) => n >= 1)
    .map(([n, unit]) => (n === 1 ? `1 ${unit}` : `${n} ${unit}s`))
    .join(" ");
}

function upBody(event: unknown): string {
  let body = "Service is `up`";
  if (truthy(optStr(event, "downtime", "started_at"))) {
    body += " again";
    const seconds = field(event, "downtime", "duration") == null ? null : int(event, "downtime", "duration");
    const text = seconds ? duration(seconds) : "";
    if (text) body += ` after ${text}`;
  }
  return `${body}.`;
}

function downBody(event: unknown): string {
  const started = str(event, "downtime", "started_at").replaceAll("T", " ").replaceAll("Z", " UTC");
  return `Service is \`down\`. It returned a ${optStr(event, "downtime", "error") ?? "None"} error at ${started}.`;
}

export const updown: Integration = {
  name: "updown",
  displayName: "Updown",
  handle(request) {
    const messages: WebhookMessage[] = [];
    for (const event of list(request.json)) {
      const type = eventType(event);
      const content = type === "up" ? upBody(event) : downBody(event);
      if (eventWanted(type, request.params)) messages.push({ topic: str(event, "check", "url"), content });
    }
    return { messages };
  },
};

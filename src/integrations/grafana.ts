/**
 * Grafana: unified alerting (8.0 and later, one message per alert) and the legacy 7.x alert
 * notifications, as Zulip words them.
 */
import { at, display, isObject, payloadObject } from "./format.js";
import { field, list, str, truthy } from "./git.js";
import { AnomalousPayload, type Integration, type WebhookMessage } from "./types.js";

const statusLine = (icon: string, state: string) => `${icon} **${state.toUpperCase()}**\n\n`;

/** Grafana's "no end yet" time. */
const OPEN_ENDED = "0001-01-01T00:00:00Z";

function entries(value: unknown): [string, unknown][] {
  return isObject(value) ? Object.entries(value) : [];
}

function unifiedAlert(alert: unknown): WebhookMessage & { status: string } {
  const status = str(alert, "status");
  if (status !== "firing" && status !== "resolved") throw new AnomalousPayload();
  let body = status === "firing" ? statusLine(":alert:", status) : statusLine(":checkbox:", status);
  const labels = at(alert, "labels");
  const alertname = field(labels, "alertname");
  let topic: string;
  if (truthy(alertname)) {
    topic = `[${display(alertname)}]`;
    body += `**${display(alertname)}**\n\n`;
  } else {
    topic = `[${str(alert, "fingerprint")}]`;
  }
  body += `This alert was fired at <time:${str(alert, "startsAt")}>.`;
  const endsAt = str(alert, "endsAt");
  if (endsAt !== OPEN_ENDED) body += `\n\nThis alert was resolved at <time:${endsAt}>.`;
  if (truthy(labels)) body += `\n\nLabels:\n${entries(labels).map(([k, v]) => `- ${k}: ${display(v)}\n`).join("")}\n`;
  const values = field(alert, "values");
  const valueString = field(alert, "valueString");
  if (truthy(values)) body += `Values:\n${entries(values).map(([k, v]) => `- ${k}: ${display(v)}\n`).join("")}\n`;
  else if (truthy(valueString)) body += `Values:\n${display(valueString)}\n\n`;
  const annotations = field(alert, "annotations");
  if (truthy(annotations)) body += `Annotations:\n${entries(annotations).map(([k, v]) => `- ${k}: ${display(v)}\n`).join("")}`;
  const links: [string, string][] = [
    ["generatorURL", "Generator"],
    ["silenceURL", "Silence"],
    ["imageURL", "Image"],
  ];
  for (const [key, label] of links) {
    const url = field(alert, key);
    if (truthy(url)) body += `\n[${label}](${display(url)})`;
  }
  return { topic, content: body + "\n", status };
}

const LEGACY_STATES = ["no_data", "paused", "alerting", "ok", "pending", "unknown"];

export const grafana: Integration = {
  name: "grafana",
  displayName: "Grafana",
  handle(request) {
    const payload = payloadObject(request.json);
    if ("alerts" in payload) {
      const alerts = list(payload, "alerts").map(unifiedAlert);
      // Zulip filters each alert by its own status; one event per request is what the endpoint filters on.
      const status = alerts[0]?.status;
      return { event: status, messages: alerts.map(({ topic, content }) => ({ topic, content })) };
    }
    const state = str(payload, "state");
    if (!LEGACY_STATES.includes(state)) throw new AnomalousPayload();
    const icon = state === "alerting" ? ":alert:" : state === "ok" ? ":squared_ok:" : ":info:";
    const matches = payload.evalMatches;
    const evalMatches = Array.isArray(matches)
      ? matches.map((m) => `**${str(m, "metric")}:** ${display(at(m, "value"))}\n`).join("")
      : "";
    const message = "message" in payload ? `${str(payload, "message")}\n\n` : "";
    let body = `${statusLine(icon, state)}[${str(payload, "ruleName")}](${str(payload, "ruleUrl")})\n\n${message}${evalMatches}`;
    if ("imageUrl" in payload) body += `\n[Click to view visualization](${str(payload, "imageUrl")})`;
    return { event: state, messages: [{ topic: str(payload, "title"), content: body.trim() }] };
  },
};

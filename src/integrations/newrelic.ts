/**
 * New Relic: incident notifications from a workflow's webhook (the payload template Zulip
 * documents, with optional `zulipCustomFields`). The event filtered on is the incident's state.
 */
import { at, display, isObject, payloadObject } from "./format.js";
import { field, int, list, str } from "./git.js";
import { AnomalousPayload, type Integration } from "./types.js";

const STATES = ["CREATED", "ACTIVATED", "CLOSED"];

const PRIORITIES: Record<string, string> = {
  CRITICAL: ":red_circle:",
  HIGH: ":orange_circle:",
  MEDIUM: ":yellow:",
  LOW: ":blue_circle:",
};

const DEFAULT_URL = "https://one.newrelic.com/alerts-ai";

const EXPECTED_FIELDS = [
  "issueUrl",
  "title",
  "priority",
  "totalIncidents",
  "state",
  "createdAt",
  "updatedAt",
  "alertPolicyNames",
  "alertConditionNames",
];

/** Milliseconds since the epoch (a number or a numeric string) as Python prints a UTC datetime. */
function timestamp(value: unknown): string {
  const ms = typeof value === "number" ? value : typeof value === "string" && value.trim() !== "" ? Number(value) : NaN;
  const date = new Date(Math.round(ms));
  if (!Number.isFinite(ms) || Number.isNaN(date.getTime())) throw new AnomalousPayload();
  const iso = date.toISOString();
  const micros = date.getUTCMilliseconds() === 0 ? "" : `.${String(date.getUTCMilliseconds()).padStart(3, "0")}000`;
  return `<time: ${iso.slice(0, 10)} ${iso.slice(11, 19)}${micros}+00:00 >`;
}

/** Python's `str.capitalize`. */
function capitalize(text: string): string {
  return text.slice(0, 1).toUpperCase() + text.slice(1).toLowerCase();
}

const isScalar = (v: unknown) => v === null || typeof v === "string" || typeof v === "number" || typeof v === "boolean";

function customFields(payload: Record<string, unknown>): string {
  const fields = payload.zulipCustomFields;
  if (!isObject(fields)) return "";
  return Object.entries(fields)
    .map(([key, value]) => {
      const name = capitalize(key);
      if (isScalar(value)) return `- **${name}**: ${display(value)}\n`;
      if (Array.isArray(value) && value.every(isScalar)) return `- **${name}**: ${value.map(display).join(", ")}\n`;
      return `- **${name}**: *Value is not a supported data type*\n`;
    })
    .join("");
}

const codeList = (names: unknown[]) => names.map((n) => `\`${display(n)}\``).join(", ");

export const newrelic: Integration = {
  name: "newrelic",
  displayName: "NewRelic",
  handle(request) {
    const payload = payloadObject(request.json);
    const missing = EXPECTED_FIELDS.filter((f) => !(f in payload));
    if (missing.length > 0) {
      const content =
        `:danger: A New Relic [incident](${DEFAULT_URL}) updated\n\n` +
        "**Warning**: Unable to use the default notification format because at least one expected field was missing from the incident payload. " +
        "See [New Relic integration documentation](/integrations/doc/newrelic).\n\n" +
        `**Missing fields**: ${missing.map((f) => `\`${f}\``).join(", ")}`;
      return { messages: [{ topic: "New Relic incident alerts", content }] };
    }
    const priority = str(payload, "priority");
    const state = str(payload, "state");
    if (!(priority in PRIORITIES) || !STATES.includes(state)) throw new AnomalousPayload();
    const owner = field(payload, "owner");
    if (owner !== undefined && owner !== null && typeof owner !== "string") throw new AnomalousPayload();
    const acknowledged = owner && owner !== "N/A" ? `**Acknowledged by**: ${owner}` : "";
    const title = str(payload, "title");
    const details =
      `\n- **Alert policies**: ${codeList(list(payload, "alertPolicyNames"))}\n` +
      `- **Conditions**: ${codeList(list(payload, "alertConditionNames"))}\n` +
      `- **Total incidents**: ${int(payload, "totalIncidents")}\n` +
      `- **Incident created at**: ${timestamp(at(payload, "createdAt"))}\n` +
      customFields(payload);
    const content =
      `${PRIORITIES[priority]} **[${title}](${str(payload, "issueUrl")})**\n\n` +
      `\`\`\`quote\n**Priority**: ${priority}\n**State**: ${state}\n**Updated at**: ${timestamp(at(payload, "updatedAt"))}\n${acknowledged}\n\`\`\`\n\n` +
      `\`\`\`spoiler :file: Incident details\n${details}\n\`\`\``;
    return { event: state, messages: [{ topic: title, content }] };
  },
};

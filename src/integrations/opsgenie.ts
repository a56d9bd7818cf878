/**
 * Opsgenie: every alert action as one message listing what the action carries.
 */
import { at, display, has, payloadObject } from "./format.js";
import { field, str } from "./git.js";
import type { Integration } from "./types.js";

/** Payload fields shown as bullets, in Zulip's order: [where, field, label]. */
const DETAILS: ["alert" | "payload", string, string][] = [
  ["alert", "note", "Note"],
  ["alert", "recipient", "Recipient"],
  ["alert", "addedTags", "Tags added"],
  ["alert", "team", "Team added"],
  ["alert", "owner", "Assigned owner"],
  ["payload", "escalationName", "Escalation"],
  ["alert", "removedTags", "Tags removed"],
  ["alert", "message", "Message"],
];

export const opsgenie: Integration = {
  name: "opsgenie",
  displayName: "Opsgenie",
  handle(request) {
    const payload = payloadObject(request.json);
    const alert = at(payload, "alert");
    const action = str(payload, "action");
    const integrationName = str(payload, "integrationName");
    const tags = field(alert, "tags");
    const tagList = Array.isArray(tags) ? tags.map((t) => `\`${display(t)}\``).join(", ") : "";
    let details = "";
    for (const [where, key, label] of DETAILS) {
      const source = where === "alert" ? alert : payload;
      if (has(source, key)) details += `* **${label}**: ${str(source, key)}\n`;
    }
    if (tagList) details += `* **Tags**: ${tagList}\n`;
    const content =
      `[Opsgenie alert for ${integrationName}](https://app.opsgenie.com/alert/V2#/show/${str(alert, "alertId")}):\n` +
      `* **Type**: ${action}\n${details}`;
    return { event: action, messages: [{ topic: integrationName, content: content.trim() }] };
  },
};

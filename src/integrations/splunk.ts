/**
 * Splunk: a saved search's alert. Missing fields are named as missing rather than refused.
 */
import { display, payloadObject } from "./format.js";
import { field } from "./git.js";
import type { Integration } from "./types.js";

/** Zulip's topic limit; the search name is cut to fit it here, the way its view does. */
const MAX_TOPIC_LENGTH = 60;

export const splunk: Integration = {
  name: "splunk",
  displayName: "Splunk",
  handle(request) {
    const payload = payloadObject(request.json);
    const valueOr = (fallback: string, ...path: string[]) => display(field(payload, ...path) ?? fallback);
    const search = valueOr("Missing search_name", "search_name");
    const chars = [...search];
    const topic = chars.length >= MAX_TOPIC_LENGTH ? `${chars.slice(0, MAX_TOPIC_LENGTH - 3).join("")}...` : search;
    const content =
      `Splunk alert from saved search:\n* **Search**: [${search}](${valueOr("Missing results_link", "results_link")})\n` +
      `* **Host**: ${valueOr("Missing host", "result", "host")}\n` +
      `* **Source**: \`${valueOr("Missing source", "result", "source")}\`\n` +
      `* **Raw**: \`${valueOr("Missing _raw", "result", "_raw")}\``;
    return { messages: [{ topic, content }] };
  },
};

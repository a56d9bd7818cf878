/**
 * Harbor: artifacts pushed and vulnerability scans completed, in the repository's topic; the
 * other registry events are acknowledged and not reported.
 */
import { at, first, has, isObject, payloadObject } from "./format.js";
import { field, int, str } from "./git.js";
import { UnsupportedEvent, type Integration } from "./types.js";

const IGNORED_EVENTS = new Set(["DOWNLOAD_CHART", "DELETE_CHART", "UPLOAD_CHART", "PULL_ARTIFACT", "DELETE_ARTIFACT", "SCANNING_FAILED"]);

/** The scan report format Zulip reads. */
const REPORT = "application/vnd.security.vulnerability.report; version=1.1";

function imageId(payload: unknown): string {
  const name = str(payload, "event_data", "repository", "repo_full_name");
  const resource = first(at(payload, "event_data", "resources"));
  return has(resource, "tag") ? `${name}:${str(resource, "tag")}` : `${name}@${str(resource, "digest")}`;
}

function scanCompleted(payload: unknown): string {
  const overview = at(first(at(payload, "event_data", "resources")), "scan_overview");
  if (!has(overview, REPORT)) throw new UnsupportedEvent("Unsupported harbor scanning webhook payload");
  const summary = field(overview, REPORT, "summary", "summary");
  const counts = isObject(summary) ? Object.keys(summary) : [];
  const results =
    counts.length > 0 ? counts.map((severity) => `* ${severity}: **${int(summary, severity)}**\n`).join("") : "None\n";
  return `Image scan completed for \`${imageId(payload)}\`. Vulnerabilities by severity:\n\n${results}`;
}

export const harbor: Integration = {
  name: "harbor",
  displayName: "Harbor",
  handle(request) {
    const payload = payloadObject(request.json);
    // Zulip shows a matching Zulip user as an @-mention; that lookup is not a pure function of the payload, so the Harbor name is shown.
    const operator = `**${str(payload, "operator")}**`;
    const event = str(payload, "type");
    const topic = str(payload, "event_data", "repository", "repo_full_name");
    if (IGNORED_EVENTS.has(event)) return { messages: [] };
    let content: string;
    if (event === "PUSH_ARTIFACT") content = `${operator} pushed image \`${imageId(payload)}\``;
    else if (event === "SCANNING_COMPLETED") content = scanCompleted(payload);
    else throw new UnsupportedEvent(event);
    return { event, unquoteTopic: true, messages: [{ topic, content }] };
  },
};

/**
 * Every incoming-webhook integration, by the name in its URL (`/api/v1/external/<name>`).
 * Keep both lists sorted by name, one line per integration, so additions merge cleanly.
 */
import type { Integration } from "./types.js";
import { gitea } from "./gitea.js";
import { github, githubSponsors } from "./github.js";
import { gogs } from "./gogs.js";
import { json } from "./json.js";
import { slackIncoming } from "./slack_incoming.js";

const INTEGRATIONS: Integration[] = [
  gitea,
  github,
  githubSponsors,
  gogs,
  json,
  slackIncoming,
];

const BY_NAME = new Map(INTEGRATIONS.map((i) => [i.name, i]));

/** The integration a URL names, if there is one. */
export function integrationNamed(name: string): Integration | undefined {
  return BY_NAME.get(name);
}

/** Every integration, in name order. */
export function allIntegrations(): readonly Integration[] {
  return [...BY_NAME.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

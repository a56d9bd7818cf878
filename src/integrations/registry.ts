/**
 * Every incoming-webhook integration, by the name in its URL (`/api/v1/external/<name>`).
 * Keep both lists sorted by name, one line per integration, so additions merge cleanly.
 */
import type { Integration } from "./types.js";
import { alertmanager } from "./alertmanager.js";
import { azuredevops } from "./azuredevops.js";
import { bitbucket2 } from "./bitbucket2.js";
import { bitbucket3 } from "./bitbucket3.js";
import { buildbot } from "./buildbot.js";
import { circleci } from "./circleci.js";
import { gitea } from "./gitea.js";
import { github, githubSponsors } from "./github.js";
import { gitlab } from "./gitlab.js";
import { gogs } from "./gogs.js";
import { grafana } from "./grafana.js";
import { harbor } from "./harbor.js";
import { heroku } from "./heroku.js";
import { jira } from "./jira.js";
import { json } from "./json.js";
import { newrelic } from "./newrelic.js";
import { opsgenie } from "./opsgenie.js";
import { pagerduty } from "./pagerduty.js";
import { semaphore } from "./semaphore.js";
import { sentry } from "./sentry.js";
import { slackIncoming } from "./slack_incoming.js";
import { splunk } from "./splunk.js";
import { travis } from "./travis.js";
import { uptimerobot } from "./uptimerobot.js";
import { zabbix } from "./zabbix.js";

const INTEGRATIONS: Integration[] = [
  alertmanager,
  azuredevops,
  bitbucket2,
  bitbucket3,
  buildbot,
  circleci,
  gitea,
  github,
  githubSponsors,
  gitlab,
  gogs,
  grafana,
  harbor,
  heroku,
  jira,
  json,
  newrelic,
  opsgenie,
  pagerduty,
  semaphore,
  sentry,
  slackIncoming,
  splunk,
  travis,
  uptimerobot,
  zabbix,
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

/**
 * Every incoming-webhook integration, by the name in its URL (`/api/v1/external/<name>`).
 * Keep both lists sorted by name, one line per integration, so additions merge cleanly.
 */
import type { Integration } from "./types.js";
import { alertmanager } from "./alertmanager.js";
import { azuredevops } from "./azuredevops.js";
import { basecamp } from "./basecamp.js";
import { bitbucket2 } from "./bitbucket2.js";
import { bitbucket3 } from "./bitbucket3.js";
import { buildbot } from "./buildbot.js";
import { circleci } from "./circleci.js";
import { clubhouse } from "./clubhouse.js";
import { freshdesk } from "./freshdesk.js";
import { front } from "./front.js";
import { gitea } from "./gitea.js";
import { github, githubSponsors } from "./github.js";
import { gitlab } from "./gitlab.js";
import { gocd } from "./gocd.js";
import { gogs } from "./gogs.js";
import { grafana } from "./grafana.js";
import { harbor } from "./harbor.js";
import { heroku } from "./heroku.js";
import { insping } from "./insping.js";
import { jira } from "./jira.js";
import { json } from "./json.js";
import { netlify } from "./netlify.js";
import { newrelic } from "./newrelic.js";
import { opsgenie } from "./opsgenie.js";
import { pagerduty } from "./pagerduty.js";
import { rundeck } from "./rundeck.js";
import { semaphore } from "./semaphore.js";
import { sentry } from "./sentry.js";
import { slackIncoming } from "./slack_incoming.js";
import { splunk } from "./splunk.js";
import { statuspage } from "./statuspage.js";
import { teamcity } from "./teamcity.js";
import { travis } from "./travis.js";
import { trello } from "./trello.js";
import { updown } from "./updown.js";
import { uptimerobot } from "./uptimerobot.js";
import { zabbix } from "./zabbix.js";
import { zendesk } from "./zendesk.js";

const INTEGRATIONS: Integration[] = [
  alertmanager,
  azuredevops,
  basecamp,
  bitbucket2,
  bitbucket3,
  buildbot,
  circleci,
  clubhouse,
  freshdesk,
  front,
  gitea,
  github,
  githubSponsors,
  gitlab,
  gocd,
  gogs,
  grafana,
  harbor,
  heroku,
  insping,
  jira,
  json,
  netlify,
  newrelic,
  opsgenie,
  pagerduty,
  rundeck,
  semaphore,
  sentry,
  slackIncoming,
  splunk,
  statuspage,
  teamcity,
  travis,
  trello,
  updown,
  uptimerobot,
  zabbix,
  zendesk,
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

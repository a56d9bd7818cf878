/**
 * PagerDuty: incident messages from webhooks v1 and v2 (a `messages` list) and v3 (one `event`),
 * as Zulip words them. The event type filtered on is the action's past tense ("triggered").
 */
import { at, display, isObject, payloadObject } from "./format.js";
import { field, int, list, optStr, str, truthy } from "./git.js";
import { UnsupportedEvent, type Integration, type WebhookMessage } from "./types.js";

const V1_ACTIONS: Record<string, string> = {
  "incident.trigger": "triggered",
  "incident.acknowledge": "acknowledged",
  "incident.unacknowledge": "unacknowledged",
  "incident.resolve": "resolved",
  "incident.assign": "assigned",
  "incident.escalate": "escalated",
  "incident.delegate": "delineated",
};

const V2_ACTIONS: Record<string, string> = {
  "incident.trigger": "triggered",
  "incident.acknowledge": "acknowledged",
  "incident.resolve": "resolved",
  "incident.assign": "assigned",
};

interface Incident {
  action: string;
  numTitle: string;
  url: string;
  serviceName: string;
  serviceUrl: string;
  assignee: string;
  agent?: string;
  trigger: string;
  details: string;
  escalationPolicy: string;
}

type Template = (i: Incident) => string;

const link = (i: Incident) => `[${i.numTitle}](${i.url})`;
const withService: Template = (i) =>
  `Incident ${link(i)} ${i.action} by [${i.serviceName}](${i.serviceUrl}) (assigned to ${i.assignee}).\n\n${i.trigger}`;
const withAssignee: Template = (i) => `Incident ${link(i)} ${i.action} by ${i.assignee}.\n\n${i.trigger}`;
const assigned: Template = (i) => `Incident ${link(i)} ${i.action} to ${i.assignee}.\n\n${i.trigger}`;
const resolved: Template = (i) =>
  i.agent === undefined ? `Incident ${link(i)} resolved.\n\n${i.trigger}` : `Incident ${link(i)} resolved by ${i.agent}.\n\n${i.trigger}`;
const responder = (verb: string): Template => (i) =>
  `Responder ${i.assignee} ${verb} incident ${link(i)}.\n\n\`\`\` quote\n${i.details}\n\`\`\``;

/** v3 event types → the action's name and its message. */
const V3_EVENTS: Record<string, [string, Template]> = {
  "incident.triggered": ["triggered", withService],
  "incident.acknowledged": ["acknowledged", withAssignee],
  "incident.unacknowledged": ["unacknowledged", withService],
  "incident.resolved": ["resolved", resolved],
  "incident.reassigned": ["reassigned", assigned],
  "incident.escalated": ["escalated", (i) => `Incident ${link(i)} escalated to ${i.assignee}.`],
  "incident.delegated": [
    "delegated",
    (i) => `Incident ${link(i)} delegated; ${i.escalationPolicy}current assignee is ${i.assignee}.`,
  ],
  "incident.reopened": ["reopened", (i) => `Incident ${link(i)} reopened.`],
  "incident.priority_updated": ["priority updated", (i) => `Incident ${link(i)} priority updated to ${i.details}`],
  "incident.status_update_published": ["status updated", (i) => `Incident ${link(i)} status update published: ${i.details}`],
  "incident.annotated": ["annotated", (i) => `Incident ${link(i)} annotated with: ${i.details}`],
  "incident.responder.added": ["responder added", responder("added to")],
  "incident.responder.replied": ["responder replied", responder("replied to")],
  "incident.conference_bridge.updated": [
    "conference bridge updated",
    (i) => `Incident ${link(i)} conference bridge updated: ${i.details}`,
  ],
  "incident.service_updated": ["service updated", (i) => `Incident ${link(i)} service updated to ${i.details}`],
  "incident.workflow.started": ["workflow started", (i) => `Incident ${link(i)} workflow started: ${i.details}`],
  "incident.workflow.completed": ["workflow completed", (i) => `Incident ${link(i)} workflow completed: ${i.details}`],
};

/** v1 and v2 event types whose message is not the "by assignee" one. */
function legacyTemplate(type: string): Template {
  if (type === "incident.trigger" || type === "incident.unacknowledge") return withService;
  if (type === "incident.assign") return assigned;
  if (type === "incident.resolve") return resolved;
  return withAssignee;
}

const agentLink = (name: string, url: string) => `[${name}](${url})`;
const quote = (text: string) => `\`\`\` quote\n${text}\n\`\`\``;

/** The part of an address before its last "@", as Python's `Address(...).username` gives it. */
function emailUser(email: string): string {
  const at = email.lastIndexOf("@");
  return at < 0 ? email : email.slice(0, at);
}

function v1Incident(message: unknown, type: string): Incident {
  const incident = at(message, "data", "incident");
  const user = (key: string) => {
    const u = field(incident, key);
    return truthy(u) ? agentLink(emailUser(str(u, "email")), str(u, "html_url")) : undefined;
  };
  const summary = field(incident, "trigger_summary_data");
  const lines = truthy(summary)
    ? [field(summary, "subject"), field(summary, "description")].filter(truthy).map(display)
    : [];
  return {
    action: V1_ACTIONS[type]!,
    numTitle: String(int(incident, "incident_number")),
    url: str(incident, "html_url"),
    serviceName: str(incident, "service", "name"),
    serviceUrl: str(incident, "service", "html_url"),
    assignee: user("assigned_to_user") ?? "nobody",
    agent: user("resolved_by_user"),
    trigger: quote(lines.join("\n")),
    details: "",
    escalationPolicy: "",
  };
}

function v2Incident(message: unknown, type: string): Incident {
  const incident = at(message, "incident");
  const assignments = at(incident, "assignments");
  const assignee = Array.isArray(assignments) && assignments.length > 0 ? at(assignments[0], "assignee") : undefined;
  const changedBy = field(incident, "last_status_change_by");
  const description = optStr(incident, "description");
  return {
    action: V2_ACTIONS[type]!,
    numTitle: String(int(incident, "incident_number")),
    url: str(incident, "html_url"),
    serviceName: str(incident, "service", "name"),
    serviceUrl: str(incident, "service", "html_url"),
    assignee: assignee === undefined ? "nobody" : agentLink(str(assignee, "summary"), str(assignee, "html_url")),
    agent: changedBy === undefined || changedBy === null ? undefined : agentLink(str(changedBy, "summary"), str(changedBy, "html_url")),
    trigger: description === null ? "" : quote(description),
    details: "",
    escalationPolicy: "",
  };
}

function v3Details(type: string, data: unknown): string {
  switch (type) {
    case "incident.priority_updated":
      return truthy(field(data, "priority")) ? str(data, "priority", "summary") : "";
    case "incident.status_update_published":
    case "incident.responder.added":
    case "incident.responder.replied":
      return str(data, "message");
    case "incident.annotated":
      return str(data, "content");
    case "incident.conference_bridge.updated":
      return truthy(field(data, "conference_url")) ? str(data, "conference_url") : "";
    case "incident.service_updated":
      return truthy(field(data, "service")) ? str(data, "service", "summary") : "";
    case "incident.workflow.started":
    case "incident.workflow.completed": {
      const workflow = str(data, "incident_workflow", "summary");
      const summary = field(data, "summary");
      return truthy(summary) ? `${workflow} (${display(summary)})` : workflow;
    }
    default:
      return "";
  }
}

function v3Incident(event: unknown, type: string, action: string): Incident {
  const data = at(event, "data");
  const incident = field(data, "incident");
  const service = field(data, "service");
  const assignees = field(data, "assignees");
  const user = field(data, "user");
  const person = Array.isArray(assignees) && assignees.length > 0 ? assignees[0] : truthy(user) ? user : undefined;
  const policy = field(data, "escalation_policy");
  const agent = field(event, "agent");
  return {
    action,
    numTitle: truthy(incident)
      ? str(incident, "summary")
      : `${str(data, "title")} (#${int(data, "number")})`,
    url: truthy(incident) ? str(incident, "html_url") : str(data, "html_url"),
    serviceName: truthy(service) ? str(service, "summary") : "",
    serviceUrl: truthy(service) ? str(service, "html_url") : "",
    assignee: person === undefined ? "nobody" : agentLink(str(person, "summary"), str(person, "html_url")),
    agent: isObject(agent) ? agentLink(str(agent, "summary"), str(agent, "html_url")) : undefined,
    trigger: "",
    details: v3Details(type, data),
    escalationPolicy: truthy(policy)
      ? `current escalation policy is [${str(policy, "summary")}](${str(policy, "html_url")}) and `
      : "",
  };
}

const message = (incident: Incident, template: Template): WebhookMessage => ({
  topic: `Incident ${incident.numTitle}`,
  content: template(incident),
});

export const pagerduty: Integration = {
  name: "pagerduty",
  displayName: "PagerDuty",
  handle(request) {
    const payload = payloadObject(request.json);
    const outcome: { event?: string; messages: WebhookMessage[] } = { messages: [] };
    const messages = payload.messages;
    if (truthy(messages)) {
      // v1 messages carry a "type", v2 ones an "event"; each list is read up to the first message that lacks its key.
      for (const m of list(payload, "messages")) {
        const type = field(m, "type");
        if (type === undefined || type === null) break;
        if (!(display(type) in V1_ACTIONS)) throw new UnsupportedEvent(display(type));
        const incident = v1Incident(m, display(type));
        outcome.event ??= incident.action;
        outcome.messages.push(message(incident, legacyTemplate(display(type))));
      }
      for (const m of list(payload, "messages")) {
        const type = field(m, "event");
        if (type === undefined || type === null) break;
        if (!(display(type) in V2_ACTIONS)) throw new UnsupportedEvent(display(type));
        const incident = v2Incident(m, display(type));
        outcome.event ??= incident.action;
        outcome.messages.push(message(incident, legacyTemplate(display(type))));
      }
    } else if ("event" in payload) {
      const type = display(field(payload, "event", "event_type") ?? null);
      const known = Object.hasOwn(V3_EVENTS, type) ? V3_EVENTS[type] : undefined;
      if (!known) throw new UnsupportedEvent(type);
      const [action, template] = known;
      outcome.event = action;
      outcome.messages.push(message(v3Incident(payload.event, type, action), template));
    }
    return outcome;
  },
};

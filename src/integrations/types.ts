/**
 * The contract between the incoming-webhook endpoint (`/api/v1/external/{name}`) and each
 * integration. An integration is a pure function of what the third-party service sent: it
 * names the event and says which messages to post, or throws one of the errors below. Where
 * the messages go (channel, direct message to the bot's owner), the `topic` override and the
 * `only_events`/`exclude_events` filters are the endpoint's business, the same for all.
 */

/** The request as the service sent it. */
export interface WebhookRequest {
  /** The body parsed as JSON whatever its Content-Type (Zulip's tests often declare JSON as form data); undefined when it is not JSON. */
  json: unknown;
  /** The fields of a form-encoded body (Travis' `payload`, Zendesk's fields); empty otherwise. */
  form: Record<string, string>;
  /** Header values by lower-cased name. */
  headers: Record<string, string>;
  /** Query parameters other than `api_key`: the integration's options (`branches`, …) and `topic`, which some integrations also reflect in the body. */
  params: Record<string, string>;
  /** The body's text as sent (UTF-8), for the few integrations that must see more than the parsed JSON keeps (numbers' digits, key order). */
  body?: string;
  /** The full name of the organization's user with this email, if there is one (Jira names assignees so). Supplied by the endpoint; absent in unit tests. */
  userName?: (email: string) => string | undefined;
}

export interface WebhookMessage {
  topic: string;
  content: string;
}

export interface WebhookOutcome {
  /** The event type `only_events`/`exclude_events` match against, for integrations that honour them. */
  event?: string;
  /** In order; none means the event is acknowledged and ignored (a branch not followed, an action not reported). */
  messages: WebhookMessage[];
  /** The service escapes the URL twice (Jira, Harbor, Bitbucket): the URL's `stream` and `topic` are percent-decoded once more. */
  unquoteTopic?: boolean;
}

export interface Integration {
  /** The URL name: `/api/v1/external/<name>`. */
  name: string;
  /** The service's name as messages and errors spell it ("GitHub"). */
  displayName: string;
  handle(request: WebhookRequest): WebhookOutcome;
}

/** An event the service is known to send that this integration does not report. */
export class UnsupportedEvent extends Error {
  constructor(readonly eventType: string) {
    super(`unsupported event ${eventType}`);
  }
}

/** The header naming the event is missing. */
export class MissingEventHeader extends Error {
  constructor(readonly header: string) {
    super(`missing header ${header}`);
  }
}

/** The payload is not the shape this service sends. */
export class AnomalousPayload extends Error {
  constructor() {
    super("anomalous payload");
  }
}

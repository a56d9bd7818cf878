/**
 * Zulip's own webhook test cases (fixtures and the exact message Zulip posts for each), read at
 * test time from the shared conformance folder beside the checkout; see its SOURCE.md. They are
 * never copied into this repository.
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import assert from "node:assert/strict";
import { test } from "node:test";
import { normalizeContent } from "../../src/actions/messages.js";
import { normalizeTopic } from "../../src/domain/topics.js";
import { messagesToPost } from "../../src/integrations/outcome.js";
import { UnsupportedEvent, type Integration, type WebhookOutcome, type WebhookRequest } from "../../src/integrations/types.js";

export const WEBHOOK_CASES_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../shared/conformance/webhooks");

export interface WebhookCase {
  /** A file in `<name>/fixtures/`, POSTed byte-for-byte; null when the body is `form`. */
  fixture: string | null;
  content_type: string;
  headers: Record<string, string>;
  url_params: Record<string, string>;
  /** The body is form-encoded with this one field holding the fixture's text. */
  form_field?: string;
  form?: Record<string, string>;
  /** HTTP Basic auth with the bot's email and key instead of `api_key`. */
  auth?: "basic";
  expect: { topic: string; content: string } | { noop: true };
  test: string;
}

/** The cases of one integration, or undefined where the conformance folder is not on this machine. */
export function webhookCases(name: string): WebhookCase[] | undefined {
  const file = path.join(WEBHOOK_CASES_DIR, name, "cases.json");
  if (!fs.existsSync(file)) return undefined;
  return JSON.parse(fs.readFileSync(file, "utf8")) as WebhookCase[];
}

export function fixtureText(name: string, fixture: string): string {
  return fs.readFileSync(path.join(WEBHOOK_CASES_DIR, name, "fixtures", fixture), "utf8");
}

/** The body as Zulip's test POSTs it, with its Content-Type. */
export function caseBody(name: string, c: WebhookCase): { body: string; contentType: string } {
  if (c.fixture === null) return { body: new URLSearchParams(c.form ?? {}).toString(), contentType: c.content_type };
  const text = fixtureText(name, c.fixture);
  if (c.form_field) return { body: new URLSearchParams({ [c.form_field]: text }).toString(), contentType: c.content_type };
  return { body: text, contentType: c.content_type };
}

/** The request an integration's pure function sees for a case, as the endpoint builds it. */
export function caseRequest(name: string, c: WebhookCase): WebhookRequest {
  const { body } = caseBody(name, c);
  // Heroku's fixtures are raw form bodies; a JSON text declared as a form still parses as JSON below.
  const isForm = c.fixture === null || c.form_field !== undefined || c.content_type.startsWith("application/x-www-form-urlencoded");
  const form = isForm ? Object.fromEntries(new URLSearchParams(body)) : {};
  let json: unknown;
  try {
    json = JSON.parse(c.form_field ? form[c.form_field]! : body);
  } catch {
    json = undefined;
  }
  const headers = Object.fromEntries(Object.entries(c.headers).map(([k, v]) => [k.toLowerCase(), v]));
  return { json, form, headers, params: { ...c.url_params } };
}

/**
 * One test per case of Zulip's for this integration: the request through `handle` and the URL's
 * filters and topic, each message as the send path stores it (topic cut to length, trailing
 * whitespace gone). As Zulip's `check_webhook`, the last message posted is compared with the
 * expected one (a PagerDuty v1 payload may hold several incidents); a noop case posts none.
 * `skip` names Zulip's tests (by `test`) this integration cannot pass yet, with the reason.
 */
export function testWebhookCases(integration: Integration, options: { skip?: Record<string, string> } = {}): void {
  const cases = webhookCases(integration.name);
  if (!cases) {
    test(`${integration.name}: Zulip's webhook cases`, { skip: `no conformance folder at ${WEBHOOK_CASES_DIR}` }, () => {});
    return;
  }
  for (const c of cases) {
    test(`${integration.name}: ${c.test} (${c.fixture ?? "form"})`, { skip: options.skip?.[c.test] ?? false }, () => {
      const request = caseRequest(integration.name, c);
      const posted = messagesToPost(handleOrIgnore(integration, request), request.params).map((m) => ({
        topic: normalizeTopic(m.topic),
        content: normalizeContent(m.content),
      }));
      if ("noop" in c.expect) assert.deepEqual(posted, []);
      else assert.deepEqual(posted.at(-1), c.expect);
    });
  }
}

/** An event the integration knows but does not report is answered with a success and posts nothing, as the endpoint does. */
function handleOrIgnore(integration: Integration, request: WebhookRequest): WebhookOutcome {
  try {
    return integration.handle(request);
  } catch (e) {
    if (e instanceof UnsupportedEvent) return { messages: [] };
    throw e;
  }
}

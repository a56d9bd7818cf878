/**
 * Zulip's webhook cases through real HTTP: each case POSTed to /api/v1/external/<name> exactly
 * as SOURCE.md (in the shared conformance folder) describes, and the message it posted read back
 * with GET /messages. Shared by test/api/webhooks_conformance.test.ts and
 * scripts/conformance-webhooks.ts.
 */
import type { AppContext } from "../../src/context.js";
import { runAction } from "../../src/actions/run.js";
import { createUserInTx } from "../../src/actions/users.js";
import { Role } from "../../src/domain/roles.js";
import { getRealm } from "../../src/store/realms.js";
import { Api, basicAuth } from "./client.js";
import type { TestUser } from "./realm.js";
import { caseBody, type WebhookCase } from "./webhook_cases.js";

export interface ConformanceSetup {
  url: string;
  app: AppContext;
  /** The incoming-webhook bot that posts. */
  bot: TestUser;
  /** Reads the channels (subscribed to each integration's channel). */
  reader: TestUser;
}

/** An incoming-webhook bot owned by `owner`, in the owner's organization. */
export async function createWebhookBot(app: AppContext, realmId: number, ownerId: number, local = "webhook-bot"): Promise<TestUser> {
  return runAction(app, async (tx) => {
    const realm = (await getRealm(tx, realmId))!;
    const u = await createUserInTx(tx, app, realm, {
      email: `${local}@zulip.example.com`,
      fullName: "Zulip Webhook Bot",
      role: Role.MEMBER,
      isBot: true,
      botType: 2,
      botOwnerId: ownerId,
    });
    return { id: u.id, email: u.delivery_email, apiKey: u.api_key, role: Role.MEMBER, fullName: "Zulip Webhook Bot" };
  });
}

/** Users Zulip's webhook tests find in their organization by email (Jira names an assignee by the matching user's full name). */
export async function createZulipTestUsers(app: AppContext, realmId: number): Promise<void> {
  await runAction(app, async (tx) => {
    const realm = (await getRealm(tx, realmId))!;
    await createUserInTx(tx, app, realm, { email: "othello@zulip.com", fullName: "Othello, the Moor of Venice", role: Role.MEMBER, password: undefined });
  });
}

/** The channel an integration's cases post to; the reader subscribes to it (creating it). */
export async function prepareChannel(setup: ConformanceSetup, name: string): Promise<string> {
  const api = new Api(setup.url, setup.reader);
  const r = await api.post("/users/me/subscriptions", { subscriptions: [{ name }], principals: [setup.reader.id, setup.bot.id] });
  if (r.body.result !== "success") throw new Error(`cannot subscribe to ${name}: ${JSON.stringify(r.body)}`);
  return name;
}

export interface CaseResult {
  ok: boolean;
  /** Why not, briefly. */
  detail?: string;
}

async function messageCount(app: AppContext): Promise<number> {
  const r = await app.db.selectFrom("messages").select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirstOrThrow();
  return Number(r.n);
}

/** POSTs one case and compares what was posted with Zulip's expectation. */
export async function runCase(setup: ConformanceSetup, name: string, channel: string, c: WebhookCase): Promise<CaseResult> {
  const { body, contentType } = caseBody(name, c);
  const query = new URLSearchParams();
  if (c.auth !== "basic") query.set("api_key", setup.bot.apiKey);
  query.set("stream", channel);
  for (const [k, v] of Object.entries(c.url_params)) query.append(k, v);
  const headers: Record<string, string> = { "content-type": contentType, ...c.headers };
  if (c.auth === "basic") headers.authorization = basicAuth(setup.bot);

  const before = await messageCount(setup.app);
  const res = await fetch(`${setup.url}/api/v1/external/${name}?${query}`, { method: "POST", headers, body });
  const text = await res.text();
  let reply: Record<string, unknown>;
  try {
    reply = JSON.parse(text);
  } catch {
    return { ok: false, detail: `HTTP ${res.status}, not JSON: ${text.slice(0, 200)}` };
  }
  const posted = (await messageCount(setup.app)) - before;

  if ("noop" in c.expect) {
    if (res.status !== 200 || reply.result !== "success") return { ok: false, detail: `expected a success, got ${res.status} ${JSON.stringify(reply).slice(0, 300)}` };
    if (posted !== 0) return { ok: false, detail: `expected nothing posted, ${posted} message(s) posted` };
    return { ok: true };
  }
  if (res.status !== 200 || reply.result !== "success" || reply.code !== undefined) {
    return { ok: false, detail: `HTTP ${res.status} ${JSON.stringify(reply).slice(0, 300)}` };
  }
  // As Zulip's check_webhook, the newest message is compared: one payload may post several (PagerDuty v1).
  if (posted < 1) return { ok: false, detail: "expected a message posted, none posted" };
  const got = await new Api(setup.url, setup.reader).get("/messages", {
    anchor: "newest",
    num_before: 1,
    num_after: 0,
    narrow: [{ operator: "channel", operand: channel }],
    apply_markdown: false,
    allow_empty_topic_name: true,
  });
  const m = got.body.messages?.[0] as { subject: string; content: string; sender_id: number } | undefined;
  if (!m) return { ok: false, detail: "no message in the channel" };
  const problems: string[] = [];
  if (m.sender_id !== setup.bot.id) problems.push(`sender ${m.sender_id}`);
  if (m.subject !== c.expect.topic) problems.push(`topic ${JSON.stringify(m.subject)} ≠ ${JSON.stringify(c.expect.topic)}`);
  if (m.content !== c.expect.content) problems.push(`content differs:\n  got:      ${JSON.stringify(m.content).slice(0, 600)}\n  expected: ${JSON.stringify(c.expect.content).slice(0, 600)}`);
  return problems.length ? { ok: false, detail: problems.join("; ") } : { ok: true };
}

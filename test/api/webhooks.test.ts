/** Incoming webhooks, /api/v1/external/{name}: authentication, where messages go, filters and Zulip's error replies. */
import { test, before, after, describe } from "node:test";
import assert from "node:assert/strict";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { Api, basicAuth, type Credentials } from "../helpers/client.js";
import { createTestRealm, type TestRealm, type TestUser } from "../helpers/realm.js";
import { runAction } from "../../src/actions/run.js";
import { createUserInTx } from "../../src/actions/users.js";
import { Role } from "../../src/domain/roles.js";
import { allIntegrations, integrationNamed } from "../../src/integrations/registry.js";

let srv: TestServer;
let t: TestRealm;
let hookBot: TestUser;
let deadBot: TestUser;
let generalId: number;
const api = (u: TestUser) => new Api(srv.url, u);

interface HookOptions {
  query?: Record<string, string>;
  body?: string;
  contentType?: string;
  headers?: Record<string, string>;
  basic?: Credentials;
  method?: string;
}

async function hook(name: string, opts: HookOptions = {}) {
  const url = `${srv.url}/api/v1/external/${name}?${new URLSearchParams(opts.query ?? {})}`;
  const headers: Record<string, string> = { "content-type": opts.contentType ?? "application/json", ...opts.headers };
  if (opts.basic) headers.authorization = basicAuth(opts.basic);
  const res = await fetch(url, { method: opts.method ?? "POST", headers, body: opts.body });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : {} };
}

async function lastMessage(reader: TestUser, narrow: unknown[] = []) {
  const r = await api(reader).get("/messages", {
    anchor: "newest",
    num_before: 1,
    num_after: 0,
    narrow,
    apply_markdown: false,
    allow_empty_topic_name: true,
  });
  assert.equal(r.body.result, "success", JSON.stringify(r.body));
  return r.body.messages[0] as Record<string, any> | undefined;
}

async function messageCount(): Promise<number> {
  const r = await srv.app.db.selectFrom("messages").select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirstOrThrow();
  return Number(r.n);
}

const PAYLOAD = JSON.stringify({ hello: "world", n: 1 });
const JSON_BODY = '```json\n{\n  "hello": "world",\n  "n": 1\n}\n```';

before(async () => {
  srv = await startTestServer();
  t = await createTestRealm(srv.app);
  const made = await runAction(srv.app, async (tx) => {
    const make = async (local: string, fullName: string) => {
      const u = await createUserInTx(tx, srv.app, t.realm, {
        email: `${local}@zulip.example.com`,
        fullName,
        role: Role.MEMBER,
        isBot: true,
        botType: 2,
        botOwnerId: t.member.id,
      });
      return { id: u.id, email: u.delivery_email, apiKey: u.api_key, role: Role.MEMBER, fullName };
    };
    return { hookBot: await make("hook-bot", "Hook Bot"), deadBot: await make("dead-bot", "Dead Bot") };
  });
  hookBot = made.hookBot;
  deadBot = made.deadBot;
  for (const u of [t.owner, t.member]) await api(u).post("/users/me/subscriptions", { subscriptions: [{ name: "general" }] });
  generalId = (await api(t.member).get("/get_stream_id", { stream: "general" })).body.stream_id;
  await srv.app.db.updateTable("users").set({ is_active: 0 }).where("id", "=", deadBot.id).execute();
});
after(() => srv.close());

describe("authentication", () => {
  test("api_key in the URL: the message is the bot's, with the integration's client name", async () => {
    const r = await hook("json", { query: { api_key: hookBot.apiKey, stream: "general" }, body: PAYLOAD });
    assert.deepEqual(r.body, { result: "success", msg: "" });
    const m = await lastMessage(t.member);
    assert.equal(m!.sender_id, hookBot.id);
    assert.equal(m!.client, "ZulipJSONWebhook");
    assert.equal(m!.subject, "JSON");
    assert.equal(m!.content, JSON_BODY);
  });

  test("HTTP Basic with the bot's email and key", async () => {
    const r = await hook("json", { query: { stream: "general", topic: "basic" }, body: PAYLOAD, basic: hookBot });
    assert.equal(r.body.result, "success");
    const m = await lastMessage(t.member);
    assert.equal(m!.sender_id, hookBot.id);
    assert.equal(m!.subject, "basic");
  });

  test("any active user's key works", async () => {
    const r = await hook("json", { query: { api_key: t.member2.apiKey, stream: "general" }, body: PAYLOAD });
    assert.equal(r.body.result, "success");
    assert.equal((await lastMessage(t.member))!.sender_id, t.member2.id);
  });

  test("a missing, malformed or unknown key, or a deactivated bot, is refused", async () => {
    const before = await messageCount();
    let r = await hook("json", { query: { stream: "general" }, body: PAYLOAD });
    assert.equal(r.status, 400);
    assert.deepEqual(r.body, { result: "error", msg: "Missing 'api_key' argument", code: "REQUEST_VARIABLE_MISSING", var_name: "api_key" });
    r = await hook("json", { query: { api_key: "short", stream: "general" }, body: PAYLOAD });
    assert.equal(r.status, 401);
    assert.deepEqual(r.body, { result: "error", msg: "Malformed API key", code: "INVALID_API_KEY" });
    r = await hook("json", { query: { api_key: "a".repeat(32), stream: "general" }, body: PAYLOAD });
    assert.equal(r.status, 401);
    assert.deepEqual(r.body, { result: "error", msg: "Invalid API key", code: "INVALID_API_KEY" });
    r = await hook("json", { query: { api_key: deadBot.apiKey, stream: "general" }, body: PAYLOAD });
    assert.equal(r.status, 401);
    assert.deepEqual(r.body, { result: "error", msg: "Account is deactivated", code: "USER_DEACTIVATED" });
    r = await hook("json", { query: { stream: "general" }, body: PAYLOAD, basic: { email: hookBot.email, apiKey: t.member.apiKey } });
    assert.equal(r.status, 401);
    assert.equal(r.body.msg, "Invalid API key");
    assert.equal(await messageCount(), before);
  });

  test("an integration Zulip does not have is Not Found, before any authentication", async () => {
    const r = await hook("nosuchservice", { query: { stream: "general" }, body: PAYLOAD });
    assert.equal(r.status, 404);
    assert.deepEqual(r.body, { result: "error", msg: "Not Found", code: "BAD_REQUEST" });
  });
});

describe("where the message goes", () => {
  test("a channel by id", async () => {
    const r = await hook("json", { query: { api_key: hookBot.apiKey, stream: String(generalId), topic: "by id" }, body: PAYLOAD });
    assert.equal(r.body.result, "success");
    const m = await lastMessage(t.member);
    assert.equal(m!.stream_id, generalId);
    assert.equal(m!.subject, "by id");
  });

  test("stream and topic may come in a form body", async () => {
    const body = new URLSearchParams({ stream: "general", topic: "from form", payload: JSON.stringify({ text: "hi" }) }).toString();
    const r = await hook("slack_incoming", { query: { api_key: hookBot.apiKey }, body, contentType: "application/x-www-form-urlencoded" });
    assert.equal(r.body.result, "success");
    const m = await lastMessage(t.member);
    assert.equal(m!.subject, "from form");
  });

  test("without a channel, a direct message to the bot's owner; a user's own key, to themself", async () => {
    let r = await hook("json", { query: { api_key: hookBot.apiKey }, body: PAYLOAD });
    assert.equal(r.body.result, "success");
    let m = await lastMessage(t.member, [{ operator: "dm", operand: [hookBot.id] }]);
    assert.equal(m!.type, "private");
    assert.equal(m!.sender_id, hookBot.id);
    assert.equal(m!.content, JSON_BODY);
    r = await hook("json", { query: { api_key: t.admin.apiKey }, body: PAYLOAD });
    assert.equal(r.body.result, "success");
    m = await lastMessage(t.admin, [{ operator: "dm", operand: [t.admin.id] }]);
    assert.equal(m!.sender_id, t.admin.id);
  });

  test("a channel that does not exist: nothing posted, Notification Bot tells the owner (once a minute), still a success", async () => {
    const before = await messageCount();
    const r = await hook("json", { query: { api_key: hookBot.apiKey, stream: "nowhere" }, body: PAYLOAD });
    assert.deepEqual(r.body, { result: "success", msg: "" });
    assert.equal(await messageCount(), before + 1);
    const notice = await lastMessage(t.member, [{ operator: "is", operand: "dm" }]);
    assert.equal(notice!.sender_email, "notification-bot@zulip.com");
    assert.equal(
      notice!.content,
      `Your bot \`${hookBot.email}\` tried to send a message to channel #**nowhere**, but that channel does not exist. Click [here](#channels/new) to create it.`,
    );
    const again = await hook("json", { query: { api_key: hookBot.apiKey, stream: "99999" }, body: PAYLOAD });
    assert.equal(again.body.result, "success");
    assert.equal(await messageCount(), before + 1, "one notice a minute");
  });

  test("the message's event reaches the channel's subscribers through GET /events", async () => {
    const reg = await api(t.member).post("/register", { event_types: ["message"] });
    const r = await hook("json", { query: { api_key: hookBot.apiKey, stream: "general", topic: "live" }, body: PAYLOAD });
    assert.equal(r.body.result, "success");
    const ev = await api(t.member).get("/events", { queue_id: reg.body.queue_id, last_event_id: reg.body.last_event_id, dont_block: true });
    const messages = ev.body.events.filter((e: any) => e.type === "message");
    assert.equal(messages.length, 1);
    assert.equal(messages[0].message.subject, "live");
    assert.equal(messages[0].message.sender_id, hookBot.id);
    assert.equal(messages[0].message.client, "ZulipJSONWebhook");
  });

  test("a long topic is cut to 60 characters, as for any message", async () => {
    const topic = "é".repeat(70);
    const r = await hook("json", { query: { api_key: hookBot.apiKey, stream: "general", topic }, body: PAYLOAD });
    assert.equal(r.body.result, "success");
    const m = await lastMessage(t.member);
    assert.equal(m!.subject, "é".repeat(57) + "...");
  });
});

describe("payloads and filters", () => {
  test("only_events / exclude_events must be JSON lists of strings", async () => {
    let r = await hook("json", { query: { api_key: hookBot.apiKey, stream: "general", only_events: "push" }, body: PAYLOAD });
    assert.equal(r.status, 400);
    assert.equal(r.body.msg, "only_events is not valid JSON");
    r = await hook("json", { query: { api_key: hookBot.apiKey, stream: "general", exclude_events: '"push"' }, body: PAYLOAD });
    assert.equal(r.status, 400);
    assert.equal(r.body.result, "error");
  });

  test("integrations without an event type ignore the filters", async () => {
    const before = await messageCount();
    const r = await hook("json", { query: { api_key: hookBot.apiKey, stream: "general", only_events: '["nothing"]' }, body: PAYLOAD });
    assert.equal(r.body.result, "success");
    assert.equal(await messageCount(), before + 1);
  });

  test("a body that is not JSON: Malformed JSON", async () => {
    const before = await messageCount();
    const r = await hook("json", { query: { api_key: t.member2.apiKey, stream: "general" }, body: "{not json" });
    assert.equal(r.status, 400);
    assert.deepEqual(r.body, { result: "error", msg: "Malformed JSON", code: "INVALID_JSON" });
    assert.equal(await messageCount(), before);
  });

  test("Slack: a form without payload is a missing argument; an empty message posts nothing", async () => {
    let r = await hook("slack_incoming", { query: { api_key: hookBot.apiKey, stream: "general" }, body: "x=1", contentType: "application/x-www-form-urlencoded" });
    assert.equal(r.status, 400);
    assert.equal(r.body.msg, "Missing 'payload' argument");
    const before = await messageCount();
    r = await hook("slack_incoming", { query: { api_key: hookBot.apiKey, stream: "general" }, body: JSON.stringify({ text: "" }) });
    assert.deepEqual(r.body, { result: "success", msg: "" });
    assert.equal(await messageCount(), before);
  });

  test("Slack: the channel names the topic, (no topic) is the empty topic", async () => {
    let r = await hook("slack_incoming", { query: { api_key: hookBot.apiKey, stream: "general" }, body: JSON.stringify({ text: "*hi* <https://x.example|there>", channel: "#ops" }) });
    assert.equal(r.body.result, "success");
    let m = await lastMessage(t.member);
    assert.equal(m!.subject, "ops");
    assert.equal(m!.content, "**hi** [there](https://x.example)");
    r = await hook("slack_incoming", { query: { api_key: hookBot.apiKey, stream: "general" }, body: JSON.stringify({ text: "plain" }) });
    m = await lastMessage(t.member);
    assert.equal(m!.subject, "");
  });
});

describe("Zulip's webhook error replies (through GitHub's integration)", () => {
  const skip = integrationNamed("github") ? false : "GitHub is not in the registry";

  test("an event the integration does not report is a success carrying the error code", { skip }, async () => {
    const before = await messageCount();
    const r = await hook("github", { query: { api_key: hookBot.apiKey, stream: "general" }, body: "{}", headers: { "X-GitHub-Event": "made_up_event" } });
    assert.equal(r.status, 200);
    assert.equal(r.body.result, "success");
    assert.equal(r.body.code, "UNSUPPORTED_WEBHOOK_EVENT_TYPE");
    assert.equal(r.body.webhook_name, "GitHub");
    assert.equal(typeof r.body.event_type, "string");
    assert.equal(r.body.msg, `The '${r.body.event_type}' event isn't currently supported by the GitHub webhook; ignoring`);
    assert.equal(await messageCount(), before);
  });

  test("a missing event header: 400, and Notification Bot tells the bot's owner", async (ctx) => {
    if (skip) return ctx.skip(skip);
    const other = await runAction(srv.app, (tx) =>
      createUserInTx(tx, srv.app, t.realm, { email: "header-bot@zulip.example.com", fullName: "Header Bot", role: Role.MEMBER, isBot: true, botType: 2, botOwnerId: t.admin.id }),
    );
    const r = await hook("github", { query: { api_key: other.api_key, stream: "general" }, body: "{}" });
    assert.equal(r.status, 400);
    assert.deepEqual(r.body, { result: "error", msg: "Missing the HTTP event header 'X-GitHub-Event'", code: "MISSING_HTTP_EVENT_HEADER", header: "X-GitHub-Event" });
    const notice = await lastMessage(t.admin, [{ operator: "is", operand: "dm" }]);
    assert.equal(notice!.sender_email, "notification-bot@zulip.com");
    assert.match(notice!.content, /^Hi there!  Your bot Header Bot just sent an HTTP request to \/api\/v1\/external\/github that\nis missing the HTTP X-GitHub-Event header\./);
  });

  test("a payload the integration cannot read: Unable to parse request", { skip }, async () => {
    const r = await hook("github", { query: { api_key: hookBot.apiKey, stream: "general" }, body: "[1]", headers: { "X-GitHub-Event": "push" } });
    assert.equal(r.status, 400);
    assert.deepEqual(r.body, { result: "error", msg: "Unable to parse request: Did GitHub generate this event?", code: "ANOMALOUS_WEBHOOK_PAYLOAD", webhook_name: "GitHub" });
  });
});

describe("requests", () => {
  test("HEAD (a service checking the URL) answers success without posting", async () => {
    const before = await messageCount();
    const res = await fetch(`${srv.url}/api/v1/external/json?api_key=${hookBot.apiKey}&stream=general`, { method: "HEAD" });
    assert.equal(res.status, 200);
    assert.equal(await messageCount(), before);
  });

  test("GET with the payload in the query works as Zulip's URL patterns allow", async () => {
    const q = new URLSearchParams({ api_key: hookBot.apiKey, stream: "general", topic: "got", payload: JSON.stringify({ text: "via GET" }) });
    const res = await fetch(`${srv.url}/api/v1/external/slack_incoming?${q}`);
    assert.equal(res.status, 200);
    const m = await lastMessage(t.member);
    assert.equal(m!.content, "via GET");
  });

  test("an oversized body is refused before any work", async () => {
    const r = await hook("json", { query: { api_key: hookBot.apiKey, stream: "general" }, body: "[" + "1,".repeat(6 * 1024 * 1024) + "1]" });
    assert.equal(r.status, 413);
    assert.equal(r.body.result, "error");
  });

  test("a content longer than Zulip's limit is cut with its notice", async () => {
    const r = await hook("slack_incoming", { query: { api_key: hookBot.apiKey, stream: "general" }, body: JSON.stringify({ text: "x".repeat(12000) }) });
    assert.equal(r.body.result, "success");
    const m = await lastMessage(t.member);
    assert.equal([...m!.content].length, 10000);
    assert.ok(m!.content.endsWith("\n[message truncated]"));
  });
});

describe("no integration answers junk with a server error", () => {
  const bodies = ["", "null", "[]", "{}", "x", '{"a": 1}', '{"action": 5, "event": [], "type": {}}', "payload=%7B%7D"];
  for (const integration of allIntegrations()) {
    test(integration.name, async () => {
      for (const body of bodies) {
        for (const contentType of ["application/json", "application/x-www-form-urlencoded"]) {
          const r = await hook(integration.name, {
            query: { api_key: t.member2.apiKey, stream: "general" },
            body,
            contentType,
            headers: { "X-GitHub-Event": "push", "X-Gitlab-Event": "Push Hook", "X-Event-Key": "repo:push", "X-Gitea-Event": "push", "X-Gogs-Event": "push" },
          });
          assert.ok(r.status < 500, `${integration.name} ${contentType} ${JSON.stringify(body)}: ${r.status} ${JSON.stringify(r.body)}`);
          assert.ok(r.body.result === "success" || r.body.result === "error");
        }
      }
    });
  }
});

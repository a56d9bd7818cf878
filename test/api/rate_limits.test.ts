/**
 * Rate limits as Zulip answers them: X-RateLimit-* headers on limited routes, RATE_LIMIT_HIT
 * (429) with retry-after once a rule is exhausted, counted per user, per IP address, per login
 * address, and per organization for sign-up emails. Small limits keep the tests short.
 */
import { test, before, after, describe } from "node:test";
import assert from "node:assert/strict";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { Api, type ApiResponse } from "../helpers/client.js";
import { createTestRealm, TEST_PASSWORD, type TestRealm, type TestUser } from "../helpers/realm.js";
import { ManualTime } from "../helpers/time.js";
import { readOutbox } from "../helpers/mail.js";
import { ok } from "../helpers/channels.js";

let time: ManualTime;
let srv: TestServer;
let t: TestRealm;

before(async () => {
  time = new ManualTime(1_700_000_000);
  srv = await startTestServer(
    {
      rateLimiting: true,
      rateLimitRules: {
        api_by_user: [[60, 3]],
        api_by_ip: [[60, 2]],
        authenticate_by_username: [[1800, 2]],
        email_change_by_user: [[3600, 1]],
        sends_email_by_ip: [[86400, 2]],
        email_mirror_by_realm: [[60, 1]],
      },
      maxQueuesPerUser: 3,
    },
    { clock: time, timers: time },
  );
  t = await createTestRealm(srv.app);
});
after(() => srv.close());

const api = (u?: TestUser) => new Api(srv.url, u);

function assertLimited(r: ApiResponse, retryAfter: number) {
  assert.equal(r.status, 429, JSON.stringify(r.body));
  assert.deepEqual(r.body, { result: "error", msg: "API usage exceeded rate limit", code: "RATE_LIMIT_HIT", "retry-after": retryAfter });
  assert.equal(r.headers.get("retry-after"), String(retryAfter));
}

const headers = (r: ApiResponse) => ["x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset"].map((h) => r.headers.get(h));

describe("api_by_user", () => {
  test("each user's requests are counted, with the headers; past the limit RATE_LIMIT_HIT until the window passes", async () => {
    const start = time.current;
    const seen = [];
    for (let i = 0; i < 3; i++) {
      const r = await api(t.member).get("/users/me");
      assert.equal(r.status, 200);
      seen.push(headers(r));
      time.advance(10);
    }
    assert.deepEqual(seen, [
      ["3", "2", String(start + 60)],
      ["3", "1", String(start + 60)],
      ["3", "0", String(start + 60)],
    ]);
    // The first request frees its slot 60 seconds after it was made: 30 seconds from now.
    const refused = await api(t.member).get("/users/me");
    assertLimited(refused, 30);
    assert.deepEqual(headers(refused), ["3", "0", String(start + 60)]);
    assert.equal((await api(t.member2).get("/users/me")).status, 200, "another user has a budget of their own");
    time.advance(30);
    assert.equal((await api(t.member).get("/users/me")).status, 200);
  });

  test("a refused request does not count; long-polls of the event queue are not limited", async () => {
    time.advance(120);
    const queue = (await ok(api(t.moderator).post("/register", { event_types: ["message"] }))).queue_id;
    for (let i = 0; i < 2; i++) assert.equal((await api(t.moderator).get("/users/me")).status, 200);
    for (let i = 0; i < 3; i++) assert.equal((await api(t.moderator).get("/users/me")).status, 429);
    for (let i = 0; i < 5; i++) {
      const r = await api(t.moderator).get("/events", { queue_id: queue, last_event_id: -1, dont_block: true });
      assert.equal(r.status, 200);
      assert.equal(r.headers.get("x-ratelimit-limit"), null);
    }
    time.advance(60);
    assert.equal((await api(t.moderator).get("/users/me")).status, 200);
  });
});

describe("api_by_ip", () => {
  test("requests without authentication are counted per address", async () => {
    time.advance(3600);
    const r1 = await api().get("/server_settings");
    assert.deepEqual(headers(r1).slice(0, 2), ["2", "1"]);
    assert.equal((await api().get("/server_settings")).status, 200);
    assertLimited(await api().get("/server_settings"), 60);
  });
});

describe("behind a reverse proxy", () => {
  test("a trusted proxy's X-Forwarded-For decides the address; an untrusted one's is ignored", async () => {
    const proxied = await startTestServer({ rateLimiting: true, rateLimitRules: { ...srv.app.config.rateLimitRules, api_by_ip: [[60, 1]] }, trustedProxies: ["127.0.0.1"] });
    const direct = await startTestServer({ rateLimiting: true, rateLimitRules: { ...srv.app.config.rateLimitRules, api_by_ip: [[60, 1]] } });
    try {
      const from = (server: TestServer, ip: string) => new Api(server.url).call("GET", "/server_settings", {}, { "x-forwarded-for": ip });
      assert.equal((await from(proxied, "203.0.113.1")).status, 200);
      assert.equal((await from(proxied, "203.0.113.2")).status, 200, "another client behind the proxy has its own budget");
      assert.equal((await from(proxied, "203.0.113.1")).status, 429);
      assert.equal((await from(direct, "203.0.113.1")).status, 200);
      assert.equal((await from(direct, "203.0.113.2")).status, 429, "without trust, the header cannot buy a fresh budget");
    } finally {
      await proxied.close();
      await direct.close();
    }
  });
});

describe("authenticate_by_username", () => {
  test("failed logins are counted per address tried; then even the right password waits", async () => {
    time.advance(3600);
    for (let i = 0; i < 2; i++) {
      time.advance(60);
      const r = await api().post("/fetch_api_key", { username: t.member.email, password: "wrong" });
      assert.equal(r.body.code, "AUTHENTICATION_FAILED");
    }
    time.advance(60);
    assertLimited(await api().post("/fetch_api_key", { username: t.member.email.toUpperCase(), password: TEST_PASSWORD }), 1800 - 120);
    const other = await api().post("/fetch_api_key", { username: t.member2.email, password: TEST_PASSWORD });
    assert.equal(other.body.result, "success", "another address is not affected");
    time.advance(1800);
    assert.equal((await api().post("/fetch_api_key", { username: t.member.email, password: TEST_PASSWORD })).body.result, "success");
  });

  test("unknown addresses are counted like known ones", async () => {
    time.advance(3600);
    for (let i = 0; i < 2; i++) {
      time.advance(60);
      assert.equal((await api().post("/fetch_api_key", { username: "nobody@zulip.example.com", password: "x" })).status, 401);
    }
    time.advance(60);
    assert.equal((await api().post("/fetch_api_key", { username: "nobody@zulip.example.com", password: "x" })).status, 429);
  });
});

describe("emails", () => {
  test("email_change_by_user: one confirmation email per hour here", async () => {
    time.advance(3600);
    assert.equal((await api(t.member).patch("/settings", { email: "first-new@zulip.example.com" })).status, 200);
    assertLimited(await api(t.member).patch("/settings", { email: "second-new@zulip.example.com" }), 3600);
  });

  test("sends_email_by_ip: sign-up emails from a reusable link, per address", async () => {
    time.advance(3600);
    const link = new URL((await ok(api(t.admin).post("/invites/multiuse", {}))).invite_link).pathname;
    const signUp = (email: string) => fetch(srv.url + link, { method: "POST", body: new URLSearchParams({ email }) });
    for (const email of ["one@example.com", "two@example.com"]) assert.equal((await signUp(email)).status, 200);
    const third = await signUp("three@example.com");
    assert.match(await third.text(), /API usage exceeded rate limit/);
    const sent = (await readOutbox(srv)).map((m) => m.to);
    assert.ok(sent.includes("two@example.com") && !sent.includes("three@example.com"));
  });
});

describe("event queues", () => {
  test("a user holds at most the configured number; registering another removes the one idle longest", async () => {
    time.advance(3600);
    const queues: string[] = [];
    for (let i = 0; i < 4; i++) {
      time.advance(30);
      queues.push((await ok(api(t.admin).post("/register", { event_types: ["message"] }))).queue_id);
    }
    const poll = (id: string) => api(t.admin).get("/events", { queue_id: id, last_event_id: -1, dont_block: true });
    assert.equal((await poll(queues[0])).body.code, "BAD_EVENT_QUEUE_ID");
    for (const id of queues.slice(1)) assert.equal((await poll(id)).status, 200);
    assert.equal((await srv.app.eventQueues.queueIdsOf(t.admin.id)).length, 3);
  });
});

describe("configuration", () => {
  test("off by default in development, on in production, and rules can be overridden", async () => {
    const { loadConfig } = await import("../../src/config.js");
    assert.equal(loadConfig({}).rateLimiting, true);
    assert.equal(loadConfig({ CONFAB_DEV: "1" }).rateLimiting, false);
    assert.equal(loadConfig({ CONFAB_DEV: "1", CONFAB_RATE_LIMITING: "1" }).rateLimiting, true);
    assert.deepEqual(loadConfig({}).rateLimitRules.api_by_user, [[60, 200]]);
    assert.deepEqual(loadConfig({ CONFAB_RATE_LIMIT_RULES: '{"api_by_user": [[10, 5]]}' }).rateLimitRules.api_by_user, [[10, 5]]);
    assert.throws(() => loadConfig({ CONFAB_RATE_LIMIT_RULES: '{"api_by_usr": [[10, 5]]}' }), /unknown rate limit domain/);
  });

  test("with limits off there are no headers", async () => {
    const plain = await startTestServer();
    try {
      const u = await createTestRealm(plain.app);
      const r = await new Api(plain.url, u.member).get("/users/me");
      assert.equal(r.headers.get("x-ratelimit-limit"), null);
    } finally {
      await plain.close();
    }
  });
});

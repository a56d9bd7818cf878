/**
 * The web client's session: sign-in at /login/ sets an HttpOnly `sessionid` and a `csrftoken`;
 * the session authenticates /api/v1 like an API key; writes need the X-CSRFToken header;
 * /logout ends it. Also what / answers with and without a session.
 */
import { test, before, after, describe } from "node:test";
import assert from "node:assert/strict";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { createTestRealm, TEST_PASSWORD, type TestRealm } from "../helpers/realm.js";
import { ensureClientBuilt } from "../helpers/browser.js";
import http from "node:http";
import { brotliDecompressSync, gunzipSync } from "node:zlib";

let srv: TestServer;
let t: TestRealm;

before(async () => {
  srv = await startTestServer();
  t = await createTestRealm(srv.app);
});
after(() => srv.close());

interface Session {
  cookie: string;
  csrf: string;
  setCookies: string[];
}

async function signIn(email: string, password: string): Promise<{ status: number; location: string | null; session?: Session; html: string }> {
  const res = await fetch(`${srv.url}/login/`, {
    method: "POST",
    body: new URLSearchParams({ username: email, password }),
    redirect: "manual",
  });
  const setCookies = res.headers.getSetCookie();
  const values = Object.fromEntries(setCookies.map((c) => c.split(";")[0].split("=") as [string, string]));
  const session = values.sessionid ? { cookie: `sessionid=${values.sessionid}; csrftoken=${values.csrftoken}`, csrf: values.csrftoken, setCookies } : undefined;
  return { status: res.status, location: res.headers.get("location"), session, html: await res.text() };
}

const call = (s: Session, method: string, path: string, opts: { csrf?: string; body?: Record<string, string> } = {}) =>
  fetch(`${srv.url}/api/v1${path}`, {
    method,
    headers: { cookie: s.cookie, ...(opts.csrf !== undefined ? { "x-csrftoken": opts.csrf } : {}) },
    body: opts.body ? new URLSearchParams(opts.body) : undefined,
    redirect: "manual",
  });

describe("signing in", () => {
  test("the right password opens a session whose cookies are HttpOnly (session) and SameSite", async () => {
    const r = await signIn(t.member.email, TEST_PASSWORD);
    assert.equal(r.status, 303);
    assert.equal(r.location, "/");
    const [sessionCookie, csrfCookie] = r.session!.setCookies;
    assert.match(sessionCookie, /^sessionid=[\w-]{43}; Path=\/; Max-Age=1209600; SameSite=Lax; HttpOnly$/);
    assert.match(csrfCookie, /^csrftoken=[\w-]{43}; Path=\/; Max-Age=1209600; SameSite=Lax$/);
    const me = await call(r.session!, "GET", "/users/me");
    assert.equal(me.status, 200);
    assert.equal(((await me.json()) as { user_id: number }).user_id, t.member.id);
  });

  test("a wrong password shows the form again with Zulip's message, and no session", async () => {
    const r = await signIn(t.member.email, "not the password");
    assert.equal(r.status, 401);
    assert.equal(r.session, undefined);
    assert.match(r.html, /Your username or password is incorrect/);
    assert.match(r.html, new RegExp(`value="${t.member.email}"`));
  });

  test("the login page is served at /login/ and / sends strangers there", async () => {
    const login = await fetch(`${srv.url}/login/`);
    assert.equal(login.status, 200);
    assert.match(await login.text(), /<form method="post" action="\/login\/">/);
    const root = await fetch(`${srv.url}/`, { redirect: "manual" });
    assert.equal(root.status, 302);
    assert.equal(root.headers.get("location"), "/login/");
  });

  test("unknown API paths still answer with the JSON 404", async () => {
    const r = await fetch(`${srv.url}/api/v1/no_such_thing`);
    assert.equal(r.status, 404);
    assert.deepEqual(await r.json(), { result: "error", msg: "Not Found", code: "BAD_REQUEST" });
  });
});

describe("CSRF protection of session-authenticated writes", () => {
  test("a write without the token is refused with Zulip's CSRF_FAILED, with a wrong token too, and goes through with it", async () => {
    const { session } = await signIn(t.member2.email, TEST_PASSWORD);
    const body = { full_name: "Renamed By Session" };
    const missing = await call(session!, "PATCH", "/settings", { body });
    assert.equal(missing.status, 403);
    assert.deepEqual(await missing.json(), { result: "error", msg: "CSRF error: CSRF token missing.", code: "CSRF_FAILED", reason: "CSRF token missing." });
    const wrong = await call(session!, "PATCH", "/settings", { body, csrf: "x".repeat(43) });
    assert.equal(wrong.status, 403);
    assert.equal(((await wrong.json()) as { reason: string }).reason, "CSRF token incorrect.");
    const ok = await call(session!, "PATCH", "/settings", { body, csrf: session!.csrf });
    assert.equal(ok.status, 200, await ok.text());
    const me = (await (await call(session!, "GET", "/users/me")).json()) as { full_name: string };
    assert.equal(me.full_name, "Renamed By Session");
  });

  test("API-key requests need no CSRF token", async () => {
    const auth = "Basic " + Buffer.from(`${t.member.email}:${t.member.apiKey}`).toString("base64");
    const r = await fetch(`${srv.url}/api/v1/users/me/presence`, { method: "POST", headers: { authorization: auth }, body: new URLSearchParams({ status: "active" }) });
    assert.equal(r.status, 200);
  });
});

describe("signing out", () => {
  test("/logout needs the token, then ends the session for good", async () => {
    const { session } = await signIn(t.moderator.email, TEST_PASSWORD);
    const forged = await fetch(`${srv.url}/logout`, { method: "POST", headers: { cookie: session!.cookie }, redirect: "manual" });
    assert.equal(forged.status, 403);
    assert.equal((await call(session!, "GET", "/users/me")).status, 200);
    const out = await fetch(`${srv.url}/logout`, { method: "POST", headers: { cookie: session!.cookie, "x-csrftoken": session!.csrf }, redirect: "manual" });
    assert.equal(out.status, 303);
    assert.equal(out.headers.get("location"), "/login/");
    assert.match(out.headers.getSetCookie()[0], /^sessionid=; Path=\/; Max-Age=0/);
    const after = await call(session!, "GET", "/users/me");
    assert.equal(after.status, 401);
  });

  test("a deactivated user's session stops working", async () => {
    const { session } = await signIn(t.guest.email, TEST_PASSWORD);
    const auth = "Basic " + Buffer.from(`${t.owner.email}:${t.owner.apiKey}`).toString("base64");
    const r = await fetch(`${srv.url}/api/v1/users/${t.guest.id}`, { method: "DELETE", headers: { authorization: auth } });
    assert.equal(r.status, 200, await r.text());
    const after = await call(session!, "GET", "/users/me");
    assert.equal(after.status, 401);
    assert.equal(((await after.json()) as { msg: string }).msg, "Account is deactivated");
  });
});

describe("the web app's client name", () => {
  test("a browser session is Zulip's `website` client, so what its user sends arrives read for them", async () => {
    const { session } = await signIn(t.member.email, TEST_PASSWORD);
    const browser = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0 Safari/537.36";
    const sent = await fetch(`${srv.url}/api/v1/messages`, {
      method: "POST",
      headers: { cookie: session!.cookie, "x-csrftoken": session!.csrf, "user-agent": browser },
      body: new URLSearchParams({ type: "direct", to: JSON.stringify([t.member2.id]), content: "from the browser" }),
    });
    assert.equal(sent.status, 200, await sent.clone().text());
    const { id } = (await sent.json()) as { id: number };
    const read = await fetch(`${srv.url}/api/v1/messages/${id}`, { headers: { cookie: session!.cookie, "user-agent": browser } });
    const { message } = (await read.json()) as { message: { client: string; flags: string[] } };
    assert.equal(message.client, "website");
    assert.ok(message.flags.includes("read"), JSON.stringify(message.flags));
  });

  test("the same browser with an API key is still named after its user agent, and its sends stay unread", async () => {
    const auth = "Basic " + Buffer.from(`${t.member.email}:${t.member.apiKey}`).toString("base64");
    const sent = await fetch(`${srv.url}/api/v1/messages`, {
      method: "POST",
      headers: { authorization: auth, "user-agent": "Mozilla/5.0 (X11)" },
      body: new URLSearchParams({ type: "direct", to: JSON.stringify([t.member2.id]), content: "from a script" }),
    });
    const { id } = (await sent.json()) as { id: number };
    const read = await fetch(`${srv.url}/api/v1/messages/${id}`, { headers: { authorization: auth } });
    const { message } = (await read.json()) as { message: { client: string; flags: string[] } };
    assert.equal(message.client, "Mozilla");
    assert.ok(!message.flags.includes("read"), JSON.stringify(message.flags));
  });
});

describe("the web client's files", () => {
  /** The body exactly as sent (fetch would decode it), with its content-encoding. */
  const rawGet = (path: string, cookie: string, encoding: string) =>
    new Promise<{ status: number; encoding: string | undefined; body: Buffer }>((resolve, reject) => {
      http
        .get(`${srv.url}${path}`, { headers: { cookie, "accept-encoding": encoding } }, (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () => resolve({ status: res.statusCode!, encoding: res.headers["content-encoding"], body: Buffer.concat(chunks) }));
        })
        .on("error", reject);
    });

  test("are sent brotli- or gzip-compressed as the browser accepts, or as they are, the same bytes each way", async () => {
    ensureClientBuilt();
    const { session } = await signIn(t.member.email, TEST_PASSWORD);
    const index = await rawGet("/", session!.cookie, "identity");
    assert.equal(index.status, 200);
    const script = /src="(\/static\/web\/assets\/[^"]+\.js)"/.exec(index.body.toString())![1];
    // Several at once while nothing is compressed yet: they share one compression.
    const [br, gz, plain] = await Promise.all([rawGet(script, session!.cookie, "gzip, deflate, br"), rawGet(script, session!.cookie, "gzip"), rawGet(script, session!.cookie, "identity")]);
    assert.equal(plain.encoding, undefined);
    assert.equal(br.encoding, "br");
    assert.equal(gz.encoding, "gzip");
    assert.ok(br.body.length < plain.body.length / 2 && gz.body.length < plain.body.length / 2);
    assert.deepEqual(brotliDecompressSync(br.body), plain.body);
    assert.deepEqual(gunzipSync(gz.body), plain.body);
  });
});

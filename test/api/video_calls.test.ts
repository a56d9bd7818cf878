import { test, before, after, describe } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import { createHash } from "node:crypto";
import type { AddressInfo } from "node:net";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { Api, basicAuth } from "../helpers/client.js";
import { createTestRealm, TEST_PASSWORD, type TestRealm, type TestUser } from "../helpers/realm.js";
import { refusedUrl } from "../helpers/fake_bouncer.js";

const SECRET = "bbb-shared-secret";

/** A BigBlueButton server speaking its real API over HTTP: checks checksums as BigBlueButton does. */
class FakeBigBlueButton {
  calls: { call: string; params: URLSearchParams }[] = [];
  answer: "ok" | "fail" | "http500" = "ok";
  private server = http.createServer((req, res) => {
    const url = new URL(req.url!, "http://x");
    const call = url.pathname.replace("/bigbluebutton/api/", "");
    const raw = url.search.slice(1);
    const query = raw.replace(/&checksum=[0-9a-f]+$/, "");
    const expected = createHash("sha256").update(call + query + SECRET).digest("hex");
    this.calls.push({ call, params: new URLSearchParams(raw) });
    res.setHeader("content-type", "text/xml");
    if (this.answer === "http500") return res.writeHead(500).end();
    if (url.searchParams.get("checksum") !== expected) {
      return res.end("<response><returncode>FAILED</returncode><messageKey>checksumError</messageKey></response>");
    }
    if (this.answer === "fail") {
      return res.end("<response><returncode>FAILED</returncode><messageKey>idNotUnique</messageKey></response>");
    }
    res.end(`<response><returncode>SUCCESS</returncode><meetingID>${url.searchParams.get("meetingID")}</meetingID><createTime>1531155809613</createTime></response>`);
  });
  async start(): Promise<string> {
    await new Promise<void>((r) => this.server.listen(0, "127.0.0.1", r));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/bigbluebutton/`;
  }
  close() {
    this.server.close();
  }
}

let bbb: FakeBigBlueButton;
let srv: TestServer;
let plain: TestServer;
let t: TestRealm;
let o: TestRealm;
const api = (u: TestUser, s = srv) => new Api(s.url, u);

before(async () => {
  bbb = new FakeBigBlueButton();
  srv = await startTestServer({ bigBlueButtonUrl: await bbb.start(), bigBlueButtonSecret: SECRET, bigBlueButtonTimeoutMs: 2000 });
  plain = await startTestServer();
  t = await createTestRealm(srv.app);
  o = await createTestRealm(srv.app, "other");
  await createTestRealm(plain.app);
});
after(async () => {
  await srv.close();
  await plain.close();
  bbb.close();
});

async function create(u: TestUser, params: Record<string, string | boolean> = { meeting_name: "Verona meeting" }) {
  const r = await api(u).get("/calls/bigbluebutton/create", params);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.url as string;
}

function join(u: TestUser | null, link: string) {
  return fetch(`${srv.url}${link}`, { redirect: "manual", headers: u ? { authorization: basicAuth(u) } : {} });
}

describe("GET /calls/bigbluebutton/create", () => {
  test("anyone in the organization gets a signed join link", async () => {
    for (const u of [t.owner, t.admin, t.moderator, t.member, t.guest, t.bot]) {
      const r = await api(u).get("/calls/bigbluebutton/create", { meeting_name: "Verona meeting" });
      assert.deepEqual(Object.keys(r.body).sort(), ["msg", "result", "url"]);
      assert.match(r.body.url, /^\/calls\/bigbluebutton\/join\?bigbluebutton=[\w%.-]+$/);
    }
  });

  test("meeting_name is required; voice_only must be a boolean", async () => {
    const missing = await api(t.member).get("/calls/bigbluebutton/create");
    assert.deepEqual(missing.body, { result: "error", msg: "Missing 'meeting_name' argument", code: "REQUEST_VARIABLE_MISSING", var_name: "meeting_name" });
    const bad = await api(t.member).get("/calls/bigbluebutton/create", { meeting_name: "m", voice_only: "maybe" });
    assert.deepEqual(bad.body, { result: "error", msg: "voice_only is not valid JSON", code: "BAD_REQUEST" });
  });

  test("without a BigBlueButton server, Zulip's error", async () => {
    const [u] = await plain.app.db.selectFrom("users").select(["delivery_email", "api_key"]).where("role", "=", 100).execute();
    const r = await new Api(plain.url, { email: u.delivery_email, apiKey: u.api_key }).get("/calls/bigbluebutton/create", { meeting_name: "m" });
    assert.deepEqual(r.body, { result: "error", msg: "BigBlueButton is not configured.", code: "BAD_REQUEST" });
  });
});

describe("following the join link", () => {
  test("creates the meeting and sends its creator in as moderator, others as viewers", async () => {
    const link = await create(t.member, { meeting_name: "Verona meeting", voice_only: true });
    bbb.calls = [];
    const first = await join(t.member, link);
    assert.equal(first.status, 302);
    const created = bbb.calls.find((c) => c.call === "create")!;
    assert.equal(created.params.get("name"), "Verona meeting");
    assert.equal(created.params.get("lockSettingsDisableCam"), "true");
    assert.match(created.params.get("meetingID")!, /^zulip-\d{12}$/);
    const target = new URL(first.headers.get("location")!);
    assert.equal(target.pathname, "/bigbluebutton/api/join");
    assert.equal(target.searchParams.get("role"), "MODERATOR");
    assert.equal(target.searchParams.get("fullName"), t.member.fullName);
    assert.equal(target.searchParams.get("createTime"), "1531155809613");
    assert.equal(target.searchParams.get("meetingID"), created.params.get("meetingID"));
    // The join URL's checksum is one BigBlueButton accepts.
    const answer = await fetch(target);
    assert.match(await answer.text(), /<returncode>SUCCESS<\/returncode>/);

    const second = await join(t.guest, link);
    assert.equal(new URL(second.headers.get("location")!).searchParams.get("role"), "VIEWER");
  });

  test("a browser signed in at /login/ opens the link on its session", async () => {
    const link = await create(t.member);
    const login = await fetch(`${srv.url}/login/`, { method: "POST", body: new URLSearchParams({ username: t.guest.email, password: TEST_PASSWORD }), redirect: "manual" });
    const cookie = login.headers
      .getSetCookie()
      .map((c) => c.split(";")[0])
      .join("; ");
    assert.match(cookie, /sessionid=/);
    const r = await fetch(`${srv.url}${link}`, { redirect: "manual", headers: { cookie } });
    assert.equal(r.status, 302);
    const target = new URL(r.headers.get("location")!);
    assert.equal(target.searchParams.get("fullName"), t.guest.fullName);
    assert.equal(target.searchParams.get("role"), "VIEWER");
  });

  test("refuses a tampered link, and callers without credentials", async () => {
    const link = await create(t.member);
    const forged = link.replace(/bigbluebutton=([\w-]+)/, (_m, p: string) => `bigbluebutton=${p.slice(0, -2)}AA`);
    const r = await join(t.member, forged);
    assert.equal(r.status, 400);
    assert.deepEqual(await r.json(), { result: "error", msg: "Invalid signature.", code: "BAD_REQUEST" });
    assert.equal((await join(null, link)).status, 401);
    const missing = await fetch(`${srv.url}/calls/bigbluebutton/join`, { headers: { authorization: basicAuth(t.member) } });
    assert.equal((await missing.json()).msg, "Missing 'bigbluebutton' argument");
  });

  test("BigBlueButton's failures get Zulip's texts", async () => {
    const link = await create(o.member);
    for (const [answer, msg] of [
      ["fail", "BigBlueButton server returned an unexpected error."],
      ["http500", "Error connecting to the BigBlueButton server."],
    ] as const) {
      bbb.answer = answer;
      const r = await join(o.member, link);
      assert.deepEqual(await r.json(), { result: "error", msg, code: "BAD_REQUEST" });
    }
    bbb.answer = "ok";
    const wrongSecret = await startTestServer({ bigBlueButtonUrl: srv.app.config.bigBlueButtonUrl, bigBlueButtonSecret: "other", bigBlueButtonTimeoutMs: 2000 });
    const down = await startTestServer({ bigBlueButtonUrl: await refusedUrl(), bigBlueButtonSecret: SECRET, bigBlueButtonTimeoutMs: 2000 });
    try {
      for (const [s, msg] of [
        [wrongSecret, "Error authenticating to the BigBlueButton server."],
        [down, "Error connecting to the BigBlueButton server."],
      ] as const) {
        const x = await createTestRealm(s.app);
        const l = (await api(x.member, s).get("/calls/bigbluebutton/create", { meeting_name: "m" })).body.url;
        const r = await fetch(`${s.url}${l}`, { redirect: "manual", headers: { authorization: basicAuth(x.member) } });
        assert.deepEqual(await r.json(), { result: "error", msg, code: "BAD_REQUEST" });
      }
    } finally {
      await wrongSecret.close();
      await down.close();
    }
  });
});

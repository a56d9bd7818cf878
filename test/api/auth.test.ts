import { test, before, after, describe } from "node:test";
import assert from "node:assert/strict";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { Api } from "../helpers/client.js";
import { createTestRealm, TEST_PASSWORD, type TestRealm } from "../helpers/realm.js";

let srv: TestServer;
let t: TestRealm;
let anon: Api;

before(async () => {
  srv = await startTestServer();
  t = await createTestRealm(srv.app);
  anon = new Api(srv.url);
});
after(() => srv.close());

describe("GET /server_settings", () => {
  test("needs no authentication and reports feature level 420", async () => {
    const r = await anon.get("/server_settings");
    assert.equal(r.status, 200);
    assert.equal(r.body.result, "success");
    assert.equal(r.body.zulip_feature_level, 420);
    assert.equal(typeof r.body.zulip_version, "string");
    assert.equal(r.body.authentication_methods.password, true);
    assert.equal(r.body.authentication_methods.dev, false);
    assert.equal(r.body.realm_name, t.realm.name);
    assert.ok(r.headers.get("content-type")?.startsWith("application/json"));
  });

  test("follows changes to the organization, though its answer is kept between calls", async () => {
    const before = await anon.get("/server_settings");
    const renamed = await anon.as(t.owner).patch("/realm", { name: "Renamed Realm", description: "Now **bold**" });
    assert.equal(renamed.status, 200, JSON.stringify(renamed.body));
    const after = await anon.get("/server_settings");
    assert.equal(after.body.realm_name, "Renamed Realm");
    assert.equal(after.body.realm_description, "<p>Now <strong>bold</strong></p>");
    assert.deepEqual(Object.keys(after.body), Object.keys(before.body));
    assert.equal(after.body.is_incompatible, false);
  });

  test("names parameters it ignores and flags the client Zulip calls incompatible", async () => {
    const r = await anon.get("/server_settings", { nonsense: 1 });
    assert.equal(r.body.result, "success");
    assert.deepEqual(r.body.ignored_parameters_unsupported, ["nonsense"]);
    assert.equal(r.body.realm_name, "Renamed Realm");
    const invalid = await anon.call("GET", "/server_settings", {}, { "user-agent": "ZulipInvalid/1.0" });
    assert.equal(invalid.body.is_incompatible, true);
    assert.equal(invalid.body.realm_name, "Renamed Realm");
  });
});

describe("HTTP Basic authentication", () => {
  const authedProbe = (headers: Record<string, string>) => anon.call("GET", "/users/me", {}, headers);

  test("no Authorization header gives 401 UNAUTHORIZED with a Basic challenge", async () => {
    const r = await authedProbe({});
    assert.equal(r.status, 401);
    assert.deepEqual(r.body, {
      result: "error",
      msg: "Not logged in: API authentication or user session required",
      code: "UNAUTHORIZED",
    });
    assert.equal(r.headers.get("www-authenticate"), 'Basic realm="zulip"');
  });

  test("a malformed header or credentials give Zulip's messages", async () => {
    const cases: [string, number, string][] = [
      ["Basic", 401, "Invalid authorization header for basic auth"],
      ["Basic " + Buffer.from("no-colon").toString("base64"), 401, "Invalid authorization header for basic auth"],
      ["Bearer abc", 400, "This endpoint requires HTTP basic authentication."],
      ["Basic " + Buffer.from(`${t.member.email}:short`).toString("base64"), 401, "Malformed API key"],
      ["Basic " + Buffer.from(`${t.member.email}:${"x".repeat(32)}`).toString("base64"), 401, "Invalid API key"],
      ["Basic " + Buffer.from(`${t.admin.email}:${t.member.apiKey}`).toString("base64"), 401, "Invalid API key"],
    ];
    for (const [header, status, msg] of cases) {
      const r = await authedProbe({ authorization: header });
      assert.equal(r.status, status, header);
      assert.equal(r.body.msg, msg, header);
      assert.equal(r.body.result, "error");
      // Zulip's Basic-auth decorator turns every credential failure into UNAUTHORIZED with a challenge.
      if (status === 401) {
        assert.equal(r.body.code, "UNAUTHORIZED", header);
        assert.equal(r.headers.get("www-authenticate"), 'Basic realm="zulip"', header);
      }
    }
  });

  test("the email is matched case-insensitively", async () => {
    const r = await authedProbe({
      authorization: "Basic " + Buffer.from(`${t.member.email.toUpperCase()}:${t.member.apiKey}`).toString("base64"),
    });
    assert.equal(r.status, 200);
  });

  test("a deactivated user and a deactivated organization are refused", async () => {
    await srv.app.db.updateTable("users").set({ is_active: 0 }).where("id", "=", t.member2.id).execute();
    const r = await new Api(srv.url, t.member2).get("/users/me");
    assert.equal(r.status, 401);
    assert.deepEqual(r.body, { result: "error", msg: "Account is deactivated", code: "UNAUTHORIZED" });
    const login = await anon.post("/fetch_api_key", { username: t.member2.email, password: TEST_PASSWORD });
    assert.equal(login.status, 401);
    assert.equal(login.body.code, "USER_DEACTIVATED");
    await srv.app.db.updateTable("users").set({ is_active: 1 }).where("id", "=", t.member2.id).execute();

    const other = await startTestServer();
    try {
      const o = await createTestRealm(other.app, "other");
      await other.app.db.updateTable("realms").set({ deactivated: 1 }).where("id", "=", o.realm.id).execute();
      const r2 = await new Api(other.url, o.member).get("/users/me");
      assert.equal(r2.status, 401);
      assert.deepEqual(r2.body, { result: "error", msg: "This organization has been deactivated", code: "UNAUTHORIZED" });
      const login2 = await new Api(other.url).post("/fetch_api_key", { username: o.member.email, password: TEST_PASSWORD });
      assert.equal(login2.status, 401);
      assert.equal(login2.body.code, "REALM_DEACTIVATED");
    } finally {
      await other.close();
    }
  });
});

describe("POST /fetch_api_key", () => {
  test("returns the API key for the right password", async () => {
    const r = await anon.post("/fetch_api_key", { username: t.member.email, password: TEST_PASSWORD });
    assert.equal(r.status, 200);
    assert.deepEqual(r.body, {
      result: "success",
      msg: "",
      api_key: t.member.apiKey,
      email: t.member.email,
      user_id: t.member.id,
    });
  });

  test("a wrong password or unknown user gives AUTHENTICATION_FAILED", async () => {
    for (const username of [t.member.email, "nobody@zulip.example.com"]) {
      const r = await anon.post("/fetch_api_key", { username, password: "wrong" });
      assert.equal(r.status, 401);
      assert.deepEqual(r.body, { result: "error", msg: "Your username or password is incorrect", code: "AUTHENTICATION_FAILED" });
    }
  });

  test("missing parameters and a malformed email are reported", async () => {
    let r = await anon.post("/fetch_api_key", { password: "x" });
    assert.deepEqual(r.body, {
      result: "error",
      msg: "Missing 'username' argument",
      code: "REQUEST_VARIABLE_MISSING",
      var_name: "username",
    });
    r = await anon.post("/fetch_api_key", { username: t.member.email });
    assert.equal(r.body.var_name, "password");
    for (const username of ["not-an-email", "a@" + ".".repeat(80_000) + "@", "a@b", `${"a".repeat(400)}@zulip.example.com`]) {
      r = await anon.post("/fetch_api_key", { username, password: "x" });
      assert.equal(r.status, 400);
      assert.deepEqual(r.body, { result: "error", msg: "Enter a valid email address.", code: "BAD_REQUEST" });
    }
  });

  test("accepts multipart bodies, as zulip-js sends them", async () => {
    const form = new FormData();
    form.set("username", t.admin.email);
    form.set("password", TEST_PASSWORD);
    const res = await fetch(`${srv.url}/api/v1/fetch_api_key`, { method: "POST", body: form });
    const body = await res.json();
    assert.equal(body.api_key, t.admin.apiKey);
  });
});

describe("development endpoints", () => {
  test("are refused outside development mode", async () => {
    const r = await anon.post("/dev_fetch_api_key", { username: t.member.email });
    assert.deepEqual(r.body, { result: "error", msg: "Endpoint not available in production.", code: "BAD_REQUEST" });
    const r2 = await anon.get("/dev_list_users");
    assert.equal(r2.body.msg, "Endpoint not available in production.");
  });

  test("work in development mode", async () => {
    const dev = await startTestServer({ development: true });
    try {
      const d = await createTestRealm(dev.app);
      const api = new Api(dev.url);
      const r = await api.post("/dev_fetch_api_key", { username: d.guest.email });
      assert.equal(r.body.api_key, d.guest.apiKey);
      assert.equal(r.body.user_id, d.guest.id);
      const unknown = await api.post("/dev_fetch_api_key", { username: "ghost@zulip.example.com" });
      assert.equal(unknown.body.code, "AUTHENTICATION_FAILED");
      const list = await api.get("/dev_list_users");
      assert.ok(list.body.direct_admins.some((u: { email: string }) => u.email === d.owner.email));
      assert.ok(list.body.direct_users.some((u: { email: string }) => u.email === d.member.email));
    } finally {
      await dev.close();
    }
  });
});

describe("routing", () => {
  test("unknown routes give a JSON 404", async () => {
    const r = await anon.get("/no_such_endpoint");
    assert.equal(r.status, 404);
    assert.deepEqual(r.body, { result: "error", msg: "Not Found", code: "BAD_REQUEST" });
  });

  test("a known path with another method gives 405 with allowed_methods", async () => {
    const r = await anon.call("DELETE", "/fetch_api_key");
    assert.equal(r.status, 405);
    assert.deepEqual(r.body, { result: "error", msg: "Method Not Allowed", allowed_methods: ["POST"] });
  });

  test("unknown parameters are listed in ignored_parameters_unsupported, sorted", async () => {
    const r = await anon.post("/fetch_api_key", { username: t.member.email, password: TEST_PASSWORD, zzz: "1", aaa: "2", client: "x" });
    assert.deepEqual(r.body.ignored_parameters_unsupported, ["aaa", "zzz"]);
  });
});

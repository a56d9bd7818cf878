import { test, before, after, beforeEach, describe } from "node:test";
import assert from "node:assert/strict";
import nacl from "tweetnacl";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { Api, type ApiResponse, type ParamValue } from "../helpers/client.js";
import { createTestRealm, type TestRealm, type TestUser } from "../helpers/realm.js";
import { EventLog } from "../helpers/events.js";
import { FakeBouncer, refusedUrl } from "../helpers/fake_bouncer.js";
import { backgroundSettled } from "../../src/outbound/background.js";
import { openSealed } from "../../src/security/sealed_box.js";

const BOUNCER_UUID = "6cde5f7a-1f7e-4978-9716-49f69ebfc9fe";
const BOUNCER_KEY = "a".repeat(64);
const APNS = "0123456789abcdef0123456789abcdef";
const FCM = "fcm-registration-token:APA91b";

let srv: TestServer;
let bouncer: FakeBouncer;
let t: TestRealm;
let o: TestRealm;

const api = (u: TestUser) => new Api(srv.url, u);
const post = (u: TestUser, route: string, params: Record<string, ParamValue | undefined> = {}) => api(u).post(route, params);
const del = (u: TestUser, route: string, params: Record<string, ParamValue | undefined> = {}) => api(u).delete(route, params);

const humans = () => [t.owner, t.admin, t.moderator, t.member, t.guest];

function assertError(r: ApiResponse, status: number, msg: string, code = "BAD_REQUEST", extra: object = {}) {
  assert.deepEqual({ status: r.status, body: r.body }, { status, body: { result: "error", msg, code, ...extra } });
}
const assertSuccess = (r: ApiResponse) => assert.deepEqual(r.body, { result: "success", msg: "" }, JSON.stringify(r.body));
const assertBotRefused = (r: ApiResponse) => assertError(r, 400, "This endpoint does not accept bot requests.");

function useBouncer(on: boolean) {
  srv.app.config.pushBouncerUrl = on ? bouncer.url : undefined;
}

const tokens = () =>
  srv.app.db.selectFrom("push_device_tokens").select(["user_id", "kind", "token", "ios_app_id"]).orderBy("id").execute();
const devices = () =>
  srv.app.db
    .selectFrom("push_devices")
    .select(["user_id", "push_account_id", "token_kind", "bouncer_device_id", "error_code"])
    .orderBy("id")
    .execute();
const uuidOf = async (kind: "realm" | "user", id: number) =>
  (await srv.app.db.selectFrom("push_uuids").select("uuid").where("owner_kind", "=", kind).where("owner_id", "=", id).executeTakeFirstOrThrow()).uuid;

before(async () => {
  bouncer = await FakeBouncer.start();
  srv = await startTestServer({
    pushBouncerUuid: BOUNCER_UUID,
    pushBouncerKey: BOUNCER_KEY,
    pushBouncerTimeoutMs: 300,
  });
  t = await createTestRealm(srv.app);
  o = await createTestRealm(srv.app, "other");
});
after(async () => {
  await backgroundSettled(srv.app);
  await srv.close();
  await bouncer.close();
});
beforeEach(async () => {
  await backgroundSettled(srv.app);
  bouncer.reset();
  useBouncer(false);
  await srv.app.db.deleteFrom("push_device_tokens").execute();
  await srv.app.db.deleteFrom("push_devices").execute();
  // Pushes a test left to retry must not reach the next test's devices.
  await srv.app.db.deleteFrom("outbox_jobs").execute();
});

describe("POST /users/me/apns_device_token and /users/me/android_gcm_reg_id", () => {
  test("every human user adds tokens; bots are refused before anything else; no events", async () => {
    const log = new EventLog(srv);
    for (const u of humans()) {
      assertSuccess(await post(u, "/users/me/apns_device_token", { token: APNS, appid: "org.zulip.Zulip" }));
      assertSuccess(await post(u, "/users/me/android_gcm_reg_id", { token: FCM }));
    }
    assertBotRefused(await post(t.bot, "/users/me/apns_device_token", { token: APNS, appid: "org.zulip.Zulip" }));
    assertBotRefused(await post(t.bot, "/users/me/android_gcm_reg_id", {}));
    assert.deepEqual(
      await tokens(),
      humans().flatMap((u) => [
        { user_id: u.id, kind: 1, token: APNS, ios_app_id: "org.zulip.Zulip" },
        { user_id: u.id, kind: 2, token: FCM, ios_app_id: null },
      ]),
    );
    assert.deepEqual(log.stop(), []);
  });

  test("adding a token again keeps one registration", async () => {
    for (let i = 0; i < 2; i++) {
      assertSuccess(await post(t.member, "/users/me/apns_device_token", { token: APNS, appid: "org.zulip.Zulip" }));
      assertSuccess(await post(t.member, "/users/me/android_gcm_reg_id", { token: FCM }));
    }
    assert.equal((await tokens()).length, 2);
  });

  test("token and appid are required; appid must look like an app id", async () => {
    const r1 = await post(t.member, "/users/me/apns_device_token", { appid: "org.zulip.Zulip" });
    assertError(r1, 400, "Missing 'token' argument", "REQUEST_VARIABLE_MISSING", { var_name: "token" });
    const r2 = await post(t.member, "/users/me/apns_device_token", { token: APNS });
    assertError(r2, 400, "Missing 'appid' argument", "REQUEST_VARIABLE_MISSING", { var_name: "appid" });
    for (const appid of ["", "org zulip", "org/zulip", "org.zulip.Zulip!"]) {
      assertError(await post(t.member, "/users/me/apns_device_token", { token: APNS, appid }), 400, "appid has invalid format");
    }
    const r3 = await post(t.member, "/users/me/android_gcm_reg_id", {});
    assertError(r3, 400, "Missing 'token' argument", "REQUEST_VARIABLE_MISSING", { var_name: "token" });
    assert.deepEqual(await tokens(), []);
  });

  test("tokens are non-empty and at most 4096 characters; APNs tokens are hex byte pairs", async () => {
    const apns = (token: string) => post(t.member, "/users/me/apns_device_token", { token, appid: "org.zulip.Zulip" });
    const fcm = (token: string) => post(t.member, "/users/me/android_gcm_reg_id", { token });
    for (const send of [apns, fcm]) {
      assertError(await send(""), 400, "Empty or invalid length token");
      assertError(await send("ab".repeat(2048) + "a"), 400, "Empty or invalid length token");
    }
    for (const bad of ["xyz0", "abc", "0x12", "ab-cd", "a bc"]) assertError(await apns(bad), 400, "Invalid APNS token");
    assert.deepEqual(await tokens(), []);
    assertSuccess(await apns("ab".repeat(2048)));
    assertSuccess(await apns("AB cd\tEF"));
    assertSuccess(await fcm("é".repeat(4096)));
    assertSuccess(await fcm("not hex at all"));
    assert.equal((await tokens()).length, 4);
  });
});

describe("DELETE /users/me/apns_device_token and /users/me/android_gcm_reg_id", () => {
  beforeEach(async () => {
    for (const u of [t.member, t.member2, o.member]) {
      assertSuccess(await post(u, "/users/me/apns_device_token", { token: APNS, appid: "org.zulip.Zulip" }));
      assertSuccess(await post(u, "/users/me/android_gcm_reg_id", { token: FCM }));
    }
  });

  test("every human user removes their own token; only that one goes", async () => {
    const log = new EventLog(srv);
    assertSuccess(await del(t.member, "/users/me/apns_device_token", { token: APNS }));
    assertSuccess(await del(t.member2, "/users/me/android_gcm_reg_id", { token: FCM }));
    assert.deepEqual(
      (await tokens()).map((r) => [r.user_id, r.kind]),
      [
        [t.member.id, 2],
        [t.member2.id, 1],
        [o.member.id, 1],
        [o.member.id, 2],
      ],
    );
    for (const u of [t.owner, t.admin, t.moderator, t.guest]) {
      assertSuccess(await post(u, "/users/me/android_gcm_reg_id", { token: "x" }));
      assertSuccess(await del(u, "/users/me/android_gcm_reg_id", { token: "x" }));
    }
    assert.deepEqual(log.stop(), []);
  });

  test("a token the caller does not have does not exist, whoever else has it", async () => {
    for (const u of [t.owner, t.guest, o.owner]) {
      assertError(await del(u, "/users/me/apns_device_token", { token: APNS }), 400, "Token does not exist");
      assertError(await del(u, "/users/me/android_gcm_reg_id", { token: FCM }), 400, "Token does not exist");
    }
    // The kinds are separate: an FCM token is not removed through the APNs endpoint.
    assertSuccess(await post(t.owner, "/users/me/android_gcm_reg_id", { token: "abcd" }));
    assertError(await del(t.owner, "/users/me/apns_device_token", { token: "abcd" }), 400, "Token does not exist");
    assert.equal((await tokens()).length, 7);
  });

  test("the token is validated as when adding; bots are refused", async () => {
    assertError(await del(t.member, "/users/me/apns_device_token", { token: "" }), 400, "Empty or invalid length token");
    assertError(await del(t.member, "/users/me/apns_device_token", { token: "nothex" }), 400, "Invalid APNS token");
    assertError(await del(t.member, "/users/me/android_gcm_reg_id", { token: "" }), 400, "Empty or invalid length token");
    assertError(await del(t.member, "/users/me/android_gcm_reg_id", { token: "x".repeat(4097) }), 400, "Empty or invalid length token");
    const r = await del(t.member, "/users/me/apns_device_token", {});
    assertError(r, 400, "Missing 'token' argument", "REQUEST_VARIABLE_MISSING", { var_name: "token" });
    assertBotRefused(await del(t.bot, "/users/me/apns_device_token", { token: APNS }));
    assertBotRefused(await del(t.bot, "/users/me/android_gcm_reg_id", { token: FCM }));
    assert.equal((await tokens()).length, 6);
  });
});

describe("legacy tokens with the push bouncer", () => {
  beforeEach(() => useBouncer(true));

  test("registration is passed to the bouncer with the server's credentials and stable UUIDs", async () => {
    assertSuccess(await post(t.member, "/users/me/apns_device_token", { token: APNS, appid: "org.zulip.Zulip" }));
    assertSuccess(await post(t.member, "/users/me/android_gcm_reg_id", { token: FCM }));
    assertSuccess(await post(o.member, "/users/me/android_gcm_reg_id", { token: FCM }));
    const [apns, fcm, other] = bouncer.to("push/register");
    assert.equal(bouncer.requests.length, 3);
    assert.equal(apns.headers.authorization, "Basic " + Buffer.from(`${BOUNCER_UUID}:${BOUNCER_KEY}`).toString("base64"));
    assert.equal(apns.headers["content-type"], "application/x-www-form-urlencoded");
    assert.match(String(apns.headers["user-agent"]), /^ZulipServer\//);
    const realmUuid = await uuidOf("realm", t.realm.id);
    const userUuid = await uuidOf("user", t.member.id);
    assert.match(realmUuid, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.deepEqual(apns.body, {
      user_id: String(t.member.id),
      user_uuid: userUuid,
      realm_uuid: realmUuid,
      token: APNS,
      token_kind: "1",
      ios_app_id: "org.zulip.Zulip",
    });
    assert.deepEqual(fcm.body, { user_id: String(t.member.id), user_uuid: userUuid, realm_uuid: realmUuid, token: FCM, token_kind: "2" });
    assert.notEqual(other.body.realm_uuid, realmUuid);
    assert.notEqual(other.body.user_uuid, userUuid);
    assert.equal((await tokens()).length, 3);
  });

  test("removal is passed to the bouncer, which decides whether the token exists", async () => {
    assertSuccess(await post(t.member, "/users/me/android_gcm_reg_id", { token: FCM }));
    assertSuccess(await del(t.member, "/users/me/android_gcm_reg_id", { token: FCM }));
    assert.deepEqual(bouncer.to("push/unregister")[0].body, {
      user_id: String(t.member.id),
      user_uuid: await uuidOf("user", t.member.id),
      realm_uuid: await uuidOf("realm", t.realm.id),
      token: FCM,
      token_kind: "2",
    });
    assert.deepEqual(await tokens(), []);
    // A token only the bouncer still holds is removed there.
    assertSuccess(await del(t.member, "/users/me/apns_device_token", { token: APNS }));
    bouncer.answer("push/unregister", { status: 400, json: { result: "error", msg: "Token does not exist", code: "BAD_REQUEST" } });
    assertError(await del(t.member, "/users/me/apns_device_token", { token: APNS }), 400, "Token does not exist");
  });

  test("a refusal or failure of the bouncer is reported and nothing changes here", async () => {
    assertSuccess(await post(t.member, "/users/me/android_gcm_reg_id", { token: "kept" }));
    const add = () => post(t.member, "/users/me/android_gcm_reg_id", { token: FCM });
    const remove = () => del(t.member, "/users/me/android_gcm_reg_id", { token: "kept" });

    bouncer.answer("push/register", { status: 400, json: { result: "error", msg: "Invalid token type", code: "BAD_REQUEST" } });
    assertError(await add(), 400, "Invalid token type");
    bouncer.answer("push/register", { status: 500, raw: "oops" });
    bouncer.answer("push/unregister", { status: 503, raw: "busy" });
    assertError(await add(), 502, "Received 500 from push notification bouncer");
    assertError(await remove(), 502, "Received 503 from push notification bouncer");
    bouncer.answer("push/register", "hang");
    assertError(await add(), 502, "Timeout while trying to connect to push notification bouncer");
    const key = "Push notification configuration issue on server, contact the server administrator or retry later.";
    bouncer.answer("push/register", { status: 401, json: { result: "error", msg: "Invalid server", code: "INVALID_ZULIP_SERVER" } });
    assertError(await add(), 403, key, "ADMIN_ACTION_REQUIRED");
    bouncer.answer("push/register", { status: 404, raw: "<html>not found</html>" });
    assertError(await add(), 403, key, "ADMIN_ACTION_REQUIRED");
    srv.app.config.pushBouncerUrl = await refusedUrl();
    assertError(await add(), 502, "ConnectionError while trying to connect to push notification bouncer");
    assertError(await remove(), 502, "ConnectionError while trying to connect to push notification bouncer");
    assert.deepEqual((await tokens()).map((r) => r.token), ["kept"]);
  });
});

describe("POST /mobile_push/test_notification", () => {
  beforeEach(async () => {
    assertSuccess(await post(t.member, "/users/me/apns_device_token", { token: APNS, appid: "org.zulip.Zulip" }));
    assertSuccess(await post(t.member, "/users/me/android_gcm_reg_id", { token: FCM }));
    assertSuccess(await post(o.member, "/users/me/android_gcm_reg_id", { token: "elsewhere" }));
    useBouncer(true);
    bouncer.reset();
  });

  test("goes to every device of the caller through the bouncer, marked as a test, with the realm's name", async () => {
    assertSuccess(await post(t.member, "/mobile_push/test_notification"));
    const sent = bouncer.to("push/test_notification");
    assert.equal(sent.length, 2);
    assert.equal(sent[0].headers["content-type"], "application/json");
    const base_payload = {
      server: new URL(srv.app.config.externalUrl).host,
      realm_id: t.realm.id,
      realm_name: t.realm.name,
      realm_uri: srv.app.config.externalUrl,
      realm_url: srv.app.config.externalUrl,
      user_id: t.member.id,
      event: "test",
    };
    const identity = { user_id: t.member.id, user_uuid: await uuidOf("user", t.member.id), realm_uuid: await uuidOf("realm", t.realm.id) };
    assert.deepEqual(
      sent.map((r) => r.body),
      [
        { ...identity, token: APNS, token_kind: 1, base_payload },
        { ...identity, token: FCM, token_kind: 2, base_payload },
      ],
    );
  });

  test("with a token, only to that device, which must be the caller's", async () => {
    assertSuccess(await post(t.member, "/mobile_push/test_notification", { token: FCM }));
    assert.deepEqual(bouncer.to("push/test_notification").map((r) => r.body.token), [FCM]);
    for (const [u, token] of [
      [t.member, "unknown"],
      [t.member, ""],
      [t.member2, FCM],
      [o.member, FCM],
      [t.member, "elsewhere"],
    ] as const) {
      assertError(await post(u, "/mobile_push/test_notification", { token }), 400, "Device not recognized", "INVALID_PUSH_DEVICE_TOKEN");
    }
    assert.equal(bouncer.requests.length, 1);
  });

  test("any human user may ask; with no devices nothing is sent; bots are refused", async () => {
    for (const u of [t.owner, t.admin, t.moderator, t.guest]) assertSuccess(await post(u, "/mobile_push/test_notification"));
    assertBotRefused(await post(t.bot, "/mobile_push/test_notification"));
    assert.equal(bouncer.requests.length, 0);
  });

  test("without a bouncer the test is dropped quietly, but unknown tokens are still refused", async () => {
    useBouncer(false);
    assertSuccess(await post(t.member, "/mobile_push/test_notification"));
    assertSuccess(await post(t.member, "/mobile_push/test_notification", { token: APNS }));
    assertError(await post(t.member, "/mobile_push/test_notification", { token: "nope" }), 400, "Device not recognized", "INVALID_PUSH_DEVICE_TOKEN");
    assert.equal(bouncer.requests.length, 0);
  });

  test("the bouncer's verdicts and failures reach the client", async () => {
    const send = () => post(t.member, "/mobile_push/test_notification", { token: FCM });
    bouncer.answer("push/test_notification", {
      status: 400,
      json: { result: "error", msg: "Device not recognized by the push bouncer", code: "INVALID_REMOTE_PUSH_DEVICE_TOKEN" },
    });
    assertError(await send(), 400, "Device not recognized by the push bouncer", "INVALID_REMOTE_PUSH_DEVICE_TOKEN");
    bouncer.answer("push/test_notification", { status: 400, json: { result: "error", msg: "Something else", code: "BAD_REQUEST" } });
    assertError(await send(), 400, "Something else");
    bouncer.answer("push/test_notification", { status: 500, raw: "" });
    assertError(await send(), 502, "Received 500 from push notification bouncer");
    bouncer.answer("push/test_notification", "hang");
    assertError(await send(), 502, "Timeout while trying to connect to push notification bouncer");
    bouncer.answer("push/test_notification", { status: 403, json: { result: "error", msg: "No plan", code: "PUSH_NOTIFICATIONS_DISALLOWED" } });
    const key = "Push notification configuration issue on server, contact the server administrator or retry later.";
    assertError(await send(), 403, key, "ADMIN_ACTION_REQUIRED");
    srv.app.config.pushBouncerUrl = await refusedUrl();
    assertError(await send(), 502, "ConnectionError while trying to connect to push notification bouncer");
  });

  test("one failing device ends the attempt", async () => {
    bouncer.answer("push/test_notification", { status: 502, raw: "" });
    assertError(await post(t.member, "/mobile_push/test_notification"), 502, "Received 502 from push notification bouncer");
    assert.equal(bouncer.to("push/test_notification").length, 1);
  });
});

/** A device as the mobile app makes it: a NaCl key pair whose public half the server encrypts to. */
function newDevice(pushAccountId: number | string, tokenKind = "fcm") {
  const keys = nacl.box.keyPair();
  return {
    keys,
    params: {
      token_kind: tokenKind,
      push_account_id: pushAccountId as ParamValue,
      push_public_key: Buffer.from(keys.publicKey).toString("base64"),
      bouncer_public_key: "bouncer-key-1",
      encrypted_push_registration: "ciphertext-for-the-bouncer",
    } as Record<string, ParamValue>,
  };
}

const register = (u: TestUser, params: Record<string, ParamValue | undefined>) => post(u, "/mobile_push/register", params);

const pushDeviceEvent = (u: TestUser, pushAccountId: string, status: string, errorCode?: string | null) => ({
  realmId: t.realm.id,
  event: { type: "push_device", push_account_id: pushAccountId, status, ...(errorCode === undefined ? {} : { error_code: errorCode }) },
  userIds: [u.id],
});

describe("POST /mobile_push/register", () => {
  beforeEach(() => useBouncer(true));

  test("records a pending device, answers at once, then reports the bouncer's acceptance", async () => {
    const log = new EventLog(srv);
    const device = newDevice(2408);
    assertSuccess(await register(t.member, device.params));
    assert.deepEqual(log.notices, [pushDeviceEvent(t.member, "2408", "pending")]);
    await backgroundSettled(srv.app);
    const [sent] = bouncer.to("push/e2ee/register");
    assert.equal(sent.headers["content-type"], "application/json");
    assert.match(sent.raw, /^\{"push_account_id":2408,/);
    assert.deepEqual(sent.body, {
      push_account_id: 2408,
      realm_uuid: await uuidOf("realm", t.realm.id),
      bouncer_public_key: "bouncer-key-1",
      encrypted_push_registration: "ciphertext-for-the-bouncer",
    });
    assert.deepEqual(log.stop(), [pushDeviceEvent(t.member, "2408", "pending"), pushDeviceEvent(t.member, "2408", "active", null)]);
    assert.deepEqual(await devices(), [
      { user_id: t.member.id, push_account_id: "2408", token_kind: "fcm", bouncer_device_id: "1000", error_code: null },
    ]);
  });

  test("every human user may register; bots are refused before anything else", async () => {
    for (const u of humans()) assertSuccess(await register(u, newDevice(7, "apns").params));
    assertBotRefused(await register(t.bot, {}));
    await backgroundSettled(srv.app);
    assert.deepEqual(
      (await devices()).map((d) => [d.user_id, d.push_account_id, d.token_kind, d.bouncer_device_id !== null]),
      humans().map((u) => [u.id, "7", "apns", true]),
    );
  });

  test("registering a pending or active device again changes nothing", async () => {
    const device = newDevice(5);
    assertSuccess(await register(t.member, device.params));
    const log = new EventLog(srv);
    assertSuccess(await register(t.member, device.params));
    await backgroundSettled(srv.app);
    assertSuccess(await register(t.member, { ...device.params, token_kind: "apns" }));
    await backgroundSettled(srv.app);
    assert.deepEqual(log.stop(), [pushDeviceEvent(t.member, "5", "active", null)]);
    assert.equal(bouncer.to("push/e2ee/register").length, 1);
    assert.deepEqual((await devices()).map((d) => d.token_kind), ["fcm"]);
  });

  test("a refused registration is reported with the bouncer's code; registering again retries", async () => {
    const device = newDevice(11);
    bouncer.answer("push/e2ee/register", {
      status: 400,
      json: { result: "error", msg: "Invalid bouncer public key", code: "INVALID_BOUNCER_PUBLIC_KEY" },
    });
    const log = new EventLog(srv);
    assertSuccess(await register(t.member, device.params));
    await backgroundSettled(srv.app);
    assert.deepEqual((await devices())[0].error_code, "INVALID_BOUNCER_PUBLIC_KEY");
    bouncer.reset();
    assertSuccess(await register(t.member, { ...device.params, bouncer_public_key: "bouncer-key-2" }));
    await backgroundSettled(srv.app);
    assert.equal(bouncer.to("push/e2ee/register")[0].body.bouncer_public_key, "bouncer-key-2");
    assert.deepEqual(log.stop(), [
      pushDeviceEvent(t.member, "11", "pending"),
      pushDeviceEvent(t.member, "11", "failed", "INVALID_BOUNCER_PUBLIC_KEY"),
      pushDeviceEvent(t.member, "11", "pending"),
      pushDeviceEvent(t.member, "11", "active", null),
    ]);
  });

  test("each bouncer failure becomes the device's error code", async () => {
    const cases: [import("../helpers/fake_bouncer.js").BouncerReply | "refused", string][] = [
      [{ status: 400, json: { result: "error", msg: "Expired", code: "REQUEST_EXPIRED" } }, "REQUEST_EXPIRED"],
      [{ status: 400, json: { result: "error", msg: "Bad", code: "INVALID_ENCRYPTED_PUSH_REGISTRATION" } }, "INVALID_ENCRYPTED_PUSH_REGISTRATION"],
      [{ status: 400, json: { result: "error", msg: "Unknown realm", code: "MISSING_REMOTE_REALM" } }, "ADMIN_ACTION_REQUIRED"],
      [{ status: 401, json: { result: "error", msg: "Bad key", code: "INVALID_ZULIP_SERVER" } }, "ADMIN_ACTION_REQUIRED"],
      [{ status: 500, raw: "" }, "INTERNAL_SERVER_ERROR_ON_BOUNCER"],
      [{ status: 200, raw: "not json" }, "INTERNAL_SERVER_ERROR_ON_BOUNCER"],
      ["hang", "FAILED_TO_CONNECT_BOUNCER"],
      ["refused", "FAILED_TO_CONNECT_BOUNCER"],
    ];
    let id = 100;
    for (const [reply, code] of cases) {
      id++;
      useBouncer(true);
      bouncer.reset();
      if (reply === "refused") srv.app.config.pushBouncerUrl = await refusedUrl();
      else bouncer.answer("push/e2ee/register", reply);
      const log = new EventLog(srv);
      assertSuccess(await register(t.member, newDevice(id).params));
      await backgroundSettled(srv.app);
      assert.deepEqual(log.stop(), [pushDeviceEvent(t.member, String(id), "pending"), pushDeviceEvent(t.member, String(id), "failed", code)]);
    }
  });

  test("push account ids are 64-bit integers, kept exactly; each user has their own", async () => {
    const big = "9223372036854775807";
    assertSuccess(await register(t.member, { ...newDevice(0).params, push_account_id: big }));
    assertSuccess(await register(t.member, { ...newDevice(0).params, push_account_id: "-9223372036854775808" }));
    assertSuccess(await register(t.member2, newDevice(5).params));
    assertSuccess(await register(o.member, newDevice(5).params));
    await backgroundSettled(srv.app);
    assert.ok(bouncer.to("push/e2ee/register").some((r) => r.raw.startsWith(`{"push_account_id":${big},`)));
    assert.deepEqual(
      (await devices()).map((d) => [d.user_id, d.push_account_id]),
      [
        [t.member.id, big],
        [t.member.id, "-9223372036854775808"],
        [t.member2.id, "5"],
        [o.member.id, "5"],
      ],
    );
  });

  test("every parameter is required and checked; refused requests change nothing", async () => {
    const log = new EventLog(srv);
    const good = newDevice(1).params;
    for (const name of Object.keys(good)) {
      const params = { ...good, [name]: undefined };
      assertError(await register(t.member, params), 400, `Missing '${name}' argument`, "REQUEST_VARIABLE_MISSING", { var_name: name });
    }
    const bad: [string, ParamValue, string][] = [
      ["token_kind", "gcm", "Invalid token_kind"],
      ["token_kind", "FCM", "Invalid token_kind"],
      ["push_account_id", "abc", "push_account_id is not valid JSON"],
      ["push_account_id", "1.5", "push_account_id is not an integer"],
      ["push_account_id", "1e3", "push_account_id is not an integer"],
      ["push_account_id", '"5"', "push_account_id is not an integer"],
      ["push_account_id", "true", "push_account_id is not an integer"],
      ["push_account_id", "9223372036854775808", "push_account_id is too large"],
      ["push_account_id", "-9223372036854775809", "push_account_id is too small"],
      ["push_public_key", "", "Invalid `push_public_key`"],
      ["push_public_key", "not base64!", "Invalid `push_public_key`"],
      ["push_public_key", Buffer.alloc(31).toString("base64"), "Invalid `push_public_key`"],
      ["push_public_key", Buffer.alloc(33).toString("base64"), "Invalid `push_public_key`"],
    ];
    for (const [name, value, msg] of bad) assertError(await register(t.member, { ...good, [name]: value }), 400, msg);
    assert.deepEqual(await devices(), []);
    assert.deepEqual(log.stop(), []);
    assert.equal(bouncer.requests.length, 0);
  });

  test("without a push notification service, registration is refused", async () => {
    useBouncer(false);
    const r = await register(t.member, newDevice(1).params);
    assertError(r, 400, "Server is not configured to use push notification service.", "PUSH_SERVICE_NOT_CONFIGURED");
    assert.deepEqual(await devices(), []);
  });

  test("clients see the devices in POST /register and follow them through GET /events", async () => {
    assertSuccess(await register(t.member, newDevice(1).params));
    await backgroundSettled(srv.app);
    bouncer.answer("push/e2ee/register", { status: 400, json: { result: "error", msg: "Expired", code: "REQUEST_EXPIRED" } });
    assertSuccess(await register(t.member, newDevice(2).params));
    await backgroundSettled(srv.app);
    const state = await post(t.member, "/register", { fetch_event_types: ["push_device"], event_types: ["push_device"] });
    assert.deepEqual(state.body.push_devices, {
      "1": { status: "active", error_code: null },
      "2": { status: "failed", error_code: "REQUEST_EXPIRED" },
    });
    const other = await post(t.member2, "/register", { fetch_event_types: ["push_device"] });
    assert.deepEqual(other.body.push_devices, {});

    bouncer.reset();
    assertSuccess(await register(t.member, newDevice(2).params));
    await backgroundSettled(srv.app);
    const events = await api(t.member).get("/events", { queue_id: state.body.queue_id, last_event_id: -1 });
    assert.deepEqual(events.body.events, [
      { id: 0, type: "push_device", push_account_id: "2", status: "pending" },
      { id: 1, type: "push_device", push_account_id: "2", status: "active", error_code: null },
    ]);
    const after = await post(t.member, "/register", { fetch_event_types: ["push_device"] });
    assert.deepEqual(after.body.push_devices["2"], { status: "active", error_code: null });
  });
});

describe("POST /mobile_push/e2ee/test_notification", () => {
  const test_notify = (u: TestUser, params: Record<string, ParamValue | undefined> = {}) =>
    post(u, "/mobile_push/e2ee/test_notification", params);
  let phone: ReturnType<typeof newDevice>;
  let tablet: ReturnType<typeof newDevice>;

  beforeEach(async () => {
    useBouncer(true);
    phone = newDevice(21, "apns");
    tablet = newDevice(22, "fcm");
    assertSuccess(await register(t.member, phone.params));
    assertSuccess(await register(t.member, tablet.params));
    await backgroundSettled(srv.app);
    bouncer.answer("push/e2ee/register", { status: 400, json: { result: "error", msg: "Expired", code: "REQUEST_EXPIRED" } });
    assertSuccess(await register(t.member, newDevice(23).params));
    await backgroundSettled(srv.app);
    bouncer.reset();
  });

  const open = (sealed: string, device: ReturnType<typeof newDevice>) => {
    const plain = openSealed(Buffer.from(sealed, "base64"), device.keys.publicKey, device.keys.secretKey);
    assert.ok(plain, "the device can open what the server sealed for it");
    return JSON.parse(Buffer.from(plain).toString("utf8"));
  };

  test("seals a test notification for each active device and hands them to the bouncer", async () => {
    const before = Math.floor(Date.now() / 1000);
    assertSuccess(await test_notify(t.member));
    const [sent] = bouncer.to("push/e2ee/notify");
    assert.equal(bouncer.requests.length, 1);
    assert.equal(sent.body.realm_uuid, await uuidOf("realm", t.realm.id));
    const ids = (await devices()).map((d) => d.bouncer_device_id);
    assert.deepEqual(Object.keys(sent.body.device_id_to_encrypted_data).sort(), ids.slice(0, 2).sort());
    const forPhone = open(sent.body.device_id_to_encrypted_data[ids[0]!], phone);
    assert.deepEqual(
      { ...forPhone, time: undefined },
      { realm_name: t.realm.name, realm_url: srv.app.config.externalUrl, time: undefined, type: "test", user_id: t.member.id },
    );
    assert.ok(forPhone.time >= before && forPhone.time <= Math.floor(Date.now() / 1000) + 1);
    assert.equal(open(sent.body.device_id_to_encrypted_data[ids[1]!], tablet).type, "test");
    assert.equal(openSealed(Buffer.from(sent.body.device_id_to_encrypted_data[ids[0]!], "base64"), tablet.keys.publicKey, tablet.keys.secretKey), null);
  });

  test("with a push account id, only to that device", async () => {
    assertSuccess(await test_notify(t.member, { push_account_id: 22 }));
    const [sent] = bouncer.to("push/e2ee/notify");
    const tabletId = (await devices())[1].bouncer_device_id!;
    assert.deepEqual(Object.keys(sent.body.device_id_to_encrypted_data), [tabletId]);
    assert.equal(open(sent.body.device_id_to_encrypted_data[tabletId], tablet).user_id, t.member.id);
  });

  test("without an active device of the caller's there is no one to send to", async () => {
    const none = (r: ApiResponse) => assertError(r, 400, "No active registered push device", "NO_ACTIVE_PUSH_DEVICE");
    for (const u of [t.owner, t.admin, t.moderator, t.member2, t.guest, o.member]) none(await test_notify(u));
    none(await test_notify(t.member, { push_account_id: 23 })); // its registration failed
    none(await test_notify(t.member, { push_account_id: 99 }));
    none(await test_notify(t.member2, { push_account_id: 21 }));
    assertBotRefused(await test_notify(t.bot));
    assertError(await test_notify(t.member, { push_account_id: "x" }), 400, "push_account_id is not valid JSON");
    assert.equal(bouncer.requests.length, 0);
  });

  test("each bouncer failure has its own error", async () => {
    const key = "Push notification configuration issue on server, contact the server administrator or retry later.";
    const cases: [import("../helpers/fake_bouncer.js").BouncerReply | "refused", number, string, string][] = [
      ["refused", 502, "FAILED_TO_CONNECT_BOUNCER", "Network error while connecting to Zulip push notification service."],
      ["hang", 502, "FAILED_TO_CONNECT_BOUNCER", "Network error while connecting to Zulip push notification service."],
      [{ status: 500, raw: "" }, 502, "INTERNAL_SERVER_ERROR_ON_BOUNCER", "Internal server error on Zulip push notification service, retry later."],
      [{ status: 503, raw: "" }, 502, "INTERNAL_SERVER_ERROR_ON_BOUNCER", "Internal server error on Zulip push notification service, retry later."],
      [{ status: 200, raw: "[]" }, 502, "INTERNAL_SERVER_ERROR_ON_BOUNCER", "Internal server error on Zulip push notification service, retry later."],
      [{ status: 400, json: { result: "error", msg: "Unknown realm", code: "MISSING_REMOTE_REALM" } }, 403, "ADMIN_ACTION_REQUIRED", key],
      [{ status: 401, json: { result: "error", msg: "Bad key", code: "INVALID_ZULIP_SERVER" } }, 403, "ADMIN_ACTION_REQUIRED", key],
      [{ status: 403, json: { result: "error", msg: "No plan", code: "PUSH_NOTIFICATIONS_DISALLOWED" } }, 403, "ADMIN_ACTION_REQUIRED", key],
      [{ status: 404, raw: "not found" }, 403, "ADMIN_ACTION_REQUIRED", key],
      [{ status: 204, raw: "" }, 403, "ADMIN_ACTION_REQUIRED", key],
    ];
    for (const [reply, status, code, msg] of cases) {
      useBouncer(true);
      bouncer.reset();
      if (reply === "refused") srv.app.config.pushBouncerUrl = await refusedUrl();
      else bouncer.answer("push/e2ee/notify", reply);
      assertError(await test_notify(t.member), status, msg, code);
    }
    assert.equal((await devices()).length, 3);
  });

  test("devices the bouncer has dropped are dropped here; if none is left, no device was reached", async () => {
    const [phoneRow, tabletRow] = await devices();
    bouncer.answer("push/e2ee/notify", {
      status: 200,
      json: { result: "success", msg: "", android_successfully_sent_count: 1, apple_successfully_sent_count: 0, delete_device_ids: [Number(phoneRow.bouncer_device_id)] },
    });
    assertSuccess(await test_notify(t.member));
    assert.deepEqual((await devices()).map((d) => d.push_account_id), ["22", "23"]);
    bouncer.answer("push/e2ee/notify", {
      status: 200,
      json: { result: "success", msg: "", android_successfully_sent_count: 0, apple_successfully_sent_count: 0, delete_device_ids: [Number(tabletRow.bouncer_device_id)] },
    });
    assertError(await test_notify(t.member), 400, "No active registered push device", "NO_ACTIVE_PUSH_DEVICE");
    assert.deepEqual((await devices()).map((d) => d.push_account_id), ["23"]);
  });

  test("once the service is no longer configured, active devices cannot be reached", async () => {
    useBouncer(false);
    const key = "Push notification configuration issue on server, contact the server administrator or retry later.";
    assertError(await test_notify(t.member), 403, key, "ADMIN_ACTION_REQUIRED");
  });
});

describe("push notifications for new messages", () => {
  let phone: ReturnType<typeof newDevice>;
  let senderPhone: ReturnType<typeof newDevice>;

  const send = async (u: TestUser, params: Record<string, ParamValue>) => {
    const r = await post(u, "/messages", params);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    await backgroundSettled(srv.app);
    return r.body.id as number;
  };
  const sealedFor = (device: ReturnType<typeof newDevice>) =>
    bouncer.to("push/e2ee/notify").map((r) => {
      const [sealed] = Object.values(r.body.device_id_to_encrypted_data) as string[];
      const plain = openSealed(Buffer.from(sealed, "base64"), device.keys.publicKey, device.keys.secretKey);
      return plain && JSON.parse(Buffer.from(plain).toString("utf8"));
    });

  before(async () => {
    useBouncer(true);
    await post(t.owner, "/users/me/subscriptions", { subscriptions: [{ name: "push test" }], principals: [t.member.id, t.member2.id] });
  });

  beforeEach(async () => {
    useBouncer(true);
    phone = newDevice(31);
    senderPhone = newDevice(32);
    assertSuccess(await register(t.member2, phone.params));
    assertSuccess(await register(t.member, senderPhone.params));
    assertSuccess(await post(t.member2, "/users/me/android_gcm_reg_id", { token: FCM }));
    await backgroundSettled(srv.app);
    bouncer.reset();
  });

  test("a direct message reaches the recipient's devices, sealed and as legacy payloads, not the sender's", async () => {
    const id = await send(t.member, { type: "direct", to: [t.member2.id], content: "Hello **there**" });
    const [payload] = sealedFor(phone);
    assert.equal(bouncer.to("push/e2ee/notify").length, 1);
    const member = await srv.app.db.selectFrom("users").select(["full_name"]).where("id", "=", t.member.id).executeTakeFirstOrThrow();
    assert.deepEqual({ ...payload, time: 0, sender_avatar_url: "" }, {
      content: "Hello **there**",
      message_id: id,
      realm_name: t.realm.name,
      realm_url: srv.app.config.externalUrl,
      recipient_type: "direct",
      sender_avatar_url: "",
      sender_full_name: member.full_name,
      sender_id: t.member.id,
      time: 0,
      type: "message",
      user_id: t.member2.id,
    });
    assert.match(payload.sender_avatar_url, /^https?:\/\//);
    const [legacy] = bouncer.to("push/notify");
    assert.equal(bouncer.to("push/notify").length, 1);
    assert.equal(legacy.body.user_id, t.member2.id);
    assert.deepEqual(legacy.body.gcm_options, { priority: "high" });
    assert.equal(legacy.body.gcm_payload.event, "message");
    assert.equal(legacy.body.gcm_payload.realm_name, t.realm.name);
    assert.equal(legacy.body.gcm_payload.zulip_message_id, id);
    assert.equal(legacy.body.gcm_payload.recipient_type, "private");
    assert.deepEqual(legacy.body.apns_payload.alert, { title: member.full_name, subtitle: "", body: "Hello **there**" });
    assert.deepEqual(legacy.body.apns_payload.custom.zulip.message_ids, [id]);
  });

  test("a group direct message lists its participants", async () => {
    await send(t.member, { type: "direct", to: [t.member2.id, t.owner.id], content: "all of us" });
    const [payload] = sealedFor(phone);
    assert.equal(payload.pm_users, [t.owner.id, t.member.id, t.member2.id].sort((a, b) => a - b).join(","));
  });

  test("channel messages are pushed only to those mentioned, with the channel and topic", async () => {
    await send(t.member, { type: "stream", to: "push test", topic: "quiet", content: "no one in particular" });
    assert.equal(bouncer.requests.length, 0);
    await send(t.member, { type: "stream", to: "push test", topic: "loud", content: "@**Max Member** look" });
    const [payload] = sealedFor(phone);
    assert.equal(bouncer.to("push/e2ee/notify").length, 1);
    assert.equal(payload.recipient_type, "channel");
    assert.equal(payload.channel_name, "push test");
    assert.equal(payload.topic, "loud");
    assert.equal(typeof payload.channel_id, "number");
  });

  test("long content is cut to 200 characters", async () => {
    await send(t.member, { type: "direct", to: [t.member2.id], content: "x".repeat(300) });
    const [payload] = sealedFor(phone);
    assert.equal(payload.content, "x".repeat(199) + "…");
    assert.equal(bouncer.to("push/notify")[0].body.gcm_payload.content_truncated, true);
  });

  test("a bouncer failure is retried later, without repeating what was delivered; a refusal is not", async () => {
    bouncer.answer("push/e2ee/notify", { status: 503, raw: "" });
    const id = await send(t.member, { type: "direct", to: [t.member2.id], content: "again" });
    assert.equal(bouncer.to("push/notify").length, 1);
    const waiting = await srv.app.db.selectFrom("outbox_jobs").select(["kind", "attempts"]).execute();
    assert.deepEqual(waiting, [{ kind: "push_message", attempts: 1 }]);
    bouncer.reset();
    // As if the backoff had passed.
    await srv.app.db.updateTable("outbox_jobs").set({ next_attempt_at: 0 }).execute();
    await srv.outbox.wake();
    assert.deepEqual(sealedFor(phone).map((p) => p.message_id), [id]);
    assert.equal(bouncer.to("push/notify").length, 0);
    assert.deepEqual(await srv.app.db.selectFrom("outbox_jobs").select("id").execute(), []);

    bouncer.answer("push/e2ee/notify", { status: 400, json: { result: "error", msg: "Unknown realm", code: "MISSING_REMOTE_REALM" } });
    await send(t.member, { type: "direct", to: [t.member2.id], content: "refused" });
    assert.deepEqual(await srv.app.db.selectFrom("outbox_jobs").select("id").execute(), []);
  });

  test("a failing bouncer does not affect sending; without one nothing is attempted", async () => {
    bouncer.answer("push/e2ee/notify", { status: 500, raw: "" });
    bouncer.answer("push/notify", "hang");
    await send(t.member, { type: "direct", to: [t.member2.id], content: "still sent" });
    useBouncer(false);
    bouncer.reset();
    await send(t.member, { type: "direct", to: [t.member2.id], content: "nothing pushed" });
    assert.equal(bouncer.requests.length, 0);
  });
});

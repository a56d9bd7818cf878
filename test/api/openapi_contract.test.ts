/**
 * Walks Zulip's OpenAPI description: every operation must be answered (not the JSON 404 for
 * unknown routes), and every success body must validate against the operation's 200 schema.
 * Requests use the spec's examples, with the overrides below for ids that must exist here.
 */
import { test, before, after, describe } from "node:test";
import assert from "node:assert/strict";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { Api, basicAuth, type ParamValue } from "../helpers/client.js";
import { createTestRealm, TEST_PASSWORD, type TestRealm, type TestUser } from "../helpers/realm.js";
import { runAction } from "../../src/actions/run.js";
import { backgroundSettled } from "../../src/outbound/background.js";
import { setRealmProps } from "../helpers/channels.js";
import { createUserInTx } from "../../src/actions/users.js";
import { getRealm } from "../../src/store/realms.js";
import { Role } from "../../src/domain/roles.js";
import { operations, parameters, spec, successValidator, type Operation } from "../helpers/openapi.js";

/** Documentation pages the spec describes as operations; they are not API endpoints. */
const DOC_ONLY: Record<string, string> = {
  "POST /real-time": "describes the events system, not an endpoint",
  "POST /rest-error-handling": "describes error responses, not an endpoint",
  "POST /zulip-outgoing-webhook": "describes what Zulip sends to outgoing-webhook bots",
};

/**
 * Operations whose success body does not match the spec yet, each with the reason. This list
 * must shrink to empty too.
 */
const KNOWN_SCHEMA_MISMATCHES: Record<string, string> = {};

/**
 * Where the spec's own text is wrong about what Zulip's server sends. Its POST /register schema
 * describes `reminders` with the scheduled-message object, while GET /reminders and the
 * `reminders` events describe (and Zulip's server sends) reminder objects, with reminder_id.
 */
function correctSpec(): void {
  const register = spec.components.schemas.register_queue_200_response;
  register.allOf[1].properties.reminders.items = { $ref: "#/components/schemas/Reminder" };
}
correctSpec();

/** Operations this walk reaches but does not bring to success, each with the reason. */
const NOT_EXERCISED: Record<string, string> = {
  "dev-fetch-api-key": "the test server runs in production mode",
  "create-user": "needs the server-granted can_create_users permission",
  "e2ee-test-notify": "no push device is registered",
  "register-push-device": "no push notification service is configured",
  "reorder-linkifiers": "the example ids are not this organization's linkifiers",
  "resend-email-invite": "the example invitation does not exist",
  "update-user-group-subgroups": "the example names no change",
  "patch-channel-folders": "needs the order of every folder",
};

let srv: TestServer;
let t: TestRealm;
let ids: Record<string, number | string> = {};
const UNKNOWN_ROUTE = { result: "error", msg: "Not Found", code: "BAD_REQUEST" };
let throwaway: TestUser;

type Overrides = { path?: Record<string, ParamValue>; params?: Record<string, ParamValue>; route?: string };
/** Requests whose spec examples do not fit this organization, or would undo the setup. */
const OVERRIDES: Record<string, () => Overrides> = {
  "fetch-api-key": () => ({ params: { username: t.owner.email, password: TEST_PASSWORD } }),
  "get-events": () => ({ params: { queue_id: ids.queue_id, last_event_id: -1, dont_block: true } }),
  "delete-queue": () => ({ params: { queue_id: ids.spare_queue_id } }),
  "get-stream-id": () => ({ params: { stream: "contract" } }),
  "get-messages": () => ({ params: { anchor: "newest", num_before: 5, num_after: 0 } }),
  "update-message": () => ({ params: { content: "edited" } }),
  "create-drafts": () => ({ params: { drafts: [{ type: "private", to: [t.member.id], topic: "", content: "hi", timestamp: 1700000000 }] } }),
  "create-channel": () => ({ params: { name: "contract two", subscribers: [t.member.id] } }),
  "create-user-group": () => ({ params: { name: "contract group two", description: "", members: [t.member.id] } }),
  "create-channel-folder": () => ({ params: { name: "contract folder two", description: "" } }),
  "update-user-group": () => ({ params: { description: "renamed" } }),
  "update-user-group-members": () => ({ params: { add: [t.moderator.id] } }),
  "unsubscribe": () => ({ params: { subscriptions: ["contract"] } }),
  "delete-scheduled-message": () => ({ path: { scheduled_message_id: ids.spare_scheduled_message_id } }),
  "update-scheduled-message": () => ({ params: { content: "later" } }),
  "get-user-presence": () => ({ path: { user_id_or_email: t.owner.id } }),
  "create-custom-profile-field": () => ({ params: { name: "Phone", field_type: 1 } }),
  "update-linkifier": () => ({ path: { filter_id: ids.filter_id }, params: { pattern: "B(?P<id>[0-9]+)", url_template: "https://example.com/b/{id}" } }),
  "remove-linkifier": () => ({ path: { filter_id: ids.filter_id } }),
  "send-invites": () => ({ params: { invitee_emails: "newcomer@example.com", stream_ids: [ids.stream_id] } }),
  "deactivate-user": () => ({ path: { user_id: throwaway.id } }),
  "archive-stream": () => ({ path: { stream_id: ids.spare_stream_id } }),
  "delete-message": () => ({ path: { message_id: ids.spare_message_id } }),
  "mark-topic-as-read": () => ({ params: { stream_id: ids.stream_id, topic_name: "greetings" } }),
  "update-message-flags-for-narrow": () => ({ params: { narrow: [], anchor: "newest", num_before: 5, num_after: 0, op: "add", flag: "read" } }),
  "check-messages-match-narrow": () => ({ params: { msg_ids: [ids.message_id], narrow: [{ operator: "search", operand: "hello" }] } }),
  "remove-attachment": () => ({ path: { attachment_id: ids.spare_attachment_id } }),
  "get-file-temporary-url": () => ({ route: `/user_uploads/${ids.upload_path}` }),
  "add-navigation-view": () => ({ params: { fragment: "narrow/channel/contract", is_pinned: true, name: "Contract" } }),
  "edit-navigation-view": () => ({ path: { fragment: "recent" }, params: { is_pinned: false } }),
  "remove-navigation-view": () => ({ path: { fragment: "inbox" } }),
  "create-message-reminder": () => ({ params: { message_id: ids.message_id, scheduled_delivery_timestamp: Math.floor(Date.now() / 1000) + 3600 } }),
  "delete-reminder": () => ({ path: { reminder_id: ids.reminder_id } }),
  "update-subscriptions": () => ({ params: { add: [{ name: "contract" }] } }),
  "mute-topic": () => ({ params: { stream_id: ids.stream_id, topic: "greetings", op: "add" } }),
  "update-subscription-settings": () => ({
    params: { subscription_data: [{ stream_id: ids.settings_stream_id, property: "pin_to_top", value: true }] },
  }),
  "delete-topic": () => ({ params: { topic_name: "doomed" } }),
  "deactivate-custom-emoji": () => ({ path: { emoji_name: "green_tick" } }),
  "remove-reaction": () => ({ params: { emoji_name: "octopus" } }),
  "update-status": () => ({ params: { status_text: "on vacation" } }),
  "update-status-for-user": () => ({ params: { status_text: "in a meeting" } }),
  "set-typing-status": () => ({ params: { op: "start", type: "direct", to: [t.member.id] } }),
  "update-user-by-email": () => ({ path: { email: t.member.email }, params: { full_name: "Renamed By Email" } }),
  "reactivate-user": () => ({ path: { user_id: throwaway.id } }),
};

before(async () => {
  // A BigBlueButton server is named so that calls can be created; creating one doesn't contact it.
  srv = await startTestServer({ bigBlueButtonUrl: "http://127.0.0.1:9/bigbluebutton/", bigBlueButtonSecret: "contract" });
  t = await createTestRealm(srv.app);
  const owner = new Api(srv.url, t.owner);
  const ok = async (p: Promise<{ status: number; body: Record<string, any> }>) => {
    const r = await p;
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body;
  };
  const channel = await ok(owner.post("/channels/create", { name: "contract", subscribers: JSON.stringify([t.owner.id, t.member.id]) }));
  const message = await ok(owner.post("/messages", { type: "stream", to: "contract", topic: "greetings", content: "hello" }));
  const draft = await ok(owner.post("/drafts", { drafts: JSON.stringify([{ type: "stream", to: [channel.id], topic: "x", content: "draft", timestamp: 1700000000 }]) }));
  const snippet = await ok(owner.post("/saved_snippets", { title: "Greeting", content: "Hello" }));
  const group = await ok(owner.post("/user_groups/create", { name: "contract group", description: "", members: JSON.stringify([t.member.id]) }));
  const folder = await ok(owner.post("/channel_folders/create", { name: "contract folder", description: "" }));
  await ok(owner.post("/users/me/presence", { status: "active" }));
  const filter = await ok(owner.post("/realm/filters", { pattern: "T(?P<id>[0-9]+)", url_template: "https://example.com/t/{id}" }));
  const schedule = (content: string) =>
    ok(owner.post("/scheduled_messages", { type: "stream", to: channel.id, topic: "later", content, scheduled_delivery_timestamp: Math.floor(Date.now() / 1000) + 86400 }));
  const scheduled = [(await schedule("one")).scheduled_message_id, (await schedule("two")).scheduled_message_id];
  const spareChannel = await ok(owner.post("/channels/create", { name: "contract spare", subscribers: JSON.stringify([t.owner.id]) }));
  await ok(owner.post("/messages", { type: "stream", to: "contract", topic: "doomed", content: "to be deleted" }));
  const moderation = await ok(owner.post("/channels/create", { name: "moderation", subscribers: JSON.stringify([t.owner.id]), invite_only: "true" }));
  await ok(owner.patch("/realm", { moderation_request_channel_id: moderation.id }));
  await setRealmProps(srv.app, t.realm.id, { enable_read_receipts: true });
  const settingsChannel = await ok(owner.post("/channels/create", { name: "contract settings", subscribers: JSON.stringify([t.owner.id]) }));
  const spareMessage = await ok(owner.post("/messages", { type: "stream", to: "contract", topic: "greetings", content: "spare" }));
  const upload = await ok(postFile("/user_uploads", "notes.txt", "text/plain", "contract notes"));
  await ok(postFile("/user_uploads", "spare.txt", "text/plain", "spare notes"));
  await ok(postFile("/realm/emoji/green_tick", "tick.png", "image/png", PNG));
  const attachments = (await ok(owner.get("/attachments"))).attachments as { id: number; name: string }[];
  for (const fragment of ["recent", "inbox"]) await ok(owner.post("/navigation_views", { fragment, is_pinned: "true" }));
  const reminder = await ok(
    owner.post("/reminders", { message_id: message.id, scheduled_delivery_timestamp: Math.floor(Date.now() / 1000) + 3600 }),
  );
  const queue = await ok(owner.post("/register", { event_types: ["message"] }));
  const spare = await ok(owner.post("/register", { event_types: ["message"] }));
  throwaway = await runAction(srv.app, async (tx) => {
    const u = await createUserInTx(tx, srv.app, (await getRealm(tx, t.realm.id))!, {
      email: "throwaway@zulip.example.com",
      fullName: "Thea Throwaway",
      role: Role.MEMBER,
      password: TEST_PASSWORD,
    });
    return { id: u.id, email: u.delivery_email, apiKey: u.api_key, role: Role.MEMBER, fullName: "Thea Throwaway" };
  });
  ids = {
    queue_id: queue.queue_id,
    spare_queue_id: spare.queue_id,
    filter_id: filter.id,
    scheduled_message_id: scheduled[0],
    spare_scheduled_message_id: scheduled[1],
    stream_id: channel.id,
    message_id: message.id,
    draft_id: draft.ids[0],
    saved_snippet_id: snippet.saved_snippet_id,
    user_group_id: group.group_id,
    channel_folder_id: folder.channel_folder_id,
    user_id: t.member.id,
    user_id_or_email: t.member.id,
    email: t.member.email,
    realm_id_str: String(t.realm.id),
    spare_stream_id: spareChannel.id,
    spare_attachment_id: attachments.find((a) => a.name === "spare.txt")!.id,
    spare_message_id: spareMessage.id,
    settings_stream_id: settingsChannel.id,
    upload_path: String(upload.url).replace(/^\/user_uploads\//, ""),
    reminder_id: reminder.reminder_id,
  };
});
after(async () => {
  await backgroundSettled(srv.app);
  await srv.close();
});

/** Who calls each operation: the owner, except where that would end the owner's access. */
function caller(o: Operation): TestUser {
  if (o.operationId === "deactivate-own-user") return t.member2;
  return t.owner;
}

const PNG = Buffer.concat([Buffer.from("89504e470d0a1a0a0000000d49484452", "hex"), Buffer.alloc(32, 7)]);

/** A file upload as clients send it: multipart, one file part. */
async function postFile(route: string, name: string, type: string, data: string | Buffer) {
  const form = new FormData();
  form.append("file", new Blob([typeof data === "string" ? data : new Uint8Array(data)], { type }), name);
  const res = await fetch(`${srv.url}/api/v1${route}`, { method: "POST", body: form, headers: { authorization: basicAuth(t.owner) } });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

/** Operations that take a file, and the file they are sent. */
const FILE_UPLOADS: Record<string, [string, string, string | Buffer]> = {
  "upload-file": ["contract.txt", "text/plain", "uploaded by the contract test"],
  "upload-custom-emoji": ["emoji.png", "image/png", PNG],
};

function request(o: Operation): { route: string; params: Record<string, ParamValue> } {
  const overrides = OVERRIDES[o.operationId]?.() ?? {};
  let route = overrides.route ?? o.path;
  const params: Record<string, ParamValue> = {};
  for (const p of parameters(o.op)) {
    const value = (overrides.path?.[p.name] ?? ids[p.name] ?? p.example) as ParamValue | undefined;
    if (p.in === "path") route = route.replace(`{${p.name}}`, encodeURIComponent(String(value)));
    else if (p.required && value !== undefined) params[p.name] = value;
  }
  return { route, params: { ...params, ...overrides.params } };
}

describe("every operation in Zulip's OpenAPI description", () => {
  for (const o of operations()) {
    const key = `${o.method} ${o.path}`;
    if (DOC_ONLY[key]) {
      test(key, { skip: DOC_ONLY[key] }, () => {});
      continue;
    }
    test(`${key} (${o.operationId})`, async () => {
      const { route, params } = request(o);
      const file = FILE_UPLOADS[o.operationId];
      const r = file ? await postFile(route, ...file) : await new Api(srv.url, caller(o)).call(o.method, route, params);
      assert.notDeepEqual(r.body, UNKNOWN_ROUTE, `${key} is not answered`);
      assert.notEqual(r.status, 405, `${key} is not answered for this method`);
      assert.ok(r.status < 500, `${key} failed with ${r.status}: ${JSON.stringify(r.body)}`);
      if (NOT_EXERCISED[o.operationId]) return;
      assert.equal(r.status, 200, `${key} answered ${JSON.stringify(r.body)}`);
      const validate = successValidator(o.op);
      if (!validate || KNOWN_SCHEMA_MISMATCHES[o.operationId]) return;
      assert.deepEqual(validate(r.body), [], `${key} answered ${JSON.stringify(r.body).slice(0, 400)}`);
    });
  }
});

describe("the response validator", () => {
  test("refuses a body that lacks a required key, has an unknown one, or a wrong type", () => {
    const validate = successValidator(spec.paths["/users/me/alert_words"].get)!;
    assert.deepEqual(validate({ result: "success", msg: "", alert_words: ["a"] }), []);
    assert.notDeepEqual(validate({ result: "success", alert_words: [] }), []);
    assert.notDeepEqual(validate({ result: "success", msg: "", alert_words: ["a"], extra: 1 }), []);
    assert.notDeepEqual(validate({ result: "success", msg: "", alert_words: [1] }), []);
  });

  test("understands nullable and allOf extensions of a base schema", () => {
    const validate = successValidator(spec.paths["/users/me"].get)!;
    assert.ok(validate !== undefined);
    const register = successValidator(spec.paths["/register"].post)!;
    assert.deepEqual(register({ result: "success", msg: "", queue_id: null, last_event_id: -1, zulip_feature_level: 420, zulip_version: "x", zulip_merge_base: "x" }), []);
    assert.notDeepEqual(register({ result: "success", msg: "", queue_id: 5 }), []);
  });
});

/**
 * Walks Zulip's OpenAPI description: every operation must be answered (not the JSON 404 for
 * unknown routes), and every success body must validate against the operation's 200 schema.
 * Requests use the spec's examples, with the overrides below for ids that must exist here.
 */
import { test, before, after, describe } from "node:test";
import assert from "node:assert/strict";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { Api, type ParamValue } from "../helpers/client.js";
import { createTestRealm, type TestRealm, type TestUser } from "../helpers/realm.js";
import { operations, parameters, successValidator, type Operation } from "../helpers/openapi.js";

/** Documentation pages the spec describes as operations; they are not API endpoints. */
const DOC_ONLY: Record<string, string> = {
  "POST /real-time": "describes the events system, not an endpoint",
  "POST /rest-error-handling": "describes error responses, not an endpoint",
  "POST /zulip-outgoing-webhook": "describes what Zulip sends to outgoing-webhook bots",
};

/**
 * Operations other helpers of issue 10 are implementing on their own branches. This list must
 * shrink to empty: the coordinator removes entries as those branches are merged.
 */
const EXPECTED_MISSING = new Set<string>([
  // flags
  "mark-all-as-read", "mark-stream-as-read", "mark-topic-as-read", "update-message-flags",
  "update-message-flags-for-narrow", "get-read-receipts", "check-messages-match-narrow",
  // files
  "get-attachments", "remove-attachment", "upload-file", "get-file-temporary-url",
  "upload-custom-emoji", "deactivate-custom-emoji", "get-custom-emoji",
  // reactions
  "add-reaction", "remove-reaction", "get-user-status", "update-status-for-user", "update-status",
  "set-typing-status", "set-typing-status-for-message-edit",
  // topics
  "get-stream-topics", "delete-topic", "update-user-topic", "mute-topic",
  // subs
  "update-subscription-settings", "get-subscription-status", "get-stream-email-address", "mute-user", "unmute-user",
  // settings
  "update-settings", "update-realm-user-settings-defaults",
  // misc
  "get-message-history", "report-message", "get-navigation-views", "add-navigation-view",
  "edit-navigation-view", "remove-navigation-view", "get-reminders", "create-message-reminder", "delete-reminder",
  // export (later)
  "get-realm-exports", "export-realm", "get-realm-export-consents", "create-big-blue-button-video-call",
]);

/**
 * Operations whose success body does not match the spec yet, each with the reason. This list
 * must shrink to empty too.
 */
const KNOWN_SCHEMA_MISMATCHES: Record<string, string> = {};

let srv: TestServer;
let t: TestRealm;
let ids: Record<string, number | string> = {};
const UNKNOWN_ROUTE = { result: "error", msg: "Not Found", code: "BAD_REQUEST" };

before(async () => {
  srv = await startTestServer();
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
  ids = {
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
  };
});
after(() => srv.close());

/** Who calls each operation: the owner, except where that would end the owner's access. */
function caller(o: Operation): TestUser {
  if (o.operationId === "deactivate-own-user") return t.member2;
  return t.owner;
}

function request(o: Operation): { route: string; params: Record<string, ParamValue> } {
  let route = o.path;
  const params: Record<string, ParamValue> = {};
  for (const p of parameters(o.op)) {
    const value = (ids[p.name] ?? p.example) as ParamValue | undefined;
    if (p.in === "path") route = route.replace(`{${p.name}}`, encodeURIComponent(String(value)));
    else if (p.required && value !== undefined) params[p.name] = value;
  }
  return { route, params };
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
      const r = await new Api(srv.url, caller(o)).call(o.method, route, params);
      if (EXPECTED_MISSING.has(o.operationId)) return;
      assert.notDeepEqual(r.body, UNKNOWN_ROUTE, `${key} is not answered`);
      assert.ok(r.status < 500, `${key} failed with ${r.status}: ${JSON.stringify(r.body)}`);
      if (process.env.CONTRACT_DEBUG) console.log("STATUS", o.operationId, r.status, r.status === 200 ? "" : JSON.stringify(r.body).slice(0, 150));
      const validate = successValidator(o.op);
      if (r.status !== 200 || !validate || KNOWN_SCHEMA_MISMATCHES[o.operationId]) return;
      assert.deepEqual(validate(r.body), [], `${key} answered ${JSON.stringify(r.body).slice(0, 400)}`);
    });
  }
});

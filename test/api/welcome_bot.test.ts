import { test, before, after, describe } from "node:test";
import assert from "node:assert/strict";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { Api, type ApiResponse } from "../helpers/client.js";
import { createTestRealm, type TestRealm, type TestUser } from "../helpers/realm.js";
import { EventLog } from "../helpers/events.js";
import { setRealmProp } from "../helpers/invites.js";

let srv: TestServer;
let t: TestRealm;
let o: TestRealm;
let welcomeBotId: number;

const api = (u: TestUser) => new Api(srv.url, u);
const preview = (u: TestUser, text?: string) =>
  api(u).post("/realm/test_welcome_bot_custom_message", text === undefined ? {} : { welcome_message_custom_text: text });

function expectError(r: ApiResponse, msg: string, code = "BAD_REQUEST") {
  assert.equal(r.status, 400, JSON.stringify(r.body));
  assert.deepEqual({ msg: r.body.msg, code: r.body.code }, { msg, code });
}

const messageCount = async () =>
  Number((await srv.app.db.selectFrom("messages").select((eb) => eb.fn.countAll().as("n")).executeTakeFirstOrThrow()).n);

before(async () => {
  srv = await startTestServer();
  t = await createTestRealm(srv.app);
  o = await createTestRealm(srv.app, "other");
  welcomeBotId = (
    await srv.app.db
      .selectFrom("users")
      .select("id")
      .where("realm_id", "=", t.realm.id)
      .where("email", "=", "welcome-bot@zulip.com")
      .executeTakeFirstOrThrow()
  ).id;
});
after(() => srv.close());

describe("POST /realm/test_welcome_bot_custom_message", () => {
  test("Welcome Bot sends the text, as Markdown, to the administrator who asked; the setting is untouched", async () => {
    await setRealmProp(srv.app, t.realm.id, "welcome_message_custom_text", "The organization's own text");
    for (const u of [t.owner, t.admin]) {
      const log = new EventLog(srv);
      const r = await preview(u, "Welcome to **our** team!");
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.deepEqual(Object.keys(r.body).sort(), ["message_id", "msg", "result"]);
      const message = await srv.app.db.selectFrom("messages").selectAll().where("id", "=", r.body.message_id).executeTakeFirstOrThrow();
      assert.equal(message.sender_id, welcomeBotId);
      assert.equal(message.content, "Welcome to **our** team!");
      assert.equal(message.rendered_content, "<p>Welcome to <strong>our</strong> team!</p>");
      assert.equal(message.dm_key, [welcomeBotId, u.id].sort((a, b) => a - b).join(","));
      const [event] = log.stop();
      assert.equal(event.event.type, "message");
      assert.deepEqual(event.userIds.sort(), [welcomeBotId, u.id].sort((a, b) => a - b));
      assert.deepEqual(event.perUser!.get(u.id), { flags: [] });
      const fetched = await api(u).get(`/messages/${r.body.message_id}`);
      assert.equal(fetched.body.message.sender_email, "welcome-bot@zulip.com");
    }
    const realm = await srv.app.db.selectFrom("realms").select("props").where("id", "=", t.realm.id).executeTakeFirstOrThrow();
    assert.equal(JSON.parse(realm.props).welcome_message_custom_text, "The organization's own text");
  });

  test("up to 8000 characters", async () => {
    assert.equal((await preview(t.admin, "x".repeat(8000))).status, 200);
    const before = await messageCount();
    expectError(await preview(t.admin, "x".repeat(8001)), "welcome_message_custom_text is too long (limit: 8000 characters)");
    assert.equal(await messageCount(), before);
  });

  test("the text is required and may not be empty", async () => {
    const before = await messageCount();
    const missing = await preview(t.admin);
    assert.deepEqual(missing.body, {
      result: "error",
      msg: "Missing 'welcome_message_custom_text' argument",
      code: "REQUEST_VARIABLE_MISSING",
      var_name: "welcome_message_custom_text",
    });
    expectError(await preview(t.admin, ""), "Message must not be empty");
    expectError(await preview(t.admin, "  \n "), "Message must not be empty");
    assert.equal(await messageCount(), before);
  });

  test("only administrators, refused before the text is read", async () => {
    const before = await messageCount();
    for (const u of [t.moderator, t.member, t.guest, t.bot]) {
      expectError(await preview(u), "Must be an organization administrator", "UNAUTHORIZED_PRINCIPAL");
      expectError(await preview(u, "Hello"), "Must be an organization administrator", "UNAUTHORIZED_PRINCIPAL");
    }
    assert.equal(await messageCount(), before);
  });

  test("an administrator of another organization hears from that organization's Welcome Bot", async () => {
    const r = await preview(o.admin, "Hi");
    const message = await srv.app.db.selectFrom("messages").selectAll().where("id", "=", r.body.message_id).executeTakeFirstOrThrow();
    assert.equal(message.realm_id, o.realm.id);
    assert.notEqual(message.sender_id, welcomeBotId);
  });
});

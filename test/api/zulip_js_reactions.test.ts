/** zulip-js driving reactions and typing notifications: multipart bodies, DELETE parameters in the query string. */
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import zulip from "zulip-js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { Api } from "../helpers/client.js";
import { createTestRealm, type TestRealm, type TestUser } from "../helpers/realm.js";
import { makeChannel, ok } from "../helpers/channels.js";

let srv: TestServer;
let t: TestRealm;
const api = (u: TestUser) => new Api(srv.url, u);
const client = (u: TestUser) => zulip({ username: u.email, apiKey: u.apiKey, realm: srv.url });

before(async () => {
  srv = await startTestServer();
  t = await createTestRealm(srv.app);
});
after(() => srv.close());

test("zulip-js adds and removes a reaction, which shows in the message and reaches the other participant", async () => {
  const c = await makeChannel(srv, t, { subscribers: [t.member, t.member2] });
  const id = (await ok(api(t.member).post("/messages", { type: "stream", to: c.id, topic: "zulip-js", content: "react to me" }))).id;
  const queue = await ok(api(t.member).post("/register", { event_types: JSON.stringify(["reaction"]) }));
  const js = await client(t.member2);

  const added = await js.reactions.add({ message_id: id, emoji_name: "octopus" });
  assert.equal(added.result, "success", JSON.stringify(added));
  const again = await js.reactions.add({ message_id: id, emoji_name: "octopus" });
  assert.deepEqual([again.result, again.code], ["error", "REACTION_ALREADY_EXISTS"]);
  const message = (await ok(api(t.member).get(`/messages/${id}`))).message;
  assert.deepEqual(message.reactions, [{ emoji_name: "octopus", emoji_code: "1f419", reaction_type: "unicode_emoji", user_id: t.member2.id }]);

  const removed = await js.reactions.remove({ message_id: id, emoji_name: "octopus" });
  assert.equal(removed.result, "success", JSON.stringify(removed));
  const events = (await ok(api(t.member).get("/events", { queue_id: queue.queue_id, last_event_id: -1 }))).events;
  assert.deepEqual(
    events.map((e: any) => [e.op, e.user_id, e.emoji_name]),
    [
      ["add", t.member2.id, "octopus"],
      ["remove", t.member2.id, "octopus"],
    ],
  );
  assert.deepEqual((await ok(api(t.member).get(`/messages/${id}`))).message.reactions, []);
});

test("zulip-js sends typing notifications to a group conversation", async () => {
  const queue = await ok(api(t.member).post("/register", { event_types: JSON.stringify(["typing"]) }));
  const js = await client(t.member2);
  for (const op of ["start", "stop"]) {
    const r = await js.typing.send({ to: [t.member.id, t.owner.id], op });
    assert.equal(r.result, "success", JSON.stringify(r));
  }
  const events = (await ok(api(t.member).get("/events", { queue_id: queue.queue_id, last_event_id: -1 }))).events;
  assert.deepEqual(
    events.map((e: any) => [e.op, e.message_type, e.sender.user_id, e.recipients.map((p: any) => p.user_id)]),
    ["start", "stop"].map((op) => [op, "direct", t.member2.id, [t.member.id, t.owner.id, t.member2.id]]),
  );
});

/**
 * The real zulip-js client editing, moving and deleting messages and administering a channel
 * in the development organization.
 */
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import zulip, { type ZulipClient } from "zulip-js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { DEV_PASSWORD, seedDevOrganization } from "../../src/dev/seed.js";

let srv: TestServer;
let hamlet: ZulipClient;
let iago: ZulipClient;

const connect = (email: string) => zulip({ username: email, password: DEV_PASSWORD, realm: srv.url });

before(async () => {
  srv = await startTestServer({ development: true });
  await seedDevOrganization(srv.app);
  hamlet = await connect("hamlet@zulip.com");
  iago = await connect("iago@zulip.com");
});
after(() => srv.close());

test("zulip-js edits, moves and deletes a message; an administrator archives a channel", async () => {
  const sent = await hamlet.messages.send({ to: "Denmark", type: "stream", topic: "drafts", content: "first" });
  assert.equal(sent.result, "success", JSON.stringify(sent));

  const edited = await hamlet.messages.update({ message_id: sent.id, content: "second", topic: "final", propagate_mode: "change_one" });
  assert.equal(edited.result, "success", JSON.stringify(edited));
  const fetched = await hamlet.messages.getById({ message_id: sent.id, apply_markdown: false });
  assert.deepEqual([fetched.message.content, fetched.message.subject], ["second", "final"]);
  assert.deepEqual(fetched.message.edit_history.map((h: Record<string, unknown>) => [h.prev_content, h.prev_topic]), [["first", "drafts"]]);

  const refused = await hamlet.messages.deleteById({ message_id: sent.id + 1000 });
  assert.deepEqual([refused.result, refused.msg], ["error", "Invalid message(s)"]);
  const deleted = await iago.messages.deleteById({ message_id: sent.id });
  assert.equal(deleted.result, "success", JSON.stringify(deleted));

  const { stream_id } = await iago.callEndpoint("/get_stream_id", "GET", { stream: "Denmark" });
  assert.deepEqual(await hamlet.streams.deleteById({ stream_id }), {
    result: "error",
    msg: "You do not have permission to administer this channel.",
    code: "BAD_REQUEST",
  });
  const archived = await iago.streams.deleteById({ stream_id });
  assert.equal(archived.result, "success", JSON.stringify(archived));
});

/**
 * zulip-js driving message flags the way a client does: multipart POST /messages/flags, the
 * update_message_flags events its queue receives, and the unread count of POST /register.
 */
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import zulip, { type ZulipClient } from "zulip-js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { createTestRealm, type TestRealm, type TestUser } from "../helpers/realm.js";
import { makeChannel, type MadeChannel } from "../helpers/channels.js";

let srv: TestServer;
let t: TestRealm;
let channel: MadeChannel;
let reader: ZulipClient;
let sender: ZulipClient;

const connect = (u: TestUser) => zulip({ username: u.email, apiKey: u.apiKey, realm: srv.url });

before(async () => {
  srv = await startTestServer();
  t = await createTestRealm(srv.app);
  channel = await makeChannel(srv, t, { subscribers: [t.member, t.member2] });
  reader = await connect(t.member);
  sender = await connect(t.member2);
  await reader.callEndpoint("/mark_all_as_read", "POST");
});
after(() => srv.close());

const unreadCount = async () => {
  const state = await reader.queues.register({ fetch_event_types: ["message", "update_message_flags"], event_types: ["message"] });
  assert.equal(state.result, "success", JSON.stringify(state));
  return state.unread_msgs.count as number;
};

test("zulip-js reads, stars and marks unread; its queue hears of each change", async () => {
  const ids: number[] = [];
  for (const content of ["one", "two"]) {
    const sent = await sender.messages.send({ to: channel.id, type: "stream", topic: "zulip-js flags", content });
    assert.equal(sent.result, "success", JSON.stringify(sent));
    ids.push(sent.id);
  }
  assert.equal(await unreadCount(), 2);
  const queue = await reader.queues.register({ event_types: ["update_message_flags"] });

  const read = await reader.messages.flags.add({ flag: "read", messages: ids });
  assert.deepEqual(read, { result: "success", msg: "", messages: ids });
  assert.equal(await unreadCount(), 0);
  const starred = await reader.messages.flags.add({ flag: "starred", messages: [ids[0]] });
  assert.equal(starred.result, "success", JSON.stringify(starred));
  const unread = await reader.messages.flags.remove({ flag: "read", messages: [ids[1]] });
  assert.deepEqual(unread, { result: "success", msg: "", messages: [ids[1]], ignored_because_not_subscribed_channels: [] });
  assert.equal(await unreadCount(), 1);
  const refused = await reader.messages.flags.add({ flag: "mentioned", messages: ids });
  assert.deepEqual(refused, { result: "error", msg: "Flag not editable: 'mentioned'", code: "BAD_REQUEST" });

  const polled = await reader.events.retrieve({ queue_id: queue.queue_id, last_event_id: -1, dont_block: true });
  assert.deepEqual(
    polled.events.map((e: Record<string, unknown>) => [e.op, e.flag, e.messages]),
    [
      ["add", "read", ids],
      ["add", "starred", [ids[0]]],
      ["remove", "read", [ids[1]]],
    ],
  );
  const fetched = await reader.messages.retrieve({ anchor: ids[0], num_before: 0, num_after: 1, narrow: [{ operator: "channel", operand: channel.id }] });
  assert.deepEqual(fetched.messages.map((m: { flags: string[] }) => m.flags), [["read", "starred"], []]);

  const topic = await reader.callEndpoint("/mark_topic_as_read", "POST", { stream_id: channel.id, topic_name: "zulip-js flags" });
  assert.deepEqual(topic, { result: "success", msg: "" });
  assert.equal(await unreadCount(), 0);
  const narrow = await reader.callEndpoint("/messages/flags/narrow", "POST", {
    anchor: "newest",
    num_before: 10,
    num_after: 0,
    narrow: JSON.stringify([{ operator: "is", operand: "starred" }]),
    op: "remove",
    flag: "starred",
  });
  assert.equal(narrow.result, "success", JSON.stringify(narrow));
  assert.deepEqual([narrow.processed_count, narrow.updated_count, narrow.first_processed_id], [1, 1, ids[0]]);
});

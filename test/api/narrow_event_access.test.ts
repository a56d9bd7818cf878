/**
 * Narrowed event queues also hear of public channels' messages their user is not subscribed to;
 * they must never hear of a message their user could not read with GET /messages.
 */
import { test, before, after, describe } from "node:test";
import assert from "node:assert/strict";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { Api } from "../helpers/client.js";
import { createTestRealm, type TestRealm, type TestUser } from "../helpers/realm.js";
import { makeChannel, ok, setRealmProps, type MadeChannel } from "../helpers/channels.js";

let srv: TestServer;
let t: TestRealm;
let plain: MadeChannel;
let webPublic: MadeChannel;

before(async () => {
  srv = await startTestServer();
  t = await createTestRealm(srv.app);
  await setRealmProps(srv.app, t.realm.id, { enable_spectator_access: true });
  plain = await makeChannel(srv, t);
  webPublic = await makeChannel(srv, t, { extra: { is_web_public: true } });
});
after(() => srv.close());

const api = (u: TestUser) => new Api(srv.url, u);

async function narrowedQueue(u: TestUser, channel: MadeChannel): Promise<string> {
  return (await ok(api(u).post("/register", { event_types: ["message"], narrow: [["channel", channel.name]] }))).queue_id;
}

async function send(channel: MadeChannel, content: string): Promise<number> {
  return (await ok(api(t.owner).post("/messages", { type: "stream", to: channel.name, topic: "t", content }))).id;
}

async function receivedIds(u: TestUser, queueId: string): Promise<number[]> {
  const body = await ok(api(u).get("/events", { queue_id: queueId, last_event_id: -1, dont_block: true }));
  return body.events.filter((e: { type: string }) => e.type === "message").map((e: { message: { id: number } }) => e.message.id);
}

async function canRead(u: TestUser, channel: MadeChannel, id: number): Promise<boolean> {
  const body = await ok(api(u).get("/messages", { anchor: id, num_before: 0, num_after: 0, narrow: [["channel", channel.name]] }));
  return body.messages.some((m: { id: number }) => m.id === id);
}

describe("narrowed queues and unsubscribed public channels", () => {
  test("a guest's narrow to a public channel he is not in receives nothing, as GET /messages shows nothing", async () => {
    const guestQueue = await narrowedQueue(t.guest, plain);
    const memberQueue = await narrowedQueue(t.member, plain);
    const id = await send(plain, "for members");
    assert.deepEqual(await receivedIds(t.guest, guestQueue), []);
    assert.equal(await canRead(t.guest, plain, id), false);
    assert.deepEqual(await receivedIds(t.member, memberQueue), [id]);
    assert.equal(await canRead(t.member, plain, id), true);
  });

  test("a guest's narrow to a web-public channel receives its messages, which he may read", async () => {
    const guestQueue = await narrowedQueue(t.guest, webPublic);
    const id = await send(webPublic, "for everyone");
    assert.deepEqual(await receivedIds(t.guest, guestQueue), [id]);
    assert.equal(await canRead(t.guest, webPublic, id), true);
  });

  test("a member turned guest stops receiving through a queue made before; turned back, receives again", async () => {
    const queue = await narrowedQueue(t.member2, plain);
    await ok(api(t.owner).patch(`/users/${t.member2.id}`, { role: 600 }));
    const hidden = await send(plain, "after the demotion");
    assert.deepEqual(await receivedIds(t.member2, queue), []);
    await ok(api(t.owner).patch(`/users/${t.member2.id}`, { role: 400 }));
    const shown = await send(plain, "after the promotion");
    assert.deepEqual(await receivedIds(t.member2, queue), [shown]);
    assert.notEqual(hidden, shown);
  });
});

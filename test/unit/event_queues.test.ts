import { test, describe, beforeEach } from "node:test";
import assert from "node:assert/strict";
import { EventBus } from "../../src/events/bus.js";
import { EventQueues, type QueueSpec } from "../../src/events/queues.js";
import { ZULIP_EVENT_QUEUE_TIMINGS } from "../../src/config.js";
import { ZulipError } from "../../src/http/errors.js";
import { ManualTime } from "../helpers/time.js";

let time: ManualTime;
let bus: EventBus;
let queues: EventQueues;

const spec = (userId: number, over: Partial<QueueSpec> = {}): QueueSpec => ({
  userId,
  realmId: 1,
  clientName: "test",
  eventTypes: null,
  narrow: [],
  applyMarkdown: false,
  clientGravatar: false,
  slimPresence: false,
  allPublicStreams: false,
  guest: false,
  capabilities: {},
  lifespanSecs: 0,
  ...over,
});

const publish = (userIds: number[], event: Record<string, unknown>, perUser?: Map<number, Record<string, unknown>>) =>
  bus.publish({ realmId: 1, userIds, event, perUser });

const poll = (userId: number, queueId: string, lastEventId: number, extra: { dontBlock?: boolean; signal?: AbortSignal } = {}) =>
  queues.fetch({ userId, queueId, lastEventId, dontBlock: extra.dontBlock ?? false, newQueue: spec(userId), signal: extra.signal });

async function rejects(promise: Promise<unknown>, msg: string, code = "BAD_REQUEST") {
  await assert.rejects(promise, (e: unknown) => e instanceof ZulipError && e.msg === msg && e.code === code);
}

beforeEach(() => {
  time = new ManualTime(1_000_000);
  bus = new EventBus();
  queues = new EventQueues({ clock: time, timers: time, timings: ZULIP_EVENT_QUEUE_TIMINGS, random: () => 0 });
  queues.start(bus);
});

describe("delivery and acknowledgement", () => {
  test("events reach exactly the named users' queues, with increasing ids", async () => {
    const a = queues.allocate(spec(1));
    const a2 = queues.allocate(spec(1));
    const b = queues.allocate(spec(2));
    publish([1], { type: "x", n: 1 });
    publish([1, 2], { type: "x", n: 2 });
    assert.deepEqual((await poll(1, a.queueId, -1)).events, [
      { type: "x", n: 1, id: 0 },
      { type: "x", n: 2, id: 1 },
    ]);
    assert.equal((await poll(1, a2.queueId, -1)).events.length, 2);
    assert.deepEqual((await poll(2, b.queueId, -1)).events, [{ type: "x", n: 2, id: 0 }]);
  });

  test("events stay until acknowledged; a reconnect with the last id seen loses nothing", async () => {
    const q = queues.allocate(spec(1));
    publish([1], { type: "x", n: 1 });
    publish([1], { type: "x", n: 2 });
    assert.equal((await poll(1, q.queueId, -1)).events.length, 2);
    // The response was lost: the client asks again from the same point.
    assert.equal((await poll(1, q.queueId, -1)).events.length, 2);
    publish([1], { type: "x", n: 3 });
    assert.deepEqual(
      (await poll(1, q.queueId, 1)).events.map((e) => e.n),
      [3],
    );
  });

  test("per-user fields are merged into each user's copy", async () => {
    const a = queues.allocate(spec(1));
    const b = queues.allocate(spec(2));
    publish([1, 2], { type: "x" }, new Map([[1, { flags: ["read"] }]]));
    assert.deepEqual((await poll(1, a.queueId, -1)).events, [{ type: "x", flags: ["read"], id: 0 }]);
    assert.deepEqual((await poll(2, b.queueId, -1)).events, [{ type: "x", id: 0 }]);
  });

  test("acknowledging an already pruned or unknown event is an error", async () => {
    const q = queues.allocate(spec(1));
    publish([1], { type: "x" });
    publish([1], { type: "x" });
    await poll(1, q.queueId, 1, { dontBlock: true });
    await rejects(poll(1, q.queueId, 0), "An event newer than 0 has already been pruned!");
    publish([1], { type: "x" });
    await rejects(poll(1, q.queueId, 5), "Event 5 was not in this queue");
  });

  test("missing queue_id or last_event_id, and other users' queues", async () => {
    const q = queues.allocate(spec(1));
    await rejects(queues.fetch({ userId: 1, dontBlock: false, newQueue: spec(1) }), "Missing 'queue_id' argument");
    await rejects(queues.fetch({ userId: 1, queueId: q.queueId, dontBlock: false, newQueue: spec(1) }), "Missing 'last_event_id' argument");
    await rejects(poll(2, q.queueId, -1), `Bad event queue ID: ${q.queueId}`, "BAD_EVENT_QUEUE_ID");
    await rejects(poll(1, "nope", -1), "Bad event queue ID: nope", "BAD_EVENT_QUEUE_ID");
  });

  test("dont_block without a queue creates one and names it", async () => {
    const r = await queues.fetch({ userId: 1, dontBlock: true, newQueue: spec(1) });
    assert.deepEqual(r.events, []);
    assert.ok(r.queue_id);
    assert.equal(queues.queuesOf(1).length, 1);
    const again = await poll(1, r.queue_id!, -1, { dontBlock: true });
    assert.deepEqual(again, { events: [] });
  });

  test("flag updates are merged while they wait, which leaves gaps in the ids", async () => {
    const q = queues.allocate(spec(1));
    publish([1], { type: "update_message_flags", op: "add", operation: "add", flag: "read", messages: [1], all: false });
    publish([1], { type: "x" });
    publish([1], { type: "update_message_flags", op: "add", operation: "add", flag: "read", messages: [2], all: false });
    publish([1], { type: "update_message_flags", op: "remove", operation: "remove", flag: "read", messages: [3], all: false });
    const events = (await poll(1, q.queueId, -1)).events;
    assert.deepEqual(
      events.map((e) => [e.id, e.type, e.messages]),
      [
        [1, "x", undefined],
        [2, "update_message_flags", [1, 2]],
        [3, "update_message_flags", [3]],
      ],
    );
  });
});

describe("long-polling", () => {
  test("a waiting request is answered as soon as an event arrives", async () => {
    const q = queues.allocate(spec(1));
    const pending = poll(1, q.queueId, -1);
    assert.equal((await queues.stats()).waiting, 1);
    publish([2], { type: "x" });
    assert.equal((await queues.stats()).waiting, 1);
    publish([1], { type: "x" });
    assert.deepEqual(await pending, { events: [{ type: "x", id: 0 }], queue_id: q.queueId });
    assert.equal((await queues.stats()).waiting, 0);
  });

  test("events the queue does not accept do not wake it", async () => {
    const q = queues.allocate(spec(1, { eventTypes: ["message"] }));
    const pending = poll(1, q.queueId, -1);
    publish([1], { type: "presence", user_id: 3, email: "x", server_timestamp: 1, presence: {}, presences: {} });
    assert.equal((await queues.stats()).waiting, 1);
    publish([1], { type: "message", message: { id: 1, type: "private" } });
    assert.equal((await pending).events[0].type, "message");
  });

  test("a heartbeat answers after 45 s (plus jitter), to every queue whatever its event types", async () => {
    const q = queues.allocate(spec(1, { eventTypes: ["message"] }));
    const pending = poll(1, q.queueId, -1);
    time.advance(44);
    assert.equal((await queues.stats()).waiting, 1);
    time.advance(1);
    assert.deepEqual(await pending, { events: [{ type: "heartbeat", id: 0 }], queue_id: q.queueId });
    // The heartbeat is acknowledged like any event.
    const next = poll(1, q.queueId, 0);
    time.advance(45);
    assert.deepEqual((await next).events, [{ type: "heartbeat", id: 1 }]);
  });

  test("heartbeats come between 45 and 55 s", async () => {
    const late = new EventQueues({ clock: time, timers: time, timings: ZULIP_EVENT_QUEUE_TIMINGS, random: () => 0.999 });
    const q = late.allocate(spec(1));
    const pending = late.fetch({ userId: 1, queueId: q.queueId, lastEventId: -1, dontBlock: false, newQueue: spec(1) });
    time.advance(54.9);
    assert.equal((await late.stats()).waiting, 1);
    time.advance(0.1);
    assert.equal((await pending).events[0].type, "heartbeat");
  });

  test("a new request on the queue answers the older one at once", async () => {
    const q = queues.allocate(spec(1));
    const first = poll(1, q.queueId, -1);
    const second = poll(1, q.queueId, -1);
    assert.deepEqual(await first, { events: [], queue_id: q.queueId });
    publish([1], { type: "x" });
    assert.equal((await second).events.length, 1);
  });

  test("a client that goes away leaves its queue and events in place", async () => {
    const q = queues.allocate(spec(1));
    const gone = new AbortController();
    const pending = poll(1, q.queueId, -1, { signal: gone.signal });
    gone.abort();
    await pending;
    assert.equal((await queues.stats()).waiting, 0);
    publish([1], { type: "x" });
    assert.equal((await poll(1, q.queueId, -1)).events.length, 1);
  });

  test("listeners hear when a request starts waiting", async () => {
    const q = queues.allocate(spec(1));
    const heard: string[] = [];
    queues.onLongPoll((queue) => heard.push(queue.queueId));
    const pending = poll(1, q.queueId, -1);
    assert.deepEqual(heard, [q.queueId]);
    publish([1], { type: "x" });
    await pending;
  });
});

describe("expiry and deletion", () => {
  test("idle queues are collected after 600 s by the periodic sweep", () => {
    const q = queues.allocate(spec(1));
    time.advance(599);
    assert.equal(queues.queuesOf(1).length, 1);
    time.advance(60);
    assert.equal(queues.queuesOf(1).length, 0);
    assert.throws(() => queues.access(1, q.queueId), (e: ZulipError) => e.code === "BAD_EVENT_QUEUE_ID");
  });

  test("polling keeps a queue alive; a waiting queue is never collected", async () => {
    const q = queues.allocate(spec(1));
    time.advance(500);
    await poll(1, q.queueId, -1, { dontBlock: true });
    time.advance(500);
    assert.equal(queues.gc(), 0);
    const pending = poll(1, q.queueId, -1);
    for (let i = 0; i < 30; i++) {
      time.advance(44);
      assert.equal(queues.gc(), 0);
      if ((await queues.stats()).waiting === 0) break;
    }
    await pending;
  });

  test("queue_lifespan_secs sets the idle timeout, up to 7 days", () => {
    queues.allocate(spec(1, { lifespanSecs: 3600 }));
    queues.allocate(spec(2, { lifespanSecs: 30 * 86400 }));
    const alive = () => queues.queuesOf(1).length + queues.queuesOf(2).length;
    time.advance(3599);
    queues.gc();
    assert.equal(alive(), 2);
    time.advance(1);
    queues.gc();
    assert.equal(alive(), 1);
    time.advance(7 * 86400 - 3600 - 1);
    queues.gc();
    assert.equal(alive(), 1);
    time.advance(1);
    queues.gc();
    assert.equal(alive(), 0);
  });

  test("deleting answers a waiting request, then the queue is gone", async () => {
    const q = queues.allocate(spec(1));
    const pending = poll(1, q.queueId, -1);
    await assert.rejects(queues.remove(2, q.queueId), (e: ZulipError) => e.code === "BAD_EVENT_QUEUE_ID");
    await queues.remove(1, q.queueId);
    assert.deepEqual(await pending, { events: [], queue_id: q.queueId });
    await assert.rejects(queues.remove(1, q.queueId), (e: ZulipError) => e.msg === `Bad event queue ID: ${q.queueId}`);
    publish([1], { type: "x" });
  });

  test("closing answers every waiting request and stops the sweep", async () => {
    const q = queues.allocate(spec(1));
    const pending = poll(1, q.queueId, -1);
    queues.close();
    assert.deepEqual(await pending, { events: [], queue_id: q.queueId });
    assert.equal(time.pendingCount(), 0);
  });
});

describe("public channel messages", () => {
  const channelMessage = (inviteOnly: boolean) => ({
    type: "message",
    message: { id: 1, type: "stream", display_recipient: "Denmark", subject: "t", sender_email: "a@b.c" },
    invite_only: inviteOnly,
  });

  test("reach all_public_streams and narrowed queues of unsubscribed users, with no flags", async () => {
    const all = queues.allocate(spec(3, { allPublicStreams: true }));
    const narrowed = queues.allocate(spec(4, { narrow: [["channel", "denmark"]] }));
    const plain = queues.allocate(spec(5));
    publish([1], channelMessage(false));
    assert.deepEqual((await poll(3, all.queueId, -1, { dontBlock: true })).events[0].flags, []);
    assert.equal((await poll(4, narrowed.queueId, -1, { dontBlock: true })).events.length, 1);
    assert.equal((await poll(5, plain.queueId, -1, { dontBlock: true })).events.length, 0);
    publish([1], channelMessage(true));
    assert.equal((await poll(3, all.queueId, 0, { dontBlock: true })).events.length, 0);
  });

  test("a subscriber's all_public_streams queue keeps its own flags", async () => {
    const q = queues.allocate(spec(3, { allPublicStreams: true }));
    publish([3], channelMessage(false), new Map([[3, { flags: ["mentioned"] }]]));
    assert.deepEqual((await poll(3, q.queueId, -1)).events[0].flags, ["mentioned"]);
  });
});

import { test } from "node:test";
import assert from "node:assert/strict";
import { EventBus, type Notice } from "../../src/events/bus.js";

const notice: Notice = { realmId: 1, userIds: [1], event: { type: "x" } };

test("publish waits for listeners that return a promise", async () => {
  const bus = new EventBus();
  const seen: string[] = [];
  bus.subscribe(() => void seen.push("sync"));
  bus.subscribe(async () => {
    await new Promise((r) => setTimeout(r, 5));
    seen.push("async");
  });
  await bus.publish(notice);
  assert.deepEqual(seen, ["sync", "async"]);
});

test("a listener that fails is reported, and publishing still resolves for the others", async () => {
  const failures: unknown[] = [];
  const bus = new EventBus((err, n) => failures.push([String(err), n.event.type]));
  let delivered = false;
  bus.subscribe(async () => {
    throw new Error("redis down");
  });
  bus.subscribe(async () => {
    delivered = true;
  });
  await bus.publish(notice);
  assert.equal(delivered, true);
  assert.deepEqual(failures, [["Error: redis down", "x"]]);
});

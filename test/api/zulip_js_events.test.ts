import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { Api } from "../helpers/client.js";
import { createTestRealm, type TestRealm } from "../helpers/realm.js";

let srv: TestServer;
let t: TestRealm;
let child: ChildProcess | undefined;

before(async () => {
  srv = await startTestServer();
  t = await createTestRealm(srv.app);
});
after(async () => {
  if (child && child.exitCode === null) {
    const exited = new Promise((resolve) => child!.once("exit", resolve));
    child.kill();
    await exited;
  }
  await srv.close();
});

test("zulip-js's callOnEachEvent loop receives presence and message events, acknowledging as it goes", async () => {
  const listener = fileURLToPath(new URL("../helpers/zulip-js-listener.cjs", import.meta.url));
  const polling = new Promise<void>((resolve) => {
    const stop = srv.app.eventQueues.onLongPoll((queue) => {
      if (queue.userId !== t.member2.id) return;
      stop();
      resolve();
    });
  });
  child = spawn(process.execPath, [listener, srv.url, t.member2.email, t.member2.apiKey, JSON.stringify(["presence", "message"])], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const nextEvent = async () => JSON.parse((await lines.next()).value as string);

  await polling;
  const [queueId] = await srv.app.eventQueues.queueIdsOf(t.member2.id);
  assert.deepEqual((await srv.app.eventQueues.inspect(queueId))?.spec.eventTypes, ["presence", "message"]);

  // A real action by another user: their first presence report.
  await new Api(srv.url, t.member).post("/users/me/presence", { status: "active" });
  const presence = await nextEvent();
  assert.equal(presence.type, "presence");
  assert.equal(presence.user_id, t.member.id);
  assert.equal(presence.id, 0);

  srv.app.bus.publish({
    realmId: t.realm.id,
    userIds: [t.member2.id],
    event: { type: "message", message: { id: 42, type: "private", content: "hi", display_recipient: [] } },
    perUser: new Map([[t.member2.id, { flags: [] }]]),
  });
  const message = await nextEvent();
  assert.equal(message.type, "message");
  assert.equal(message.message.id, 42);
  assert.equal(message.id, 1);
  // The loop acknowledged the first event when it asked for the second.
  const again = await new Api(srv.url, t.member2).get("/events", { queue_id: queueId, last_event_id: -1, dont_block: true });
  assert.equal(again.body.msg, "An event newer than -1 has already been pruned!");
});

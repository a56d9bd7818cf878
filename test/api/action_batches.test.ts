/**
 * Actions that arrive together share one SQLite commit (runAction): each is still answered on
 * its own, one that fails is undone alone, and nothing is answered or announced before the
 * commit. On PostgreSQL (the --pg suite) the same requests run in transactions of their own and
 * must give the same answers.
 */
import { test, before, after, describe } from "node:test";
import assert from "node:assert/strict";
import { sql } from "kysely";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { Api } from "../helpers/client.js";
import { createTestRealm, type TestRealm } from "../helpers/realm.js";
import { makeChannel, ok, type MadeChannel } from "../helpers/channels.js";
import { runAction } from "../../src/actions/run.js";
import { findChannel } from "../../src/actions/streams.js";

let srv: TestServer;
let t: TestRealm;
let channel: MadeChannel;

before(async () => {
  srv = await startTestServer();
  t = await createTestRealm(srv.app);
  channel = await makeChannel(srv, t, { subscribers: [t.member] });
});
after(() => srv.close());

describe("requests that arrive together", () => {
  test("concurrent sends are each answered with their own message; refused ones among them change nothing", async () => {
    const member = new Api(srv.url, t.member);
    const queue = await ok(member.post("/register", { event_types: JSON.stringify(["message"]) }));
    const owner = new Api(srv.url, t.owner);
    const sends = Array.from({ length: 24 }, (_, i) =>
      i % 3 === 2
        ? owner.post("/messages", { type: "stream", to: "no such channel", topic: "batch", content: `refused ${i}` })
        : owner.post("/messages", { type: "stream", to: channel.name, topic: "batch", content: `sent ${i}` }),
    );
    const answers = await Promise.all(sends);

    const sent = new Map<number, string>();
    answers.forEach((a, i) => {
      if (i % 3 === 2) {
        assert.equal(a.status, 400);
        assert.equal(a.body.msg, "Channel 'no such channel' does not exist");
      } else {
        assert.equal(a.status, 200, JSON.stringify(a.body));
        sent.set(a.body.id, `sent ${i}`);
      }
    });
    assert.equal(sent.size, 16, "every send has an id of its own");

    const stored = await ok(member.get("/messages", { anchor: "newest", num_before: 100, num_after: 0, narrow: JSON.stringify([{ operator: "topic", operand: "batch" }]), apply_markdown: "false" }));
    assert.deepEqual(new Map(stored.messages.map((m: any) => [m.id, m.content])), sent);

    const polled = await ok(member.get("/events", { queue_id: queue.queue_id, last_event_id: -1, dont_block: "true" }));
    const events = polled.events.filter((e: any) => e.type === "message");
    assert.deepEqual(new Map(events.map((e: any) => [e.message.id, e.message.content])), sent);
  });
});

describe("actions run by the server", () => {
  const realmName = async () => (await srv.app.db.selectFrom("realms").select("name").where("id", "=", t.realm.id).executeTakeFirstOrThrow()).name;
  const rename = (name: string) => sql`UPDATE realms SET name = ${name} WHERE id = ${t.realm.id}`;

  test("those that fail after writing are undone alone; the others commit and run their after-commit work", async () => {
    const committed: string[] = [];
    const first = runAction(srv.app, async (tx, events) => {
      await rename("first").execute(tx);
      events.afterCommit(() => committed.push("first"));
      return "first";
    });
    const failing = runAction(srv.app, async (tx, events) => {
      await rename("failing").execute(tx);
      events.afterCommit(() => committed.push("failing"));
      throw new Error("refused after writing");
    });
    const third = runAction(srv.app, async (tx, events) => {
      events.afterCommit(() => committed.push("third"));
      return (await sql<{ name: string }>`SELECT name FROM realms WHERE id = ${t.realm.id}`.execute(tx)).rows[0]!.name;
    });
    // A second failure among the others, which run again after the first failure, is undone alone too.
    const failingToo = runAction(srv.app, async (tx, events) => {
      await rename("failing too").execute(tx);
      events.afterCommit(() => committed.push("failing too"));
      throw new Error("refused too");
    });
    const [a, b, c, d] = await Promise.allSettled([first, failing, third, failingToo]);
    assert.deepEqual(a, { status: "fulfilled", value: "first" });
    assert.equal(b.status, "rejected");
    assert.equal((b as PromiseRejectedResult).reason.message, "refused after writing");
    assert.equal(d.status, "rejected");
    assert.equal((d as PromiseRejectedResult).reason.message, "refused too");
    // In SQLite's shared transaction it reads what the earlier ones left; on PostgreSQL, what was committed.
    if (srv.app.dialect === "sqlite") assert.deepEqual(c, { status: "fulfilled", value: "first" });
    else assert.equal(c.status, "fulfilled");
    assert.deepEqual(committed.sort(), ["first", "third"]);
    assert.equal(await realmName(), "first");
  });

  test("one finds a channel by the name an earlier one of the batch gave it, not by the cached one", async (ctx) => {
    if (srv.app.dialect !== "sqlite") return ctx.skip("on PostgreSQL each action has a transaction of its own");
    assert.equal((await findChannel(srv.app, srv.app.db, t.realm.id, channel.name))?.id, channel.id);
    const renamed = `${channel.name} renamed`;
    const setName = (name: string) => (tx: Parameters<Parameters<typeof runAction>[1]>[0]) =>
      tx.updateTable("streams").set({ name }).where("id", "=", channel.id).execute();
    const renaming = runAction(srv.app, setName(renamed));
    const finding = runAction(srv.app, async (tx) => [
      (await findChannel(srv.app, tx, t.realm.id, renamed.toUpperCase()))?.id,
      (await findChannel(srv.app, tx, t.realm.id, channel.name))?.id,
    ]);
    const [, found] = await Promise.all([renaming, finding]);
    assert.deepEqual(found, [channel.id, undefined]);
    await runAction(srv.app, setName(channel.name));
  });

  test("one that makes SQLite roll the whole transaction back fails alone; the others are run again and commit", async (ctx) => {
    if (srv.app.dialect !== "sqlite") return ctx.skip("SQLite's conflict clause");
    const before = await realmName();
    const kept = runAction(srv.app, async (tx) => {
      await rename("kept").execute(tx);
      return "kept";
    });
    // A primary key conflict with OR ROLLBACK ends the transaction the batch shares.
    const breaking = runAction(srv.app, async (tx) => {
      await sql`INSERT OR ROLLBACK INTO realms (id, string_id, name, description, date_created, props, group_settings)
                SELECT id, string_id, name, description, date_created, props, group_settings FROM realms WHERE id = ${t.realm.id}`.execute(tx);
    });
    const after = runAction(srv.app, async (tx) => (await sql<{ name: string }>`SELECT name FROM realms WHERE id = ${t.realm.id}`.execute(tx)).rows[0]!.name);
    const [a, b, c] = await Promise.allSettled([kept, breaking, after]);
    assert.notEqual(before, "kept");
    assert.deepEqual(a, { status: "fulfilled", value: "kept" });
    assert.equal(b.status, "rejected");
    assert.match((b as PromiseRejectedResult).reason.message, /UNIQUE constraint failed/);
    assert.equal(c.status, "fulfilled");
    assert.equal(await realmName(), "kept");
  });
});

/**
 * A channel with more subscribers than one statement may bind as values: each message to it
 * has a copy per subscriber, 3 values a copy (SQLite binds at most 32,766 values, PostgreSQL
 * 65,535). The crowd is written straight into the database; the message goes through HTTP.
 */
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { sql } from "kysely";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { Api } from "../helpers/client.js";
import { createTestRealm, type TestRealm } from "../helpers/realm.js";
import { makeChannel, ok } from "../helpers/channels.js";

const CROWD = 22_000;

let srv: TestServer;
let t: TestRealm;

before(async () => {
  srv = await startTestServer();
  t = await createTestRealm(srv.app);
});
after(() => srv.close());

test(`a message to a channel of ${CROWD.toLocaleString("en")} subscribers reaches every one of them`, async () => {
  const channel = await makeChannel(srv, t, { subscribers: [t.member] });
  const db = srv.app.db;
  await sql`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${CROWD})
            INSERT INTO users (realm_id, email, delivery_email, full_name, role, api_key, date_joined)
            SELECT ${t.realm.id}, 'crowd' || i || '@zulip.example.com', 'crowd' || i || '@zulip.example.com', 'Crowd ' || i, 400, 'crowd-key-' || i, 0 FROM n`.execute(db);
  await sql`INSERT INTO subscriptions (user_id, stream_id, color)
            SELECT id, ${channel.id}, '#c2c2c2' FROM users WHERE realm_id = ${t.realm.id} AND api_key LIKE 'crowd-key-%'`.execute(db);

  const sent = await ok(new Api(srv.url, t.owner).post("/messages", { type: "stream", to: channel.name, topic: "everyone", content: "Hello, crowd" }));
  const copies = await db.selectFrom("user_messages").select((eb) => eb.fn.countAll<number>().as("n")).where("message_id", "=", sent.id).executeTakeFirstOrThrow();
  assert.equal(Number(copies.n), CROWD + 2);

  const seen = await ok(new Api(srv.url, t.member).get(`/messages/${sent.id}`));
  assert.equal(seen.message.content, "<p>Hello, crowd</p>");
  assert.deepEqual(seen.message.flags, []);
});

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { Api } from "../helpers/client.js";
import { createTestRealm, type TestRealm, type TestUser } from "../helpers/realm.js";
import { makeChannel, ok, type MadeChannel } from "../helpers/channels.js";

// GET /messages keeps the messages it reads (src/store/message_cache.ts) and uses them while the
// message's version is the one kept. Each change below is made after the message was read once,
// and must show on the next read.

let srv: TestServer;
let t: TestRealm;
let channel: MadeChannel;
let elsewhere: MadeChannel;
const api = (u: TestUser) => new Api(srv.url, u);

before(async () => {
  srv = await startTestServer();
  t = await createTestRealm(srv.app);
  channel = await makeChannel(srv, t, { subscribers: [t.member, t.member2] });
  elsewhere = await makeChannel(srv, t, { subscribers: [t.member, t.member2] });
});
after(() => srv.close());

const SMILE = { emoji_name: "smile", emoji_code: "1f604", reaction_type: "unicode_emoji" };

async function send(content: string): Promise<number> {
  return (await ok(api(t.member).post("/messages", { type: "stream", to: channel.id, topic: "kept", content }))).id as number;
}

/** The message as t.member2 reads it by id, and as the newest page of the channel shows it. */
async function read(id: number): Promise<Record<string, any> | undefined> {
  const byId = await ok(api(t.member2).get("/messages", { message_ids: JSON.stringify([id]) }));
  const page = await ok(api(t.member2).get("/messages", { anchor: "newest", num_before: 20, num_after: 0 }));
  const inPage = (page.messages as Record<string, any>[]).find((m) => m.id === id);
  assert.deepEqual(inPage, byId.messages[0]);
  return byId.messages[0];
}

test("an edit, a move, reactions and a deletion show on the next read of a message already read", async () => {
  const id = await send("first words");
  assert.equal((await read(id))!.content, "<p>first words</p>");
  assert.equal((await read(id))!.content, "<p>first words</p>");

  await ok(api(t.member).patch(`/messages/${id}`, { content: "second words" }));
  let m = (await read(id))!;
  assert.equal(m.content, "<p>second words</p>");
  assert.equal(typeof m.last_edit_timestamp, "number");

  await ok(api(t.member).patch(`/messages/${id}`, { topic: "moved", propagate_mode: "change_one" }));
  assert.equal((await read(id))!.subject, "moved");
  await ok(api(t.owner).patch(`/messages/${id}`, { stream_id: elsewhere.id, propagate_mode: "change_one" }));
  m = (await read(id))!;
  assert.equal(m.stream_id, elsewhere.id);
  assert.equal(m.display_recipient, elsewhere.name);

  await ok(api(t.member2).post(`/messages/${id}/reactions`, SMILE));
  assert.deepEqual(
    (await read(id))!.reactions.map((r: Record<string, unknown>) => [r.emoji_name, r.user_id]),
    [["smile", t.member2.id]],
  );
  await ok(api(t.member).post(`/messages/${id}/reactions`, SMILE));
  assert.equal((await read(id))!.reactions.length, 2);
  await ok(api(t.member2).delete(`/messages/${id}/reactions`, SMILE));
  assert.deepEqual(
    (await read(id))!.reactions.map((r: Record<string, unknown>) => r.user_id),
    [t.member.id],
  );

  await ok(api(t.owner).delete(`/messages/${id}`));
  assert.equal((await read(id)), undefined);
});

test("a write from outside the server's actions (another process, a repair by hand) shows too", async () => {
  const id = await send("as sent");
  assert.equal((await read(id))!.content, "<p>as sent</p>");
  await srv.app.db.updateTable("messages").set({ rendered_content: "<p>repaired</p>" }).where("id", "=", id).execute();
  assert.equal((await read(id))!.content, "<p>repaired</p>");
  await srv.app.db
    .insertInto("reactions")
    .values({ message_id: id, user_id: t.owner.id, ...SMILE })
    .execute();
  assert.deepEqual(
    (await read(id))!.reactions.map((r: Record<string, unknown>) => r.user_id),
    [t.owner.id],
  );
  await srv.app.db.updateTable("reactions").set({ emoji_name: "smiley", emoji_code: "1f603" }).where("message_id", "=", id).execute();
  assert.equal((await read(id))!.reactions[0].emoji_name, "smiley");
  await srv.app.db.deleteFrom("reactions").where("message_id", "=", id).execute();
  assert.deepEqual((await read(id))!.reactions, []);
});

test("a message's version moves on with each change and nothing else", async () => {
  const id = await send("counted");
  const version = async () =>
    (await srv.app.db.selectFrom("messages").select("version").where("id", "=", id).executeTakeFirstOrThrow()).version;
  assert.equal(await version(), 0);
  await read(id);
  await ok(api(t.member2).post("/messages/flags", { messages: JSON.stringify([id]), op: "add", flag: "starred" }));
  assert.equal(await version(), 0, "a user's flags are not the message's");
  await ok(api(t.member).patch(`/messages/${id}`, { content: "counted twice" }));
  assert.equal(await version(), 1);
  await ok(api(t.member2).post(`/messages/${id}/reactions`, SMILE));
  assert.equal(await version(), 2);
  assert.deepEqual((await read(id))!.flags, ["starred"]);
});

test("a sender's name and address, a channel's name, linkifiers and the reader's own fields show on the next read", async () => {
  const id = await send("context words");
  const first = (await read(id))!;
  assert.deepEqual(await read(id), first);

  await ok(api(t.owner).patch(`/users/${t.member.id}`, { full_name: "Renamed Sender" }));
  assert.equal((await read(id))!.sender_full_name, "Renamed Sender");

  await ok(api(t.member).patch("/settings", { email_address_visibility: 1 }));
  let m = (await read(id))!;
  assert.equal(m.sender_email, t.member.email);
  assert.equal(m.avatar_url, null, "a public address leaves the gravatar to the client");
  await ok(api(t.member).patch("/settings", { email_address_visibility: 4 }));
  m = (await read(id))!;
  assert.notEqual(m.sender_email, t.member.email);
  assert.match(m.avatar_url, /gravatar/);

  await ok(api(t.owner).patch(`/streams/${channel.id}`, { new_name: "renamed channel" }));
  assert.equal((await read(id))!.display_recipient, "renamed channel");

  assert.deepEqual((await read(id))!.topic_links, []);
  await ok(api(t.owner).post("/realm/filters", { pattern: "kept", url_template: "https://example.com/kept" }));
  assert.deepEqual((await read(id))!.topic_links, [{ text: "kept", url: "https://example.com/kept" }]);

  await ok(api(t.member2).post("/messages/flags", { messages: JSON.stringify([id]), op: "add", flag: "starred" }));
  assert.deepEqual((await read(id))!.flags, ["starred"]);
});

test("each form of the answer is its own, and search matches follow the reader's flags", async () => {
  const id = await send("**formed** words");
  const get = async (params: Record<string, string>) =>
    (await ok(api(t.member2).get("/messages", { message_ids: JSON.stringify([id]), ...params }))).messages[0];
  for (let round = 0; round < 2; round++) {
    assert.equal((await get({})).content, "<p><strong>formed</strong> words</p>");
    assert.equal((await get({ apply_markdown: "false" })).content, "**formed** words");
    assert.equal((await get({ apply_markdown: "false" })).content_type, "text/x-markdown");
    assert.match((await get({ client_gravatar: "false" })).avatar_url, /gravatar/);
  }
  const found = await ok(
    api(t.member2).get("/messages", { anchor: "newest", num_before: 5, num_after: 0, narrow: JSON.stringify([{ operator: "search", operand: "formed" }]) }),
  );
  const m = found.messages.find((x: Record<string, unknown>) => x.id === id);
  assert.deepEqual(m.flags, []);
  assert.equal(m.match_content, '<p><strong><span class="highlight">formed</span></strong> words</p>');
  assert.deepEqual(Object.keys(m).slice(-3), ["flags", "match_content", "match_subject"]);
  assert.deepEqual(m, { ...(await get({})), match_content: m.match_content, match_subject: m.match_subject });
});

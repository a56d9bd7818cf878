import { test, before, after, describe } from "node:test";
import assert from "node:assert/strict";
import { startTestServer, ManualClock, type TestServer } from "../helpers/server.js";
import { Api } from "../helpers/client.js";
import { createTestRealm, type TestRealm, type TestUser } from "../helpers/realm.js";
import { makeChannel, ok, refused, setRealmProps, type MadeChannel } from "../helpers/channels.js";

let srv: TestServer;
let clock: ManualClock;
let t: TestRealm;
let o: TestRealm;
const api = (u: TestUser) => new Api(srv.url, u);
const T0 = 1_700_000_000;

before(async () => {
  clock = new ManualClock(T0);
  srv = await startTestServer({}, { clock });
  t = await createTestRealm(srv.app);
  o = await createTestRealm(srv.app, "other");
});
after(() => srv.close());

const history = (u: TestUser, id: number, params: Record<string, unknown> = {}) => api(u).get(`/messages/${id}/history`, params as never);

async function send(u: TestUser, c: MadeChannel, topic: string, content: string): Promise<number> {
  return (await ok(api(u).post("/messages", { type: "stream", to: c.id, topic, content }))).id;
}

describe("GET /messages/{id}/history", () => {
  test("the original and every edit, oldest first, with what each changed", async () => {
    const c = await makeChannel(srv, t, { subscribers: [t.member, t.moderator, t.guest, t.bot] });
    const other = await makeChannel(srv, t, { subscribers: [t.member, t.moderator, t.guest, t.bot] });
    clock.current = T0;
    const id = await send(t.member, c, "", "hello old world");
    clock.current = T0 + 10;
    await ok(api(t.member).patch(`/messages/${id}`, { content: "hello new world" }));
    clock.current = T0 + 20;
    await ok(api(t.moderator).patch(`/messages/${id}`, { topic: "plans" }));
    clock.current = T0 + 30;
    await ok(api(t.admin).patch(`/messages/${id}`, { stream_id: other.id }));

    const r = await history(t.guest, id);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const v1 = { content: "hello old world", rendered_content: "<p>hello old world</p>" };
    const v2 = { content: "hello new world", rendered_content: "<p>hello new world</p>" };
    assert.deepEqual(r.body, {
      result: "success",
      msg: "",
      message_history: [
        { ...v1, timestamp: T0, topic: "general chat", user_id: t.member.id },
        {
          ...v2,
          timestamp: T0 + 10,
          topic: "general chat",
          user_id: t.member.id,
          prev_content: v1.content,
          prev_rendered_content: v1.rendered_content,
          content_html_diff: '<p>hello <span class="highlight_text_deleted">old</span><span class="highlight_text_inserted">new</span> world</p>',
        },
        { ...v2, timestamp: T0 + 20, topic: "plans", prev_topic: "general chat", user_id: t.moderator.id },
        { ...v2, timestamp: T0 + 30, topic: "plans", user_id: t.admin.id, prev_stream: c.id, stream: other.id },
      ],
    });
    const raw = (await ok(history(t.bot, id, { allow_empty_topic_name: true }))).message_history;
    assert.deepEqual(raw.map((e: { topic: string }) => e.topic), ["", "", "plans", "plans"]);
    assert.equal(raw[2].prev_topic, "");
  });

  test("a message never edited has only its original; direct messages have no topic", async () => {
    clock.current = T0 + 100;
    const id = (await ok(api(t.member).post("/messages", { type: "private", to: [t.member2.id], content: "psst" }))).id;
    assert.deepEqual((await ok(history(t.member2, id))).message_history, [
      { content: "psst", rendered_content: "<p>psst</p>", timestamp: T0 + 100, topic: "", user_id: t.member.id },
    ]);
  });

  test("only users who can read the message may see its history", async () => {
    const c = await makeChannel(srv, t, { private: true, subscribers: [t.member] });
    const id = await send(t.member, c, "secret", "hidden");
    const dm = (await ok(api(t.member).post("/messages", { type: "private", to: [t.member2.id], content: "between us" }))).id;
    for (const u of [t.admin, t.moderator, t.guest, t.bot, o.owner]) {
      await refused(srv, () => history(u, id), "Invalid message(s)");
      await refused(srv, () => history(u, dm), "Invalid message(s)");
    }
    await refused(srv, () => history(t.member, 2147483648), "Invalid message(s)");
    await ok(history(t.owner, id));
  });

  test("the organization's history policy: none refuses, moves_only hides content edits", async () => {
    const c = await makeChannel(srv, t, { subscribers: [t.member] });
    clock.current = T0 + 200;
    const id = await send(t.member, c, "a", "first");
    clock.current = T0 + 210;
    await ok(api(t.member).patch(`/messages/${id}`, { content: "second" }));
    clock.current = T0 + 220;
    await ok(api(t.member).patch(`/messages/${id}`, { topic: "b" }));
    try {
      await setRealmProps(srv.app, t.realm.id, { message_edit_history_visibility_policy: "moves_only" });
      assert.deepEqual((await ok(history(t.member, id))).message_history, [
        { content: "first", rendered_content: "<p>first</p>", timestamp: T0 + 200, topic: "a", user_id: t.member.id },
        { content: "second", rendered_content: "<p>second</p>", timestamp: T0 + 220, topic: "b", prev_topic: "a", user_id: t.member.id },
      ]);
      await setRealmProps(srv.app, t.realm.id, { message_edit_history_visibility_policy: "none" });
      for (const u of [t.owner, t.member]) await refused(srv, () => history(u, id), "Message edit history is disabled in this organization");
    } finally {
      await setRealmProps(srv.app, t.realm.id, { message_edit_history_visibility_policy: "all" });
    }
  });
});

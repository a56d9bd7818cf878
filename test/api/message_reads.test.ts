/** GET /messages/{id}/read_receipts and GET /messages/matches_narrow. */
import { test, before, after, describe } from "node:test";
import assert from "node:assert/strict";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { Api } from "../helpers/client.js";
import { createTestRealm, type TestRealm, type TestUser } from "../helpers/realm.js";
import { makeChannel, ok, setRealmProps, type MadeChannel } from "../helpers/channels.js";
import { expectError } from "../helpers/expect.js";
import { setUserProp as setStoredUserProp } from "../../src/store/users.js";

let srv: TestServer;
let t: TestRealm;
let o: TestRealm;
let api: (u: TestUser) => Api;
let pub: MadeChannel;

before(async () => {
  srv = await startTestServer();
  t = await createTestRealm(srv.app);
  o = await createTestRealm(srv.app, "other");
  api = (u) => new Api(srv.url, u);
  pub = await makeChannel(srv, t, { subscribers: [t.admin, t.moderator, t.member, t.member2, t.guest, t.bot] });
  await setRealmProps(srv.app, t.realm.id, { enable_read_receipts: true });
});
after(() => srv.close());

async function send(from: TestUser, to: MadeChannel | TestUser[], content = "hello", topic = "reads"): Promise<number> {
  const params = Array.isArray(to) ? { type: "direct", to: to.map((u) => u.id), content } : { type: "stream", to: to.id, topic, content };
  return (await ok(api(from).post("/messages", { ...params, read_by_sender: true }))).id;
}

const markRead = (u: TestUser, id: number) => ok(api(u).post("/messages/flags", { op: "add", flag: "read", messages: [id] }));

const setUserProp = (u: TestUser, key: string, value: unknown) => setStoredUserProp(srv.app.db, u.id, key, value);

const receipts = (u: TestUser, id: number | string) => api(u).get(`/messages/${id}/read_receipts`);

describe("GET /messages/{id}/read_receipts", () => {
  test("lists readers, the requester and bots included, never the sender", async () => {
    const id = await send(t.member, pub);
    for (const u of [t.member2, t.bot, t.admin]) await markRead(u, id);
    const r = await ok(receipts(t.admin, id));
    assert.deepEqual(r, { result: "success", msg: "", user_ids: [t.admin.id, t.member2.id, t.bot.id].sort((a, b) => a - b) });
    // The sender, who read it on sending, is left out even when asking.
    assert.deepEqual((await ok(receipts(t.member, id))).user_ids, r.user_ids);
  });

  test("leaves out users who do not share receipts and deactivated users; unread again means not read", async () => {
    const id = await send(t.member, pub);
    for (const u of [t.member2, t.moderator, t.guest]) await markRead(u, id);
    await setUserProp(t.moderator, "send_read_receipts", false);
    await ok(api(t.owner).delete(`/users/${t.guest.id}`));
    await ok(api(t.member2).post("/messages/flags", { op: "remove", flag: "read", messages: [id] }));
    try {
      assert.deepEqual((await ok(receipts(t.member, id))).user_ids, []);
      await markRead(t.member2, id);
      assert.deepEqual((await ok(receipts(t.member, id))).user_ids, [t.member2.id]);
    } finally {
      await setUserProp(t.moderator, "send_read_receipts", true);
      await ok(api(t.owner).post(`/users/${t.guest.id}/reactivate`));
    }
  });

  test("hides whom the requester muted and who muted the requester", async () => {
    const id = await send(t.owner, pub);
    for (const u of [t.admin, t.member, t.member2]) await markRead(u, id);
    // admin mutes member; member mutes member2.
    await ok(api(t.admin).post(`/users/me/muted_users/${t.member.id}`));
    await ok(api(t.member).post(`/users/me/muted_users/${t.member2.id}`));
    try {
      const seen = async (u: TestUser) => (await ok(receipts(u, id))).user_ids as number[];
      const sorted = (...us: TestUser[]) => us.map((u) => u.id).sort((a, b) => a - b);
      assert.deepEqual(await seen(t.owner), sorted(t.admin, t.member, t.member2));
      assert.deepEqual(await seen(t.admin), sorted(t.admin, t.member2));
      assert.deepEqual(await seen(t.member2), sorted(t.admin, t.member2));
      assert.deepEqual(await seen(t.member), sorted(t.member));
    } finally {
      await ok(api(t.admin).delete(`/users/me/muted_users/${t.member.id}`));
      await ok(api(t.member).delete(`/users/me/muted_users/${t.member2.id}`));
    }
  });

  test("needs access to the message, then the organization setting", async () => {
    const dm = await send(t.member, [t.member2]);
    const secret = await makeChannel(srv, t, { private: true });
    const hidden = await send(t.owner, secret);
    for (const [u, id] of [[t.admin, dm], [t.member, hidden], [o.owner, dm], [t.member, 999999999], [t.member, 2 ** 40]] as const) {
      expectError(await receipts(u, id), "Invalid message(s)");
    }
    // History of a public channel is readable without a copy of one's own.
    const old = await send(t.owner, await makeChannel(srv, t));
    assert.deepEqual((await ok(receipts(t.member, old))).user_ids, []);
    await setRealmProps(srv.app, t.realm.id, { enable_read_receipts: false });
    try {
      expectError(await receipts(t.member2, dm), "Read receipts are disabled in this organization.");
      expectError(await receipts(t.admin, dm), "Invalid message(s)");
    } finally {
      await setRealmProps(srv.app, t.realm.id, { enable_read_receipts: true });
    }
  });
});

describe("GET /messages/matches_narrow", () => {
  test("returns the matching messages the user received, with search words highlighted", async () => {
    const lunch = await send(t.member2, pub, "Lunch is **ready**", "Lunch plans");
    const other = await send(t.member2, pub, "nothing here", "misc");
    const r = await ok(api(t.member).get("/messages/matches_narrow", { msg_ids: [lunch, other], narrow: [{ operator: "search", operand: "lunch" }] }));
    assert.deepEqual(r, {
      result: "success",
      msg: "",
      messages: {
        [lunch]: {
          match_content: '<p><span class="highlight">Lunch</span> is <strong>ready</strong></p>',
          match_subject: '<span class="highlight">Lunch</span> plans',
        },
      },
    });
  });

  test("GET /messages highlights search results the same way", async () => {
    const id = await send(t.member2, pub, "Soup for lunch", "menu");
    const r = await ok(api(t.member).get("/messages", { anchor: id, num_before: 0, num_after: 0, narrow: [{ operator: "search", operand: "soup" }] }));
    assert.deepEqual([r.messages[0].match_content, r.messages[0].match_subject], ['<p><span class="highlight">Soup</span> for lunch</p>', "menu"]);
    const plain = await ok(api(t.member).get("/messages", { anchor: id, num_before: 0, num_after: 0 }));
    assert.equal("match_content" in plain.messages[0], false);
  });

  test("without a search, the content and escaped topic as they are", async () => {
    const id = await send(t.member2, pub, "plain", "a<b");
    const r = await ok(api(t.member).get("/messages/matches_narrow", { msg_ids: [id], narrow: [{ operator: "channel", operand: pub.id }] }));
    assert.deepEqual(r.messages, { [id]: { match_content: "<p>plain</p>", match_subject: "a&lt;b" } });
    const none = await ok(api(t.member).get("/messages/matches_narrow", { msg_ids: [id], narrow: [{ operator: "is", operand: "starred" }] }));
    assert.deepEqual(none.messages, {});
  });

  test("only messages the user received count", async () => {
    const lonely = await makeChannel(srv, t);
    const old = await send(t.owner, lonely, "history");
    const dm = await send(t.owner, [t.member2], "private");
    for (const u of [t.member, o.member]) {
      const r = await ok(api(u).get("/messages/matches_narrow", { msg_ids: [old, dm, 2 ** 40], narrow: [] }));
      assert.deepEqual(r.messages, {});
    }
    assert.deepEqual(Object.keys((await ok(api(t.member2).get("/messages/matches_narrow", { msg_ids: [dm], narrow: [] }))).messages), [String(dm)]);
  });

  test("bad parameters are refused", async () => {
    const bad = async (params: Record<string, unknown>, msg: string, code = "BAD_REQUEST") =>
      expectError(await api(t.member).get("/messages/matches_narrow", params as never), msg, code);
    await bad({ narrow: [] }, "Missing 'msg_ids' argument", "REQUEST_VARIABLE_MISSING");
    await bad({ msg_ids: [1] }, "Missing 'narrow' argument", "REQUEST_VARIABLE_MISSING");
    await bad({ msg_ids: [1], narrow: [{ operator: "bogus", operand: "x" }] }, "Invalid narrow operator: unknown operator bogus", "BAD_NARROW");
    await bad({ msg_ids: ["x"], narrow: [] }, "msg_ids[0] is not an integer");
  });
});

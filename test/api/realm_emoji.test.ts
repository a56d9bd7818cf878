import { test, before, after, beforeEach, describe } from "node:test";
import assert from "node:assert/strict";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { Api, basicAuth, type ApiResponse } from "../helpers/client.js";
import { createTestRealm, type TestRealm, type TestUser } from "../helpers/realm.js";
import { EventLog } from "../helpers/events.js";
import { setRealmGroupSetting } from "../helpers/channels.js";
import { multipart, type Part } from "../helpers/multipart.js";

const MAX_EMOJI_MIB = 0.01;
const PNG = Buffer.concat([Buffer.from("89504e470d0a1a0a0000000d49484452", "hex"), Buffer.alloc(32, 7)]);
const GIF = Buffer.concat([Buffer.from("GIF89a"), Buffer.alloc(32, 1)]);

let srv: TestServer;
let t: TestRealm;
let o: TestRealm;

const api = (u: TestUser) => new Api(srv.url, u);

async function addEmoji(u: TestUser, name: string, parts: Part[] = [{ fileName: "e.png", data: PNG, type: "image/png" }]): Promise<ApiResponse> {
  const { body, type } = multipart(parts.map((p, i) => ({ name: `f${i}`, ...p })));
  const res = await fetch(`${srv.url}/api/v1/realm/emoji/${encodeURIComponent(name)}`, {
    method: "POST",
    headers: { authorization: basicAuth(u), "content-type": type },
    body,
  });
  return { status: res.status, headers: res.headers, body: await res.json() };
}

async function added(u: TestUser, name: string, parts?: Part[]): Promise<Record<string, any>> {
  const r = await addEmoji(u, name, parts);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const emoji = (await api(u).get("/realm/emoji")).body.emoji as Record<string, any>;
  return Object.values(emoji).find((e) => e.name === name && !e.deactivated);
}

function assertError(r: ApiResponse, msg: string, status = 400, code = "BAD_REQUEST") {
  assert.equal(r.status, status, JSON.stringify(r.body));
  assert.deepEqual(r.body, { result: "error", msg, code });
}

const emojiRows = () => srv.app.db.selectFrom("realm_emoji").selectAll().orderBy("id").execute();

before(async () => {
  srv = await startTestServer({ maxEmojiFileSizeMib: MAX_EMOJI_MIB });
  t = await createTestRealm(srv.app);
  o = await createTestRealm(srv.app, "other");
});
after(() => srv.close());
beforeEach(async () => {
  await srv.app.db.deleteFrom("realm_emoji").execute();
  await setRealmGroupSetting(srv.app, t.realm.id, "can_add_custom_emoji_group", "role:members");
});

describe("POST /realm/emoji/{emoji_name}", () => {
  test("members, moderators, administrators, owners and bots may add; everyone in the organization is told", async () => {
    for (const [i, u] of [t.owner, t.admin, t.moderator, t.member, t.bot].entries()) {
      const log = new EventLog(srv);
      const name = `party_${i}`;
      const emoji = await added(u, name);
      assert.match(emoji.source_url, new RegExp(`^/user_avatars/${t.realm.id}/emoji/images/[0-9a-f]{8}\\.png$`));
      assert.deepEqual(emoji, { id: emoji.id, name, source_url: emoji.source_url, still_url: null, deactivated: false, author_id: u.id });
      const notices = log.stop();
      assert.equal(notices.length, 1);
      assert.equal(notices[0].event.type, "realm_emoji");
      assert.equal(notices[0].event.op, "update");
      assert.deepEqual(notices[0].event.realm_emoji, (await api(t.member).get("/realm/emoji")).body.emoji);
      assert.deepEqual(notices[0].userIds, [t.owner, t.admin, t.moderator, t.member, t.member2, t.guest, t.bot].map((x) => x.id).sort((a, b) => a - b));
      const image = await fetch(srv.url + emoji.source_url);
      assert.equal(image.status, 200);
      assert.equal(image.headers.get("content-type"), "image/png");
      assert.deepEqual(Buffer.from(await image.arrayBuffer()), PNG);
    }
  });

  test("guests may not; the setting decides for everyone else", async () => {
    assertError(await addEmoji(t.guest, "guest_emoji"), "Insufficient permission");
    await setRealmGroupSetting(srv.app, t.realm.id, "can_add_custom_emoji_group", "role:administrators");
    for (const u of [t.moderator, t.member, t.bot, t.guest]) assertError(await addEmoji(u, "nope"), "Insufficient permission");
    await added(t.admin, "admin_only");
    assert.deepEqual((await emojiRows()).map((r) => r.name), ["admin_only"]);
  });

  test("names follow Zulip's rules; spaces read as underscores", async () => {
    const cases: [string, string][] = [
      ["Upper", "Emoji names must contain only lowercase English letters, digits, spaces, dashes, and underscores."],
      ["smile!", "Emoji names must contain only lowercase English letters, digits, spaces, dashes, and underscores."],
      ["ends_", "Emoji names must end with either a letter or digit."],
      ["ends-", "Emoji names must end with either a letter or digit."],
      ["   ", "Emoji name is missing"],
    ];
    for (const [name, msg] of cases) assertError(await addEmoji(t.member, name), msg);
    assert.equal((await addEmoji(t.member, " big party ")).status, 200);
    assert.deepEqual((await emojiRows()).map((r) => r.name), ["big_party"]);
    assertError(await addEmoji(t.admin, "big party"), "A custom emoji with this name already exists.");
    assert.equal((await emojiRows()).length, 1);
  });

  test("only administrators may override a built-in emoji", async () => {
    for (const u of [t.moderator, t.member]) assertError(await addEmoji(u, "smile"), "Only administrators can override built-in emoji.");
    await added(t.admin, "smile");
  });

  test("exactly one image within the size limit, checked by its content", async () => {
    assertError(await addEmoji(t.member, "nofile", []), "You must upload exactly one file.");
    assertError(
      await addEmoji(t.member, "twofiles", [
        { fileName: "a.png", data: PNG, type: "image/png" },
        { fileName: "b.png", data: PNG, type: "image/png" },
      ]),
      "You must upload exactly one file.",
    );
    assertError(await addEmoji(t.member, "textfile", [{ fileName: "a.txt", data: Buffer.from("hi"), type: "text/plain" }]), "Invalid image format", 400, "BAD_IMAGE");
    assertError(
      await addEmoji(t.member, "fakepng", [{ fileName: "a.png", data: Buffer.from("not really a png"), type: "image/png" }]),
      "Could not decode image; did you upload an image file?",
      400,
      "BAD_IMAGE",
    );
    const big = Buffer.concat([PNG, Buffer.alloc(Math.ceil(MAX_EMOJI_MIB * 1024 * 1024))]);
    assertError(
      await addEmoji(t.member, "bigone", [{ fileName: "big.png", data: big, type: "image/png" }]),
      `Uploaded file is larger than the allowed limit of ${MAX_EMOJI_MIB} MiB`,
    );
    assert.deepEqual(await emojiRows(), []);
    const gif = await added(t.member, "dance", [{ fileName: "dance.gif", data: GIF }]);
    assert.match(gif.source_url, /\.gif$/);
  });

  test("another organization's emoji are separate", async () => {
    await added(t.member, "shared_name");
    await added(o.member, "shared_name");
    const mine = Object.values((await api(t.member).get("/realm/emoji")).body.emoji) as Record<string, unknown>[];
    assert.deepEqual(mine.map((e) => e.author_id), [t.member.id]);
  });
});

describe("DELETE /realm/emoji/{emoji_name}", () => {
  test("the author or an administrator deactivates; others are refused", async () => {
    const emoji = await added(t.member, "mine");
    for (const u of [t.moderator, t.member2, t.guest, t.bot]) {
      assertError(await api(u).delete("/realm/emoji/mine"), "Must be an organization administrator or emoji author");
    }
    assertError(await api(o.owner).delete("/realm/emoji/mine"), "Emoji 'mine' does not exist", 404);
    const log = new EventLog(srv);
    assert.equal((await api(t.member).delete("/realm/emoji/mine")).status, 200);
    const after = (await api(t.member).get("/realm/emoji")).body.emoji;
    assert.deepEqual(after, { [emoji.id]: { ...emoji, deactivated: true } });
    assert.deepEqual(log.stop().map((n) => n.event), [{ type: "realm_emoji", op: "update", realm_emoji: after }]);
    assertError(await api(t.member).delete("/realm/emoji/mine"), "Emoji 'mine' does not exist", 404);

    await added(t.member2, "theirs");
    for (const u of [t.admin, t.owner]) {
      await added(t.member2, `for_${u.id}`);
      assert.equal((await api(u).delete(`/realm/emoji/for_${u.id}`)).status, 200);
    }
    // A deactivated name may be used again.
    await added(t.member, "mine");
  });
});

describe("register, events and rendering", () => {
  test("realm_emoji is in the initial state and its events reach every queue of the organization", async () => {
    const emoji = await added(t.member, "wave_hello");
    const r = await api(t.guest).post("/register", { fetch_event_types: ["realm_emoji"], event_types: ["realm_emoji"] });
    assert.deepEqual(r.body.realm_emoji, { [emoji.id]: emoji });
    const other = await api(o.member).post("/register", { event_types: ["realm_emoji"] });
    await added(t.admin, "second");
    const events = (await api(t.guest).get("/events", { queue_id: r.body.queue_id, last_event_id: -1, dont_block: true })).body.events;
    assert.equal(events.length, 1);
    assert.deepEqual(events[0].realm_emoji, (await api(t.member).get("/realm/emoji")).body.emoji);
    const none = (await api(o.member).get("/events", { queue_id: other.body.queue_id, last_event_id: -1, dont_block: true })).body.events;
    assert.deepEqual(none, []);
  });

  test("messages render active custom emoji as images; deactivated ones as text", async () => {
    const emoji = await added(t.member, "green_tick");
    const expected = `<p><img alt=":green_tick:" class="emoji" src="${emoji.source_url}" title="green tick"></p>`;
    const sent = await api(t.member).post("/messages", { type: "direct", to: JSON.stringify([t.member2.id]), content: ":green_tick:" });
    const fetched = await api(t.member).get("/messages", { anchor: sent.body.id, num_before: 0, num_after: 0 });
    assert.equal(fetched.body.messages[0].content, expected);
    assert.equal((await api(o.member).post("/messages/render", { content: ":green_tick:" })).body.rendered, "<p>:green_tick:</p>");
    await api(t.member).delete("/realm/emoji/green_tick");
    assert.equal((await api(t.member).post("/messages/render", { content: ":green_tick:" })).body.rendered, "<p>:green_tick:</p>");
  });
});

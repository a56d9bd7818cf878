import { test, before, after, describe } from "node:test";
import assert from "node:assert/strict";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { Api } from "../helpers/client.js";
import { createTestRealm, type TestRealm } from "../helpers/realm.js";
import type { Notice } from "../../src/events/bus.js";

let srv: TestServer;
let t: TestRealm;
let other: TestRealm;
let api: Api;
const published: Notice[] = [];

before(async () => {
  srv = await startTestServer({ externalUrl: "https://chat.example.com", camoUrl: "https://camo.example/", camoKey: "k" });
  t = await createTestRealm(srv.app);
  other = await createTestRealm(srv.app, "other");
  api = new Api(srv.url);
  srv.app.bus.subscribe((n) => published.push(n));
});
after(() => srv.close());

const render = (who: { email: string; apiKey: string }, content: string | undefined) =>
  api.as(who).post("/messages/render", content === undefined ? {} : { content });

const messageCount = async () => Number((await srv.app.db.selectFrom("messages").select((eb) => eb.fn.countAll().as("n")).executeTakeFirstOrThrow()).n);

describe("POST /messages/render", () => {
  test("every kind of user can render; nothing is stored and no event is sent", async () => {
    const before = await messageCount();
    published.length = 0;
    for (const who of [t.owner, t.admin, t.moderator, t.member, t.guest, t.bot, other.member]) {
      const r = await render(who, "**hi**");
      assert.equal(r.status, 200, who.email);
      assert.deepEqual(r.body, { result: "success", msg: "", rendered: "<p><strong>hi</strong></p>" });
    }
    assert.equal(await messageCount(), before);
    assert.equal(published.length, 0);
  });

  test("mentions resolve against the caller's organization only", async () => {
    const r = await render(t.member, `@**${t.admin.fullName}** @**${other.admin.fullName}|${other.admin.id}**`);
    assert.equal(
      r.body.rendered,
      `<p><span class="user-mention" data-user-id="${t.admin.id}">@${t.admin.fullName}</span> @<strong>${other.admin.fullName}|${other.admin.id}</strong></p>`,
    );
  });

  test("system groups and the default channel can be referenced", async () => {
    const channel = await srv.app.db
      .selectFrom("streams")
      .select(["id", "name"])
      .where("realm_id", "=", t.realm.id)
      .executeTakeFirstOrThrow();
    const group = await srv.app.db
      .selectFrom("user_groups")
      .select("id")
      .where("realm_id", "=", t.realm.id)
      .where("name", "=", "role:administrators")
      .executeTakeFirstOrThrow();
    const r = await render(t.member, `#**${channel.name}** @*role:administrators*`);
    assert.equal(
      r.body.rendered,
      `<p><a class="stream" data-stream-id="${channel.id}" href="/#narrow/channel/${channel.id}-${channel.name}">#${channel.name}</a> ` +
        `<span class="user-group-mention" data-user-group-id="${group.id}">@Administrators</span></p>`,
    );
  });

  test("links to this server become relative and external images go through camo", async () => {
    const r = await render(t.member, "https://chat.example.com/#narrow/channel/1-x\n\nhttps://img.example/a.png");
    assert.match(r.body.rendered, /^<p><a href="#narrow\/channel\/1-x">https:\/\/chat\.example\.com\/#narrow\/channel\/1-x<\/a><\/p>\n<div class="message_inline_image"><a href="https:\/\/img\.example\/a\.png"><img loading="lazy" src="https:\/\/camo\.example\/[0-9a-f]{40}\/[0-9a-f]+"><\/a><\/div>$/);
  });

  test("emoticons are translated only for users with translate_emoticons on", async () => {
    const row = await srv.app.db.selectFrom("users").select("props").where("id", "=", t.member2.id).executeTakeFirstOrThrow();
    await srv.app.db
      .updateTable("users")
      .set({ props: JSON.stringify({ ...JSON.parse(row.props), translate_emoticons: true }) })
      .where("id", "=", t.member2.id)
      .execute();
    assert.equal((await render(t.member, ":)")).body.rendered, "<p>:)</p>");
    assert.match((await render(t.member2, ":)")).body.rendered, /emoji-1f642/);
  });

  test("empty content renders to an empty string", async () => {
    const r = await render(t.member, "");
    assert.equal(r.status, 200);
    assert.equal(r.body.rendered, "");
  });

  test("content may be up to 10000 characters", async () => {
    assert.equal((await render(t.member, "x".repeat(10000))).status, 200);
    const r = await render(t.member, "x".repeat(10001));
    assert.equal(r.status, 400);
    assert.deepEqual(r.body, { result: "error", msg: "content is too long (limit: 10000 characters)", code: "BAD_REQUEST" });
  });

  test("content is required", async () => {
    const r = await render(t.member, undefined);
    assert.equal(r.status, 400);
    assert.deepEqual(r.body, {
      result: "error",
      msg: "Missing 'content' argument",
      code: "REQUEST_VARIABLE_MISSING",
      var_name: "content",
    });
  });

  test("authentication is required", async () => {
    const r = await api.post("/messages/render", { content: "x" });
    assert.equal(r.status, 401);
    assert.equal(r.body.code, "UNAUTHORIZED");
  });
});

describe("content that would render too deep or too large", () => {
  const tooDeep = "```quote\n".repeat(1111);
  const unable = { result: "error", msg: "Unable to render message", code: "BAD_REQUEST" };

  test("rendering refuses it with Zulip's error", async () => {
    const r = await render(t.member, tooDeep);
    assert.equal(r.status, 400);
    assert.deepEqual(r.body, unable);
  });

  test("sending refuses it too, and nothing is stored or announced", async () => {
    const before = await messageCount();
    published.length = 0;
    const r = await api.as(t.member).post("/messages", { type: "direct", to: JSON.stringify([t.member2.id]), content: tooDeep });
    assert.equal(r.status, 400);
    assert.deepEqual(r.body, unable);
    assert.equal(await messageCount(), before);
    assert.equal(published.length, 0);
  });

  test("a hundred nested quotes still render", async () => {
    const r = await render(t.member, "```quote\n".repeat(100) + "deep");
    assert.equal(r.status, 200);
    assert.ok(r.body.rendered.split("<blockquote>").length - 1 >= 99);
    assert.match(r.body.rendered, /deep/);
  });
});

describe("what rendering knows of the organization follows its changes", () => {
  test("a renamed person, a new channel and a new linkifier are rendered by the next message", async () => {
    const mention = async () => (await render(t.member, "@**Renamed Person** #**fresh-channel** FRESH-7")).body.rendered as string;
    const before = await mention();
    assert.doesNotMatch(before, /user-mention/);
    assert.doesNotMatch(before, /stream-topic|stream"/);

    const renamed = await api.as(t.admin).patch(`/users/${t.member2.id}`, { full_name: "Renamed Person" });
    assert.equal(renamed.status, 200);
    const created = await api.as(t.admin).post("/users/me/subscriptions", { subscriptions: JSON.stringify([{ name: "fresh-channel" }]) });
    assert.equal(created.status, 200);
    const linkifier = await api.as(t.admin).post("/realm/filters", { pattern: "FRESH-(?P<id>[0-9]+)", url_template: "https://tracker.example/{id}" });
    assert.equal(linkifier.status, 200);

    const after = await mention();
    assert.match(after, new RegExp(`data-user-id="${t.member2.id}"`));
    assert.match(after, /#fresh-channel/);
    assert.match(after, /https:\/\/tracker\.example\/7/);
  });
});

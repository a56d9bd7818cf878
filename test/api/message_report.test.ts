import { test, before, after, describe } from "node:test";
import assert from "node:assert/strict";
import { startTestServer, ManualClock, type TestServer } from "../helpers/server.js";
import { Api } from "../helpers/client.js";
import { createTestRealm, type TestRealm, type TestUser } from "../helpers/realm.js";
import { makeChannel, ok, refused, type MadeChannel } from "../helpers/channels.js";
import { getNotificationBot } from "../../src/store/users.js";

let srv: TestServer;
let t: TestRealm;
let o: TestRealm;
let mods: MadeChannel;
let general: MadeChannel;
let botId: number;
const api = (u: TestUser) => new Api(srv.url, u);
const T0 = 1_700_000_000;
const TIME = "<time:2023-11-14T22:13:20+00:00>";
const mention = (u: TestUser) => `@_**${u.fullName}|${u.id}**`;

before(async () => {
  srv = await startTestServer({}, { clock: new ManualClock(T0) });
  t = await createTestRealm(srv.app);
  o = await createTestRealm(srv.app, "other");
  mods = await makeChannel(srv, t, { private: true, subscribers: [t.admin, t.moderator] });
  general = await makeChannel(srv, t, { subscribers: [t.admin, t.moderator, t.member, t.member2, t.guest, t.bot] });
  botId = (await getNotificationBot(srv.app.db, t.realm.id)).id;
});
after(() => srv.close());

const report = (u: TestUser, id: number, params: Record<string, unknown>) => api(u).post(`/messages/${id}/report`, params as never);
const lastInMods = () =>
  srv.app.db.selectFrom("messages").selectAll().where("stream_id", "=", mods.id).orderBy("id", "desc").executeTakeFirst();

async function send(u: TestUser, params: Record<string, unknown>): Promise<number> {
  return (await ok(api(u).post("/messages", params as never))).id;
}

describe("the moderation request channel", () => {
  test("reporting is off until an administrator names a private channel", async () => {
    const id = await send(t.member, { type: "stream", to: general.id, topic: "t", content: "hi" });
    await refused(srv, () => report(t.member2, id, { report_type: "spam" }), "Moderation request channel must be specified to enable message reporting.");
    await refused(srv, () => api(t.admin).patch("/realm", { moderation_request_channel_id: general.id }), "Moderation request channel must be private.");
    await refused(srv, () => api(t.admin).patch("/realm", { moderation_request_channel_id: 999999 }), "Invalid channel ID");
    await refused(srv, () => api(t.moderator).patch("/realm", { moderation_request_channel_id: mods.id }), "Must be an organization administrator", "UNAUTHORIZED_PRINCIPAL");

    const reg = await ok(api(t.member).post("/register", { fetch_event_types: ["realm"], event_types: ["realm"] }));
    assert.equal(reg.realm_moderation_request_channel_id, -1);
    const r = await ok(api(t.admin).patch("/realm", { moderation_request_channel_id: mods.id }));
    assert.equal(r.moderation_request_channel_id, mods.id);
    const evs = (await ok(api(t.member).get("/events", { queue_id: reg.queue_id, last_event_id: -1, dont_block: true }))).events;
    assert.deepEqual(evs.map(({ id: _id, ...e }: Record<string, unknown>) => e), [
      { type: "realm", op: "update", property: "moderation_request_channel_id", value: mods.id },
    ]);
    assert.equal((await ok(api(t.member).post("/register", { fetch_event_types: ["realm"] }))).realm_moderation_request_channel_id, mods.id);
  });
});

describe("POST /messages/{id}/report", () => {
  test("anyone who can read a channel message may report it; Notification Bot quotes it for the moderators", async () => {
    await ok(api(t.admin).patch("/realm", { moderation_request_channel_id: mods.id }));
    const id = await send(t.member, { type: "stream", to: general.id, topic: "lunch", content: "buy ```now```\n```\ncode\n```" });
    for (const u of [t.owner, t.admin, t.moderator, t.member2, t.guest, t.bot, t.member]) {
      const modQueue = await ok(api(t.moderator).post("/register", { event_types: ["message"] }));
      const memberQueue = await ok(api(t.member2).post("/register", { event_types: ["message"] }));
      assert.deepEqual(await ok(report(u, id, { report_type: "norms", description: "Not nice." })), { result: "success", msg: "" });
      const m = (await lastInMods())!;
      assert.equal(m.sender_id, botId);
      assert.equal(m.topic, "Mel Member moderation");
      assert.equal(
        m.content,
        `${mention(u)} reported a message sent by ${mention(t.member)} at ${TIME}.\n` +
          "```quote\n**Violates community norms**. Not nice.\n```\n\n" +
          `\`\`\`\` spoiler Original message at #**${general.name}>lunch@${id}**\n` +
          "buy ```now```\n```\ncode\n```\n````",
      );
      const got = (await ok(api(t.moderator).get("/events", { queue_id: modQueue.queue_id, last_event_id: -1, dont_block: true }))).events;
      assert.deepEqual(got.filter((e: { type: string }) => e.type === "message").map((e: { message: { id: number } }) => e.message.id), [m.id]);
      const none = (await ok(api(t.member2).get("/events", { queue_id: memberQueue.queue_id, last_event_id: -1, dont_block: true }))).events;
      assert.deepEqual(none.filter((e: { type: string }) => e.type === "message"), []);
    }
  });

  test("direct messages link to the conversation and name the recipients where needed", async () => {
    await ok(api(t.admin).patch("/realm", { moderation_request_channel_id: mods.id }));
    const base = srv.app.config.externalUrl;
    const dm = await send(t.member, { type: "private", to: [t.member2.id], content: "rude" });
    await ok(report(t.member2, dm, { report_type: "harassment" }));
    const pair = [t.member.id, t.member2.id].sort((a, b) => a - b).join(",");
    assert.equal(
      (await lastInMods())!.content,
      `${mention(t.member2)} reported a message sent by ${mention(t.member)} at ${TIME}.\n` +
        "```quote\n**Harassment**. \n```\n\n" +
        `\`\`\` spoiler [Original message](${base}/#narrow/dm/${pair}/near/${dm})\nrude\n\`\`\``,
    );
    await ok(report(t.member, dm, { report_type: "spam" }));
    assert.match((await lastInMods())!.content, new RegExp(`^${escape(mention(t.member))} reported a message sent by ${escape(mention(t.member))} to ${escape(mention(t.member2))} at`));

    const group = await send(t.member, { type: "private", to: [t.member2.id, t.guest.id, t.moderator.id], content: "all of you" });
    await ok(report(t.guest, group, { report_type: "other", description: "Why" }));
    const content = (await lastInMods())!.content;
    const ids = [t.member.id, t.member2.id, t.guest.id, t.moderator.id].sort((a, b) => a - b).join(",");
    assert.ok(content.includes(`[Original message](${base}/#narrow/dm/${ids}-group/near/${group})`), content);
    const others = [t.moderator, t.member2, t.guest].sort((a, b) => a.id - b.id).map(mention);
    assert.ok(content.startsWith(`${mention(t.guest)} reported a message sent by ${mention(t.member)} to ${others[0]}, ${others[1]}, and ${others[2]} at`), content);
    assert.ok(content.includes("**Other reason**. Why"), content);
  });

  test("refused reports send nothing", async () => {
    await ok(api(t.admin).patch("/realm", { moderation_request_channel_id: mods.id }));
    const id = await send(t.member, { type: "stream", to: general.id, topic: "t", content: "hello" });
    const secret = await makeChannel(srv, t, { private: true, subscribers: [t.member] });
    const hidden = await send(t.member, { type: "stream", to: secret.id, topic: "t", content: "hidden" });
    await refused(srv, () => report(t.member2, id, { report_type: "other" }), "An explanation is required.");
    await refused(srv, () => report(t.member2, id, { report_type: "rude" }), "Invalid report_type");
    await refused(srv, () => report(t.member2, id, {}), "Missing 'report_type' argument", "REQUEST_VARIABLE_MISSING");
    await refused(srv, () => report(t.member2, id, { report_type: "spam", description: "x".repeat(1001) }), "description is too long (limit: 1000 characters)");
    const otherMods = await makeChannel(srv, o, { private: true });
    await ok(api(o.owner).patch("/realm", { moderation_request_channel_id: otherMods.id }));
    for (const u of [t.admin, t.member2, t.guest, t.bot, o.owner]) await refused(srv, () => report(u, hidden, { report_type: "spam" }), "Invalid message(s)");
    await refused(srv, () => report(t.member, 2147483648, { report_type: "spam" }), "Invalid message(s)");
    await ok(report(t.member2, id, { report_type: "spam", description: "x".repeat(1000) }));
  });
});

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

import { test, before, after, describe } from "node:test";
import assert from "node:assert/strict";
import { ManualClock, startTestServer, type TestServer } from "../helpers/server.js";
import { Api } from "../helpers/client.js";
import { createTestRealm, type TestRealm, type TestUser } from "../helpers/realm.js";
import { ok, systemGroupId } from "../helpers/channels.js";

let srv: TestServer;
let t: TestRealm;
let o: TestRealm;
const api = (u: TestUser) => new Api(srv.url, u);
let generalId: number;
let privateId: number;
let publicId: number;

const STREAM_KEYS = [
  "can_add_subscribers_group",
  "can_administer_channel_group",
  "can_delete_any_message_group",
  "can_delete_own_message_group",
  "can_move_messages_out_of_channel_group",
  "can_move_messages_within_channel_group",
  "can_remove_subscribers_group",
  "can_resolve_topics_group",
  "can_send_message_group",
  "can_subscribe_group",
  "creator_id",
  "date_created",
  "description",
  "first_message_id",
  "folder_id",
  "history_public_to_subscribers",
  "invite_only",
  "is_announcement_only",
  "is_archived",
  "is_recently_active",
  "is_web_public",
  "message_retention_days",
  "name",
  "rendered_description",
  "stream_id",
  "stream_post_policy",
  "stream_weekly_traffic",
  "subscriber_count",
  "topics_policy",
].sort();

const names = (streams: { name: string }[]) => streams.map((s) => s.name);

before(async () => {
  srv = await startTestServer();
  t = await createTestRealm(srv.app);
  o = await createTestRealm(srv.app, "other");
  generalId = (await api(t.member).get("/get_stream_id", { stream: "general" })).body.stream_id;
  let r = await api(t.admin).post("/users/me/subscriptions", { subscriptions: [{ name: "secret", description: "hush" }], invite_only: true });
  assert.equal(r.body.result, "success", JSON.stringify(r.body));
  privateId = (await api(t.admin).get("/get_stream_id", { stream: "secret" })).body.stream_id;
  r = await api(t.member).post("/users/me/subscriptions", { subscriptions: [{ name: "Denmark" }] });
  assert.equal(r.body.result, "success");
  publicId = (await api(t.member).get("/get_stream_id", { stream: "denmark" })).body.stream_id;
});
after(() => srv.close());

describe("GET /streams", () => {
  test("members see public channels and their subscriptions, sorted by name", async () => {
    const r = await api(t.member).get("/streams");
    assert.equal(r.status, 200);
    assert.deepEqual(names(r.body.streams), ["Denmark", "general"]);
    assert.deepEqual(Object.keys(r.body.streams[0]).sort(), STREAM_KEYS);
    const admin = await api(t.admin).get("/streams");
    assert.deepEqual(names(admin.body.streams), ["Denmark", "general", "secret"]);
  });

  test("the channel object has Zulip's values", async () => {
    const r = await api(t.admin).get("/streams");
    const secret = r.body.streams.find((s: { name: string }) => s.name === "secret");
    assert.equal(secret.stream_id, privateId);
    assert.equal(secret.invite_only, true);
    assert.equal(secret.history_public_to_subscribers, false);
    assert.equal(secret.description, "hush");
    assert.equal(secret.rendered_description, "<p>hush</p>");
    assert.equal(secret.creator_id, t.admin.id);
    assert.equal(secret.subscriber_count, 1);
    assert.equal(secret.stream_post_policy, 1);
    assert.equal(secret.is_announcement_only, false);
    assert.equal(secret.topics_policy, "inherit");
    assert.equal(secret.stream_weekly_traffic, null);
    assert.equal(typeof secret.first_message_id, "number", "the creation notice is its first message");
    assert.deepEqual(secret.can_administer_channel_group, { direct_members: [t.admin.id], direct_subgroups: [] });
    assert.equal(typeof secret.can_send_message_group, "number");
  });

  test("guests see only channels they are subscribed to", async () => {
    const r = await api(t.guest).get("/streams");
    assert.deepEqual(r.body.streams, []);
    await api(t.member).post("/users/me/subscriptions", { subscriptions: [{ name: "Denmark" }], principals: [t.guest.id] });
    const after = await api(t.guest).get("/streams");
    assert.deepEqual(names(after.body.streams), ["Denmark"]);
  });

  test("include_public and include_subscribed select the sources", async () => {
    let r = await api(t.member).get("/streams", { include_public: false });
    assert.deepEqual(names(r.body.streams), ["Denmark"]);
    r = await api(t.member).get("/streams", { include_subscribed: false });
    assert.deepEqual(names(r.body.streams), ["Denmark", "general"]);
    r = await api(t.member).get("/streams", { include_subscribed: false, include_public: false });
    assert.deepEqual(r.body.streams, []);
  });

  test("include_all gives every channel with metadata access (and include_all_active is its legacy name)", async () => {
    for (const param of ["include_all", "include_all_active"]) {
      const admin = await api(t.admin).get("/streams", { [param]: true, include_public: false, include_subscribed: false });
      assert.deepEqual(names(admin.body.streams), ["Denmark", "general", "secret"], param);
      const member = await api(t.member).get("/streams", { [param]: true });
      assert.deepEqual(names(member.body.streams), ["Denmark", "general"], param);
    }
  });

  test("include_can_access_content gives readable channels only", async () => {
    const admin = await api(t.owner).get("/streams", { include_can_access_content: true });
    assert.deepEqual(names(admin.body.streams), ["Denmark", "general"]);
  });

  test("include_default marks default channels", async () => {
    const r = await api(t.member).get("/streams", { include_default: true });
    const byName = Object.fromEntries(r.body.streams.map((s: { name: string; is_default: boolean }) => [s.name, s.is_default]));
    assert.deepEqual(byName, { Denmark: false, general: true });
    const plain = await api(t.member).get("/streams");
    assert.equal("is_default" in plain.body.streams[0], false);
  });

  test("include_owner_subscribed adds the bot owner's channels for bots only", async () => {
    let r = await api(t.bot).get("/streams", { include_public: false });
    assert.deepEqual(r.body.streams, []);
    await api(t.owner).post("/users/me/subscriptions", { subscriptions: [{ name: "general" }] });
    r = await api(t.bot).get("/streams", { include_public: false, include_owner_subscribed: true });
    assert.deepEqual(names(r.body.streams), ["general"]);
  });

  test("web-public channels are listed with include_web_public, even for guests", async () => {
    await srv.app.db.updateTable("streams").set({ is_web_public: 1 }).where("id", "=", generalId).execute();
    try {
      const r = await api(t.guest).get("/streams", { include_web_public: true });
      assert.deepEqual(names(r.body.streams), ["Denmark", "general"]);
    } finally {
      await srv.app.db.updateTable("streams").set({ is_web_public: 0 }).where("id", "=", generalId).execute();
    }
  });

  test("archived channels are excluded unless exclude_archived is false", async () => {
    await srv.app.db.updateTable("streams").set({ is_archived: 1 }).where("id", "=", publicId).execute();
    try {
      let r = await api(t.member).get("/streams");
      assert.deepEqual(names(r.body.streams), ["general"]);
      r = await api(t.member).get("/streams", { exclude_archived: false });
      assert.deepEqual(names(r.body.streams), ["Denmark", "general"]);
      assert.equal(r.body.streams[0].is_archived, true);
    } finally {
      await srv.app.db.updateTable("streams").set({ is_archived: 0 }).where("id", "=", publicId).execute();
    }
  });

  test("another organization's channels never appear", async () => {
    const r = await api(o.admin).get("/streams", { include_all: true });
    assert.deepEqual(names(r.body.streams), ["general"]);
    assert.notEqual(r.body.streams[0].stream_id, generalId);
  });

  test("parameters are JSON booleans", async () => {
    const r = await api(t.member).get("/streams", { include_public: "yes" });
    assert.equal(r.status, 400);
    assert.deepEqual(r.body, { result: "error", msg: "include_public is not valid JSON", code: "BAD_REQUEST" });
    const r2 = await api(t.member).get("/streams", { include_public: 1 });
    assert.equal(r2.body.msg, "include_public is not a boolean");
  });
});

describe("subscriber_count", () => {
  test("follows subscribes, unsubscribes, deactivations and reactivations, in lists and single channels", async () => {
    const r = await api(t.admin).post("/users/me/subscriptions", { subscriptions: [{ name: "counted" }], principals: [t.admin.id, t.member2.id] });
    assert.equal(r.body.result, "success", JSON.stringify(r.body));
    const id = (await api(t.admin).get("/get_stream_id", { stream: "counted" })).body.stream_id;
    const counts = async () => {
      const listed = (await api(t.member).get("/streams")).body.streams.find((s: { stream_id: number }) => s.stream_id === id);
      const single = (await api(t.member).get(`/streams/${id}`)).body.stream;
      assert.equal(listed.subscriber_count, single.subscriber_count);
      return listed.subscriber_count as number;
    };
    assert.equal(await counts(), 2);
    await api(t.member).post("/users/me/subscriptions", { subscriptions: [{ name: "counted" }] });
    assert.equal(await counts(), 3);
    await api(t.member).delete("/users/me/subscriptions", { subscriptions: ["counted"] });
    assert.equal(await counts(), 2);
    assert.equal((await api(t.owner).delete(`/users/${t.member2.id}`)).body.result, "success");
    assert.equal(await counts(), 1, "a deactivated user's subscription does not count");
    assert.equal((await api(t.owner).post(`/users/${t.member2.id}/reactivate`)).body.result, "success");
    assert.equal(await counts(), 2);
  });
});

describe("POST /register's channel lists", () => {
  test("show each channel as GET /streams/{stream_id} does while its counts, groups and name change", async () => {
    await ok(api(t.admin).post("/users/me/subscriptions", { subscriptions: [{ name: "listed" }], principals: [t.admin.id] }));
    const id = (await api(t.admin).get("/get_stream_id", { stream: "listed" })).body.stream_id;
    // Registers of the same organization between changes: each must show the change, whatever an
    // earlier one kept.
    const shown = async () => {
      const state = await ok(api(t.member).post("/register", { fetch_event_types: ["stream", "subscription"] }));
      const single = (await ok(api(t.member).get(`/streams/${id}`))).stream;
      const find = (list: { stream_id: number }[]) => list.find((c) => c.stream_id === id);
      assert.deepEqual(find(state.streams), single);
      assert.deepEqual(find(state.never_subscribed), single);
      return single;
    };
    assert.equal((await shown()).subscriber_count, 1);
    await ok(api(t.member2).post("/users/me/subscriptions", { subscriptions: [{ name: "listed" }] }));
    assert.equal((await shown()).subscriber_count, 2);

    const setting = (value: unknown) => api(t.admin).patch(`/streams/${id}`, { can_administer_channel_group: { new: value } });
    await ok(setting({ direct_members: [t.admin.id], direct_subgroups: [] }));
    assert.deepEqual((await shown()).can_administer_channel_group, { direct_members: [t.admin.id], direct_subgroups: [] });
    await ok(setting({ direct_members: [t.admin.id, t.member2.id], direct_subgroups: [] }));
    assert.deepEqual(
      (await shown()).can_administer_channel_group,
      { direct_members: [t.admin.id, t.member2.id].sort((a, b) => a - b), direct_subgroups: [] },
    );

    const admins = await systemGroupId(srv.app, t.realm.id, "role:administrators");
    await ok(api(t.admin).patch(`/streams/${id}`, { can_send_message_group: { new: admins } }));
    assert.equal((await shown()).stream_post_policy, 2);
    await ok(api(t.admin).patch(`/streams/${id}`, { new_name: "listed again" }));
    assert.equal((await shown()).name, "listed again");
  });

  test("a channel left is shown as the subscription it was; subscribers only when asked for", async () => {
    await ok(api(t.admin).post("/users/me/subscriptions", { subscriptions: [{ name: "left" }, { name: "never" }], principals: [t.admin.id] }));
    const left = (await api(t.admin).get("/get_stream_id", { stream: "left" })).body.stream_id;
    const never = (await api(t.admin).get("/get_stream_id", { stream: "never" })).body.stream_id;
    await ok(api(t.member2).post("/users/me/subscriptions", { subscriptions: [{ name: "left" }] }));
    await ok(
      api(t.member2).post("/users/me/subscriptions/properties", {
        subscription_data: [
          { stream_id: left, property: "color", value: "#c2c2c2" },
          { stream_id: left, property: "is_muted", value: true },
        ],
      }),
    );
    const asSubscription = (await ok(api(t.member2).post("/register", { fetch_event_types: ["subscription"] }))).subscriptions.find(
      (s: { stream_id: number }) => s.stream_id === left,
    );
    await ok(api(t.member2).delete("/users/me/subscriptions", { subscriptions: ["left"] }));

    const state = async (include_subscribers?: string) =>
      ok(api(t.member2).post("/register", { fetch_event_types: ["subscription"], ...(include_subscribers && { include_subscribers }) }));
    const find = (list: { stream_id: number }[], id: number) => list.find((c) => c.stream_id === id) as Record<string, unknown> | undefined;
    let body = await state();
    assert.ok(!find(body.subscriptions, left));
    // As it was while subscribed, but for its count, which no longer includes this user.
    assert.deepEqual(find(body.unsubscribed, left), { ...asSubscription, subscriber_count: asSubscription.subscriber_count - 1 });
    assert.equal(find(body.unsubscribed, left)!.color, "#c2c2c2");
    assert.equal(find(body.unsubscribed, left)!.in_home_view, false);
    assert.ok(!find(body.never_subscribed, left));
    assert.deepEqual(find(body.never_subscribed, never), (await ok(api(t.member2).get(`/streams/${never}`))).stream);
    assert.ok(!find(body.unsubscribed, never));

    body = await state("true");
    const members = async (id: number) => (await ok(api(t.member2).get(`/streams/${id}/members`))).subscribers;
    assert.deepEqual(find(body.unsubscribed, left)!.subscribers, await members(left));
    assert.deepEqual(find(body.never_subscribed, never)!.subscribers, await members(never));
    assert.deepEqual(find(body.never_subscribed, never)!.subscribers, [t.admin.id]);
    const { subscribers: _, ...rest } = find(body.never_subscribed, never)!;
    assert.deepEqual(rest, (await ok(api(t.member2).get(`/streams/${never}`))).stream);

    // Subscriber lists are kept between registers, until a subscription changes.
    await ok(api(t.admin).post("/users/me/subscriptions", { subscriptions: [{ name: "never" }, { name: "left" }], principals: [t.member.id] }));
    body = await state("true");
    assert.deepEqual(find(body.never_subscribed, never)!.subscribers, [t.admin.id, t.member.id].sort((a, b) => a - b));
    assert.deepEqual(find(body.unsubscribed, left)!.subscribers, await members(left));
    assert.ok((find(body.unsubscribed, left)!.subscribers as number[]).includes(t.member.id));
    await ok(api(t.admin).delete("/users/me/subscriptions", { subscriptions: ["never", "left"], principals: [t.member.id] }));
    body = await state("true");
    assert.deepEqual(find(body.never_subscribed, never)!.subscribers, [t.admin.id]);
  });
});

describe("GET /streams/{stream_id}", () => {
  test("returns the channel to users who can see it", async () => {
    const r = await api(t.member).get(`/streams/${publicId}`);
    assert.equal(r.status, 200);
    assert.equal(r.body.stream.name, "Denmark");
    assert.deepEqual(Object.keys(r.body.stream).sort(), STREAM_KEYS);
    const admin = await api(t.admin).get(`/streams/${privateId}`);
    assert.equal(admin.body.stream.name, "secret");
  });

  test("hidden, missing and foreign channels are all 'Invalid channel ID'", async () => {
    const cases: [TestUser, number][] = [
      [t.member, privateId],
      [t.moderator, privateId],
      [t.guest, generalId],
      [t.member, 99999],
      [t.member, 99999999999],
      [o.admin, publicId],
    ];
    for (const [u, id] of cases) {
      const r = await api(u).get(`/streams/${id}`);
      assert.equal(r.status, 400);
      assert.deepEqual(r.body, { result: "error", msg: "Invalid channel ID", code: "BAD_REQUEST" });
    }
  });
});

describe("GET /get_stream_id", () => {
  test("finds a channel by name, ignoring case", async () => {
    const r = await api(t.member).get("/get_stream_id", { stream: "DENMARK" });
    assert.deepEqual(r.body, { result: "success", msg: "", stream_id: publicId });
  });

  test("unknown or unreadable channels give 'Invalid channel name'", async () => {
    for (const [u, name] of [
      [t.member, "nonexistent"],
      [t.member, "secret"],
      [t.owner, "secret"],
      [o.member, "Denmark"],
    ] as [TestUser, string][]) {
      const r = await api(u).get("/get_stream_id", { stream: name });
      assert.deepEqual(r.body, { result: "error", msg: `Invalid channel name '${name}'`, code: "BAD_REQUEST" });
    }
    const ok = await api(t.admin).get("/get_stream_id", { stream: "secret" });
    assert.equal(ok.body.stream_id, privateId);
  });

  test("the stream parameter is required", async () => {
    const r = await api(t.member).get("/get_stream_id");
    assert.deepEqual(r.body, { result: "error", msg: "Missing 'stream' argument", code: "REQUEST_VARIABLE_MISSING", var_name: "stream" });
  });
});

describe("channel traffic", () => {
  test("stream_weekly_traffic and is_recently_active come from the last four weeks and the latest message", async () => {
    const clock = new ManualClock(1_800_000_000);
    const server = await startTestServer({}, { clock });
    try {
      const realm = await createTestRealm(server.app);
      const as = (u: TestUser) => new Api(server.url).as(u);
      const DAY = 86400;
      const create = async (name: string) => {
        const r = await as(realm.admin).post("/users/me/subscriptions", { subscriptions: JSON.stringify([{ name }]) });
        assert.equal(r.status, 200, JSON.stringify(r.body));
        const id = (await as(realm.admin).get("/get_stream_id", { stream: name })).body.stream_id as number;
        const post = async (count: number, daysAgo: number) => {
          for (let i = 0; i < count; i++) {
            const sent = await as(realm.admin).post("/messages", { type: "stream", to: name, topic: "t", content: "x" });
            await server.app.db.updateTable("messages").set({ date_sent: clock.now() - daysAgo * DAY }).where("id", "=", sent.body.id).execute();
          }
        };
        return { id, post };
      };
      const busy = await create("busy");
      await busy.post(2, 40);
      await busy.post(9, 3);
      const quiet = await create("quiet");
      await quiet.post(1, 200);
      // Their creation notices go back to the channels' creation, so every message is dated above.
      await server.app.db
        .updateTable("messages")
        .set({ date_sent: clock.now() - 300 * DAY })
        .where("date_sent", ">", clock.now() - DAY)
        .where("stream_id", "in", [busy.id, quiet.id])
        .execute();
      await server.app.db.updateTable("streams").set({ date_created: clock.now() - 300 * DAY }).where("id", "in", [busy.id, quiet.id]).execute();

      const streams = (await as(realm.member).get("/streams")).body.streams as { stream_id: number; stream_weekly_traffic: number | null; is_recently_active: boolean }[];
      const of = (id: number) => streams.find((s) => s.stream_id === id)!;
      assert.deepEqual([of(busy.id).stream_weekly_traffic, of(busy.id).is_recently_active], [Math.round(9 / 4), true]);
      assert.deepEqual([of(quiet.id).stream_weekly_traffic, of(quiet.id).is_recently_active], [0, false]);
    } finally {
      await server.close();
    }
  });
});

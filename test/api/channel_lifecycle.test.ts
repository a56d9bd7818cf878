import { test, before, after, describe } from "node:test";
import assert from "node:assert/strict";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { Api } from "../helpers/client.js";
import { createTestRealm, type TestRealm, type TestUser } from "../helpers/realm.js";
import { EventLog } from "../helpers/events.js";
import { makeChannel as makeChannelFor, ok, refused, setRealmGroupSetting, systemGroupId, type MadeChannel } from "../helpers/channels.js";

let srv: TestServer;
let t: TestRealm;
let o: TestRealm;
const api = (u: TestUser) => new Api(srv.url, u);
let everyone: number[];
let nonGuests: number[];
let seq = 0;

const sorted = (ids: number[]) => [...ids].sort((a, b) => a - b);
const without = (ids: number[], ...drop: number[]) => ids.filter((id) => !drop.includes(id));

before(async () => {
  srv = await startTestServer();
  t = await createTestRealm(srv.app);
  o = await createTestRealm(srv.app, "other");
  everyone = sorted([t.owner, t.admin, t.moderator, t.member, t.member2, t.guest, t.bot].map((u) => u.id));
  nonGuests = without(everyone, t.guest.id);
});
after(() => srv.close());

type Made = MadeChannel;
const makeChannel = (opts: Parameters<typeof makeChannelFor>[2] = {}) => makeChannelFor(srv, t, opts);

const row = (c: Made) => srv.app.db.selectFrom("streams").selectAll().where("id", "=", c.id).executeTakeFirstOrThrow();
const subscribers = async (c: Made) =>
  (await srv.app.db.selectFrom("subscriptions").select("user_id").where("stream_id", "=", c.id).where("active", "=", 1).orderBy("user_id").execute()).map(
    (r) => r.user_id,
  );
const NO_ADMIN = "You do not have permission to administer this channel.";

describe("DELETE /streams/{id}: archiving", () => {
  test("who may archive: realm admins and channel administrators; others are told no or see nothing", async () => {
    for (const u of [t.owner, t.admin, t.member2]) {
      const c = await makeChannel();
      await ok(api(u).delete(`/streams/${c.id}`));
      assert.equal((await row(c)).is_archived, 1);
    }
    const c = await makeChannel();
    for (const u of [t.moderator, t.member, t.bot]) await refused(srv, () => api(u).delete(`/streams/${c.id}`), NO_ADMIN);
    for (const u of [t.guest, o.owner]) await refused(srv, () => api(u).delete(`/streams/${c.id}`), "Invalid channel ID");
    const p = await makeChannel({ private: true });
    await ok(api(t.admin).delete(`/streams/${p.id}`));
    const q = await makeChannel({ private: true, subscribers: [t.moderator] });
    await refused(srv, () => api(t.moderator).delete(`/streams/${q.id}`), NO_ADMIN);
    await refused(srv, () => api(t.member).delete(`/streams/${q.id}`), "Invalid channel ID");
  });

  test("archiving keeps the name and subscribers, leaves the default channels, and announces both ways", async () => {
    const c = await makeChannel({ subscribers: [t.member, t.guest] });
    await ok(api(t.admin).patch(`/streams/${c.id}`, { is_default_stream: true }));
    const log = new EventLog(srv);
    await ok(api(t.admin).delete(`/streams/${c.id}`));
    log.stop();
    const r = await row(c);
    assert.deepEqual([r.name, r.is_archived], [c.name, 1]);
    assert.deepEqual(await subscribers(c), sorted([t.owner.id, t.member.id, t.guest.id]));
    const audience = sorted([...nonGuests, t.guest.id]);
    assert.deepEqual(log.of("stream", "update").map((n) => [n.userIds, n.event]), [
      [audience, { type: "stream", op: "update", property: "is_archived", value: true, stream_id: c.id, name: c.name }],
    ]);
    assert.deepEqual(log.of("stream", "delete").map((n) => [n.userIds, n.event]), [
      [audience, { type: "stream", op: "delete", streams: [{ stream_id: c.id }], stream_ids: [c.id], for_archiving: true }],
    ]);
    const defaults = log.of("default_streams");
    assert.equal(defaults.length, 1);
    assert.ok(!(defaults[0].event.default_streams as number[]).includes(c.id));
    const notice = log.of("message")[0];
    assert.equal((notice.event.message as { content: string }).content, `Channel #**${c.name}** has been archived.`);
    assert.ok([...notice.perUser!.values()].every((v) => (v.flags as string[]).includes("read")), "the notice starts out read");
    await refused(srv, () => api(t.admin).delete(`/streams/${c.id}`), "Channel is already deactivated");
    await refused(srv, () => api(t.member).post("/messages", { type: "stream", to: c.id, topic: "x", content: "hi" }), `Not authorized to send to channel '${c.name}'`);
  });

  test("event queues get the form their client understands", async () => {
    const c = await makeChannel({ subscribers: [t.member] });
    const modern = await ok(api(t.member).post("/register", { event_types: ["stream"], client_capabilities: { archived_channels: true } }));
    const legacy = await ok(api(t.member).post("/register", { event_types: ["stream"] }));
    await ok(api(t.admin).delete(`/streams/${c.id}`));
    await ok(api(t.admin).patch(`/streams/${c.id}`, { is_archived: false }));
    const eventsOf = async (queueId: string) =>
      (await ok(api(t.member).get("/events", { queue_id: queueId, last_event_id: -1 }))).events.map((e: Record<string, unknown>) => {
        const { id: _id, ...rest } = e;
        return rest.op === "create" ? { op: "create", for_unarchiving: rest.for_unarchiving, stream_id: (rest.streams as { stream_id: number }[])[0].stream_id } : rest;
      });
    assert.deepEqual(await eventsOf(modern.queue_id), [
      { type: "stream", op: "update", property: "is_archived", value: true, stream_id: c.id, name: c.name },
      { type: "stream", op: "update", property: "is_archived", value: false, stream_id: c.id, name: c.name },
    ]);
    assert.deepEqual(await eventsOf(legacy.queue_id), [
      { type: "stream", op: "delete", streams: [{ stream_id: c.id }], stream_ids: [c.id] },
      { op: "create", for_unarchiving: undefined, stream_id: c.id },
    ]);
    await ok(api(t.admin).delete(`/streams/${c.id}`));
    const listed = async (capabilities: Record<string, boolean>) => {
      const state = await ok(api(t.member).post("/register", { fetch_event_types: ["stream", "subscription"], client_capabilities: capabilities }));
      return [state.streams, state.subscriptions].map((list: { stream_id: number }[]) => list.some((s) => s.stream_id === c.id));
    };
    assert.deepEqual(await listed({ archived_channels: true }), [true, true]);
    assert.deepEqual(await listed({}), [false, false]);
  });
});

describe("POST /channels/create", () => {
  test("creates one channel with its settings and subscribers; 409 when the name is taken", async () => {
    const name = `created${++seq}`;
    const log = new EventLog(srv);
    const body = await ok(
      api(t.member).post("/channels/create", {
        name: `  ${name} `,
        description: "about\nthings",
        subscribers: [t.member2.id, t.guest.id],
        invite_only: true,
        history_public_to_subscribers: true,
        announce: true,
        can_remove_subscribers_group: await systemGroupId(srv.app, t.realm.id, "role:moderators"),
      }),
    );
    log.stop();
    assert.deepEqual(Object.keys(body).sort(), ["id", "msg", "result"]);
    const c = { id: body.id as number, name };
    const r = await row(c);
    assert.deepEqual([r.name, r.description, r.invite_only, r.history_public_to_subscribers, r.creator_id], [name, "about things", 1, 1, t.member.id]);
    assert.deepEqual(await subscribers(c), sorted([t.member2.id, t.guest.id]), "the creator is not subscribed unless listed");
    const creates = log.of("stream", "create");
    assert.deepEqual(creates[0].userIds, sorted([t.owner.id, t.admin.id, t.member.id]), "administrators and the creator, who administers it");
    assert.deepEqual(log.of("subscription", "add").map((n) => n.userIds).sort(), [[t.member2.id], [t.guest.id]].sort());
    const messages = log.of("message").map((n) => (n.event.message as { content: string }).content);
    assert.ok(messages.some((m) => m.includes("created a new channel")), "the announcement");
    assert.ok(messages.some((m) => m.startsWith("**Private, shared history** channel created by")));
    assert.ok(!messages.some((m) => m.includes("subscribed you to")), "no DMs for a channel just created");
    await refused(srv, () => api(t.admin).post("/channels/create", { name: name.toUpperCase(), subscribers: [] }), `Channel '${name.toUpperCase()}' already exists`, "CHANNEL_ALREADY_EXISTS", 409);
  });

  test("refusals: guests, names, permissions, settings, subscribers", async () => {
    const create = (u: TestUser, params: Record<string, unknown>) => () => api(u).post("/channels/create", { subscribers: [], ...params } as never);
    await refused(srv, create(t.guest, { name: "g" }), "Not allowed for guest users");
    await refused(srv, () => api(t.member).post("/channels/create", { name: "x" }), "Missing 'subscribers' argument", "REQUEST_VARIABLE_MISSING");
    await refused(srv, create(t.member, { name: " " }), "Channel name can't be empty.");
    await refused(srv, create(t.member, { name: "x".repeat(61) }), "Channel name too long (limit: 60 characters).");
    await refused(srv, create(t.member, { name: "x", description: "d".repeat(1025) }), "description is too long (limit: 1024 characters)");
    await refused(srv, create(t.member, { name: "x", is_default_stream: true }), "Insufficient permission");
    await refused(srv, create(t.admin, { name: "x", is_default_stream: true, invite_only: true }), "A default channel cannot be private.");
    await refused(srv, create(t.owner, { name: "x", is_web_public: true }), "Web-public channels are not enabled.");
    await refused(srv, create(t.admin, { name: "x", message_retention_days: 5 }), "Must be an organization owner", "UNAUTHORIZED_PRINCIPAL");
    await refused(srv, create(t.member, { name: "x", folder_id: 4242 }), "Invalid channel folder ID");
    await refused(srv, create(t.member, { name: "x", subscribers: [o.member.id] }), `Invalid user ID: ${o.member.id}`);
    await refused(srv, create(t.member, { name: "x", topics_policy: JSON.stringify("nope") }), "Invalid topics_policy");
    await refused(
      srv,
      create(t.member, { name: "x", can_delete_any_message_group: await systemGroupId(srv.app, t.realm.id, "role:members") }),
      "Insufficient permission",
    );
    await setRealmGroupSetting(srv.app, t.realm.id, "can_create_public_channel_group", "role:administrators");
    try {
      await refused(srv, create(t.member, { name: "x" }), "Insufficient permission");
      await ok(api(t.admin).post("/channels/create", { name: `adminmade${++seq}`, subscribers: [] }));
    } finally {
      await setRealmGroupSetting(srv.app, t.realm.id, "can_create_public_channel_group", "role:members");
    }
  });

  test("a bot may create a channel; the bot is its administrator", async () => {
    const body = await ok(api(t.bot).post("/channels/create", { name: `botmade${++seq}`, subscribers: [t.bot.id] }));
    const r = await api(t.bot).get(`/streams/${body.id}`);
    assert.deepEqual(r.body.stream.can_administer_channel_group, { direct_members: [t.bot.id], direct_subgroups: [] });
  });
});

describe("default channels", () => {
  test("POST /default_streams: administrators only; public channels they can read", async () => {
    const c = await makeChannel();
    for (const u of [t.moderator, t.member, t.member2, t.guest, t.bot]) {
      await refused(srv, () => api(u).post("/default_streams", { stream_id: c.id }), "Must be an organization administrator", "UNAUTHORIZED_PRINCIPAL");
    }
    await refused(srv, () => api(o.admin).post("/default_streams", { stream_id: c.id }), "Invalid channel ID");
    await refused(srv, () => api(t.admin).post("/default_streams", {}), "Missing 'stream_id' argument", "REQUEST_VARIABLE_MISSING");
    await refused(srv, () => api(t.admin).post("/default_streams", { stream_id: "x" }), "stream_id is not valid JSON");
    const p = await makeChannel({ private: true });
    await refused(srv, () => api(t.admin).post("/default_streams", { stream_id: p.id }), "Invalid channel ID");
    await refused(srv, () => api(t.owner).post("/default_streams", { stream_id: p.id }), "Private channels cannot be made default.");
    const log = new EventLog(srv);
    await ok(api(t.admin).post("/default_streams", { stream_id: c.id }));
    log.stop();
    assert.deepEqual(log.of("default_streams").map((n) => n.userIds), [nonGuests]);
    const state = await ok(api(t.member).post("/register", { fetch_event_types: ["default_streams"] }));
    assert.ok(state.realm_default_streams.includes(c.id));
  });

  test("DELETE /default_streams: administrators only; nothing to remove is not an error", async () => {
    const c = await makeChannel();
    await ok(api(t.admin).post("/default_streams", { stream_id: c.id }));
    await refused(srv, () => api(t.member2).delete("/default_streams", { stream_id: c.id }), "Must be an organization administrator", "UNAUTHORIZED_PRINCIPAL");
    const log = new EventLog(srv);
    await ok(api(t.owner).delete("/default_streams", { stream_id: c.id }));
    await ok(api(t.owner).delete("/default_streams", { stream_id: c.id }));
    log.stop();
    assert.equal(log.of("default_streams").length, 1);
    await refused(srv, () => api(t.owner).delete("/default_streams", { stream_id: 999999 }), "Invalid channel ID");
  });
});

describe("GET /streams/{id}/members", () => {
  test("anyone who can see the channel gets its active subscribers", async () => {
    const c = await makeChannel({ subscribers: [t.member, t.guest] });
    for (const u of [t.owner, t.admin, t.moderator, t.member, t.member2, t.guest, t.bot]) {
      const r = await ok(api(u).get(`/streams/${c.id}/members`));
      assert.deepEqual(r.subscribers, sorted([t.owner.id, t.member.id, t.guest.id]));
    }
    const p = await makeChannel({ private: true, subscribers: [t.member] });
    for (const u of [t.admin, t.member, t.member2]) await ok(api(u).get(`/streams/${p.id}/members`));
    for (const u of [t.moderator, t.guest, t.bot, o.owner]) {
      await refused(srv, () => api(u).get(`/streams/${p.id}/members`), "Invalid channel ID");
    }
    const hidden = await makeChannel();
    for (const u of [t.guest]) await refused(srv, () => api(u).get(`/streams/${hidden.id}/members`), "Invalid channel ID");
  });
});

describe("subscribing and unsubscribing others", () => {
  test("adding subscribers: the organization's group, channel administrators, the channel's group; guests never", async () => {
    const c = await makeChannel();
    const add = (u: TestUser, target: TestUser) => () =>
      api(u).post("/users/me/subscriptions", { subscriptions: [{ name: c.name }], principals: [target.id] });
    await setRealmGroupSetting(srv.app, t.realm.id, "can_add_subscribers_group", "role:nobody");
    try {
      await refused(srv, add(t.member, t.moderator), "Insufficient permission");
      await refused(srv, add(t.moderator, t.member), "Insufficient permission");
      await refused(srv, add(t.bot, t.member), "Insufficient permission");
      await refused(srv, add(t.guest, t.member), "Not allowed for guest users");
      await ok(add(t.admin, t.member)());
      await ok(add(t.member2, t.moderator)());
      await ok(api(t.owner).patch(`/streams/${c.id}`, { can_add_subscribers_group: { new: { direct_members: [t.member.id], direct_subgroups: [] } } }));
      await ok(add(t.member, t.bot)());
    } finally {
      await setRealmGroupSetting(srv.app, t.realm.id, "can_add_subscribers_group", "role:members");
    }
    await ok(add(t.member2, t.guest)());
    assert.deepEqual(await subscribers(c), sorted([t.owner.id, t.member.id, t.moderator.id, t.bot.id, t.guest.id]));
  });

  test("private channels: the channel's add-subscribers group needs no subscription; channel administrators without access cannot", async () => {
    const p = await makeChannel({ private: true });
    const add = (u: TestUser) => () => api(u).post("/users/me/subscriptions", { subscriptions: [{ name: p.name }], principals: [t.moderator.id] });
    await refused(srv, add(t.member2), `Unable to access channel (${p.name}).`);
    await refused(srv, add(t.admin), `Unable to access channel (${p.name}).`);
    await ok(api(t.owner).patch(`/streams/${p.id}`, { can_add_subscribers_group: { new: { direct_members: [t.member.id], direct_subgroups: [] } } }));
    await ok(add(t.member)());
    assert.deepEqual(await subscribers(p), sorted([t.owner.id, t.moderator.id]));
  });

  test("removing subscribers: administrators, channel administrators, or the channel's group with access", async () => {
    const c = await makeChannel({ subscribers: [t.member] });
    const remove = (u: TestUser, name = c.name) => () =>
      api(u).delete("/users/me/subscriptions", { subscriptions: [name], principals: [t.member.id] });
    const resubscribe = () => api(t.owner).post("/users/me/subscriptions", { subscriptions: [{ name: c.name }], principals: [t.member.id] });
    for (const u of [t.moderator, t.bot, t.guest]) await refused(srv, remove(u), "Insufficient permission");
    await refused(srv, () => api(o.admin).delete("/users/me/subscriptions", { subscriptions: [c.name], principals: [t.member.id] }), `Invalid user ID: ${t.member.id}`);
    for (const u of [t.owner, t.admin, t.member2]) {
      await ok(remove(u)());
      assert.ok(!(await subscribers(c)).includes(t.member.id));
      await ok(resubscribe());
    }
    await ok(api(t.owner).patch(`/streams/${c.id}`, { can_remove_subscribers_group: { new: { direct_members: [t.moderator.id], direct_subgroups: [] } } }));
    await ok(remove(t.moderator)());
    const p = await makeChannel({ private: true, subscribers: [t.member] });
    await ok(api(t.owner).patch(`/streams/${p.id}`, { can_remove_subscribers_group: { new: { direct_members: [t.moderator.id], direct_subgroups: [] } } }));
    await refused(srv, remove(t.moderator, p.name), "Insufficient permission");
    await ok(remove(t.admin, p.name)());
  });

  test("peer events reach whoever can see the channel's subscribers", async () => {
    const c = await makeChannel();
    const log = new EventLog(srv);
    await ok(api(t.admin).post("/users/me/subscriptions", { subscriptions: [{ name: c.name }], principals: [t.member.id] }));
    log.stop();
    assert.deepEqual(log.of("subscription", "peer_add").map((n) => [n.userIds, n.event.user_ids]), [[without(nonGuests, t.member.id), [t.member.id]]]);
  });
});

describe("channel creation through subscribing keeps the topics-policy permission for administrators", () => {
  test("administrators may pick a topics policy even when the organization lets nobody", async () => {
    await setRealmGroupSetting(srv.app, t.realm.id, "can_set_topics_policy_group", "role:nobody");
    try {
      const make = (u: TestUser) => () =>
        api(u).post("/users/me/subscriptions", { subscriptions: [{ name: `tp${++seq}` }], topics_policy: JSON.stringify("disable_empty_topic") });
      await refused(srv, make(t.member), "Insufficient permission");
      await ok(make(t.admin)());
    } finally {
      await setRealmGroupSetting(srv.app, t.realm.id, "can_set_topics_policy_group", "role:members");
    }
  });
});

/**
 * Bots over HTTP: POST/GET /bots, PATCH and DELETE /bots/{id}, regenerating keys, by role and
 * organization, with Zulip's errors, nothing written or announced on a refusal, and the
 * `realm_bot` and `realm_user` events read back through GET /events by exactly their audience.
 */
import { test, before, after, describe } from "node:test";
import assert from "node:assert/strict";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { Api, type ApiResponse } from "../helpers/client.js";
import { createTestRealm, type TestRealm, type TestUser } from "../helpers/realm.js";
import { logEventsPerTest, type EventLog } from "../helpers/events.js";
import { expectError, expectSuccess } from "../helpers/expect.js";
import { systemGroupIds } from "../../src/store/groups.js";

let srv: TestServer;
let api: Api;
let log: EventLog;
let other: TestRealm;

before(async () => {
  srv = await startTestServer();
  api = new Api(srv.url);
  other = await createTestRealm(srv.app, "other");
});
after(() => srv.close());
logEventsPerTest(() => srv, (l) => (log = l));

let realms = 0;
/** Each test gets an organization of its own, so names and audiences never mix. */
const freshRealm = () => createTestRealm(srv.app, `bots${++realms}`);
const as = (u: TestUser) => api.as(u);
const everyone = (t: TestRealm) => [t.owner, t.admin, t.moderator, t.member, t.member2, t.guest, t.bot];
const ids = (users: TestUser[]) => users.map((u) => u.id).sort((a, b) => a - b);

async function ok(r: Promise<ApiResponse>): Promise<Record<string, any>> {
  const res = await r;
  expectSuccess(res);
  return res.body;
}

/** Event queues for every user of the organization (or of `users`), so a test can read who heard what. */
async function queuesFor(t: TestRealm, eventTypes: string[], users = everyone(t)): Promise<Map<TestUser, string>> {
  const out = new Map<TestUser, string>();
  for (const u of users) out.set(u, (await ok(as(u).post("/register", { event_types: eventTypes }))).queue_id);
  return out;
}

/** Every event each user's queue holds, without waiting. */
async function heard(queues: Map<TestUser, string>): Promise<Map<number, Record<string, any>[]>> {
  const out = new Map<number, Record<string, any>[]>();
  for (const [u, queueId] of queues) {
    const body = await ok(as(u).get("/events", { queue_id: queueId, last_event_id: -1, dont_block: true }));
    out.set(u.id, body.events.filter((e: Record<string, any>) => e.type !== "heartbeat"));
  }
  return out;
}

/** The users whose queue got an event matching `match`. */
function audience(events: Map<number, Record<string, any>[]>, match: (e: Record<string, any>) => boolean): number[] {
  return [...events].filter(([, es]) => es.some(match)).map(([id]) => id).sort((a, b) => a - b);
}

async function createBot(u: TestUser, params: Record<string, unknown> = {}): Promise<{ id: number; apiKey: string; email: string }> {
  const body = await ok(as(u).post("/bots", { full_name: "Helper Bot", short_name: "helper", ...params } as Record<string, string>));
  const row = await srv.app.db.selectFrom("users").selectAll().where("id", "=", body.user_id).executeTakeFirstOrThrow();
  return { id: row.id, apiKey: row.api_key, email: row.delivery_email };
}

/** The `email` the API shows for a user (a placeholder when the address is hidden), as Zulip's bot_owner field. */
const apiEmail = async (u: TestUser) => (await srv.app.db.selectFrom("users").select("email").where("id", "=", u.id).executeTakeFirstOrThrow()).email;

const userCount = async () => (await srv.app.db.selectFrom("users").select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirstOrThrow()).n;

/** A refused request: the error, no user written, nothing announced. */
async function refused(attempt: () => Promise<ApiResponse>, msg: string, code = "BAD_REQUEST", status = 400) {
  const before = await userCount();
  log.notices.length = 0;
  expectError(await attempt(), msg, code, status);
  assert.equal(await userCount(), before);
  assert.deepEqual(log.notices, []);
}

describe("POST /bots", () => {
  test("a member creates a generic bot: its address, owner and key; everyone hears of the user, its administrators of the bot", async () => {
    const t = await freshRealm();
    const queues = await queuesFor(t, ["realm_user", "realm_bot", "user_group"]);
    const body = await ok(as(t.member).post("/bots", { full_name: "  Helper Bot ", short_name: " helper " }));
    assert.match(body.api_key, /^[A-Za-z0-9]{32}$/);
    assert.equal(body.default_sending_stream, null);
    assert.equal(body.default_events_register_stream, null);
    assert.equal(body.default_all_public_streams, false);
    assert.match(body.avatar_url, /gravatar/);

    const user = (await ok(as(t.member2).get(`/users/${body.user_id}`))).user;
    assert.equal(user.email, `helper-bot@${srv.app.config.fakeEmailDomain}`);
    assert.deepEqual([user.full_name, user.is_bot, user.bot_type, user.bot_owner_id, user.role], ["Helper Bot", true, 1, t.member.id, 400]);

    const events = await heard(queues);
    assert.deepEqual(
      audience(events, (e) => e.type === "realm_user" && e.op === "add" && e.person.user_id === body.user_id),
      ids(everyone(t)),
    );
    assert.deepEqual(audience(events, (e) => e.type === "realm_bot" && e.op === "add"), ids([t.owner, t.admin, t.member]));
    const members = (await systemGroupIds(srv.app.db, t.realm.id)).get("role:members");
    assert.deepEqual(
      audience(events, (e) => e.type === "user_group" && e.op === "add_members" && e.group_id === members && e.user_ids[0] === body.user_id),
      ids(everyone(t)),
    );
    const added = events.get(t.member.id)!.find((e) => e.type === "realm_bot")!;
    assert.deepEqual(added.bot, {
      email: user.email,
      user_id: body.user_id,
      full_name: "Helper Bot",
      bot_type: 1,
      is_active: true,
      api_key: body.api_key,
      default_sending_stream: null,
      default_events_register_stream: null,
      default_all_public_streams: false,
      avatar_url: body.avatar_url,
      services: [],
      owner_id: t.member.id,
    });
    // The new key works at once.
    expectSuccess(await api.as({ email: user.email, apiKey: body.api_key }).get("/users/me"));
  });

  test("owners, administrators, moderators and members may create bots; guests and bots may not", async () => {
    const t = await freshRealm();
    for (const [i, u] of [t.owner, t.admin, t.moderator, t.member].entries()) {
      await createBot(u, { full_name: `Bot ${i}`, short_name: `b${i}` });
    }
    await refused(() => as(t.guest).post("/bots", { full_name: "G Bot", short_name: "g" }), "Not allowed for guest users");
    await refused(() => as(t.bot).post("/bots", { full_name: "B Bot", short_name: "b" }), "This endpoint does not accept bot requests.");
  });

  test("Zulip's errors for names, kinds, services and channels; nothing is created", async () => {
    const t = await freshRealm();
    await createBot(t.member, { full_name: "Taken Bot", short_name: "taken" });
    const post = (params: Record<string, string | number>) => () => as(t.member).post("/bots", { full_name: "New Bot", short_name: "new", ...params });
    await refused(post({ short_name: "   " }), "Bad name or username");
    await refused(post({ short_name: "two words" }), "Bad name or username");
    await refused(post({ full_name: "" }), "Name too short!");
    await refused(post({ full_name: "a@b" }), "Invalid characters in name!");
    await refused(post({ short_name: "taken" }), "Username already in use");
    await refused(post({ full_name: "Taken Bot" }), "Name is already in use!");
    await refused(post({ full_name: t.member2.fullName }), "Name is already in use!");
    await refused(post({ bot_type: 9 }), "Invalid bot type");
    await refused(post({ bot_type: 4 }), "Invalid bot type");
    await refused(post({ bot_type: "one" }), "bot_type is not valid JSON");
    await refused(post({ bot_type: 3, interface_type: 7, payload_url: JSON.stringify("https://example.com/hook") }), "Invalid interface type");
    await refused(post({ bot_type: 3, payload_url: JSON.stringify("not a url") }), "payload_url is not a URL");
    await refused(post({ default_sending_stream: "no such channel" }), "Invalid channel name 'no such channel'");
    await refused(post({ config_data: JSON.stringify({ key: 1 }) }), 'config_data["key"] is not a string');
    await refused(() => as(t.member).post("/bots", { short_name: "x" }), "Missing 'full_name' argument", "REQUEST_VARIABLE_MISSING");
  });

  test("can_create_bots_group decides who creates any bot; can_create_write_only_bots_group who creates incoming webhooks", async () => {
    const t = await freshRealm();
    const sys = await systemGroupIds(srv.app.db, t.realm.id);
    await ok(as(t.owner).patch("/realm", { can_create_bots_group: JSON.stringify({ new: sys.get("role:administrators") }) }));
    await refused(() => as(t.member).post("/bots", { full_name: "Generic", short_name: "generic" }), "Insufficient permission");
    await refused(() => as(t.member).post("/bots", { full_name: "Outgoing", short_name: "out", bot_type: 3 }), "Insufficient permission");
    const hook = await createBot(t.member, { full_name: "Hook", short_name: "hook", bot_type: 2 });
    assert.equal((await ok(as(t.member).get(`/users/${hook.id}`))).user.bot_type, 2);
    await createBot(t.admin, { full_name: "Admin's", short_name: "admins" });

    await ok(as(t.owner).patch("/realm", { can_create_write_only_bots_group: JSON.stringify({ new: sys.get("role:moderators") }) }));
    await refused(() => as(t.member).post("/bots", { full_name: "Hook 2", short_name: "hook2", bot_type: 2 }), "Insufficient permission");
    await createBot(t.moderator, { full_name: "Hook 3", short_name: "hook3", bot_type: 2 });
  });

  test("an outgoing webhook keeps its URL and interface as its service, with a token of its own", async () => {
    const t = await freshRealm();
    const queues = await queuesFor(t, ["realm_bot"]);
    const bot = await createBot(t.member, { full_name: "Out", short_name: "out", bot_type: 3, payload_url: JSON.stringify("https://example.com/hook"), interface_type: 2 });
    const added = (await heard(queues)).get(t.admin.id)!.find((e) => e.op === "add")!;
    assert.equal(added.bot.user_id, bot.id);
    assert.equal(added.bot.services.length, 1);
    assert.equal(added.bot.services[0].base_url, "https://example.com/hook");
    assert.equal(added.bot.services[0].interface, 2);
    assert.match(added.bot.services[0].token, /^[A-Za-z0-9]{32}$/);
    assert.notEqual(added.bot.services[0].token, bot.apiKey);
    const registered = (await ok(as(t.member).post("/register", { fetch_event_types: ["realm_bot"] }))).realm_bots;
    assert.deepEqual(registered.find((b: Record<string, any>) => b.user_id === bot.id).services, added.bot.services);
  });

  test("default channels: public ones by name, private ones only if the creator may see them; a private one keeps the bot from the administrators", async () => {
    const t = await freshRealm();
    await ok(as(t.member).post("/users/me/subscriptions", { subscriptions: JSON.stringify([{ name: "general" }]) }));
    await ok(as(t.member).post("/users/me/subscriptions", { subscriptions: JSON.stringify([{ name: "secret" }]), invite_only: "true" }));
    await refused(() => as(t.member2).post("/bots", { full_name: "Peek", short_name: "peek", default_sending_stream: "secret" }), "Invalid channel name 'secret'");
    const queues = await queuesFor(t, ["realm_bot"]);
    const body = await ok(
      as(t.member).post("/bots", { full_name: "Quiet", short_name: "quiet", default_sending_stream: "secret", default_events_register_stream: "general", default_all_public_streams: "true" }),
    );
    assert.deepEqual([body.default_sending_stream, body.default_events_register_stream, body.default_all_public_streams], ["secret", "general", true]);
    assert.deepEqual(audience(await heard(queues), (e) => e.op === "add"), [t.member.id]);
  });

  test("a bot's register follows its defaults: its events channel narrows a queue asked without a narrow, and all public channels when it says so", async () => {
    const t = await freshRealm();
    for (const name of ["general", "random", "elsewhere"]) await ok(as(t.member).post("/users/me/subscriptions", { subscriptions: JSON.stringify([{ name }]) }));
    const made = await ok(as(t.member).post("/bots", { full_name: "Listener", short_name: "listener", default_events_register_stream: "general", default_all_public_streams: "true" }));
    const email = (await ok(as(t.member).get("/bots"))).bots.find((b: { api_key: string }) => b.api_key === made.api_key).username;
    const bot = api.as({ email, apiKey: made.api_key });
    await ok(as(t.member).post("/users/me/subscriptions", { subscriptions: JSON.stringify([{ name: "general" }, { name: "random" }]), principals: JSON.stringify([made.user_id]) }));
    const register = async (params: Record<string, unknown> = {}) => (await ok(bot.post("/register", { event_types: ["message"], ...params }))).queue_id as string;
    const own = await register();
    const explicit = await register({ narrow: JSON.stringify([["stream", "random"]]), all_public_streams: "false" });
    const everywhere = await register({ narrow: JSON.stringify([["is", "stream"]]) });
    for (const to of ["random", "general", "elsewhere"]) await ok(as(t.member).post("/messages", { type: "stream", to, topic: "t", content: `to ${to}` }));
    const channelsOf = async (queueId: string) =>
      (await ok(bot.get("/events", { queue_id: queueId, last_event_id: -1, dont_block: true }))).events.filter((e: Record<string, any>) => e.type === "message").map((e: Record<string, any>) => e.message.display_recipient);
    assert.deepEqual(await channelsOf(own), ["general"]);
    assert.deepEqual(await channelsOf(explicit), ["random"]);
    assert.deepEqual(await channelsOf(everywhere), ["random", "general", "elsewhere"], "default_all_public_streams reaches a channel the bot is not in");
  });
});

describe("GET /bots", () => {
  test("lists the caller's own active bots, administrators included; guests and bots are refused", async () => {
    const t = await freshRealm();
    const mine = await createBot(t.member, { full_name: "Mine", short_name: "mine" });
    const gone = await createBot(t.member, { full_name: "Gone", short_name: "gone" });
    await ok(as(t.member).delete(`/bots/${gone.id}`));
    await createBot(t.admin, { full_name: "Admin Bot", short_name: "adminbot" });
    const listed = (await ok(as(t.member).get("/bots"))).bots;
    assert.deepEqual(listed, [
      {
        username: mine.email,
        full_name: "Mine",
        api_key: mine.apiKey,
        avatar_url: listed[0].avatar_url,
        default_sending_stream: null,
        default_events_register_stream: null,
        default_all_public_streams: false,
      },
    ]);
    assert.deepEqual((await ok(as(t.admin).get("/bots"))).bots.map((b: Record<string, any>) => b.full_name), ["Admin Bot"]);
    assert.deepEqual((await ok(as(t.member2).get("/bots"))).bots, []);
    expectError(await as(t.guest).get("/bots"), "Not allowed for guest users");
    expectError(await as(t.bot).get("/bots"), "This endpoint does not accept bot requests.");
  });

  test("POST /register: administrators get every bot in realm_bots, others their own", async () => {
    const t = await freshRealm();
    const mine = await createBot(t.member, { full_name: "Mine", short_name: "mine" });
    const realmBots = async (u: TestUser) =>
      (await ok(as(u).post("/register", { fetch_event_types: ["realm_bot"] }))).realm_bots.map((b: Record<string, any>) => b.user_id).sort();
    assert.deepEqual(await realmBots(t.admin), [t.bot.id, mine.id].sort());
    assert.deepEqual(await realmBots(t.owner), [t.bot.id, mine.id].sort());
    assert.deepEqual(await realmBots(t.member), [mine.id]);
    assert.deepEqual(await realmBots(t.member2), []);
    assert.deepEqual(await realmBots(t.moderator), []);
    // A bot whose owner is gone says so with null, as Zulip's schema has it, rather than leaving the key out.
    await srv.app.db.updateTable("users").set({ bot_owner_id: null }).where("id", "=", t.bot.id).execute();
    const listed = (await ok(as(t.admin).post("/register", { fetch_event_types: ["realm_bot"] }))).realm_bots;
    assert.deepEqual(listed.map((b: Record<string, any>) => [b.user_id, b.owner_id]).sort(), [[t.bot.id, null], [mine.id, t.member.id]].sort());
  });
});

describe("PATCH /bots/{bot_id}", () => {
  test("who may change a bot: its owner and administrators; not other members, guests, bots or another organization", async () => {
    const t = await freshRealm();
    const bot = await createBot(t.member, { full_name: "Mine", short_name: "mine" });
    await refused(() => as(t.member2).patch(`/bots/${bot.id}`, { full_name: "Theirs" }), "Insufficient permission");
    await refused(() => as(t.moderator).patch(`/bots/${bot.id}`, { full_name: "Theirs" }), "Insufficient permission");
    await refused(() => as(t.guest).patch(`/bots/${bot.id}`, { full_name: "Theirs" }), "Not allowed for guest users");
    await refused(() => as(t.bot).patch(`/bots/${bot.id}`, { full_name: "Theirs" }), "This endpoint does not accept bot requests.");
    await refused(() => as(other.admin).patch(`/bots/${bot.id}`, { full_name: "Theirs" }), "No such bot");
    await refused(() => as(t.admin).patch(`/bots/${t.member2.id}`, { full_name: "Theirs" }), "No such bot");
    await refused(() => as(t.admin).patch(`/bots/999999`, { full_name: "Theirs" }), "No such bot");
    await refused(() => as(t.member).patch(`/bots/${bot.id}`, { full_name: t.member2.fullName }), "Name is already in use!");
    await refused(() => as(t.member).patch(`/bots/${bot.id}`, { service_payload_url: JSON.stringify("nope") }), "service_payload_url is not a URL");

    const queues = await queuesFor(t, ["realm_user", "realm_bot"]);
    const renamed = await ok(as(t.member).patch(`/bots/${bot.id}`, { full_name: "Renamed" }));
    assert.equal(renamed.full_name, "Renamed");
    assert.equal(renamed.bot_owner, await apiEmail(t.member));
    const events = await heard(queues);
    assert.deepEqual(audience(events, (e) => e.type === "realm_user" && e.person.full_name === "Renamed"), ids(everyone(t)));
    assert.deepEqual(audience(events, (e) => e.type === "realm_bot" && e.op === "update" && e.bot.full_name === "Renamed"), ids([t.owner, t.admin, t.member]));
    await ok(as(t.owner).patch(`/bots/${bot.id}`, { full_name: "By the owner" }));
    await ok(as(t.admin).patch(`/bots/${bot.id}`, { full_name: "By an admin" }));
  });

  test("giving a bot to another owner: the old owner loses it, the new one gains it, administrators see the new owner", async () => {
    const t = await freshRealm();
    const bot = await createBot(t.member, { full_name: "Mine", short_name: "mine" });
    await refused(() => as(t.member).patch(`/bots/${bot.id}`, { bot_owner_id: 999999 }), "Failed to change owner, no such user");
    await refused(() => as(t.member).patch(`/bots/${bot.id}`, { bot_owner_id: t.bot.id }), "Failed to change owner, bots can't own other bots");
    await refused(() => as(t.member).patch(`/bots/${bot.id}`, { bot_owner_id: other.member.id }), "Failed to change owner, no such user");
    const queues = await queuesFor(t, ["realm_user", "realm_bot"]);
    const r = await ok(as(t.member).patch(`/bots/${bot.id}`, { bot_owner_id: t.member2.id }));
    assert.equal(r.bot_owner, await apiEmail(t.member2));
    const events = await heard(queues);
    assert.deepEqual(audience(events, (e) => e.type === "realm_bot" && e.op === "delete" && e.bot.user_id === bot.id), [t.member.id]);
    assert.deepEqual(audience(events, (e) => e.type === "realm_bot" && e.op === "add" && e.bot.owner_id === t.member2.id), [t.member2.id]);
    assert.deepEqual(audience(events, (e) => e.type === "realm_bot" && e.op === "update" && e.bot.owner_id === t.member2.id), ids([t.owner, t.admin]));
    assert.deepEqual(audience(events, (e) => e.type === "realm_user" && e.person.bot_owner_id === t.member2.id), ids(everyone(t)));
    // The old owner no longer administers it.
    expectError(await as(t.member).patch(`/bots/${bot.id}`, { full_name: "Back" }), "Insufficient permission");

    await ok(as(t.admin).delete(`/users/${t.member.id}`));
    await refused(() => as(t.admin).patch(`/bots/${bot.id}`, { bot_owner_id: t.member.id }), "Failed to change owner, user is deactivated");
  });

  test("roles: only administrators change a bot's role, only owners to or from owner", async () => {
    const t = await freshRealm();
    const bot = await createBot(t.member, { full_name: "Mine", short_name: "mine" });
    await refused(() => as(t.member).patch(`/bots/${bot.id}`, { role: 300 }), "Must be an organization administrator", "UNAUTHORIZED_PRINCIPAL");
    await refused(() => as(t.admin).patch(`/bots/${bot.id}`, { role: 100 }), "Must be an organization owner", "UNAUTHORIZED_PRINCIPAL");
    await ok(as(t.admin).patch(`/bots/${bot.id}`, { role: 200 }));
    assert.equal((await ok(as(t.member).get(`/users/${bot.id}`))).user.role, 200);
  });

  test("default channels, the outgoing service and configuration; each change reaches the bot's administrators", async () => {
    const t = await freshRealm();
    await ok(as(t.member).post("/users/me/subscriptions", { subscriptions: JSON.stringify([{ name: "general" }, { name: "news" }]) }));
    await ok(as(t.member).post("/users/me/subscriptions", { subscriptions: JSON.stringify([{ name: "secret" }]), invite_only: "true" }));
    const bot = await createBot(t.member, { full_name: "Out", short_name: "out", bot_type: 3, payload_url: JSON.stringify("https://example.com/a") });
    const queues = await queuesFor(t, ["realm_bot"]);
    const r = await ok(
      as(t.member).patch(`/bots/${bot.id}`, {
        default_sending_stream: "general",
        default_events_register_stream: "news",
        default_all_public_streams: "true",
        service_payload_url: JSON.stringify("https://example.com/b"),
        service_interface: 2,
      }),
    );
    assert.deepEqual(
      [r.default_sending_stream, r.default_events_register_stream, r.default_all_public_streams, r.service_payload_url, r.service_interface, r.config_data],
      ["general", "news", true, "https://example.com/b", 2, null],
    );
    const events = (await heard(queues)).get(t.admin.id)!.map((e) => e.bot);
    assert.deepEqual(events.slice(0, 3), [
      { user_id: bot.id, default_sending_stream: "general" },
      { user_id: bot.id, default_events_register_stream: "news" },
      { user_id: bot.id, default_all_public_streams: true },
    ]);
    assert.equal(events[3].services[0].base_url, "https://example.com/b");
    assert.equal(events[3].services[0].interface, 2);

    await refused(() => as(t.member).patch(`/bots/${bot.id}`, { service_payload_url: JSON.stringify("https://example.com/c"), service_interface: 5 }), "Invalid interface type");
    await refused(() => as(t.member2).patch(`/bots/${bot.id}`, { default_sending_stream: "secret" }), "Insufficient permission");

    // Once its default channel is private, only the owner hears of the bot.
    const queues2 = await queuesFor(t, ["realm_bot"]);
    await ok(as(t.member).patch(`/bots/${bot.id}`, { default_sending_stream: "secret" }));
    await ok(as(t.member).patch(`/bots/${bot.id}`, { full_name: "Out 2" }));
    assert.deepEqual(audience(await heard(queues2), (e) => e.op === "update"), [t.member.id]);
    const cleared = await ok(as(t.member).patch(`/bots/${bot.id}`, { default_sending_stream: "" }));
    assert.equal(cleared.default_sending_stream, null);
  });
});

test("configuration entries: kept beside the integration an incoming webhook bot was made for, each within Zulip's size limit", async () => {
  const t = await freshRealm();
  const bot = await createBot(t.member, { full_name: "Hook", short_name: "hook", bot_type: 2, service_name: "github" });
  await refused(() => as(t.member).patch(`/bots/${bot.id}`, { config_data: JSON.stringify({ key: "v".repeat(10_000) }) }),
    "Cannot store configuration. Request would require 10003 characters. The current configuration size limit is 10000 characters.");
  const queues = await queuesFor(t, ["realm_bot"]);
  const r = await ok(as(t.member).patch(`/bots/${bot.id}`, { config_data: JSON.stringify({ token: "abc" }) }));
  assert.deepEqual(r.config_data, { token: "abc" });
  const events = await heard(queues);
  assert.deepEqual(audience(events, (e) => e.op === "update"), ids([t.owner, t.admin, t.member]));
  assert.deepEqual(events.get(t.member.id)![0].bot, { user_id: bot.id, services: [{ config_data: { integration_id: "github", token: "abc" } }] });
});

describe("DELETE /bots/{bot_id} and reactivation", () => {
  test("the owner deactivates the bot: its key stops working, its administrators see it inactive; reactivation brings it back", async () => {
    const t = await freshRealm();
    const bot = await createBot(t.member, { full_name: "Mine", short_name: "mine" });
    await refused(() => as(t.member2).delete(`/bots/${bot.id}`), "Insufficient permission");
    await refused(() => as(t.guest).delete(`/bots/${bot.id}`), "Insufficient permission");
    await refused(() => as(other.owner).delete(`/bots/${bot.id}`), "No such bot");
    await refused(() => as(t.owner).delete(`/bots/${t.member.id}`), "No such bot");

    const queues = await queuesFor(t, ["realm_user", "realm_bot"]);
    await ok(as(t.member).delete(`/bots/${bot.id}`));
    const events = await heard(queues);
    assert.deepEqual(audience(events, (e) => e.type === "realm_user" && e.person.is_active === false), ids(everyone(t)));
    assert.deepEqual(audience(events, (e) => e.type === "realm_bot" && e.op === "update" && e.bot.is_active === false), ids([t.owner, t.admin, t.member]));
    expectError(await api.as(bot).get("/users/me"), "Account is deactivated", "UNAUTHORIZED", 401);
    // A second deactivation changes nothing.
    log.notices.length = 0;
    await ok(as(t.admin).delete(`/bots/${bot.id}`));
    assert.deepEqual(log.notices, []);

    await ok(as(t.member).post(`/users/${bot.id}/reactivate`));
    expectSuccess(await api.as(bot).get("/users/me"));
    await ok(as(t.admin).delete(`/bots/${bot.id}`));
  });

  test("a bot whose owner left comes back owned by whoever reactivates it", async () => {
    const t = await freshRealm();
    const bot = await createBot(t.member, { full_name: "Mine", short_name: "mine" });
    await ok(as(t.admin).delete(`/users/${t.member.id}`));
    assert.equal((await ok(as(t.admin).get(`/users/${bot.id}`))).user.is_active, false, "a person's bots leave with them");
    const stayed = everyone(t).filter((u) => u !== t.member);
    const queues = await queuesFor(t, ["realm_user", "realm_bot"], stayed);
    await ok(as(t.admin).post(`/users/${bot.id}/reactivate`));
    assert.equal((await ok(as(t.owner).get(`/users/${bot.id}`))).user.bot_owner_id, t.admin.id);
    const events = await heard(queues);
    assert.deepEqual(audience(events, (e) => e.type === "realm_bot" && e.op === "update" && e.bot.owner_id === t.admin.id), ids([t.owner, t.admin]));
    assert.deepEqual(audience(events, (e) => e.type === "realm_user" && e.person.bot_owner_id === t.admin.id), ids(stayed));
    assert.deepEqual(audience(events, (e) => e.type === "realm_bot" && e.op === "add"), []);
  });

  test("reactivating a bot whose name an active user took is refused", async () => {
    const t = await freshRealm();
    const bot = await createBot(t.member, { full_name: "Mine", short_name: "mine" });
    await ok(as(t.member).delete(`/bots/${bot.id}`));
    await createBot(t.member, { full_name: "Mine", short_name: "mine2" });
    expectError(
      await as(t.member).post(`/users/${bot.id}/reactivate`),
      'There is already an active bot named "Mine" in this organization. To reactivate this bot, you must rename or deactivate the other one first.',
    );
  });
});

describe("POST /bots/{bot_id}/api_key/regenerate", () => {
  test("a new key for the bot's administrators: the old one stops working", async () => {
    const t = await freshRealm();
    const bot = await createBot(t.member, { full_name: "Mine", short_name: "mine" });
    await refused(() => as(t.member2).post(`/bots/${bot.id}/api_key/regenerate`), "Insufficient permission");
    await refused(() => as(t.guest).post(`/bots/${bot.id}/api_key/regenerate`), "Not allowed for guest users");
    await refused(() => as(t.bot).post(`/bots/${bot.id}/api_key/regenerate`), "This endpoint does not accept bot requests.");
    await refused(() => as(other.admin).post(`/bots/${bot.id}/api_key/regenerate`), "No such bot");
    const queues = await queuesFor(t, ["realm_bot"]);
    const { api_key } = await ok(as(t.member).post(`/bots/${bot.id}/api_key/regenerate`));
    assert.match(api_key, /^[A-Za-z0-9]{32}$/);
    assert.notEqual(api_key, bot.apiKey);
    const events = await heard(queues);
    assert.deepEqual(audience(events, (e) => e.bot.api_key === api_key), ids([t.owner, t.admin, t.member]));
    expectError(await api.as(bot).get("/users/me"), "Invalid API key", "UNAUTHORIZED", 401);
    expectSuccess(await api.as({ email: bot.email, apiKey: api_key }).get("/users/me"));
    const byAdmin = await ok(as(t.admin).post(`/bots/${bot.id}/api_key/regenerate`));
    assert.notEqual(byAdmin.api_key, api_key);
  });
});

describe("Authentication with a bot's key", () => {
  test("incoming webhook bots may send messages and nothing else; other bots use the whole API", async () => {
    const t = await freshRealm();
    await ok(as(t.member).post("/users/me/subscriptions", { subscriptions: JSON.stringify([{ name: "general" }]) }));
    const hook = await createBot(t.member, { full_name: "Hook", short_name: "hook", bot_type: 2 });
    const generic = await createBot(t.member, { full_name: "Generic", short_name: "generic" });
    const refusedHook = await api.as(hook).get("/users/me");
    expectError(refusedHook, "This API is not available to incoming webhook bots.", "UNAUTHORIZED", 401);
    assert.equal(refusedHook.headers.get("www-authenticate"), 'Basic realm="zulip"');
    expectError(await api.as(hook).get("/bot_storage"), "This API is not available to incoming webhook bots.", "UNAUTHORIZED", 401);
    const sent = await ok(api.as(hook).post("/messages", { type: "stream", to: "general", topic: "alerts", content: "Disk full" }));
    assert.equal(typeof sent.id, "number");
    expectSuccess(await api.as(generic).get("/users/me"));
    // Zulip's Basic-auth decorator answers a wrong key with UNAUTHORIZED, not the key's own INVALID_API_KEY.
    expectError(await api.as({ email: hook.email, apiKey: "x".repeat(32) }).post("/messages", {}), "Invalid API key", "UNAUTHORIZED", 401);
  });
});

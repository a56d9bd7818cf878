/**
 * A user's settings for their own subscriptions (POST /users/me/subscriptions/properties), bulk
 * subscription changes (PATCH /users/me/subscriptions), subscription status and channel email
 * addresses, through real HTTP and event queues.
 */
import { test, before, after, describe } from "node:test";
import assert from "node:assert/strict";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { Api } from "../helpers/client.js";
import { createTestRealm, type TestRealm, type TestUser } from "../helpers/realm.js";
import { expectError, expectSuccess } from "../helpers/expect.js";
import { streamIdOf, ok } from "../helpers/channels.js";
import { runAction } from "../../src/actions/run.js";
import { createStreamInTx } from "../../src/actions/streams.js";
import { createUserInTx } from "../../src/actions/users.js";
import { addSubscriptions } from "../../src/store/subscriptions.js";
import { systemGroupIds } from "../../src/store/groups.js";
import { Role } from "../../src/domain/roles.js";

let srv: TestServer;
let t: TestRealm;
let o: TestRealm;
/** Public; every test user of `t` is subscribed. */
let lounge: number;
/** Public; nobody is subscribed. */
let quiet: number;
/** Private; only member2 is subscribed. */
let secret: number;
let otherRealmChannel: number;
let roles: [string, TestUser][];

const api = (u: TestUser) => new Api(srv.url, u);
type Ev = Record<string, unknown>;

async function register(u: TestUser, eventTypes: string[], fetch?: string[]) {
  return ok(api(u).post("/register", { event_types: eventTypes, fetch_event_types: fetch }));
}

/** Everything queued for the queue so far, without waiting. */
async function drain(u: TestUser, queueId: string): Promise<Ev[]> {
  const body = await ok(api(u).get("/events", { queue_id: queueId, last_event_id: -1, dont_block: true }));
  return body.events.filter((e: Ev) => e.type !== "heartbeat");
}

const setProps = (u: TestUser, data: unknown[]) => api(u).post("/users/me/subscriptions/properties", { subscription_data: data });

async function mySub(u: TestUser, streamId: number): Promise<Record<string, any>> {
  const body = await ok(api(u).get("/users/me/subscriptions"));
  return body.subscriptions.find((s: { stream_id: number }) => s.stream_id === streamId);
}

async function subRow(userId: number, streamId: number) {
  return srv.app.db.selectFrom("subscriptions").selectAll().where("user_id", "=", userId).where("stream_id", "=", streamId).executeTakeFirst();
}

before(async () => {
  srv = await startTestServer();
  t = await createTestRealm(srv.app);
  o = await createTestRealm(srv.app, "other");
  roles = [
    ["owner", t.owner],
    ["admin", t.admin],
    ["moderator", t.moderator],
    ["member", t.member],
    ["guest", t.guest],
    ["bot", t.bot],
  ];
  const everyone = [t.owner, t.admin, t.moderator, t.member, t.member2, t.guest, t.bot].map((u) => u.id);
  [lounge, quiet, secret] = await runAction(srv.app, async (tx) => {
    const a = await createStreamInTx(tx, srv.app, t.realm, null, { name: "lounge" });
    const b = await createStreamInTx(tx, srv.app, t.realm, null, { name: "quiet" });
    const c = await createStreamInTx(tx, srv.app, t.realm, null, { name: "secret", inviteOnly: true });
    await addSubscriptions(tx, a.id, everyone);
    await addSubscriptions(tx, c.id, [t.member2.id]);
    return [a.id, b.id, c.id];
  });
  otherRealmChannel = await streamIdOf(srv.app, o.realm.id, "general");
  await addSubscriptions(srv.app.db, otherRealmChannel, [o.member.id]);
});
after(() => srv.close());

describe("POST /users/me/subscriptions/properties", () => {
  test("every role changes its own settings; the values show in GET /users/me/subscriptions", async () => {
    for (const [role, u] of roles) {
      await ok(
        setProps(u, [
          { stream_id: lounge, property: "color", value: "#abc123" },
          { stream_id: lounge, property: "pin_to_top", value: true },
          { stream_id: lounge, property: "desktop_notifications", value: false },
          { stream_id: lounge, property: "audible_notifications", value: true },
          { stream_id: lounge, property: "push_notifications", value: false },
          { stream_id: lounge, property: "email_notifications", value: true },
          { stream_id: lounge, property: "wildcard_mentions_notify", value: false },
          { stream_id: lounge, property: "is_muted", value: true },
        ]),
      );
      const sub = await mySub(u, lounge);
      assert.deepEqual(
        [sub.color, sub.pin_to_top, sub.desktop_notifications, sub.audible_notifications, sub.push_notifications],
        ["#abc123", true, false, true, false],
        role,
      );
      assert.deepEqual([sub.email_notifications, sub.wildcard_mentions_notify, sub.is_muted, sub.in_home_view], [true, false, true, false], role);
      // in_home_view is the inverse of is_muted.
      await ok(setProps(u, [{ stream_id: lounge, property: "in_home_view", value: true }]));
      assert.equal((await mySub(u, lounge)).is_muted, false, role);
    }
    // Another user's settings for the same channel are untouched.
    const other = await mySub(t.member2, lounge);
    assert.equal(other.pin_to_top, false);
    assert.equal(other.desktop_notifications, null);
  });

  test("the changes reach only the user's own queue, muting under both names, in_home_view first", async () => {
    const mine = await register(t.member, ["subscription"]);
    const theirs = await register(t.member2, ["subscription"]);
    await ok(
      setProps(t.member, [
        { stream_id: lounge, property: "is_muted", value: true },
        { stream_id: lounge, property: "color", value: "#F00" },
        { stream_id: lounge, property: "in_home_view", value: true },
        { stream_id: lounge, property: "push_notifications", value: true },
      ]),
    );
    const ev = (property: string, value: unknown) => ({ type: "subscription", op: "update", property, value, stream_id: lounge });
    assert.deepEqual(
      (await drain(t.member, mine.queue_id)).map(({ id: _id, ...e }) => e),
      [
        ev("in_home_view", false),
        ev("is_muted", true),
        ev("color", "#F00"),
        ev("in_home_view", true),
        ev("is_muted", false),
        ev("push_notifications", true),
      ],
    );
    assert.deepEqual(await drain(t.member2, theirs.queue_id), []);
  });

  test("POST /register shows the stored values in `subscriptions`", async () => {
    await ok(setProps(t.moderator, [
      { stream_id: lounge, property: "color", value: "#123456" },
      { stream_id: lounge, property: "is_muted", value: true },
      { stream_id: lounge, property: "email_notifications", value: false },
    ]));
    const state = await register(t.moderator, ["subscription"]);
    const sub = state.subscriptions.find((s: { stream_id: number }) => s.stream_id === lounge);
    assert.deepEqual([sub.color, sub.is_muted, sub.in_home_view, sub.email_notifications], ["#123456", true, false, false]);
  });

  test("a user of another organization cannot reach this organization's channels", async () => {
    expectError(await setProps(o.member, [{ stream_id: lounge, property: "pin_to_top", value: true }]), "Invalid channel ID");
    await ok(setProps(o.member, [{ stream_id: otherRealmChannel, property: "pin_to_top", value: true }]));
    expectError(await setProps(t.member, [{ stream_id: otherRealmChannel, property: "pin_to_top", value: true }]), "Invalid channel ID");
  });

  test("Zulip's errors, in order, and nothing stored or sent when any change is refused", async () => {
    const before = await subRow(t.member.id, lounge);
    const q = await register(t.member, ["subscription"]);
    const good = { stream_id: lounge, property: "pin_to_top", value: true };
    const cases: [unknown[], string][] = [
      [[good, { stream_id: lounge, property: "color", value: "3ffrff" }], "Invalid subscription_data[1]: Value error, color is not a valid hex color code"],
      [[{ stream_id: lounge, property: "color", value: false }], "Invalid subscription_data[0]: Value error, color is not a valid hex color code"],
      [[{ stream_id: lounge, property: "color", value: "#1234567" }], "Invalid subscription_data[0]: Value error, color is not a valid hex color code"],
      [[{ stream_id: lounge, property: "bad", value: "bad" }], "Unknown subscription property: bad"],
      [[{ stream_id: lounge, property: "in_home_view", value: "bad" }], "in_home_view is not a boolean"],
      [[{ stream_id: lounge, property: "wildcard_mentions_notify", value: "true" }], "wildcard_mentions_notify is not a boolean"],
      [[good, { stream_id: quiet, property: "pin_to_top", value: true }], `Not subscribed to channel ID ${quiet}`],
      [[{ stream_id: quiet, property: "pin_to_top", value: true }, { stream_id: lounge, property: "bad", value: true }], "Unknown subscription property: bad"],
      [[good, { stream_id: secret, property: "pin_to_top", value: true }], "Invalid channel ID"],
      [[{ stream_id: 987654, property: "pin_to_top", value: true }], "Invalid channel ID"],
      [[{ stream_id: 2 ** 40, property: "pin_to_top", value: true }], "Invalid channel ID"],
      [[{ stream_id: lounge, property: "desktop_notifications", value: null }], 'Invalid subscription_data[0]["value"]'],
      [[{ stream_id: lounge, property: "pin_to_top", value: 1 }], 'Invalid subscription_data[0]["value"]'],
      [[{ stream_id: "x", property: "pin_to_top", value: true }], 'subscription_data[0]["stream_id"] is not an integer'],
    ];
    for (const [data, msg] of cases) expectError(await setProps(t.member, data), msg);
    expectError(await api(t.member).post("/users/me/subscriptions/properties", {}), "Missing 'subscription_data' argument", "REQUEST_VARIABLE_MISSING");
    assert.deepEqual(await subRow(t.member.id, lounge), before);
    assert.deepEqual(await drain(t.member, q.queue_id), []);
  });

  test("a guest's public channel it is not subscribed to is an invalid channel", async () => {
    expectError(await setProps(t.guest, [{ stream_id: quiet, property: "pin_to_top", value: true }]), "Invalid channel ID");
  });

  test("the older one-setting form POST /users/me/subscriptions/{stream_id} does the same", async () => {
    const q = await register(t.admin, ["subscription"]);
    await ok(api(t.admin).post(`/users/me/subscriptions/${lounge}`, { property: "color", value: "#0a0b0c" }));
    await ok(api(t.admin).post(`/users/me/subscriptions/${lounge}`, { property: "pin_to_top", value: "false" }));
    const sub = await mySub(t.admin, lounge);
    assert.deepEqual([sub.color, sub.pin_to_top], ["#0a0b0c", false]);
    assert.deepEqual(
      (await drain(t.admin, q.queue_id)).map((e) => [e.property, e.value]),
      [
        ["color", "#0a0b0c"],
        ["pin_to_top", false],
      ],
    );
    expectError(await api(t.admin).post(`/users/me/subscriptions/${lounge}`, { property: "pin_to_top", value: "yes" }), "pin_to_top is not a boolean");
    expectError(await api(t.admin).post(`/users/me/subscriptions/${quiet}`, { property: "pin_to_top", value: "true" }), `Not subscribed to channel ID ${quiet}`);
    expectError(await api(t.admin).post(`/users/me/subscriptions/${lounge}`, { property: "pin_to_top" }), "Missing 'value' argument", "REQUEST_VARIABLE_MISSING");
  });

  test("unknown parameters are reported as ignored", async () => {
    const r = await api(t.member).post("/users/me/subscriptions/properties", {
      subscription_data: [{ stream_id: lounge, property: "pin_to_top", value: false }],
      invalid_parameter: "x",
    });
    assert.deepEqual(r.body, { result: "success", msg: "", ignored_parameters_unsupported: ["invalid_parameter"] });
  });
});

describe("PATCH /users/me/subscriptions", () => {
  test("adds and removes in one request, with both results and a color for the new subscription", async () => {
    const r = await ok(api(t.member).patch("/users/me/subscriptions", { add: [{ name: "quiet", color: "#e79ab5" }, { name: "lounge" }], delete: ["lounge"] }));
    assert.deepEqual(
      [r.subscribed, r.already_subscribed, r.removed, r.not_removed, r.new_subscription_messages_sent],
      [{ [t.member.id]: ["quiet"] }, { [t.member.id]: ["lounge"] }, ["lounge"], [], true],
    );
    assert.equal((await subRow(t.member.id, quiet))!.color, "#e79ab5");
    assert.equal((await subRow(t.member.id, lounge))!.active, 0);
    const again = await ok(api(t.member).patch("/users/me/subscriptions", { add: [{ name: "lounge" }], delete: ["quiet"] }));
    assert.deepEqual([again.subscribed, again.removed], [{ [t.member.id]: ["lounge"] }, ["quiet"]]);
    const notSubscribed = await ok(api(t.member).patch("/users/me/subscriptions", { delete: ["quiet"] }));
    assert.deepEqual([notSubscribed.subscribed, notSubscribed.already_subscribed, notSubscribed.removed, notSubscribed.not_removed], [{}, {}, [], ["quiet"]]);
  });

  test("sends the subscribe and unsubscribe events to the user's queue", async () => {
    const q = await register(t.member2, ["subscription"]);
    await ok(api(t.member2).patch("/users/me/subscriptions", { add: [{ name: "quiet" }], delete: ["lounge"] }));
    const events = await drain(t.member2, q.queue_id);
    assert.deepEqual(
      events.filter((e) => e.op === "add" || e.op === "remove").map((e) => [e.op, (e.subscriptions as { stream_id: number }[]).map((s) => s.stream_id)]),
      [
        ["add", [quiet]],
        ["remove", [lounge]],
      ],
    );
    await ok(api(t.member2).patch("/users/me/subscriptions", { add: [{ name: "lounge" }], delete: ["quiet"] }));
  });

  test("creates missing channels like POST does, for the roles allowed to", async () => {
    for (const [role, u] of roles.filter(([r]) => r !== "guest")) {
      const r = await ok(api(u).patch("/users/me/subscriptions", { add: [{ name: `made by ${role}` }] }));
      assert.deepEqual(r.subscribed, { [u.id]: [`made by ${role}`] }, role);
    }
  });

  test("refusals leave everything as it was: a failing delete undoes the add", async () => {
    const count = async () => (await srv.app.db.selectFrom("subscriptions").selectAll().where("active", "=", 1).execute()).length;
    const channels = async () => (await srv.app.db.selectFrom("streams").select("id").execute()).length;
    const before = [await count(), await channels()];
    expectError(await api(t.member).patch("/users/me/subscriptions", { add: [{ name: "quiet" }, { name: "brand new" }], delete: ["no such channel"] }), "Channel(s) (no such channel) do not exist");
    expectError(await api(t.member).patch("/users/me/subscriptions", {}), 'Nothing to do. Specify at least one of "add" or "delete".');
    expectError(await api(t.member).patch("/users/me/subscriptions", { add: [], delete: [] }), 'Nothing to do. Specify at least one of "add" or "delete".');
    expectError(await api(t.guest).patch("/users/me/subscriptions", { delete: ["lounge"] }), "Not allowed for guest users");
    expectError(await api(t.guest).patch("/users/me/subscriptions", { add: [{ name: "lounge" }] }), "Not allowed for guest users");
    expectError(await api(t.member).patch("/users/me/subscriptions", { add: [{ name: "secret" }] }), "Unable to access channel (secret).");
    expectError(
      await api(t.member).patch("/users/me/subscriptions", { add: [{ name: "quiet", color: "red" }] }),
      "Invalid add[0]: Value error, add.color is not a valid hex color code",
    );
    assert.deepEqual([await count(), await channels()], before);
  });
});

describe("GET /users/{user_id}/subscriptions/{stream_id}", () => {
  const status = (u: TestUser, userId: number, streamId: number) => api(u).get(`/users/${userId}/subscriptions/${streamId}`);

  test("every role can check a channel it can see", async () => {
    for (const [role, u] of roles) {
      assert.deepEqual((await ok(status(u, t.owner.id, lounge))).is_subscribed, true, role);
      assert.deepEqual(await ok(status(u, t.owner.id, lounge)), { result: "success", msg: "", is_subscribed: true }, role);
      if (role !== "guest") assert.equal((await ok(status(u, t.member2.id, quiet))).is_subscribed, false, role);
    }
  });

  test("a private channel: its subscribers and administrators may ask, others get an invalid channel", async () => {
    assert.equal((await ok(status(t.member2, t.member2.id, secret))).is_subscribed, true);
    assert.equal((await ok(status(t.admin, t.member2.id, secret))).is_subscribed, true);
    assert.equal((await ok(status(t.owner, t.member.id, secret))).is_subscribed, false);
    for (const u of [t.moderator, t.member, t.guest, t.bot]) expectError(await status(u, t.member2.id, secret), "Invalid channel ID");
    expectError(await status(t.guest, t.member.id, quiet), "Invalid channel ID");
  });

  test("users must exist in the caller's organization, be active and not be bots", async () => {
    expectError(await status(t.member, 987654, lounge), "No such user");
    expectError(await status(t.member, 2 ** 40, lounge), "No such user");
    expectError(await status(t.member, o.member.id, lounge), "No such user");
    expectError(await status(t.member, t.bot.id, lounge), "No such user");
    expectError(await status(o.member, t.member.id, lounge), "No such user");
    expectError(await status(o.member, o.member.id, lounge), "Invalid channel ID");
    expectError(await status(t.member, t.member.id, 2 ** 40), "Invalid channel ID");
    const gone = await runAction(srv.app, (tx) =>
      createUserInTx(tx, srv.app, t.realm, { email: "gone@zulip.example.com", fullName: "Gone", role: Role.MEMBER }),
    );
    await srv.app.db.updateTable("users").set({ is_active: 0 }).where("id", "=", gone.id).execute();
    expectError(await status(t.member, gone.id, lounge), "User is deactivated");
  });

  test("a guest who may not see everyone cannot ask about people it cannot see", async () => {
    const original = t.realm.groupSettings;
    const members = (await systemGroupIds(srv.app.db, t.realm.id)).get("role:members")!;
    await srv.app.db.updateTable("realms").set({ group_settings: JSON.stringify({ ...original, can_access_all_users_group: members }) }).where("id", "=", t.realm.id).execute();
    const stranger = await runAction(srv.app, (tx) =>
      createUserInTx(tx, srv.app, t.realm, { email: "stranger@zulip.example.com", fullName: "Stranger", role: Role.MEMBER }),
    );
    await srv.app.db.deleteFrom("subscriptions").where("user_id", "=", stranger.id).execute();
    try {
      expectError(await status(t.guest, stranger.id, lounge), "Insufficient permission");
      // Sharing a channel makes the other user visible.
      assert.equal((await ok(status(t.guest, t.member2.id, lounge))).is_subscribed, true);
    } finally {
      await srv.app.db.updateTable("realms").set({ group_settings: JSON.stringify(original) }).where("id", "=", t.realm.id).execute();
    }
  });
});

describe("GET /streams/{stream_id}/email_address", () => {
  const address = (u: TestUser, streamId: number, senderId?: number) => api(u).get(`/streams/${streamId}/email_address`, { sender_id: senderId });

  test("without an email gateway the address is empty, as Zulip returns it", async () => {
    assert.deepEqual(await ok(address(t.member, lounge)), { result: "success", msg: "", email: "" });
  });

  test("with a gateway: a stable token per channel, sender and asker, in Zulip's format", async () => {
    srv.app.config.emailGatewayPattern = "%s@streams.example.com";
    try {
      const pattern = /^lounge\.([0-9a-f]{32})\.show-sender@streams\.example\.com$/;
      for (const [role, u] of roles) {
        const first = (await ok(address(u, lounge))).email as string;
        assert.match(first, pattern, role);
        assert.equal((await ok(address(u, lounge))).email, first, role);
      }
      const gateway = await srv.app.db.selectFrom("users").select("id").where("realm_id", "=", t.realm.id).where("email", "=", "emailgateway@zulip.com").executeTakeFirstOrThrow();
      const byDefault = (await ok(address(t.owner, lounge))).email;
      assert.equal((await ok(address(t.owner, lounge, gateway.id))).email, byDefault);
      const asSelf = (await ok(address(t.owner, lounge, t.owner.id))).email;
      const asBot = (await ok(address(t.owner, lounge, t.bot.id))).email;
      assert.equal(new Set([byDefault, asSelf, asBot]).size, 3);
      // An administrator may use any bot.
      assert.match((await ok(address(t.admin, lounge, t.bot.id))).email, pattern);
      const stored = await srv.app.db.selectFrom("channel_email_addresses").selectAll().where("stream_id", "=", lounge).where("sender_id", "=", t.bot.id).where("creator_id", "=", t.owner.id).execute();
      assert.equal(stored.length, 1);
      assert.equal(asBot, `lounge.${stored[0].email_token}.show-sender@streams.example.com`);
    } finally {
      srv.app.config.emailGatewayPattern = undefined;
    }
  });

  test("senders: only oneself, Email Gateway or a bot one may administer", async () => {
    expectError(await address(t.member, lounge, t.bot.id), "Insufficient permission");
    expectError(await address(t.member, lounge, t.member2.id), "No such bot");
    expectError(await address(t.member, lounge, 987654), "No such bot");
    expectError(await address(t.member, lounge, o.bot.id), "No such bot");
    expectError(await address(t.member, lounge, -1), "sender_id is too small");
  });

  test("the channel's content must be accessible", async () => {
    expectError(await address(t.member, secret), "Invalid channel ID");
    expectError(await address(t.admin, secret), "Invalid channel ID");
    expectError(await address(t.guest, quiet), "Invalid channel ID");
    expectError(await address(o.member, lounge), "Invalid channel ID");
    expectError(await address(t.member, 2 ** 40), "Invalid channel ID");
    expectSuccess(await address(t.member2, secret));
    expectSuccess(await address(t.member, quiet));
  });
});

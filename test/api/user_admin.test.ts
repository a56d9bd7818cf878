/**
 * Administering users over HTTP: PATCH /users/{id}, deactivation and reactivation, with the
 * permission matrix, Zulip's error texts, all-or-nothing requests and who hears of each change.
 */
import { test, before, after, describe } from "node:test";
import assert from "node:assert/strict";
import { ManualClock, startTestServer, type TestServer } from "../helpers/server.js";
import { Api, type ApiResponse, type ParamValue } from "../helpers/client.js";
import { createTestRealm, type TestRealm, type TestUser } from "../helpers/realm.js";
import { logEventsPerTest, type EventLog } from "../helpers/events.js";
import { expectError, expectRefusedUnchanged, expectSuccess } from "../helpers/expect.js";
import { restrictUserAccessToMembers } from "../helpers/event_queues.js";
import { runAction } from "../../src/actions/run.js";
import { createUserInTx } from "../../src/actions/users.js";
import { setUserProp } from "../../src/store/users.js";
import { systemGroupIds } from "../../src/store/groups.js";
import { Role } from "../../src/domain/roles.js";

let srv: TestServer;
let api: Api;
let log: EventLog;
let other: TestRealm;
const clock = new ManualClock(1_700_000_000);

const as = (u: TestUser) => api.as(u);
const idsOf = (r: TestRealm) => [r.owner, r.admin, r.moderator, r.member, r.member2, r.guest, r.bot].map((u) => u.id).sort((a, b) => a - b);

before(async () => {
  srv = await startTestServer({}, { clock });
  api = new Api(srv.url);
  other = await createTestRealm(srv.app, "other");
});
after(() => srv.close());
logEventsPerTest(() => srv, (l) => (log = l));

let realms = 0;
/** Each test that changes users gets an organization of its own. */
async function freshRealm(): Promise<TestRealm> {
  return createTestRealm(srv.app, `org${++realms}`);
}

async function userRow(id: number) {
  return srv.app.db.selectFrom("users").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
}

/** A bot owned by `owner`, made the way the server makes them. */
async function botOf(t: TestRealm, owner: TestUser, name = "Helper Bot"): Promise<TestUser> {
  return runAction(srv.app, async (tx) => {
    const u = await createUserInTx(tx, srv.app, t.realm, {
      email: `bot-${owner.id}-${name.length}@${t.realm.string_id}.example.com`,
      fullName: name,
      role: Role.MEMBER,
      isBot: true,
      botOwnerId: owner.id,
    });
    return { id: u.id, email: u.delivery_email, apiKey: u.api_key, role: Role.MEMBER, fullName: name };
  });
}

const refusedUnchanged = (userIds: number[], attempt: () => Promise<ApiResponse>, msg: string, code?: string) =>
  expectRefusedUnchanged(() => Promise.all(userIds.map(userRow)), log, attempt, msg, code);

describe("PATCH /users/{id}: who may change whom", () => {
  test("administrators change anyone; a bot's owner changes that bot; nobody else", async () => {
    const t = await freshRealm();
    expectSuccess(await as(t.owner).patch(`/users/${t.member.id}`, { full_name: "By Owner" }));
    expectSuccess(await as(t.admin).patch(`/users/${t.member.id}`, { full_name: "By Admin" }));
    expectSuccess(await as(t.admin).patch(`/users/${t.owner.id}`, { full_name: "Owner Renamed" }));
    for (const u of [t.moderator, t.member2, t.guest, t.bot]) {
      await refusedUnchanged([t.member.id], () => as(u).patch(`/users/${t.member.id}`, { full_name: "Nope" }), "Insufficient permission");
    }
    await refusedUnchanged([t.member.id], () => as(other.owner).patch(`/users/${t.member.id}`, { full_name: "Nope" }), "No such user");
    expectError(await as(t.owner).patch("/users/999999", { full_name: "Nope" }), "No such user");

    const helper = await botOf(t, t.member);
    expectSuccess(await as(t.member).patch(`/users/${helper.id}`, { full_name: "Renamed Bot" }));
    assert.equal((await userRow(helper.id)).full_name, "Renamed Bot");
    await refusedUnchanged([helper.id], () => as(t.member).patch(`/users/${helper.id}`, { role: Role.MODERATOR }), "Must be an organization administrator", "UNAUTHORIZED_PRINCIPAL");
    await refusedUnchanged([helper.id], () => as(t.member2).patch(`/users/${helper.id}`, { full_name: "Not yours" }), "Insufficient permission");
  });

  test("deactivated users can still be changed", async () => {
    const t = await freshRealm();
    expectSuccess(await as(t.admin).delete(`/users/${t.member.id}`));
    expectSuccess(await as(t.admin).patch(`/users/${t.member.id}`, { full_name: "Gone But Renamed" }));
    assert.equal((await userRow(t.member.id)).full_name, "Gone But Renamed");
  });
});

describe("PATCH /users/{id}: role", () => {
  test("only owners add or remove the owner role; the only owner keeps it", async () => {
    const t = await freshRealm();
    await refusedUnchanged([t.member.id], () => as(t.admin).patch(`/users/${t.member.id}`, { role: Role.OWNER }), "Must be an organization owner", "UNAUTHORIZED_PRINCIPAL");
    await refusedUnchanged([t.owner.id], () => as(t.admin).patch(`/users/${t.owner.id}`, { role: Role.MEMBER }), "Must be an organization owner", "UNAUTHORIZED_PRINCIPAL");
    await refusedUnchanged(
      [t.owner.id],
      () => as(t.owner).patch(`/users/${t.owner.id}`, { role: Role.ADMINISTRATOR }),
      "The owner permission cannot be removed from the only organization owner.",
    );
    expectSuccess(await as(t.owner).patch(`/users/${t.member.id}`, { role: Role.OWNER }));
    expectSuccess(await as(t.owner).patch(`/users/${t.owner.id}`, { role: Role.ADMINISTRATOR }));
    assert.equal((await userRow(t.owner.id)).role, Role.ADMINISTRATOR);
    expectSuccess(await as(t.admin).patch(`/users/${t.guest.id}`, { role: Role.ADMINISTRATOR }), "a guest may become an administrator");
    expectSuccess(await as(t.admin).patch(`/users/${t.member2.id}`, { role: Role.GUEST }));
  });

  test("role values outside Zulip's five are refused before anything else", async () => {
    const t = await freshRealm();
    for (const role of [0, 500, 700] as ParamValue[]) {
      await refusedUnchanged([t.member.id], () => as(t.owner).patch(`/users/${t.member.id}`, { role }), "Invalid role");
    }
    expectError(await as(t.owner).patch("/users/999999", { role: 1 }), "Invalid role");
  });

  test("a role change moves the user between system groups and is announced; the same role sends nothing", async () => {
    const t = await freshRealm();
    const sys = await systemGroupIds(srv.app.db, t.realm.id);
    expectSuccess(await as(t.admin).patch(`/users/${t.member.id}`, { role: Role.MODERATOR }));
    assert.deepEqual(
      log.notices.map((n) => [n.event, n.userIds]),
      [
        [{ type: "realm_user", op: "update", person: { user_id: t.member.id, role: Role.MODERATOR } }, idsOf(t)],
        [{ type: "user_group", op: "remove_members", group_id: sys.get("role:members"), user_ids: [t.member.id] }, idsOf(t)],
        [{ type: "user_group", op: "add_members", group_id: sys.get("role:moderators"), user_ids: [t.member.id] }, idsOf(t)],
        [{ type: "user_group", op: "remove_members", group_id: sys.get("role:fullmembers"), user_ids: [t.member.id] }, idsOf(t)],
      ],
    );
    const groups = (await as(t.owner).get("/user_groups")).body.user_groups as { id: number; members: number[] }[];
    assert.equal(groups.find((g) => g.id === sys.get("role:moderators"))!.members.includes(t.member.id), true);
    assert.equal(groups.find((g) => g.id === sys.get("role:fullmembers"))!.members.includes(t.member.id), false);
    log.notices.length = 0;
    expectSuccess(await as(t.admin).patch(`/users/${t.member.id}`, { role: Role.MEMBER }));
    assert.deepEqual(log.of("user_group").map((n) => [n.event.op, n.event.group_id]), [
      ["remove_members", sys.get("role:moderators")],
      ["add_members", sys.get("role:members")],
      ["add_members", sys.get("role:fullmembers")],
    ]);
    log.notices.length = 0;
    expectSuccess(await as(t.admin).patch(`/users/${t.member.id}`, { role: Role.MEMBER }));
    assert.deepEqual(log.notices, []);
  });

  test("a member turned guest stops seeing public channels; an administrator starts seeing private ones", async () => {
    const t = await freshRealm();
    expectSuccess(await as(t.owner).post("/users/me/subscriptions", { subscriptions: [{ name: "secret" }], invite_only: true }));
    const secret = (await srv.app.db.selectFrom("streams").select("id").where("realm_id", "=", t.realm.id).where("name", "=", "secret").executeTakeFirstOrThrow()).id;
    const general = (await srv.app.db.selectFrom("streams").select("id").where("realm_id", "=", t.realm.id).where("name", "=", "general").executeTakeFirstOrThrow()).id;
    log.notices.length = 0;
    expectSuccess(await as(t.owner).patch(`/users/${t.member2.id}`, { role: Role.ADMINISTRATOR }));
    assert.deepEqual(log.of("stream", "create").map((n) => [(n.event.streams as { stream_id: number }[]).map((s) => s.stream_id), n.userIds]), [[[secret], [t.member2.id]]]);
    const unsubscribed = await srv.app.db.selectFrom("subscriptions").select("user_id").where("stream_id", "=", general).where("user_id", "=", t.member.id).execute();
    assert.equal(unsubscribed.length, 0, "test users are not subscribed to the default channel");
    log.notices.length = 0;
    expectSuccess(await as(t.owner).patch(`/users/${t.member.id}`, { role: Role.GUEST }));
    assert.deepEqual(log.of("stream", "delete").map((n) => [n.event.stream_ids, n.userIds]), [[[general], [t.member.id]]]);
  });
});

describe("PATCH /users/{id}: full name", () => {
  test("Zulip's name rules; blank and unchanged names are ignored", async () => {
    const t = await freshRealm();
    const attempts: [string, string][] = [
      ["x".repeat(101), "Name too long!"],
      ["x", "Name too short!"],
      ["Bad *Name*", "Invalid characters in name!"],
      ["Bad @name", "Invalid characters in name!"],
      ["Name|15", "Invalid format!"],
    ];
    for (const [full_name, msg] of attempts) await refusedUnchanged([t.member.id], () => as(t.admin).patch(`/users/${t.member.id}`, { full_name }), msg);
    expectSuccess(await as(t.admin).patch(`/users/${t.member.id}`, { full_name: "   " }));
    expectSuccess(await as(t.admin).patch(`/users/${t.member.id}`, { full_name: t.member.fullName }));
    assert.equal(log.notices.length, 0);
    expectSuccess(await as(t.admin).patch(`/users/${t.member.id}`, { full_name: "  New Name  " }));
    assert.deepEqual(log.notices.map((n) => [n.event, n.userIds]), [[{ type: "realm_user", op: "update", person: { user_id: t.member.id, full_name: "New Name" } }, idsOf(t)]]);
  });

  test("organizations requiring unique names refuse a name someone else has", async () => {
    const t = await freshRealm();
    const props = JSON.parse((await srv.app.db.selectFrom("realms").select("props").where("id", "=", t.realm.id).executeTakeFirstOrThrow()).props);
    await srv.app.db.updateTable("realms").set({ props: JSON.stringify({ ...props, require_unique_names: true }) }).where("id", "=", t.realm.id).execute();
    await refusedUnchanged([t.member.id], () => as(t.admin).patch(`/users/${t.member.id}`, { full_name: t.member2.fullName.toUpperCase() }), "Unique names required in this organization.");
    expectSuccess(await as(t.admin).patch(`/users/${t.member.id}`, { full_name: t.member.fullName.toUpperCase() }), "their own name, recased");
  });

  test("a bot's new name also reaches its owner and the administrators as realm_bot", async () => {
    const t = await freshRealm();
    const helper = await botOf(t, t.member);
    log.notices.length = 0;
    expectSuccess(await as(t.member).patch(`/users/${helper.id}`, { full_name: "Better Bot" }));
    assert.deepEqual(log.of("realm_bot").map((n) => [n.event, n.userIds]), [
      [{ type: "realm_bot", op: "update", bot: { user_id: helper.id, full_name: "Better Bot" } }, [t.owner.id, t.admin.id, t.member.id].sort((a, b) => a - b)],
    ]);
  });
});

async function makeField(t: TestRealm, params: Record<string, ParamValue>): Promise<number> {
  const r = await as(t.owner).post("/realm/profile_fields", params);
  expectSuccess(r);
  return r.body.id;
}

describe("PATCH /users/{id}: profile data", () => {
  test("values are checked against each field's type", async () => {
    const t = await freshRealm();
    const short = await makeField(t, { name: "Short", field_type: 1 });
    const long = await makeField(t, { name: "Long", field_type: 2 });
    const select = await makeField(t, { name: "Pick", field_type: 3, field_data: { a: { text: "A", order: "1" }, b: { text: "B", order: "2" } } });
    const date = await makeField(t, { name: "Birthday", field_type: 4 });
    const url = await makeField(t, { name: "Site", field_type: 5 });
    const users = await makeField(t, { name: "Mentor", field_type: 6 });
    const pronouns = await makeField(t, { name: "Pronouns", field_type: 8 });
    expectSuccess(await as(t.admin).delete(`/users/${t.member2.id}`));
    const attempts: [number, ParamValue, string][] = [
      [short, "x".repeat(51), "Short is too long (limit: 50 characters)"],
      [short, [1], "Short is not a string"],
      [long, "x".repeat(501), "Long is too long (limit: 500 characters)"],
      [select, "c", "'c' is not a valid choice for 'Pick'."],
      [date, "2024-02-30", "Birthday is not a date"],
      [date, "2024-2-3", "Birthday is not a date"],
      [url, "not a url", "Site is not a URL"],
      [users, "me", "User IDs is not a list"],
      [users, [999999], "Invalid user ID: 999999"],
      [users, [other.member.id], `Invalid user ID: ${other.member.id}`],
      [users, [t.bot.id], `User with ID ${t.bot.id} is a bot`],
      [users, [t.member2.id], `User with ID ${t.member2.id} is deactivated`],
      [pronouns, "p".repeat(51), "Pronouns is too long (limit: 50 characters)"],
      [999999, "x", "Field id 999999 not found."],
    ];
    for (const [id, value, msg] of attempts) {
      await refusedUnchanged([t.member.id], () => as(t.admin).patch(`/users/${t.member.id}`, { profile_data: [{ id, value }] }), msg);
    }
    expectSuccess(
      await as(t.admin).patch(`/users/${t.member.id}`, {
        profile_data: [
          { id: short, value: "**bold**" },
          { id: long, value: "l".repeat(500) },
          { id: select, value: "b" },
          { id: date, value: "2000-02-29" },
          { id: url, value: "https://zulip.com/about" },
          { id: users, value: [t.admin.id, t.owner.id] },
          { id: pronouns, value: "they/them" },
        ],
      }),
    );
    const me = (await as(t.member).get("/users/me")).body;
    assert.deepEqual(me.profile_data[String(short)], { value: "**bold**", rendered_value: "<p><strong>bold</strong></p>" });
    assert.deepEqual(me.profile_data[String(users)], { value: `[${t.admin.id},${t.owner.id}]` });
    assert.deepEqual(me.profile_data[String(select)], { value: "b" });
  });

  test("each change is announced to those who can see the user; empty values remove; unchanged values send nothing", async () => {
    const t = await freshRealm();
    const short = await makeField(t, { name: "Short", field_type: 1 });
    const date = await makeField(t, { name: "Birthday", field_type: 4 });
    log.notices.length = 0;
    expectSuccess(await as(t.admin).patch(`/users/${t.member.id}`, { profile_data: [{ id: short, value: "hi" }, { id: date, value: "1999-12-31" }] }));
    assert.deepEqual(log.notices.map((n) => [n.event, n.userIds]), [
      [{ type: "realm_user", op: "update", person: { user_id: t.member.id, custom_profile_field: { id: short, value: "hi", rendered_value: "<p>hi</p>" } } }, idsOf(t)],
      [{ type: "realm_user", op: "update", person: { user_id: t.member.id, custom_profile_field: { id: date, value: "1999-12-31" } } }, idsOf(t)],
    ]);
    log.notices.length = 0;
    expectSuccess(await as(t.admin).patch(`/users/${t.member.id}`, { profile_data: [{ id: short, value: "hi" }, { id: date, value: "" }] }));
    assert.deepEqual(log.notices.map((n) => n.event), [{ type: "realm_user", op: "update", person: { user_id: t.member.id, custom_profile_field: { id: date, value: null } } }]);
    log.notices.length = 0;
    expectSuccess(await as(t.admin).patch(`/users/${t.member.id}`, { profile_data: [{ id: date, value: null }, { id: short, value: [] }] }));
    assert.equal(log.notices.length, 1, "only the value that existed is removed");
  });

  test("a bot's owner may not change fields users cannot edit; administrators may", async () => {
    const t = await freshRealm();
    const locked = await makeField(t, { name: "Badge", field_type: 1, editable_by_user: false });
    const helper = await botOf(t, t.member);
    await refusedUnchanged(
      [helper.id],
      () => as(t.member).patch(`/users/${helper.id}`, { profile_data: [{ id: locked, value: "x" }] }),
      "You are not allowed to change this field. Contact an administrator to update it.",
    );
    expectSuccess(await as(t.admin).patch(`/users/${helper.id}`, { profile_data: [{ id: locked, value: "x" }] }));
  });

  test("a field of another organization does not exist here", async () => {
    const t = await freshRealm();
    const theirs = await makeField(other, { name: `Theirs ${realms}`, field_type: 1 });
    await refusedUnchanged([t.member.id], () => as(t.admin).patch(`/users/${t.member.id}`, { profile_data: [{ id: theirs, value: "x" }] }), `Field id ${theirs} not found.`);
  });
});

describe("PATCH /users/{id}: new_email", () => {
  test("only an owner with the can_change_user_emails permission may change addresses", async () => {
    const t = await freshRealm();
    const attempt = (u: TestUser) => () => as(u).patch(`/users/${t.member.id}`, { new_email: "new@example.com" });
    await refusedUnchanged([t.member.id], attempt(t.owner), "User not authorized to change user emails");
    await setUserProp(srv.app.db, t.admin.id, "can_change_user_emails", true);
    await refusedUnchanged([t.member.id], attempt(t.admin), "User not authorized to change user emails");
    await setUserProp(srv.app.db, t.owner.id, "can_change_user_emails", true);
    await refusedUnchanged([t.member.id], () => as(t.owner).patch(`/users/${t.member.id}`, { new_email: "not an address" }), "Invalid address.");
    await refusedUnchanged([t.member.id], () => as(t.owner).patch(`/users/${t.member.id}`, { new_email: t.member2.email.toUpperCase() }), "Already has an account.");
    expectSuccess(await as(t.owner).patch(`/users/${t.member.id}`, { new_email: "new@example.com" }));
    const row = await userRow(t.member.id);
    assert.equal(row.delivery_email, "new@example.com");
    assert.notEqual(row.email, "new@example.com", "the placeholder address stays when addresses are hidden");
    const [delivery, avatar] = log.of("realm_user", "update");
    assert.deepEqual([delivery.event.person, delivery.userIds], [{ user_id: t.member.id, delivery_email: "new@example.com" }, [t.owner.id, t.admin.id, t.member.id].sort((a, b) => a - b)]);
    assert.deepEqual(Object.keys(avatar.event.person as object).sort(), ["avatar_source", "avatar_url", "avatar_url_medium", "avatar_version", "user_id"]);
    assert.equal(log.notices.some((n) => "new_email" in (n.event.person as object)), false);
    const auth = await api.as({ email: "new@example.com", apiKey: t.member.apiKey }).get("/users/me");
    expectSuccess(auth, "the new address logs in");
  });
});

describe("PATCH /users/{id}: all or nothing", () => {
  test("a request with one bad part changes nothing and announces nothing", async () => {
    const t = await freshRealm();
    const field = await makeField(t, { name: "Short", field_type: 1 });
    await refusedUnchanged(
      [t.member.id],
      () => as(t.owner).patch(`/users/${t.member.id}`, { role: Role.MODERATOR, full_name: "Fine Name", profile_data: [{ id: field, value: "x".repeat(60) }] }),
      "Short is too long (limit: 50 characters)",
    );
    const groups = (await as(t.owner).get(`/user_groups/${(await systemGroupIds(srv.app.db, t.realm.id)).get("role:moderators")}/members`, { direct_member_only: true })).body.members;
    assert.equal(groups.includes(t.member.id), false);
  });
});

describe("DELETE /users/{id}", () => {
  test("administrators deactivate; owners only by owners; never the only owner, bots or the deactivated", async () => {
    const t = await freshRealm();
    for (const u of [t.moderator, t.member2, t.guest, t.bot]) {
      await refusedUnchanged([t.member.id], () => as(u).delete(`/users/${t.member.id}`), "Insufficient permission");
    }
    await refusedUnchanged([t.member.id], () => as(other.owner).delete(`/users/${t.member.id}`), "No such user");
    await refusedUnchanged([t.bot.id], () => as(t.owner).delete(`/users/${t.bot.id}`), "No such user");
    await refusedUnchanged([t.owner.id], () => as(t.admin).delete(`/users/${t.owner.id}`), "Must be an organization owner", "UNAUTHORIZED_PRINCIPAL");
    await refusedUnchanged([t.owner.id], () => as(t.owner).delete(`/users/${t.owner.id}`), "Cannot deactivate the only organization owner");
    expectSuccess(await as(t.admin).delete(`/users/${t.member.id}`, { deactivation_notification_comment: "Bye" }));
    assert.equal((await userRow(t.member.id)).is_active, 0);
    expectError(await as(t.admin).delete(`/users/${t.member.id}`), "User is deactivated");
    expectError(await as(t.member).get("/users/me"), "Account is deactivated", "UNAUTHORIZED", 401);
    expectError(await as(t.admin).delete(`/users/${t.member2.id}`, { deactivation_notification_comment: "x".repeat(2001) }), "deactivation_notification_comment is too long (limit: 2000 characters)");
  });

  test("the account and its bots are announced as deactivated; subscribers hear of the unsubscription", async () => {
    const t = await freshRealm();
    const helper = await botOf(t, t.member);
    expectSuccess(await as(t.owner).post("/users/me/subscriptions", { subscriptions: [{ name: "town square" }], principals: [t.owner.id, t.member.id] }));
    const square = (await srv.app.db.selectFrom("streams").select("id").where("realm_id", "=", t.realm.id).where("name", "=", "town square").executeTakeFirstOrThrow()).id;
    log.notices.length = 0;
    expectSuccess(await as(t.owner).delete(`/users/${t.member.id}`));
    assert.equal((await userRow(helper.id)).is_active, 0, "the user's bots go too");
    const stillActive = idsOf(t).filter((id) => id !== t.member.id);
    assert.deepEqual(log.of("realm_user").map((n) => [n.event, n.userIds]), [
      [{ type: "realm_user", op: "update", person: { user_id: helper.id, is_active: false } }, idsOf(t)],
      [{ type: "realm_user", op: "update", person: { user_id: t.member.id, is_active: false } }, stillActive],
    ]);
    assert.deepEqual(log.of("realm_bot").map((n) => n.event), [{ type: "realm_bot", op: "update", bot: { user_id: helper.id, is_active: false } }]);
    const peer = log.of("subscription", "peer_remove");
    assert.deepEqual(peer.map((n) => n.event), [{ type: "subscription", op: "peer_remove", stream_ids: [square], user_ids: [t.member.id] }]);
    assert.equal(peer[0].userIds.includes(t.member.id), false);
  });

  test("where guests see only some users, guests who cannot see the user get the group changes instead", async () => {
    const t = await freshRealm();
    const restore = await restrictUserAccessToMembers(srv.app, t.realm.id);
    try {
      const group = await as(t.owner).post("/user_groups/create", { name: "team", description: "", members: [t.member.id] });
      expectSuccess(group);
      log.notices.length = 0;
      expectSuccess(await as(t.owner).delete(`/users/${t.member.id}`));
      const update = log.of("realm_user", "update");
      assert.deepEqual(update.map((n) => n.userIds), [idsOf(t).filter((id) => id !== t.member.id && id !== t.guest.id)]);
      assert.deepEqual(log.of("user_group", "remove_members").map((n) => [n.event.group_id, n.userIds]).filter(([id]) => id === group.body.group_id), [
        [group.body.group_id, [t.guest.id]],
      ]);
    } finally {
      await restore();
    }
  });
});

describe("DELETE /users/me", () => {
  test("anyone may leave, taking their bots along, and everyone hears of it", async () => {
    const t = await freshRealm();
    const helper = await botOf(t, t.member);
    for (const u of [t.admin, t.moderator, t.guest, t.bot]) {
      expectSuccess(await as(u).delete("/users/me"));
      assert.equal((await userRow(u.id)).is_active, 0);
    }
    log.notices.length = 0;
    expectSuccess(await as(t.member).delete("/users/me"));
    assert.equal((await userRow(t.member.id)).is_active, 0);
    assert.equal((await userRow(helper.id)).is_active, 0, "the user's bots go too");
    assert.deepEqual(
      log.of("realm_user").map((n) => n.event.person),
      [{ user_id: helper.id, is_active: false }, { user_id: t.member.id, is_active: false }],
    );
    expectError(await as(t.member).delete("/users/me"), "Account is deactivated", "UNAUTHORIZED", 401);
  });

  test("never the only owner, nor the only user", async () => {
    const t = await freshRealm();
    const lastOwner = await as(t.owner).delete("/users/me");
    assert.deepEqual(lastOwner.body, {
      result: "error",
      msg: "Cannot deactivate the only organization owner.",
      code: "CANNOT_DEACTIVATE_LAST_USER",
      is_last_owner: true,
      entity: "organization owner",
    });
    for (const u of [t.admin, t.moderator, t.member, t.member2, t.guest, t.bot]) expectSuccess(await as(u).delete("/users/me"));
    await refusedUnchanged([t.owner.id], () => as(t.owner).delete("/users/me"), "Cannot deactivate the only user.", "CANNOT_DEACTIVATE_LAST_USER");
    const again = await as(t.owner).delete("/users/me");
    assert.deepEqual([again.body.is_last_owner, again.body.entity], [false, "user"]);
  });
});

describe("PATCH /users/{email}", () => {
  test("finds the user as GET /users/{email} does, then changes them as by id", async () => {
    const t = await freshRealm();
    expectSuccess(await as(t.admin).patch(`/users/${encodeURIComponent(t.member.email)}`, { full_name: "By Email" }));
    assert.equal((await userRow(t.member.id)).full_name, "By Email");
    expectSuccess(await as(t.owner).patch(`/users/${t.member2.email.toUpperCase()}`, { role: Role.MODERATOR }));
    assert.equal((await userRow(t.member2.id)).role, Role.MODERATOR);
    const placeholder = `user${t.member.id}@${srv.app.config.fakeEmailDomain}`;
    for (const u of [t.moderator, t.guest, t.bot]) {
      await refusedUnchanged([t.member.id], () => as(u).patch(`/users/${placeholder}`, { full_name: "Nope" }), "Insufficient permission");
    }
    await refusedUnchanged([t.member.id], () => as(other.owner).patch(`/users/${t.member.email}`, { full_name: "Nope" }), "No such user");
    expectError(await as(t.admin).patch("/users/nobody@example.com", { full_name: "Nope" }), "No such user");
  });

  test("a hidden address is reached through its placeholder", async () => {
    const t = await freshRealm();
    await setUserProp(srv.app.db, t.member.id, "email_address_visibility", 4);
    expectError(await as(t.admin).patch(`/users/${t.member.email}`, { full_name: "Nope" }), "No such user");
    expectSuccess(await as(t.admin).patch(`/users/user${t.member.id}@${srv.app.config.fakeEmailDomain}`, { full_name: "By Placeholder" }));
    assert.equal((await userRow(t.member.id)).full_name, "By Placeholder");
  });
});

describe("POST /users/{id}/reactivate", () => {
  test("administrators bring users back; the user and their groups are announced again", async () => {
    const t = await freshRealm();
    const group = await as(t.owner).post("/user_groups/create", {
      name: "team",
      description: "",
      members: [t.member.id],
      can_mention_group: { direct_members: [t.member.id, t.admin.id], direct_subgroups: [] },
    });
    expectSuccess(await as(t.admin).delete(`/users/${t.member.id}`));
    for (const u of [t.moderator, t.member2, t.guest, t.bot]) {
      await refusedUnchanged([t.member.id], () => as(u).post(`/users/${t.member.id}/reactivate`), "Insufficient permission");
    }
    await refusedUnchanged([t.member.id], () => as(other.owner).post(`/users/${t.member.id}/reactivate`), "No such user");
    log.notices.length = 0;
    expectSuccess(await as(t.admin).post(`/users/${t.member.id}/reactivate`));
    assert.equal((await userRow(t.member.id)).is_active, 1);
    assert.deepEqual(log.of("realm_user").map((n) => [n.event, n.userIds]), [
      [{ type: "realm_user", op: "update", person: { user_id: t.member.id, is_active: true } }, idsOf(t)],
    ]);
    const added = log.of("user_group", "add_members").map((n) => n.event.group_id);
    assert.equal(added.includes(group.body.group_id), true);
    assert.deepEqual(log.of("user_group", "update").map((n) => [n.event, n.userIds]), [
      [
        {
          type: "user_group",
          op: "update",
          group_id: group.body.group_id,
          data: { can_mention_group: { direct_members: [t.admin.id, t.member.id].sort((a, b) => a - b), direct_subgroups: [] } },
        },
        idsOf(t),
      ],
    ]);
    expectSuccess(await as(t.member).get("/users/me"), "the account works again");
  });

  test("a bot comes back only if its name is free and the caller may create bots", async () => {
    const t = await freshRealm();
    const helper = await botOf(t, t.owner, "Twin Bot");
    expectSuccess(await as(t.owner).delete(`/users/${t.member.id}`));
    await srv.app.db.updateTable("users").set({ is_active: 0 }).where("id", "=", helper.id).execute();
    await botOf(t, t.admin, "Twin Bot");
    await refusedUnchanged(
      [helper.id],
      () => as(t.owner).post(`/users/${helper.id}/reactivate`),
      'There is already an active bot named "Twin Bot" in this organization. To reactivate this bot, you must rename or deactivate the other one first.',
    );
    const sys = await systemGroupIds(srv.app.db, t.realm.id);
    const settings = JSON.parse((await srv.app.db.selectFrom("realms").select("group_settings").where("id", "=", t.realm.id).executeTakeFirstOrThrow()).group_settings);
    await srv.app.db.updateTable("realms").set({ group_settings: JSON.stringify({ ...settings, can_create_bots_group: sys.get("role:owners") }) }).where("id", "=", t.realm.id).execute();
    const admins = await botOf(t, t.admin, "Other Bot");
    await srv.app.db.updateTable("users").set({ is_active: 0 }).where("id", "=", admins.id).execute();
    await refusedUnchanged([admins.id], () => as(t.admin).post(`/users/${admins.id}/reactivate`), "Insufficient permission");
    expectSuccess(await as(t.owner).post(`/users/${admins.id}/reactivate`));
  });
});

describe("user changes through POST /register and GET /events", () => {
  test("a role change and a new name reach a registered client, and its initial state reflects them", async () => {
    const t = await freshRealm();
    const reg = await as(t.member2).post("/register", { fetch_event_types: ["realm_user"], event_types: ["realm_user"] });
    expectSuccess(reg);
    expectSuccess(await as(t.owner).patch(`/users/${t.member.id}`, { role: Role.ADMINISTRATOR, full_name: "Promoted Person" }));
    const r = await as(t.member2).get("/events", { queue_id: reg.body.queue_id, last_event_id: -1, dont_block: true });
    assert.deepEqual(
      r.body.events.map((e: { person: unknown }) => e.person),
      [{ user_id: t.member.id, role: Role.ADMINISTRATOR }, { user_id: t.member.id, full_name: "Promoted Person" }],
    );
    const fresh = await as(t.member2).post("/register", { fetch_event_types: ["realm_user"] });
    const me = fresh.body.realm_users.find((u: { user_id: number }) => u.user_id === t.member.id);
    assert.deepEqual([me.role, me.is_admin, me.full_name], [Role.ADMINISTRATOR, true, "Promoted Person"]);
  });
});

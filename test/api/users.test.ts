import { test, before, after, describe, beforeEach, afterEach } from "node:test";
import assert from "node:assert/strict";
import { FLAG_BITS } from "../../src/domain/message_flags.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { Api } from "../helpers/client.js";
import { createTestRealm, TEST_PASSWORD, type TestRealm, type TestUser } from "../helpers/realm.js";
import type { Notice } from "../../src/events/bus.js";
import { createUserInTx, setCanCreateUsers } from "../../src/actions/users.js";
import { runAction } from "../../src/actions/run.js";
import { Role } from "../../src/domain/roles.js";
import { createStreamInTx } from "../../src/actions/streams.js";
import { addSubscriptions } from "../../src/store/subscriptions.js";
import { systemGroupIds } from "../../src/store/groups.js";
import { gravatarUrl } from "../../src/format/users.js";

let srv: TestServer;
let t: TestRealm;
let other: TestRealm;
let api: Api;
let notices: Notice[];
let retiredId: number;
let unsubscribe: () => void;

const as = (u: TestUser) => api.as(u);
const humans = () => [t.owner, t.admin, t.moderator, t.member, t.member2, t.guest];
const everyone = () => [...humans(), t.bot];
const listedIds = () => [...everyone().map((u) => u.id), retiredId].sort((a, b) => a - b);

before(async () => {
  srv = await startTestServer();
  t = await createTestRealm(srv.app);
  other = await createTestRealm(srv.app, "other");
  api = new Api(srv.url);
  const retired = await runAction(srv.app, (tx) =>
    createUserInTx(tx, srv.app, t.realm, { email: "retired@zulip.example.com", fullName: "Rita Retired", role: Role.MEMBER }),
  );
  retiredId = retired.id;
  await srv.app.db.updateTable("users").set({ is_active: 0 }).where("id", "=", retiredId).execute();
});
after(() => srv.close());
beforeEach(() => {
  notices = [];
  unsubscribe = srv.app.bus.subscribe((n) => notices.push(n));
});
afterEach(() => unsubscribe());

async function userCount(): Promise<number> {
  const row = await srv.app.db.selectFrom("users").select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirstOrThrow();
  return Number(row.n);
}

function expectError(r: { status: number; body: Record<string, any> }, msg: string, code = "BAD_REQUEST", status = 400) {
  assert.equal(r.body.msg, msg);
  assert.equal(r.body.result, "error");
  assert.equal(r.body.code, code);
  assert.equal(r.status, status);
}

describe("GET /users", () => {
  test("every role lists the organization's users, bots and deactivated users included, system bots not", async () => {
    for (const u of everyone()) {
      const r = await as(u).get("/users");
      assert.equal(r.status, 200, u.email);
      assert.deepEqual(r.body.members.map((m: { user_id: number }) => m.user_id), listedIds(), u.email);
      assert.equal(r.body.members.find((m: { user_id: number }) => m.user_id === retiredId).is_active, false);
    }
  });

  test("shows each user as Zulip does, real addresses only where the viewer may see them", async () => {
    const adminView = (await as(t.admin).get("/users", { client_gravatar: false })).body.members;
    const memberView = (await as(t.member).get("/users", { client_gravatar: false })).body.members;
    const find = (list: any[], id: number) => list.find((m) => m.user_id === id);

    const m = find(adminView, t.member.id);
    assert.deepEqual(Object.keys(m).sort(), [
      "avatar_url", "avatar_version", "date_joined", "delivery_email", "email", "full_name", "is_active", "is_admin",
      "is_bot", "is_guest", "is_owner", "role", "timezone", "user_id",
    ]);
    assert.equal(m.delivery_email, t.member.email);
    assert.equal(m.email, `user${t.member.id}@confab.invalid`);
    assert.equal(m.full_name, "Mel Member");
    assert.equal(m.role, 400);
    assert.match(m.date_joined, /^\d{4}-\d\d-\d\dT\d\d:\d\d\+00:00$/);
    assert.equal(m.avatar_url, gravatarUrl(t.member.email));
    assert.deepEqual(
      [find(adminView, t.owner.id), find(adminView, t.admin.id), find(adminView, t.guest.id)].map((u) => [u.is_owner, u.is_admin, u.is_guest]),
      [[true, true, false], [false, true, false], [false, false, true]],
    );

    assert.equal(find(memberView, t.admin.id).delivery_email, null);
    assert.equal(find(memberView, t.member.id).delivery_email, t.member.email, "one's own address");
    const bot = find(memberView, t.bot.id);
    assert.equal(bot.delivery_email, t.bot.email, "bots' addresses are visible to everyone");
    assert.equal(bot.email, t.bot.email);
    assert.equal(bot.bot_type, 1);
    assert.equal(bot.bot_owner_id, t.owner.id);
    assert.equal("profile_data" in bot, false);
  });

  test("client_gravatar (default true) omits the avatar only for users whose address everyone may see", async () => {
    const r = await as(t.member).get("/users");
    const byId = new Map(r.body.members.map((m: any) => [m.user_id, m]));
    assert.equal((byId.get(t.bot.id) as any).avatar_url, null);
    assert.equal((byId.get(t.admin.id) as any).avatar_url, gravatarUrl(t.admin.email));
    assert.equal((byId.get(t.member.id) as any).avatar_url, gravatarUrl(t.member.email));
  });

  test("include_custom_profile_fields adds profile_data to people, not bots", async () => {
    const db = srv.app.db;
    const { id: phone } = await db
      .insertInto("custom_profile_fields")
      .values({ realm_id: t.realm.id, name: "Phone", hint: "", field_type: 1, field_data: "", order: 1, display_in_profile_summary: 0, required: 0, editable_by_user: 1 })
      .returning("id")
      .executeTakeFirstOrThrow();
    const { id: birthday } = await db
      .insertInto("custom_profile_fields")
      .values({ realm_id: t.realm.id, name: "Birthday", hint: "", field_type: 4, field_data: "", order: 2, display_in_profile_summary: 0, required: 0, editable_by_user: 1 })
      .returning("id")
      .executeTakeFirstOrThrow();
    await db
      .insertInto("custom_profile_values")
      .values([
        { user_id: t.member.id, field_id: phone, value: "+1-555", rendered_value: "<p>+1-555</p>" },
        { user_id: t.member.id, field_id: birthday, value: "2000-01-01", rendered_value: null },
      ])
      .execute();
    try {
      const r = await as(t.guest).get("/users", { include_custom_profile_fields: true });
      const byId = new Map<number, any>(r.body.members.map((m: any) => [m.user_id, m]));
      assert.deepEqual(byId.get(t.member.id).profile_data, {
        [phone]: { value: "+1-555", rendered_value: "<p>+1-555</p>" },
        [birthday]: { value: "2000-01-01" },
      });
      assert.deepEqual(byId.get(t.admin.id).profile_data, {});
      assert.equal("profile_data" in byId.get(t.bot.id), false);
      const plain = await as(t.guest).get("/users");
      assert.equal(plain.body.members.some((m: any) => "profile_data" in m), false);
    } finally {
      await db.deleteFrom("custom_profile_values").execute();
      await db.deleteFrom("custom_profile_fields").execute();
    }
  });

  test("user_ids limits the list; unknown ids and other organizations' users are skipped", async () => {
    const r = await as(t.member).get("/users", { user_ids: [t.admin.id, 99999, other.member.id, t.bot.id] });
    assert.deepEqual(r.body.members.map((m: any) => m.user_id), [t.admin.id, t.bot.id]);
    const none = await as(t.member).get("/users", { user_ids: [] });
    assert.deepEqual(none.body.members, []);
  });

  test("bad parameters give Zulip's errors", async () => {
    expectError(await as(t.member).get("/users", { user_ids: "[1," }), "user_ids is not valid JSON");
    expectError(await as(t.member).get("/users", { user_ids: { a: 1 } }), "user_ids is not a list");
    expectError(await as(t.member).get("/users", { client_gravatar: "yes" }), "client_gravatar is not valid JSON");
    expectError(await as(t.member).get("/users", { include_custom_profile_fields: 1 }), "include_custom_profile_fields is not a boolean");
  });

  test("requires authentication", async () => {
    const r = await api.get("/users");
    expectError(r, "Not logged in: API authentication or user session required", "UNAUTHORIZED", 401);
  });
});

describe("GET /users/me", () => {
  test("returns the caller with profile data and max_message_id, as get_own_user describes", async () => {
    for (const u of humans()) {
      const r = await as(u).get("/users/me");
      assert.equal(r.status, 200);
      const { result, msg, ...me } = r.body;
      assert.deepEqual([result, msg], ["success", ""]);
      assert.deepEqual(Object.keys(me).sort(), [
        "avatar_url", "avatar_version", "date_joined", "delivery_email", "email", "full_name", "is_active", "is_admin",
        "is_bot", "is_guest", "is_owner", "max_message_id", "profile_data", "role", "timezone", "user_id",
      ]);
      assert.equal(me.user_id, u.id);
      assert.equal(me.delivery_email, u.email);
      assert.equal(me.role, u.role);
      assert.equal(me.max_message_id, -1);
      assert.equal(me.avatar_url, gravatarUrl(u.email), "never omitted for one's own profile");
    }
  });

  test("a bot sees its bot fields and no profile data", async () => {
    const r = await as(t.bot).get("/users/me");
    assert.equal(r.body.is_bot, true);
    assert.equal(r.body.bot_type, 1);
    assert.equal(r.body.bot_owner_id, t.owner.id);
    assert.equal("profile_data" in r.body, false);
  });

  test("max_message_id is the newest message the user received", async () => {
    const db = srv.app.db;
    const { id: recipientId } = await db.selectFrom("recipients").select("id").where("type", "=", 1).where("type_id", "=", t.member.id).executeTakeFirstOrThrow();
    const ids: number[] = [];
    for (let i = 0; i < 2; i++) {
      const { id } = await db
        .insertInto("messages")
        .values({ realm_id: t.realm.id, sender_id: t.admin.id, recipient_id: recipientId, stream_id: null, topic: "", dm_key: `${t.admin.id},${t.member.id}`, content: "hi", rendered_content: "<p>hi</p>", client: "test", date_sent: 1, last_edit_time: null, last_moved_time: null })
        .returning("id")
        .executeTakeFirstOrThrow();
      ids.push(id);
    }
    await db.insertInto("user_messages").values({ user_id: t.member.id, message_id: ids[0], flags: FLAG_BITS.is_private }).execute();
    try {
      assert.equal((await as(t.member).get("/users/me")).body.max_message_id, ids[0]);
      assert.equal((await as(t.admin).get("/users/me")).body.max_message_id, -1);
    } finally {
      await db.deleteFrom("user_messages").execute();
      await db.deleteFrom("messages").execute();
    }
  });
});

describe("GET /users/{user_id}", () => {
  test("any user of the organization, deactivated users and bots included", async () => {
    for (const viewer of everyone()) {
      for (const target of [retiredId, t.bot.id, t.owner.id]) {
        const r = await as(viewer).get(`/users/${target}`);
        assert.equal(r.status, 200);
        assert.equal(r.body.user.user_id, target);
      }
    }
    const r = await as(t.member).get(`/users/${retiredId}`);
    assert.equal(r.body.user.is_active, false);
  });

  test("the same display options as the list", async () => {
    const withFields = await as(t.admin).get(`/users/${t.member.id}`, { include_custom_profile_fields: true, client_gravatar: false });
    assert.deepEqual(withFields.body.user.profile_data, {});
    assert.equal(withFields.body.user.delivery_email, t.member.email);
    const bot = await as(t.member).get(`/users/${t.bot.id}`);
    assert.equal(bot.body.user.avatar_url, null);
  });

  test("unknown users, system bots and other organizations' users are 'No such user'", async () => {
    const systemBot = await srv.app.db.selectFrom("users").select("id").where("realm_id", "=", t.realm.id).where("is_system_bot", "=", 1).executeTakeFirstOrThrow();
    for (const id of [99999, other.member.id, systemBot.id]) {
      expectError(await as(t.admin).get(`/users/${id}`), "No such user");
    }
  });
});

describe("GET /users/{email}", () => {
  test("a real address finds the user only when the caller's role may see it", async () => {
    const byAdmin = await as(t.admin).get(`/users/${encodeURIComponent(t.member.email.toUpperCase())}`);
    assert.equal(byAdmin.status, 200);
    assert.equal(byAdmin.body.user.user_id, t.member.id);
    for (const viewer of [t.moderator, t.member2, t.guest, t.bot]) {
      expectError(await as(viewer).get(`/users/${t.member.email}`), "No such user");
    }
  });

  test("addresses visible to everyone (bots) and placeholder addresses work for everyone", async () => {
    for (const viewer of everyone()) {
      assert.equal((await as(viewer).get(`/users/${t.bot.email}`)).body.user.user_id, t.bot.id);
      const r = await as(viewer).get(`/users/user${t.admin.id}@confab.invalid`);
      assert.equal(r.body.user.user_id, t.admin.id);
      assert.equal(r.body.user.email, `user${t.admin.id}@confab.invalid`);
    }
  });

  test("visibility follows the target's own setting", async () => {
    const db = srv.app.db;
    await db.updateTable("users").set({ props: JSON.stringify({ email_address_visibility: 2 }) }).where("id", "=", t.member2.id).execute();
    try {
      assert.equal((await as(t.member).get(`/users/${t.member2.email}`)).body.user.user_id, t.member2.id);
      expectError(await as(t.guest).get(`/users/${t.member2.email}`), "No such user");
    } finally {
      await db.updateTable("users").set({ props: JSON.stringify({ email_address_visibility: 3 }) }).where("id", "=", t.member2.id).execute();
    }
  });

  test("unknown addresses and other organizations' users are 'No such user'", async () => {
    for (const email of ["nobody@zulip.example.com", other.bot.email, `user${other.member.id}@confab.invalid`, "not-an-email"]) {
      expectError(await as(t.owner).get(`/users/${email}`), "No such user");
    }
  });
});

describe("POST /users", () => {
  const newUser = { email: "newbie@zulip.example.com", full_name: "New User", password: "a-strong-password" };
  let creator: Api;

  before(async () => {
    await setCanCreateUsers(srv.app, t.admin.id, true);
    creator = as(t.admin);
  });

  async function refused(u: TestUser, params: Record<string, any>, msg: string, code = "BAD_REQUEST", status = 400) {
    const before = await userCount();
    expectError(await as(u).post("/users", params), msg, code, status);
    assert.equal(await userCount(), before, "nothing created");
    assert.equal(notices.length, 0, "nothing published");
  }

  test("only administrators may call it", async () => {
    for (const u of [t.moderator, t.member, t.guest, t.bot]) {
      await refused(u, newUser, "Must be an organization administrator", "UNAUTHORIZED_PRINCIPAL");
    }
  });

  test("administrators also need the can_create_users permission, owners included", async () => {
    await refused(t.owner, newUser, "User not authorized to create users");
    await refused(other.admin, newUser, "User not authorized to create users");
  });

  test("missing parameters are reported before the permission check", async () => {
    const r = await as(t.owner).post("/users", { full_name: "X Y", password: "123456" });
    expectError(r, "Missing 'email' argument", "REQUEST_VARIABLE_MISSING");
    assert.equal(r.body.var_name, "email");
    expectError(await creator.post("/users", { email: "a@b.co", password: "123456" }), "Missing 'full_name' argument", "REQUEST_VARIABLE_MISSING");
    expectError(await creator.post("/users", { email: "a@b.co", full_name: "X Y" }), "Missing 'password' argument", "REQUEST_VARIABLE_MISSING");
  });

  test("names, addresses and passwords are checked in Zulip's order", async () => {
    const cases: [Record<string, string>, string][] = [
      [{ full_name: "A" }, "Name too short!"],
      [{ full_name: "   " }, "Name too short!"],
      [{ full_name: "x".repeat(101) }, "Name too long!"],
      [{ full_name: "Bad * Name" }, "Invalid characters in name!"],
      [{ full_name: "Bad\u0000Name" }, "Invalid characters in name!"],
      [{ full_name: "Someone|12" }, "Invalid format!"],
      [{ full_name: "A", email: "not-an-email" }, "Name too short!"],
      [{ email: "not-an-email" }, "Bad name or username"],
      [{ email: "two@@signs.example.com" }, "Bad name or username"],
      [{ email: t.member.email.toUpperCase() }, `Email '${t.member.email.toUpperCase()}' already in use`],
      [{ email: t.bot.email }, `Email '${t.bot.email}' already in use`],
      [{ email: t.member.email, password: "x" }, `Email '${t.member.email}' already in use`],
      [{ password: "12345" }, "The password is too weak."],
    ];
    for (const [override, msg] of cases) {
      await refused(t.admin, { ...newUser, ...override }, msg);
    }
  });

  test("an organization requiring unique names refuses a taken one", async () => {
    const props = { ...t.realm.props, require_unique_names: true };
    await srv.app.db.updateTable("realms").set({ props: JSON.stringify(props) }).where("id", "=", t.realm.id).execute();
    try {
      await refused(t.admin, { ...newUser, full_name: " mel MEMBER " }, "Unique names required in this organization.");
    } finally {
      await srv.app.db.updateTable("realms").set({ props: JSON.stringify(t.realm.props) }).where("id", "=", t.realm.id).execute();
    }
  });

  test("creates a member subscribed to the default channels and announces them to everyone", async () => {
    const r = await creator.post("/users", { ...newUser, full_name: "  New User  " });
    assert.equal(r.status, 200);
    const userId = r.body.user_id;
    assert.deepEqual(r.body, { result: "success", msg: "", user_id: userId });

    const login = await api.post("/fetch_api_key", { username: newUser.email, password: newUser.password });
    assert.equal(login.body.user_id, userId);
    const me = await api.as({ email: newUser.email, apiKey: login.body.api_key }).get("/users/me");
    assert.equal(me.body.full_name, "New User");
    assert.equal(me.body.role, 400);
    assert.equal(me.body.email, `user${userId}@confab.invalid`);

    const general = await srv.app.db.selectFrom("streams").select("id").where("realm_id", "=", t.realm.id).where("name", "=", "general").executeTakeFirstOrThrow();
    const sub = await srv.app.db.selectFrom("subscriptions").selectAll().where("user_id", "=", userId).execute();
    assert.deepEqual(sub.map((s) => [s.stream_id, s.active]), [[general.id, 1]]);

    const memberOf = await srv.app.db.selectFrom("user_group_members").select("group_id").where("user_id", "=", userId).orderBy("group_id").execute();
    assert.deepEqual(
      notices.filter((n) => n.event.type === "user_group").map((n) => n.event),
      memberOf.map(({ group_id }) => ({ type: "user_group", op: "add_members", group_id, user_ids: [userId] })),
      "the new user's system groups are announced",
    );
    const userNotices = notices.filter((n) => n.event.type === "realm_user");
    assert.equal(userNotices.length, 2);
    const [seen, hidden] = userNotices;
    const person = (delivery: string | null) => ({
      email: `user${userId}@confab.invalid`,
      user_id: userId,
      avatar_version: 1,
      is_admin: false,
      is_owner: false,
      is_guest: false,
      role: 400,
      is_bot: false,
      full_name: "New User",
      timezone: "",
      is_active: true,
      date_joined: me.body.date_joined,
      delivery_email: delivery,
      avatar_url: gravatarUrl(newUser.email),
      profile_data: {},
    });
    assert.deepEqual(seen, {
      realmId: t.realm.id,
      event: { type: "realm_user", op: "add", person: person(newUser.email) },
      userIds: [t.owner.id, t.admin.id, userId],
    });
    assert.deepEqual(hidden, {
      realmId: t.realm.id,
      event: { type: "realm_user", op: "add", person: person(null) },
      userIds: [t.moderator.id, t.member.id, t.member2.id, t.guest.id, t.bot.id],
    });
    await srv.app.db.deleteFrom("subscriptions").where("user_id", "=", userId).execute();
    await srv.app.db.updateTable("users").set({ is_active: 0 }).where("id", "=", userId).execute();
  });

  test("accepts zulip-js style multipart bodies", async () => {
    const form = new FormData();
    form.set("email", "multipart@zulip.example.com");
    form.set("full_name", "Multi Part");
    form.set("password", "123456");
    const res = await fetch(`${srv.url}/api/v1/users`, {
      method: "POST",
      body: form,
      headers: { authorization: "Basic " + Buffer.from(`${t.admin.email}:${t.admin.apiKey}`).toString("base64") },
    });
    const body = await res.json();
    assert.equal(body.result, "success");
    await srv.app.db.updateTable("users").set({ is_active: 0 }).where("id", "=", body.user_id).execute();
  });
});

describe("guests when can_access_all_users_group leaves them out", () => {
  let streamId: number;

  before(async () => {
    const settings = { ...t.realm.groupSettings, can_access_all_users_group: (await systemGroupIds(srv.app.db, t.realm.id)).get("role:members")! };
    await srv.app.db.updateTable("realms").set({ group_settings: JSON.stringify(settings) }).where("id", "=", t.realm.id).execute();
    const stream = await runAction(srv.app, (tx) => createStreamInTx(tx, srv.app, t.realm, null, { name: "shared" }));
    streamId = stream.id;
    await addSubscriptions(srv.app.db, streamId, [t.guest.id, t.member.id]);
    const { id: recipientId } = await srv.app.db.selectFrom("recipients").select("id").where("type", "=", 1).where("type_id", "=", t.guest.id).executeTakeFirstOrThrow();
    const { id: messageId } = await srv.app.db
      .insertInto("messages")
      .values({ realm_id: t.realm.id, sender_id: t.moderator.id, recipient_id: recipientId, stream_id: null, topic: "", dm_key: `${t.moderator.id},${t.guest.id}`, content: "hi", rendered_content: "<p>hi</p>", client: "test", date_sent: 1, last_edit_time: null, last_moved_time: null })
      .returning("id")
      .executeTakeFirstOrThrow();
    // Flagged as the server flags a direct message's rows.
    const flags = FLAG_BITS.is_private;
    await srv.app.db.insertInto("user_messages").values([{ user_id: t.guest.id, message_id: messageId, flags }, { user_id: t.moderator.id, message_id: messageId, flags }]).execute();
  });
  after(async () => {
    await srv.app.db.updateTable("realms").set({ group_settings: JSON.stringify(t.realm.groupSettings) }).where("id", "=", t.realm.id).execute();
    await srv.app.db.deleteFrom("user_messages").execute();
    await srv.app.db.deleteFrom("messages").execute();
  });

  const unknownUser = (id: number) => ({
    email: `user${id}@confab.invalid`,
    user_id: id,
    avatar_version: 1,
    is_admin: false,
    is_owner: false,
    is_guest: false,
    role: 400,
    is_bot: false,
    full_name: "Unknown user",
    timezone: "",
    is_active: true,
    date_joined: "1970-01-01T00:00:00+00:00",
    delivery_email: null,
    avatar_url: "/static/images/unknown-user-avatar.png",
    profile_data: {},
  });

  test("see themselves, bots and users they share a channel or conversation with; the rest as 'Unknown user'", async () => {
    const r = await as(t.guest).get("/users");
    const byId = new Map<number, any>(r.body.members.map((m: any) => [m.user_id, m]));
    const adminList = (await as(t.admin).get("/users")).body.members.map((m: any) => m.user_id);
    assert.deepEqual([...byId.keys()], adminList);
    for (const visible of [t.guest, t.member, t.moderator, t.bot]) assert.notEqual(byId.get(visible.id).full_name, "Unknown user");
    for (const hidden of [t.owner.id, t.admin.id, t.member2.id, retiredId]) assert.deepEqual(byId.get(hidden), unknownUser(hidden));
    const some = await as(t.guest).get("/users", { user_ids: [t.admin.id, t.member.id] });
    assert.deepEqual(some.body.members.map((m: any) => m.full_name), ["Unknown user", "Mel Member"]);
  });

  test("are refused single users they may not see", async () => {
    expectError(await as(t.guest).get(`/users/${t.admin.id}`), "Insufficient permission");
    expectError(await as(t.guest).get(`/users/user${t.member2.id}@confab.invalid`), "Insufficient permission");
    assert.equal((await as(t.guest).get(`/users/${t.member.id}`)).body.user.full_name, "Mel Member");
    assert.equal((await as(t.guest).get(`/users/${t.bot.email}`)).body.user.user_id, t.bot.id);
    assert.equal((await as(t.member).get(`/users/${t.admin.id}`)).body.user.full_name, "Adam Admin", "members are not limited");
  });

  test("are told only that someone joined", async () => {
    const r = await as(t.admin).post("/users", { email: "restricted@zulip.example.com", full_name: "Quiet Newcomer", password: "123456" });
    const id = r.body.user_id;
    const userNotices = notices.filter((n) => n.event.type === "realm_user");
    assert.deepEqual(userNotices.map((n) => n.userIds), [[t.owner.id, t.admin.id, id], [t.moderator.id, t.member.id, t.member2.id, t.bot.id], [t.guest.id]]);
    assert.deepEqual(userNotices[2].event, { type: "realm_user", op: "add", person: unknownUser(id), inaccessible_user: true });
    await srv.app.db.deleteFrom("subscriptions").where("user_id", "=", id).execute();
    await srv.app.db.updateTable("users").set({ is_active: 0 }).where("id", "=", id).execute();
  });
});

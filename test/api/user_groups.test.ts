import { test, before, after, describe, beforeEach, afterEach } from "node:test";
import assert from "node:assert/strict";
import { ManualClock, startTestServer, type TestServer } from "../helpers/server.js";
import { Api } from "../helpers/client.js";
import { createTestRealm, type TestRealm, type TestUser } from "../helpers/realm.js";
import type { Notice } from "../../src/events/bus.js";
import { systemGroupIds } from "../../src/store/groups.js";
import { runAction } from "../../src/actions/run.js";
import { createUserInTx } from "../../src/actions/users.js";

let srv: TestServer;
let t: TestRealm;
let other: TestRealm;
let api: Api;
let sys: Map<string, number>;
let otherSys: Map<string, number>;
let notices: Notice[];
let unsubscribe: () => void;
const clock = new ManualClock(1_700_000_000);

const as = (u: TestUser) => api.as(u);
const everyone = () => [t.owner, t.admin, t.moderator, t.member, t.member2, t.guest, t.bot];
const everyoneIds = () => everyone().map((u) => u.id).sort((a, b) => a - b);
const sysId = (name: string) => sys.get(name)!;

before(async () => {
  srv = await startTestServer({}, { clock });
  t = await createTestRealm(srv.app);
  other = await createTestRealm(srv.app, "other");
  api = new Api(srv.url);
  sys = await systemGroupIds(srv.app.db, t.realm.id);
  otherSys = await systemGroupIds(srv.app.db, other.realm.id);
});
after(() => srv.close());
beforeEach(() => {
  notices = [];
  unsubscribe = srv.app.bus.subscribe((n) => notices.push(n));
});
afterEach(() => unsubscribe());

function expectError(r: { status: number; body: Record<string, any> }, msg: string, code = "BAD_REQUEST", status = 400) {
  assert.deepEqual([r.status, r.body.result, r.body.msg, r.body.code], [status, "error", msg, code]);
}

async function groupRowCount(): Promise<number> {
  const row = await srv.app.db.selectFrom("user_groups").select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirstOrThrow();
  return Number(row.n);
}

let counter = 0;
async function createGroup(by: TestUser, params: Record<string, any> = {}): Promise<number> {
  const r = await as(by).post("/user_groups/create", { name: `group ${++counter}`, description: "", members: [], ...params });
  assert.equal(r.body.result, "success", JSON.stringify(r.body));
  return r.body.group_id;
}

async function groupById(id: number, viewer: TestUser = t.member) {
  const r = await as(viewer).get("/user_groups", { include_deactivated_groups: true });
  return r.body.user_groups.find((g: { id: number }) => g.id === id);
}

describe("GET /user_groups", () => {
  test("members of every role list the organization's named groups, sorted by id", async () => {
    for (const u of [t.owner, t.admin, t.moderator, t.member]) {
      const r = await as(u).get("/user_groups");
      assert.equal(r.status, 200);
      const names = r.body.user_groups.map((g: { name: string }) => g.name);
      assert.deepEqual(names.slice(0, 8), [
        "role:nobody", "role:owners", "role:administrators", "role:moderators",
        "role:fullmembers", "role:members", "role:everyone", "role:internet",
      ]);
      const ids = r.body.user_groups.map((g: { id: number }) => g.id);
      assert.deepEqual(ids, [...ids].sort((a, b) => a - b));
      assert.equal(ids.some((id: number) => [...otherSys.values()].includes(id)), false);
    }
  });

  test("system groups show their members, subgroups and settings as Zulip seeds them", async () => {
    const r = await as(t.member).get("/user_groups");
    const byName = new Map<string, any>(r.body.user_groups.map((g: any) => [g.name, g]));
    const nobody = sysId("role:nobody");
    assert.deepEqual(byName.get("role:administrators"), {
      id: sysId("role:administrators"),
      name: "role:administrators",
      description: "Administrators of this organization, including owners",
      members: [t.admin.id],
      direct_subgroup_ids: [sysId("role:owners")],
      creator_id: null,
      date_created: null,
      is_system_group: true,
      can_add_members_group: nobody,
      can_join_group: nobody,
      can_leave_group: nobody,
      can_manage_group: nobody,
      can_mention_group: nobody,
      can_remove_members_group: nobody,
      deactivated: false,
    });
    assert.deepEqual(byName.get("role:everyone").members, [t.guest.id]);
    assert.deepEqual(byName.get("role:members").members.sort(), [t.member.id, t.member2.id, t.bot.id].sort());
  });

  test("guests and bots may not list groups", async () => {
    expectError(await as(t.guest).get("/user_groups"), "Not allowed for guest users");
    expectError(await as(t.bot).get("/user_groups"), "This endpoint does not accept bot requests.");
  });

  test("deactivated groups appear only with include_deactivated_groups", async () => {
    const id = await createGroup(t.member);
    await srv.app.db.updateTable("user_groups").set({ deactivated: 1 }).where("id", "=", id).execute();
    const plain = await as(t.member).get("/user_groups");
    assert.equal(plain.body.user_groups.some((g: any) => g.id === id), false);
    const all = await as(t.member).get("/user_groups", { include_deactivated_groups: true });
    assert.equal(all.body.user_groups.find((g: any) => g.id === id).deactivated, true);
    expectError(await as(t.member).get("/user_groups", { include_deactivated_groups: "maybe" }), "include_deactivated_groups is not valid JSON");
  });

  test("members lists leave out deactivated users", async () => {
    const id = await createGroup(t.member, { members: [t.member.id, t.member2.id] });
    await srv.app.db.updateTable("users").set({ is_active: 0 }).where("id", "=", t.member2.id).execute();
    try {
      assert.deepEqual((await groupById(id)).members, [t.member.id]);
    } finally {
      await srv.app.db.updateTable("users").set({ is_active: 1 }).where("id", "=", t.member2.id).execute();
    }
  });
});

describe("the listed groups follow every change (they are kept in memory between reads)", () => {
  test("membership, subgroups, names, roles, deactivation and new users show on the next read", async () => {
    const id = await createGroup(t.member, { members: [t.member.id] });
    const sub = await createGroup(t.member);
    const read = async (groupId: number) => (await groupById(groupId, t.admin)) as { members: number[]; direct_subgroup_ids: number[]; name: string };
    assert.deepEqual((await read(id)).members, [t.member.id]);

    await as(t.member).post(`/user_groups/${id}/members`, { add: [t.member2.id] });
    assert.deepEqual((await read(id)).members, [t.member.id, t.member2.id]);
    await as(t.member).post(`/user_groups/${id}/subgroups`, { add: [sub] });
    assert.deepEqual((await read(id)).direct_subgroup_ids, [sub]);
    await as(t.member).patch(`/user_groups/${id}`, { name: "renamed while cached" });
    assert.equal((await read(id)).name, "renamed while cached");

    const moderators = sysId("role:moderators");
    assert.ok(!(await read(moderators)).members.includes(t.member2.id));
    await as(t.owner).patch(`/users/${t.member2.id}`, { role: 300 });
    assert.ok((await read(moderators)).members.includes(t.member2.id));
    await as(t.owner).patch(`/users/${t.member2.id}`, { role: 400 });
    assert.ok(!(await read(moderators)).members.includes(t.member2.id));

    await as(t.admin).delete(`/users/${t.member2.id}`);
    assert.deepEqual((await read(id)).members, [t.member.id]);
    await as(t.admin).post(`/users/${t.member2.id}/reactivate`);
    assert.deepEqual((await read(id)).members, [t.member.id, t.member2.id]);

    const created = await runAction(srv.app, (tx) => createUserInTx(tx, srv.app, t.realm, { email: "newcomer-groups@example.com", fullName: "Newcomer", role: 400 }));
    assert.ok((await read(sysId("role:members"))).members.includes(created.id));
    // Later tests count the organization's active users.
    await as(t.admin).delete(`/users/${created.id}`);
    assert.ok(!(await read(sysId("role:members"))).members.includes(created.id));
  });
});

describe("POST /user_groups/create", () => {
  test("creates a group with Zulip's defaults for new groups and announces it to all active users", async () => {
    const before = await groupRowCount();
    const r = await as(t.member).post("/user_groups/create", {
      name: "  marketing ",
      description: "The marketing team.",
      members: [t.member2.id, t.guest.id, t.bot.id, t.member2.id],
    });
    assert.equal(r.status, 200);
    const id = r.body.group_id;
    assert.deepEqual(r.body, { result: "success", msg: "", group_id: id });
    const creatorOnly = { direct_members: [t.member.id], direct_subgroups: [] };
    const expected = {
      id,
      name: "  marketing ",
      description: "The marketing team.",
      members: [t.member2.id, t.guest.id, t.bot.id].sort((a, b) => a - b),
      direct_subgroup_ids: [],
      creator_id: t.member.id,
      date_created: 1_700_000_000,
      is_system_group: false,
      can_add_members_group: creatorOnly,
      can_join_group: sysId("role:nobody"),
      can_leave_group: sysId("role:everyone"),
      can_manage_group: creatorOnly,
      can_mention_group: sysId("role:everyone"),
      can_remove_members_group: sysId("role:nobody"),
      deactivated: false,
    };
    assert.deepEqual(await groupById(id), expected);
    assert.equal(await groupRowCount(), before + 3, "the group and its two creator-only settings");

    assert.equal(notices.length, 1);
    const { id: _id, name, description, members, direct_subgroup_ids, creator_id, date_created, is_system_group, deactivated, ...settings } = expected;
    assert.deepEqual(notices[0], {
      realmId: t.realm.id,
      event: {
        type: "user_group",
        op: "add",
        group: { name, creator_id, date_created, members, description, id, is_system_group, direct_subgroup_ids, ...settings, deactivated },
      },
      userIds: everyoneIds(),
    });
    assert.deepEqual(Object.keys((notices[0].event as any).group), [
      "name", "creator_id", "date_created", "members", "description", "id", "is_system_group", "direct_subgroup_ids",
      "can_add_members_group", "can_join_group", "can_leave_group", "can_manage_group", "can_mention_group",
      "can_remove_members_group", "deactivated",
    ]);
  });

  test("deactivated users do not receive the event", async () => {
    await srv.app.db.updateTable("users").set({ is_active: 0 }).where("id", "=", t.member2.id).execute();
    try {
      await createGroup(t.admin);
      assert.deepEqual(notices[0].userIds, everyoneIds().filter((id) => id !== t.member2.id));
    } finally {
      await srv.app.db.updateTable("users").set({ is_active: 1 }).where("id", "=", t.member2.id).execute();
    }
  });

  test("settings accept group ids and anonymous groups, normalized as Zulip does", async () => {
    const team = await createGroup(t.admin, { members: [t.member.id] });
    const id = await createGroup(t.owner, {
      can_add_members_group: sysId("role:moderators"),
      can_join_group: { direct_members: [], direct_subgroups: [team] },
      can_leave_group: { direct_members: [], direct_subgroups: [] },
      can_manage_group: { direct_members: [t.member2.id, t.member.id, t.member.id], direct_subgroups: [team, sysId("role:administrators")] },
      can_mention_group: sysId("role:everyone"),
      can_remove_members_group: { direct_members: [t.guest.id], direct_subgroups: [sysId("role:everyone")] },
    });
    const g = await groupById(id);
    assert.equal(g.can_add_members_group, sysId("role:moderators"));
    assert.equal(g.can_join_group, team);
    assert.equal(g.can_leave_group, sysId("role:nobody"));
    assert.deepEqual(g.can_manage_group, {
      direct_members: [t.member.id, t.member2.id].sort((a, b) => a - b),
      direct_subgroups: [sysId("role:administrators"), team].sort((a, b) => a - b),
    });
    assert.equal(g.can_mention_group, sysId("role:everyone"));
    assert.deepEqual(g.can_remove_members_group, { direct_members: [t.guest.id], direct_subgroups: [sysId("role:everyone")] });
    assert.deepEqual((notices.at(-1)!.event as any).group.can_manage_group, g.can_manage_group);
  });

  test("subgroups are added after creation, with their own event", async () => {
    const a = await createGroup(t.admin);
    const b = await createGroup(t.admin);
    notices.length = 0;
    const id = await createGroup(t.member, { subgroups: [b, a, sysId("role:moderators")] });
    const subgroups = [a, b, sysId("role:moderators")].sort((x, y) => x - y);
    assert.deepEqual((await groupById(id)).direct_subgroup_ids, subgroups);
    assert.equal(notices.length, 2);
    assert.deepEqual((notices[0].event as any).group.direct_subgroup_ids, []);
    assert.deepEqual(notices[1], {
      realmId: t.realm.id,
      event: { type: "user_group", op: "add_subgroups", group_id: id, direct_subgroup_ids: subgroups },
      userIds: everyoneIds(),
    });
  });

  test("members of every role may create groups by default; guests and bots may not", async () => {
    for (const u of [t.owner, t.admin, t.moderator, t.member]) await createGroup(u);
    const before = await groupRowCount();
    expectError(await as(t.guest).post("/user_groups/create", { name: "g", description: "", members: [] }), "Not allowed for guest users");
    expectError(await as(t.bot).post("/user_groups/create", { name: "g", description: "", members: [] }), "This endpoint does not accept bot requests.");
    assert.equal(await groupRowCount(), before);
  });

  test("the organization's can_create_groups setting decides, before parameters are read", async () => {
    const settings = { ...t.realm.groupSettings, can_create_groups: sysId("role:administrators") };
    await srv.app.db.updateTable("realms").set({ group_settings: JSON.stringify(settings) }).where("id", "=", t.realm.id).execute();
    try {
      const before = await groupRowCount();
      for (const u of [t.moderator, t.member]) {
        expectError(await as(u).post("/user_groups/create", {}), "Insufficient permission");
      }
      assert.equal(await groupRowCount(), before);
      await createGroup(t.admin);
      await createGroup(t.owner);
    } finally {
      await srv.app.db.updateTable("realms").set({ group_settings: JSON.stringify(t.realm.groupSettings) }).where("id", "=", t.realm.id).execute();
    }
  });

  async function refused(params: Record<string, any>, msg: string, code = "BAD_REQUEST") {
    const before = await groupRowCount();
    const r = await as(t.member).post("/user_groups/create", { name: "refused", description: "", members: [], ...params });
    expectError(r, msg, code);
    assert.equal(await groupRowCount(), before, `nothing created for ${JSON.stringify(params)}`);
    assert.equal(notices.length, 0);
  }

  test("missing and malformed parameters", async () => {
    const r = await as(t.member).post("/user_groups/create", { name: "x", members: [] });
    expectError(r, "Missing 'description' argument", "REQUEST_VARIABLE_MISSING");
    assert.equal(r.body.var_name, "description");
    expectError(await as(t.member).post("/user_groups/create", { name: "x", description: "" }), "Missing 'members' argument", "REQUEST_VARIABLE_MISSING");
    expectError(await as(t.member).post("/user_groups/create", { description: "", members: [] }), "Missing 'name' argument", "REQUEST_VARIABLE_MISSING");
    await refused({ members: "1,2" }, "members is not valid JSON");
    await refused({ members: ["a"] }, "members[0] is not an integer");
    await refused({ subgroups: 5 }, "subgroups is not a list");
    await refused({ can_join_group: "abc" }, "can_join_group is not valid JSON");
    await refused({ can_join_group: "role:nobody" }, "can_join_group is not valid JSON");
    await refused({ can_join_group: JSON.stringify("x") }, "Invalid can_join_group");
    await refused({ can_join_group: { direct_members: [] } }, "Invalid can_join_group");
    await refused({ can_join_group: { direct_members: ["a"], direct_subgroups: [] } }, "Invalid can_join_group");
    const lenient = await createGroup(t.member, { can_join_group: { direct_members: [], direct_subgroups: [], extra: 1 } });
    assert.equal((await groupById(lenient)).can_join_group, sysId("role:nobody"), "unknown keys are ignored, as Zulip's dataclass does");
  });

  test("member ids must be active users of the organization", async () => {
    await srv.app.db.updateTable("users").set({ is_active: 0 }).where("id", "=", t.member2.id).execute();
    try {
      await refused({ members: [t.member.id, 99999, t.member2.id] }, "Invalid user ID: 99999");
      await refused({ members: [t.member2.id] }, `Invalid user ID: ${t.member2.id}`);
      await refused({ members: [other.member.id] }, `Invalid user ID: ${other.member.id}`);
    } finally {
      await srv.app.db.updateTable("users").set({ is_active: 1 }).where("id", "=", t.member2.id).execute();
    }
  });

  test("name rules", async () => {
    const taken = await createGroup(t.admin, { name: "taken" });
    notices.length = 0;
    await refused({ name: "" }, "User group name can't be empty!");
    await refused({ name: "   " }, "User group name can't be empty!");
    await refused({ name: "x".repeat(101) }, "User group name cannot exceed 100 characters.");
    for (const prefix of ["@", "role:", "user:", "stream:", "channel:"]) {
      await refused({ name: `${prefix}team` }, `User group name cannot start with '${prefix}'.`);
    }
    await refused({ name: "taken" }, "User group 'taken' already exists.");
    await srv.app.db.updateTable("user_groups").set({ deactivated: 1 }).where("id", "=", taken).execute();
    await refused({ name: "taken" }, "User group 'taken' already exists.");
    await refused({ name: "x".repeat(101), members: [99999] }, "Invalid user ID: 99999");
    await createGroup(t.member, { name: "TAKEN" });
    await createGroup(t.member, { name: "é".repeat(100) });
  });

  test("setting values naming groups are checked against each setting", async () => {
    const deactivated = await createGroup(t.admin);
    await srv.app.db.updateTable("user_groups").set({ deactivated: 1 }).where("id", "=", deactivated).execute();
    const anonymous = (await srv.app.db.selectFrom("user_groups").select("id").where("realm_id", "=", t.realm.id).where("name", "is", null).executeTakeFirstOrThrow()).id;
    notices.length = 0;
    for (const setting of ["can_add_members_group", "can_join_group", "can_manage_group", "can_remove_members_group"]) {
      await refused({ [setting]: sysId("role:everyone") }, `'${setting}' setting cannot be set to 'role:everyone' group.`);
    }
    for (const setting of ["can_add_members_group", "can_join_group", "can_leave_group", "can_manage_group", "can_mention_group", "can_remove_members_group"]) {
      await refused({ [setting]: sysId("role:internet") }, `'${setting}' setting cannot be set to 'role:internet' group.`);
      await refused({ [setting]: deactivated }, "User group is deactivated.");
      await refused({ [setting]: 99999 }, "Invalid user group");
      await refused({ [setting]: anonymous }, "Invalid user group");
      await refused({ [setting]: otherSys.get("role:members") }, "Invalid user group");
    }
    await refused({ can_leave_group: { direct_members: [], direct_subgroups: [deactivated] } }, "User group is deactivated.");
  });

  test("anonymous values must name active users and named groups of the organization", async () => {
    const anonymous = (await srv.app.db.selectFrom("user_groups").select("id").where("realm_id", "=", t.realm.id).where("name", "is", null).executeTakeFirstOrThrow()).id;
    await refused({ can_manage_group: { direct_members: [t.member.id, 99999], direct_subgroups: [] } }, "Invalid user ID: 99999");
    await refused({ can_manage_group: { direct_members: [other.member.id], direct_subgroups: [] } }, `Invalid user ID: ${other.member.id}`);
    await refused({ can_manage_group: { direct_members: [t.member.id], direct_subgroups: [99999] } }, "Invalid user group ID: 99999");
    await refused({ can_manage_group: { direct_members: [t.member.id], direct_subgroups: [anonymous] } }, `Invalid user group ID: ${anonymous}`);
    await refused({ can_join_group: { direct_members: [], direct_subgroups: [99999] } }, "Invalid user group");
    await refused({ can_mention_group: { direct_members: [], direct_subgroups: [sysId("role:internet")] } }, "'can_mention_group' setting cannot be set to 'role:internet' group.");
    // Zulip does not apply the per-setting system-group rules to groups inside an anonymous value.
    await createGroup(t.member, { can_manage_group: { direct_members: [t.member.id], direct_subgroups: [sysId("role:everyone")] } });
  });

  test("subgroups must be active named groups of the organization", async () => {
    const deactivated = await createGroup(t.admin);
    await srv.app.db.updateTable("user_groups").set({ deactivated: 1 }).where("id", "=", deactivated).execute();
    notices.length = 0;
    await refused({ subgroups: [sysId("role:members"), 99999] }, "Invalid user group ID: 99999");
    await refused({ subgroups: [otherSys.get("role:members")] }, `Invalid user group ID: ${otherSys.get("role:members")}`);
    await refused({ subgroups: [deactivated] }, "User group is deactivated.");
  });

  test("a user of another organization never sees this one's groups", async () => {
    const id = await createGroup(t.member, { name: "private-ish" });
    const r = await as(other.member).get("/user_groups");
    assert.equal(r.body.user_groups.some((g: any) => g.id === id), false);
    await as(other.member).post("/user_groups/create", { name: "private-ish", description: "", members: [] }).then((res) => {
      assert.equal(res.body.result, "success", "names are unique per organization only");
    });
  });
});

describe("GET /user_groups/{id}/members", () => {
  test("recursive by default, direct with direct_member_only, deactivated users left out", async () => {
    const inner = await createGroup(t.admin, { members: [t.member2.id, t.guest.id] });
    const outer = await createGroup(t.admin, { members: [t.member.id], subgroups: [inner, sysId("role:owners")] });
    for (const u of [t.owner, t.admin, t.moderator, t.member]) {
      assert.deepEqual((await as(u).get(`/user_groups/${outer}/members`)).body.members, [t.owner.id, t.member.id, t.member2.id, t.guest.id].sort((a, b) => a - b));
      assert.deepEqual((await as(u).get(`/user_groups/${outer}/members`, { direct_member_only: true })).body.members, [t.member.id]);
    }
    await srv.app.db.updateTable("users").set({ is_active: 0 }).where("id", "=", t.member2.id).execute();
    try {
      assert.deepEqual((await as(t.member).get(`/user_groups/${inner}/members`)).body.members, [t.guest.id]);
      assert.deepEqual((await as(t.member).get(`/user_groups/${inner}/members`, { direct_member_only: true })).body.members, [t.guest.id]);
    } finally {
      await srv.app.db.updateTable("users").set({ is_active: 1 }).where("id", "=", t.member2.id).execute();
    }
    assert.deepEqual((await as(t.member).get(`/user_groups/${sysId("role:moderators")}/members`)).body.members, [t.owner.id, t.admin.id, t.moderator.id]);
    assert.deepEqual((await as(t.member).get(`/user_groups/${sysId("role:nobody")}/members`)).body.members, []);
    assert.deepEqual(
      (await as(t.member).get(`/user_groups/${sysId("role:internet")}/members`)).body.members,
      everyoneIds(),
      "everyone in the organization, but not the system bots",
    );
  });

  test("unknown, anonymous, other organizations' and deactivated groups", async () => {
    const anonymous = (await srv.app.db.selectFrom("user_groups").select("id").where("realm_id", "=", t.realm.id).where("name", "is", null).executeTakeFirstOrThrow()).id;
    for (const id of [99999, anonymous, otherSys.get("role:members")!]) {
      expectError(await as(t.member).get(`/user_groups/${id}/members`), "Invalid user group");
    }
    const deactivated = await createGroup(t.admin);
    await srv.app.db.updateTable("user_groups").set({ deactivated: 1 }).where("id", "=", deactivated).execute();
    expectError(await as(t.member).get(`/user_groups/${deactivated}/members`), "User group is deactivated.");
    const notFound = await as(t.member).get("/user_groups/abc/members");
    assert.equal(notFound.status, 404);
  });

  test("guests and bots may not read memberships", async () => {
    expectError(await as(t.guest).get(`/user_groups/${sysId("role:members")}/members`), "Not allowed for guest users");
    expectError(await as(t.bot).get(`/user_groups/${sysId("role:members")}/members`), "This endpoint does not accept bot requests.");
  });
});

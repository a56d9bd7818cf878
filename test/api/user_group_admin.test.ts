/**
 * Changing user groups: PATCH, deactivation, members and subgroups, with the permission matrix,
 * Zulip's error texts, all-or-nothing requests and the events each change sends.
 */
import { test, before, after, describe } from "node:test";
import assert from "node:assert/strict";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { Api, type ApiResponse, type ParamValue } from "../helpers/client.js";
import { createTestRealm, type TestRealm, type TestUser } from "../helpers/realm.js";
import { logEventsPerTest, type EventLog } from "../helpers/events.js";
import { expectError, expectRefusedUnchanged, expectSuccess } from "../helpers/expect.js";
import { systemGroupIds } from "../../src/store/groups.js";

let srv: TestServer;
let t: TestRealm;
let other: TestRealm;
let api: Api;
let sys: Map<string, number>;
let log: EventLog;

const as = (u: TestUser) => api.as(u);
const sysId = (name: string) => sys.get(name)!;
const allIds = () => [t.owner, t.admin, t.moderator, t.member, t.member2, t.guest, t.bot].map((u) => u.id).sort((a, b) => a - b);
const anon = (members: number[], subgroups: number[] = []) => ({ direct_members: members, direct_subgroups: subgroups });

before(async () => {
  srv = await startTestServer();
  t = await createTestRealm(srv.app);
  other = await createTestRealm(srv.app, "other");
  api = new Api(srv.url);
  sys = await systemGroupIds(srv.app.db, t.realm.id);
});
after(() => srv.close());
logEventsPerTest(() => srv, (l) => (log = l));



let counter = 0;
/** A group made by the owner, managed by member2 alone unless told otherwise. */
async function makeGroup(params: Record<string, ParamValue> = {}): Promise<number> {
  const r = await as(t.owner).post("/user_groups/create", {
    name: `team ${++counter}`,
    description: "A team",
    members: [],
    can_manage_group: anon([t.member2.id]),
    can_add_members_group: anon([t.member2.id]),
    ...params,
  });
  expectSuccess(r);
  log.notices.length = 0;
  return r.body.group_id;
}

async function groupById(id: number) {
  const r = await as(t.owner).get("/user_groups", { include_deactivated_groups: true });
  return r.body.user_groups.find((g: { id: number }) => g.id === id);
}

async function groupRows(): Promise<number> {
  const row = await srv.app.db.selectFrom("user_groups").select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Each refusal leaves the group as it was and announces nothing. */
const refusedUnchanged = (groupId: number, attempt: () => Promise<ApiResponse>, msg: string, code?: string) =>
  expectRefusedUnchanged(() => groupById(groupId), log, attempt, msg, code);

describe("PATCH /user_groups/{id}: who may change a group", () => {
  test("owners (can_manage_all_groups) and the group's managers may; no role is enough by itself", async () => {
    const id = await makeGroup();
    for (const [u, i] of [[t.owner, 1], [t.member2, 2]] as const) {
      expectSuccess(await as(u).patch(`/user_groups/${id}`, { description: `changed ${i}` }));
    }
    const cases: [TestUser, string][] = [
      [t.admin, "Insufficient permission"],
      [t.moderator, "Insufficient permission"],
      [t.member, "Insufficient permission"],
      [t.guest, "Not allowed for guest users"],
      [t.bot, "This endpoint does not accept bot requests."],
      [other.owner, "Invalid user group"],
    ];
    for (const [u, msg] of cases) await refusedUnchanged(id, () => as(u).patch(`/user_groups/${id}`, { description: "nope" }), msg);
  });

  test("members of the add/join/leave/remove settings may not change the group's settings", async () => {
    const id = await makeGroup({ can_join_group: sysId("role:members"), can_remove_members_group: anon([t.member.id]) });
    await refusedUnchanged(id, () => as(t.member).patch(`/user_groups/${id}`, { name: "mine" }), "Insufficient permission");
  });

  test("a guest in can_manage_group gets no permission from it; the guard answers first", async () => {
    const id = await makeGroup({ can_manage_group: anon([t.guest.id]) });
    await refusedUnchanged(id, () => as(t.guest).patch(`/user_groups/${id}`, { name: "g" }), "Not allowed for guest users");
  });

  test("when can_manage_all_groups names administrators, they may manage every group", async () => {
    const id = await makeGroup();
    const restore = await setRealmGroupSetting("can_manage_all_groups", sysId("role:administrators"));
    try {
      expectSuccess(await as(t.admin).patch(`/user_groups/${id}`, { description: "by admin" }));
      await refusedUnchanged(id, () => as(t.moderator).patch(`/user_groups/${id}`, { description: "x" }), "Insufficient permission");
    } finally {
      await restore();
    }
  });

  test("system groups cannot be changed, even by owners", async () => {
    expectError(await as(t.owner).patch(`/user_groups/${sysId("role:members")}`, { description: "x" }), "Insufficient permission");
  });

  test("nothing to change is refused before the group is looked up", async () => {
    expectError(await as(t.owner).patch("/user_groups/999999", {}), "No new data supplied");
    expectError(await as(t.owner).patch("/user_groups/999999", { description: "x" }), "Invalid user group");
  });
});

async function setRealmGroupSetting(setting: string, groupId: number): Promise<() => Promise<void>> {
  const { group_settings } = await srv.app.db.selectFrom("realms").select("group_settings").where("id", "=", t.realm.id).executeTakeFirstOrThrow();
  const next = { ...JSON.parse(group_settings), [setting]: groupId };
  await srv.app.db.updateTable("realms").set({ group_settings: JSON.stringify(next) }).where("id", "=", t.realm.id).execute();
  return async () => {
    await srv.app.db.updateTable("realms").set({ group_settings }).where("id", "=", t.realm.id).execute();
  };
}

describe("PATCH /user_groups/{id}: name and description", () => {
  test("a new name is checked, stored as given and announced to every active user", async () => {
    const id = await makeGroup();
    expectSuccess(await as(t.member2).patch(`/user_groups/${id}`, { name: " Renamed " }));
    assert.equal((await groupById(id)).name, " Renamed ");
    assert.deepEqual(
      log.notices.map((n) => [n.event, n.userIds]),
      [[{ type: "user_group", op: "update", group_id: id, data: { name: " Renamed " }, deactivated: false }, allIds()]],
    );
    log.notices.length = 0;
    expectSuccess(await as(t.member2).patch(`/user_groups/${id}`, { name: " Renamed ", description: "A team" }));
    assert.deepEqual(log.notices, [], "unchanged values send nothing");
  });

  test("Zulip's name rules", async () => {
    const id = await makeGroup();
    const taken = (await groupById(await makeGroup())).name;
    const attempts: [string, string][] = [
      ["  ", "User group name can't be empty!"],
      ["x".repeat(101), "User group name cannot exceed 100 characters."],
      ["@team", "User group name cannot start with '@'."],
      ["role:team", "User group name cannot start with 'role:'."],
      ["channel:x", "User group name cannot start with 'channel:'."],
      [taken, `User group '${taken}' already exists.`],
    ];
    for (const [name, msg] of attempts) await refusedUnchanged(id, () => as(t.owner).patch(`/user_groups/${id}`, { name }), msg);
    expectSuccess(await as(t.owner).patch(`/user_groups/${id}`, { name: "x".repeat(100) }));
  });

  test("a description change is announced; no length limit applies", async () => {
    const id = await makeGroup();
    const description = "d".repeat(5000);
    expectSuccess(await as(t.owner).patch(`/user_groups/${id}`, { description }));
    assert.deepEqual(log.of("user_group", "update").map((n) => n.event.data), [{ description }]);
  });
});

describe("PATCH /user_groups/{id}: permission settings", () => {
  test("each setting takes an update object; the change is announced with the new value", async () => {
    const id = await makeGroup();
    expectSuccess(
      await as(t.member2).patch(`/user_groups/${id}`, {
        can_join_group: { new: sysId("role:members"), old: sysId("role:nobody") },
        can_mention_group: { new: anon([t.member.id, t.admin.id]) },
      }),
    );
    const group = await groupById(id);
    assert.equal(group.can_join_group, sysId("role:members"));
    assert.deepEqual(group.can_mention_group, anon([t.admin.id, t.member.id]));
    assert.deepEqual(
      log.notices.map((n) => [n.event.data, n.userIds]),
      [
        [{ can_join_group: sysId("role:members") }, allIds()],
        [{ can_mention_group: anon([t.admin.id, t.member.id]) }, allIds()],
      ],
    );
  });

  test("can_mention_group accepts only the update-object form", async () => {
    const id = await makeGroup();
    await refusedUnchanged(
      id,
      () => as(t.owner).patch(`/user_groups/${id}`, { can_mention_group: sysId("role:members") }),
      "can_mention_group is not a dict",
    );
  });

  test("system groups each setting refuses", async () => {
    const id = await makeGroup();
    const refused: [string, string][] = [
      ["can_manage_group", "role:everyone"],
      ["can_manage_group", "role:internet"],
      ["can_mention_group", "role:owners"],
      ["can_mention_group", "role:internet"],
      ["can_add_members_group", "role:everyone"],
      ["can_join_group", "role:internet"],
      ["can_leave_group", "role:internet"],
      ["can_remove_members_group", "role:everyone"],
    ];
    for (const [setting, group] of refused) {
      await refusedUnchanged(
        id,
        () => as(t.owner).patch(`/user_groups/${id}`, { [setting]: { new: sysId(group) } }),
        `'${setting}' setting cannot be set to '${group}' group.`,
      );
    }
    expectSuccess(await as(t.owner).patch(`/user_groups/${id}`, { can_mention_group: { new: sysId("role:everyone") } }));
    expectSuccess(await as(t.owner).patch(`/user_groups/${id}`, { can_leave_group: { new: sysId("role:nobody") } }));
  });

  test("a stale `old`, unknown groups and users, and deactivated groups are refused", async () => {
    const id = await makeGroup();
    const dead = await makeGroup();
    await srv.app.db.updateTable("user_groups").set({ deactivated: 1 }).where("id", "=", dead).execute();
    const patch = (setting: Record<string, ParamValue>) => () => as(t.owner).patch(`/user_groups/${id}`, setting);
    await refusedUnchanged(
      id,
      patch({ can_join_group: { new: sysId("role:members"), old: sysId("role:members") } }),
      "'old' value does not match the expected value.",
      "EXPECTATION_MISMATCH",
    );
    await refusedUnchanged(id, patch({ can_join_group: { new: 999999 } }), "Invalid user group");
    await refusedUnchanged(id, patch({ can_join_group: { new: other.realm.groupSettings.can_create_groups } }), "Invalid user group");
    await refusedUnchanged(id, patch({ can_join_group: { new: dead } }), "User group is deactivated.");
    await refusedUnchanged(id, patch({ can_join_group: { new: anon([t.member.id], [dead]) } }), "User group is deactivated.");
    await refusedUnchanged(id, patch({ can_join_group: { new: anon([999999]) } }), "Invalid user ID: 999999");
    await refusedUnchanged(id, patch({ can_join_group: { new: anon([t.member.id], [999999]) } }), "Invalid user group ID: 999999");
  });

  test("an unchanged value is a silent no-op, checked before the new value is", async () => {
    const id = await makeGroup();
    expectSuccess(await as(t.owner).patch(`/user_groups/${id}`, { can_manage_group: { new: anon([t.member2.id]), old: anon([t.member2.id]) } }));
    expectSuccess(await as(t.owner).patch(`/user_groups/${id}`, { can_join_group: { new: anon([], []) } }), "an empty value is role:nobody");
    assert.deepEqual(log.notices, []);
  });

  test("anonymous values reuse their group; moving to a named group drops it", async () => {
    const id = await makeGroup();
    const rows = await groupRows();
    expectSuccess(await as(t.owner).patch(`/user_groups/${id}`, { can_manage_group: { new: anon([t.member.id, t.member2.id]) } }));
    assert.equal(await groupRows(), rows);
    expectSuccess(await as(t.owner).patch(`/user_groups/${id}`, { can_manage_group: { new: anon([], [sysId("role:moderators")]) } }));
    assert.equal((await groupById(id)).can_manage_group, sysId("role:moderators"));
    assert.equal(await groupRows(), rows - 1);
  });

  test("a request with a bad part changes nothing at all", async () => {
    const id = await makeGroup();
    await refusedUnchanged(
      id,
      () =>
        as(t.owner).patch(`/user_groups/${id}`, {
          name: "half done",
          description: "half done",
          can_join_group: { new: sysId("role:members") },
          can_manage_group: { new: sysId("role:everyone") },
        }),
      "'can_manage_group' setting cannot be set to 'role:everyone' group.",
    );
  });

  test("managers lose the group when they give management away", async () => {
    const id = await makeGroup();
    expectSuccess(await as(t.member2).patch(`/user_groups/${id}`, { can_manage_group: { new: anon([t.member.id]) } }));
    await refusedUnchanged(id, () => as(t.member2).patch(`/user_groups/${id}`, { description: "x" }), "Insufficient permission");
    expectSuccess(await as(t.member).patch(`/user_groups/${id}`, { description: "mine now" }));
  });
});

describe("deactivating and reactivating groups", () => {
  test("who may deactivate: owners and the group's managers; guests and bots get the group check", async () => {
    const refusals: [TestUser, string][] = [
      [t.admin, "Insufficient permission"],
      [t.moderator, "Insufficient permission"],
      [t.member, "Insufficient permission"],
      [t.guest, "Insufficient permission"],
      [t.bot, "Insufficient permission"],
      [other.owner, "Invalid user group"],
    ];
    const id = await makeGroup();
    for (const [u, msg] of refusals) await refusedUnchanged(id, () => as(u).post(`/user_groups/${id}/deactivate`), msg);
    expectSuccess(await as(t.member2).post(`/user_groups/${id}/deactivate`));
    assert.equal((await groupById(id)).deactivated, true);
    expectError(await as(t.member2).post(`/user_groups/${id}/deactivate`), "User group is deactivated.");
    expectSuccess(await as(t.owner).post(`/user_groups/${await makeGroup()}/deactivate`));
    expectError(await as(t.owner).post(`/user_groups/${sysId("role:members")}/deactivate`), "Insufficient permission");
  });

  test("deactivation sends update to clients that keep deactivated groups and remove to the rest", async () => {
    const id = await makeGroup();
    expectSuccess(await as(t.owner).post(`/user_groups/${id}/deactivate`));
    assert.deepEqual(
      log.notices.map((n) => [n.event, n.userIds]),
      [
        [{ type: "user_group", op: "update", group_id: id, data: { deactivated: true } }, allIds()],
        [{ type: "user_group", op: "remove", group_id: id }, allIds()],
      ],
    );
  });

  test("a group still in use cannot be deactivated; the objections list every use", async () => {
    const id = await makeGroup();
    const parent = await makeGroup({ subgroups: [id] });
    const user = await makeGroup({ can_mention_group: id, can_join_group: anon([t.member.id], [id]) });
    const stream = await as(t.owner).post("/users/me/subscriptions", {
      subscriptions: [{ name: "uses group" }],
      can_administer_channel_group: id,
    });
    expectSuccess(stream);
    const streamId = (await srv.app.db.selectFrom("streams").select("id").where("name", "=", "uses group").executeTakeFirstOrThrow()).id;
    const restore = await setRealmGroupSetting("can_create_groups", id);
    try {
      const r = await as(t.owner).post(`/user_groups/${id}/deactivate`);
      expectError(r, "Cannot deactivate user group in use.", "CANNOT_DEACTIVATE_GROUP_IN_USE");
      assert.deepEqual(r.body.objections, [
        { type: "subgroup", supergroup_ids: [parent] },
        { type: "channel", channel_id: streamId, settings: ["can_administer_channel_group"] },
        { type: "user_group", group_id: user, settings: ["can_join_group", "can_mention_group"] },
        { type: "realm", settings: ["can_create_groups"] },
      ]);
      assert.equal((await groupById(id)).deactivated, false);
    } finally {
      await restore();
    }
  });

  test("a deactivated group cannot be used as a setting value or a subgroup, nor mentioned", async () => {
    const id = await makeGroup({ members: [t.member.id] });
    expectSuccess(await as(t.owner).post(`/user_groups/${id}/deactivate`));
    const r = await as(t.owner).post("/user_groups/create", { name: "uses dead", description: "", members: [], can_mention_group: id });
    expectError(r, "User group is deactivated.");
    const parent = await makeGroup();
    expectError(await as(t.owner).post(`/user_groups/${parent}/subgroups`, { add: [id] }), "User group is deactivated.");
    const name = (await groupById(id)).name;
    const sent = await as(t.owner).post("/messages", { type: "private", to: [t.member.id], content: `@*${name}* hello` });
    expectSuccess(sent);
    const msg = await as(t.member).get(`/messages/${sent.body.id}`);
    assert.equal(msg.body.message.flags.includes("mentioned"), false);
  });

  test("a deactivated group's own settings still decide who may change it; deactivated=true does nothing", async () => {
    const id = await makeGroup();
    expectSuccess(await as(t.owner).post(`/user_groups/${id}/deactivate`));
    log.notices.length = 0;
    expectSuccess(await as(t.member2).patch(`/user_groups/${id}`, { deactivated: true }));
    assert.deepEqual(log.notices, []);
    expectSuccess(await as(t.member2).patch(`/user_groups/${id}`, { name: `dead ${id}`, can_join_group: { new: sysId("role:members") } }));
    assert.deepEqual(log.of("user_group", "update")[0].event, {
      type: "user_group",
      op: "update",
      group_id: id,
      data: { name: `dead ${id}` },
      deactivated: true,
    });
    expectSuccess(await as(t.member2).post(`/user_groups/${id}/members`, { add: [t.member.id] }));
    await refusedUnchanged(id, () => as(t.member).patch(`/user_groups/${id}`, { description: "x" }), "Insufficient permission");
  });

  test("deactivated=false reactivates: an update, then the group again for clients that dropped it", async () => {
    const id = await makeGroup({ members: [t.member.id] });
    expectSuccess(await as(t.owner).post(`/user_groups/${id}/deactivate`));
    log.notices.length = 0;
    expectSuccess(await as(t.member2).patch(`/user_groups/${id}`, { deactivated: false }));
    const group = await groupById(id);
    assert.equal(group.deactivated, false);
    assert.deepEqual(
      log.notices.map((n) => n.event),
      [
        { type: "user_group", op: "update", group_id: id, data: { deactivated: false } },
        { type: "user_group", op: "add", group, for_reactivation: true },
      ],
    );
    const r = await as(t.owner).post("/user_groups/create", { name: "uses revived", description: "", members: [], can_mention_group: id });
    expectSuccess(r);
  });
});

describe("POST /user_groups/{id}/members", () => {
  test("adding members: managers and can_add_members_group; everyone else refused", async () => {
    const id = await makeGroup({ can_add_members_group: anon([t.member.id]) });
    expectSuccess(await as(t.member).post(`/user_groups/${id}/members`, { add: [t.moderator.id] }));
    expectSuccess(await as(t.member2).post(`/user_groups/${id}/members`, { add: [t.admin.id] }));
    expectSuccess(await as(t.owner).post(`/user_groups/${id}/members`, { add: [t.bot.id] }));
    const cases: [TestUser, string][] = [
      [t.admin, "Insufficient permission"],
      [t.moderator, "Insufficient permission"],
      [t.guest, "Not allowed for guest users"],
      [t.bot, "This endpoint does not accept bot requests."],
      [other.owner, "Invalid user group"],
    ];
    for (const [u, msg] of cases) {
      await refusedUnchanged(id, () => as(u).post(`/user_groups/${id}/members`, { add: [t.guest.id] }), msg);
    }
    assert.deepEqual((await groupById(id)).members, [t.admin.id, t.moderator.id, t.bot.id].sort((a, b) => a - b));
  });

  test("joining oneself needs can_join_group (or can_add_members_group); leaving needs can_leave_group", async () => {
    const id = await makeGroup();
    await refusedUnchanged(id, () => as(t.member).post(`/user_groups/${id}/members`, { add: [t.member.id] }), "Insufficient permission");
    expectSuccess(await as(t.owner).patch(`/user_groups/${id}`, { can_join_group: { new: sysId("role:members") } }));
    expectSuccess(await as(t.member).post(`/user_groups/${id}/members`, { add: [t.member.id] }));
    await refusedUnchanged(
      id,
      () => as(t.member).post(`/user_groups/${id}/members`, { add: [t.member.id, t.moderator.id] }),
      "Insufficient permission",
    );
    expectSuccess(await as(t.member).post(`/user_groups/${id}/members`, { delete: [t.member.id] }), "role:everyone may leave by default");
    expectSuccess(await as(t.member2).post(`/user_groups/${id}/members`, { add: [t.member.id] }));
    expectSuccess(await as(t.owner).patch(`/user_groups/${id}`, { can_leave_group: { new: sysId("role:nobody") } }));
    await refusedUnchanged(id, () => as(t.member).post(`/user_groups/${id}/members`, { delete: [t.member.id] }), "Insufficient permission");
  });

  test("member errors in Zulip's words; a request with one bad part changes nothing", async () => {
    const id = await makeGroup({ members: [t.member.id] });
    const post = (params: Record<string, ParamValue>) => () => as(t.owner).post(`/user_groups/${id}/members`, params);
    await refusedUnchanged(
      id,
      post({ add: [] }),
      'Nothing to do. Specify at least one of "add", "delete", "add_subgroups" or "delete_subgroups".',
    );
    await refusedUnchanged(id, post({ add: [999999] }), "Invalid user ID: 999999");
    await refusedUnchanged(id, post({ add: [other.member.id] }), `Invalid user ID: ${other.member.id}`);
    await refusedUnchanged(id, post({ add: [t.member2.id, t.member.id] }), `User ${t.member.id} is already a member of this group`);
    await refusedUnchanged(id, post({ delete: [t.member2.id] }), `There is no member '${t.member2.id}' in this user group`);
    await refusedUnchanged(id, post({ add: [t.member2.id], delete: [t.moderator.id] }), `There is no member '${t.moderator.id}' in this user group`);
    await srv.app.db.updateTable("users").set({ is_active: 0 }).where("id", "=", t.member2.id).execute();
    try {
      await refusedUnchanged(id, post({ add: [t.member2.id] }), `Invalid user ID: ${t.member2.id}`);
    } finally {
      await srv.app.db.updateTable("users").set({ is_active: 1 }).where("id", "=", t.member2.id).execute();
    }
  });

  test("changes are announced to every active user; Notification Bot tells the people added and removed", async () => {
    const id = await makeGroup();
    const name = (await groupById(id)).name;
    expectSuccess(await as(t.member2).post(`/user_groups/${id}/members`, { add: [t.member.id, t.member2.id, t.bot.id] }));
    assert.deepEqual(
      log.of("user_group").map((n) => [n.event, n.userIds]),
      [[{ type: "user_group", op: "add_members", group_id: id, user_ids: [t.member.id, t.member2.id, t.bot.id].sort((a, b) => a - b) }, allIds()]],
    );
    const dms = log.of("message");
    assert.equal(dms.length, 1, "not to the actor, not to bots");
    assert.equal(dms[0].event.message && (dms[0].event.message as any).content, `@_**${t.member2.fullName}|${t.member2.id}** added you to the group @_*${name}*.`);
    log.notices.length = 0;
    expectSuccess(await as(t.member2).post(`/user_groups/${id}/members`, { delete: [t.member.id] }));
    assert.deepEqual(log.of("user_group").map((n) => n.event), [{ type: "user_group", op: "remove_members", group_id: id, user_ids: [t.member.id] }]);
    assert.equal((log.of("message")[0].event.message as any).content, `@_**${t.member2.fullName}|${t.member2.id}** removed you from the group @_*${name}*.`);
  });

  test("a member joining a group that administers a private channel gets to see the channel", async () => {
    const id = await makeGroup();
    const created = await as(t.owner).post("/users/me/subscriptions", {
      subscriptions: [{ name: "secret plans" }],
      invite_only: true,
      can_administer_channel_group: id,
    });
    expectSuccess(created);
    const streamId = (await srv.app.db.selectFrom("streams").select("id").where("name", "=", "secret plans").executeTakeFirstOrThrow()).id;
    log.notices.length = 0;
    expectSuccess(await as(t.member2).post(`/user_groups/${id}/members`, { add: [t.member.id] }));
    const create = log.of("stream", "create");
    assert.deepEqual(create.map((n) => [(n.event.streams as any[])[0].stream_id, n.userIds]), [[streamId, [t.member.id]]]);
    assert.deepEqual(log.of("subscription", "peer_add").map((n) => [n.event, n.userIds]), [
      [{ type: "subscription", op: "peer_add", stream_ids: [streamId], user_ids: [t.owner.id] }, [t.member.id]],
    ]);
    log.notices.length = 0;
    expectSuccess(await as(t.member2).post(`/user_groups/${id}/members`, { delete: [t.member.id] }));
    assert.deepEqual(log.of("stream", "delete").map((n) => [n.event, n.userIds]), [
      [{ type: "stream", op: "delete", streams: [{ stream_id: streamId }], stream_ids: [streamId] }, [t.member.id]],
    ]);
  });
});

describe("subgroups", () => {
  test("adding needs can_add_members_group (or managing); removing needs can_manage_group", async () => {
    const child = await makeGroup();
    const id = await makeGroup({ can_add_members_group: anon([t.member.id]) });
    expectSuccess(await as(t.member).post(`/user_groups/${id}/subgroups`, { add: [child] }));
    await refusedUnchanged(id, () => as(t.member).post(`/user_groups/${id}/subgroups`, { delete: [child] }), "Insufficient permission");
    expectSuccess(await as(t.member2).post(`/user_groups/${id}/members`, { delete_subgroups: [child] }));
    expectSuccess(await as(t.owner).post(`/user_groups/${id}/members`, { add_subgroups: [child, sysId("role:moderators")] }));
    for (const [u, msg] of [
      [t.admin, "Insufficient permission"],
      [t.guest, "Not allowed for guest users"],
      [t.bot, "This endpoint does not accept bot requests."],
      [other.owner, "Invalid user group"],
    ] as [TestUser, string][]) {
      await refusedUnchanged(id, () => as(u).post(`/user_groups/${id}/subgroups`, { delete: [child] }), msg);
    }
    assert.deepEqual((await groupById(id)).direct_subgroup_ids, [sysId("role:moderators"), child].sort((a, b) => a - b));
  });

  test("cycles, repeats, unknown and deactivated groups are refused", async () => {
    const a = await makeGroup();
    const b = await makeGroup({ subgroups: [a] });
    const c = await makeGroup({ subgroups: [b] });
    const dead = await makeGroup();
    expectSuccess(await as(t.owner).post(`/user_groups/${dead}/deactivate`));
    const add = (group: number, ids: number[]) => () => as(t.owner).post(`/user_groups/${group}/subgroups`, { add: ids });
    await refusedUnchanged(a, add(a, [c]), `User group ${a} is already a subgroup of one of the passed subgroups.`);
    await refusedUnchanged(a, add(a, [a]), `User group ${a} is already a subgroup of one of the passed subgroups.`);
    await refusedUnchanged(b, add(b, [a]), `User group ${a} is already a subgroup of this group.`);
    await refusedUnchanged(b, add(b, [999999]), "Invalid user group ID: 999999");
    await refusedUnchanged(b, add(b, [dead]), "User group is deactivated.");
    await refusedUnchanged(c, () => as(t.owner).post(`/user_groups/${c}/subgroups`, { delete: [a] }), `User group ${a} is not a subgroup of this group.`);
    await refusedUnchanged(c, () => as(t.owner).post(`/user_groups/${c}/subgroups`, {}), 'Nothing to do. Specify at least one of "add" or "delete".');
  });

  test("changes are announced to every active user", async () => {
    const child = await makeGroup();
    const id = await makeGroup();
    expectSuccess(await as(t.owner).post(`/user_groups/${id}/subgroups`, { add: [child] }));
    expectSuccess(await as(t.owner).post(`/user_groups/${id}/subgroups`, { delete: [child] }));
    assert.deepEqual(
      log.notices.map((n) => [n.event, n.userIds]),
      [
        [{ type: "user_group", op: "add_subgroups", group_id: id, direct_subgroup_ids: [child] }, allIds()],
        [{ type: "user_group", op: "remove_subgroups", group_id: id, direct_subgroup_ids: [child] }, allIds()],
      ],
    );
  });

  test("GET subgroups: direct or nested; GET a member check", async () => {
    const a = await makeGroup({ members: [t.member.id] });
    const b = await makeGroup({ subgroups: [a] });
    const c = await makeGroup({ subgroups: [b], members: [t.admin.id] });
    assert.deepEqual((await as(t.member).get(`/user_groups/${c}/subgroups`, { direct_subgroup_only: true })).body.subgroups, [b]);
    assert.deepEqual((await as(t.member).get(`/user_groups/${c}/subgroups`)).body.subgroups, [a, b]);
    assert.deepEqual((await as(t.member).get(`/user_groups/${sysId("role:members")}/subgroups`)).body.subgroups, [
      sysId("role:owners"), sysId("role:administrators"), sysId("role:moderators"), sysId("role:fullmembers"),
    ]);
    expectError(await as(t.guest).get(`/user_groups/${c}/subgroups`), "Not allowed for guest users");
    expectError(await as(other.member).get(`/user_groups/${c}/subgroups`), "Invalid user group");
    const member = (g: number, u: number, direct = false) => as(t.member).get(`/user_groups/${g}/members/${u}`, { direct_member_only: direct });
    assert.equal((await member(c, t.member.id)).body.is_user_group_member, true);
    assert.equal((await member(c, t.member.id, true)).body.is_user_group_member, false);
    assert.equal((await member(c, t.admin.id, true)).body.is_user_group_member, true);
    expectError(await member(c, t.bot.id), "No such user");
    expectError(await member(c, 999999), "No such user");
  });
});

describe("group events through real event queues", () => {
  async function register(u: TestUser, keepsDeactivated: boolean) {
    const r = await as(u).post("/register", {
      event_types: ["user_group"],
      client_capabilities: { include_deactivated_groups: keepsDeactivated },
    });
    expectSuccess(r);
    return r.body.queue_id as string;
  }
  const drain = async (u: TestUser, queueId: string) =>
    (await as(u).get("/events", { queue_id: queueId, last_event_id: -1, dont_block: true })).body.events.filter(
      (e: { type: string }) => e.type !== "heartbeat",
    );

  test("clients that keep deactivated groups get updates; the others get remove and add, and never a rename of a dead group", async () => {
    const id = await makeGroup({ members: [t.member.id] });
    const keeps = await register(t.member, true);
    const drops = await register(t.guest, false);
    expectSuccess(await as(t.owner).post(`/user_groups/${id}/deactivate`));
    expectSuccess(await as(t.owner).patch(`/user_groups/${id}`, { name: `renamed ${id}` }));
    expectSuccess(await as(t.owner).patch(`/user_groups/${id}`, { deactivated: false }));
    const group = await groupById(id);
    const strip = (events: Record<string, unknown>[]) => events.map(({ id: _, ...e }) => e);
    assert.deepEqual(strip(await drain(t.member, keeps)), [
      { type: "user_group", op: "update", group_id: id, data: { deactivated: true } },
      { type: "user_group", op: "update", group_id: id, data: { name: `renamed ${id}` } },
      { type: "user_group", op: "update", group_id: id, data: { deactivated: false } },
    ]);
    assert.deepEqual(strip(await drain(t.guest, drops)), [
      { type: "user_group", op: "remove", group_id: id },
      { type: "user_group", op: "add", group },
    ]);
  });

  test("a user of another organization hears nothing", async () => {
    const queue = await register(other.member, true);
    const id = await makeGroup();
    expectSuccess(await as(t.owner).patch(`/user_groups/${id}`, { description: "private matter" }));
    assert.deepEqual(await drain(other.member, queue), []);
  });
});

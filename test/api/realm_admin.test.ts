/** Organization settings (PATCH /realm) and custom profile fields over HTTP. */
import { test, before, after, describe } from "node:test";
import assert from "node:assert/strict";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { Api, type ApiResponse, type ParamValue } from "../helpers/client.js";
import { createTestRealm, type TestRealm, type TestUser } from "../helpers/realm.js";
import { logEventsPerTest, type EventLog } from "../helpers/events.js";
import { expectError, expectRefusedUnchanged, expectSuccess } from "../helpers/expect.js";
import { systemGroupIds } from "../../src/store/groups.js";
import { getRealm } from "../../src/store/realms.js";

let srv: TestServer;
let api: Api;
let log: EventLog;
let other: TestRealm;

const as = (u: TestUser) => api.as(u);
const idsOf = (r: TestRealm) => [r.owner, r.admin, r.moderator, r.member, r.member2, r.guest, r.bot].map((u) => u.id).sort((a, b) => a - b);
const anon = (members: number[], subgroups: number[] = []) => ({ direct_members: members, direct_subgroups: subgroups });

before(async () => {
  srv = await startTestServer();
  api = new Api(srv.url);
  other = await createTestRealm(srv.app, "other");
});
after(() => srv.close());
logEventsPerTest(() => srv, (l) => (log = l));

let realms = 0;
async function freshRealm(): Promise<{ t: TestRealm; sys: Map<string, number> }> {
  const t = await createTestRealm(srv.app, `realm${++realms}`);
  return { t, sys: await systemGroupIds(srv.app.db, t.realm.id) };
}

const stored = async (t: TestRealm) => (await getRealm(srv.app.db, t.realm.id))!;

const refusedUnchanged = (t: TestRealm, attempt: () => Promise<ApiResponse>, msg: string, code?: string) =>
  expectRefusedUnchanged(() => stored(t), log, attempt, msg, code);

describe("PATCH /realm", () => {
  test("administrators change settings; everyone else is refused", async () => {
    const { t } = await freshRealm();
    for (const u of [t.moderator, t.member, t.guest, t.bot]) {
      await refusedUnchanged(t, () => as(u).patch("/realm", { enable_spectator_access: true }), "Must be an organization administrator", "UNAUTHORIZED_PRINCIPAL");
    }
    const r = await as(t.admin).patch("/realm", { enable_spectator_access: true });
    assert.deepEqual(r.body, { result: "success", msg: "", enable_spectator_access: true });
    assert.equal((await stored(t)).props.enable_spectator_access, true);
    assert.deepEqual(log.notices.map((n) => [n.event, n.userIds]), [
      [{ type: "realm", op: "update", property: "enable_spectator_access", value: true }, idsOf(t)],
    ]);
    assert.equal((await stored(other)).props.enable_spectator_access, false, "another organization is untouched");
    log.notices.length = 0;
    const same = await as(t.owner).patch("/realm", { enable_spectator_access: true });
    assert.deepEqual(same.body, { result: "success", msg: "" });
    assert.deepEqual(log.notices, []);
  });

  test("read receipts are switched by administrators, and GET read_receipts follows", async () => {
    const { t } = await freshRealm();
    await refusedUnchanged(t, () => as(t.moderator).patch("/realm", { enable_read_receipts: true }), "Must be an organization administrator", "UNAUTHORIZED_PRINCIPAL");
    const message = await as(t.member).post("/messages", { type: "private", to: JSON.stringify([t.admin.id]), content: "seen?" });
    const receipts = () => as(t.member).get(`/messages/${message.body.id}/read_receipts`);
    expectSuccess(await as(t.admin).patch("/realm", { enable_read_receipts: false }));
    assert.equal((await receipts()).body.msg, "Read receipts are disabled in this organization.");
    const r = await as(t.admin).patch("/realm", { enable_read_receipts: true });
    assert.deepEqual(r.body, { result: "success", msg: "", enable_read_receipts: true });
    assert.deepEqual(log.notices.map((n) => n.event).at(-1), { type: "realm", op: "update", property: "enable_read_receipts", value: true });
    expectSuccess(await receipts());
  });

  test("email and profile settings: administrators switch them, each announced; a weekday outside 0-6 is refused", async () => {
    const { t } = await freshRealm();
    await refusedUnchanged(t, () => as(t.moderator).patch("/realm", { digest_emails_enabled: true }), "Must be an organization administrator", "UNAUTHORIZED_PRINCIPAL");
    await refusedUnchanged(t, () => as(t.admin).patch("/realm", { digest_weekday: 7 }), "digest_weekday is too large", "BAD_REQUEST");
    log.notices.length = 0;
    const changes = {
      avatar_changes_disabled: true,
      digest_emails_enabled: true,
      digest_weekday: 4,
      email_changes_disabled: true,
      message_content_allowed_in_email_notifications: false,
      name_changes_disabled: true,
    };
    const r = await as(t.admin).patch("/realm", changes);
    assert.deepEqual(r.body, { result: "success", msg: "", ...changes });
    assert.deepEqual(
      log.notices.map((n) => n.event),
      Object.entries(changes).map(([property, value]) => ({ type: "realm", op: "update", property, value })),
    );
    const state = (await as(t.member).post("/register", { fetch_event_types: JSON.stringify(["realm"]) })).body;
    for (const [property, value] of Object.entries(changes)) assert.equal(state[`realm_${property}`], value, property);
  });

  test("settings only owners may change", async () => {
    const { t, sys } = await freshRealm();
    for (const params of [
      { invite_required: false },
      { can_manage_all_groups: { new: sys.get("role:administrators")! } },
      { can_create_groups: { new: sys.get("role:moderators")! } },
      { can_invite_users_group: { new: sys.get("role:moderators")! } },
      { create_multiuse_invite_group: { new: sys.get("role:moderators")! } },
      { can_manage_billing_group: { new: sys.get("role:owners")! } },
    ] as Record<string, ParamValue>[]) {
      await refusedUnchanged(t, () => as(t.admin).patch("/realm", params), "Must be an organization owner", "UNAUTHORIZED_PRINCIPAL");
      expectSuccess(await as(t.owner).patch("/realm", params));
    }
  });

  test("topics_policy takes Zulip's names, reports the stored number, and is announced with mandatory_topics", async () => {
    const { t } = await freshRealm();
    await refusedUnchanged(t, () => as(t.owner).patch("/realm", { topics_policy: "inherit" }), "Invalid topics_policy");
    await refusedUnchanged(t, () => as(t.owner).patch("/realm", { topics_policy: "empty_topic_only" }), "Invalid topics_policy");
    const r = await as(t.admin).patch("/realm", { topics_policy: "disable_empty_topic" });
    assert.deepEqual(r.body, { result: "success", msg: "", topics_policy: 3 });
    assert.deepEqual(log.notices.map((n) => n.event), [
      { type: "realm", op: "update_dict", property: "default", data: { topics_policy: "disable_empty_topic", mandatory_topics: true } },
    ]);
    const send = await as(t.member).post("/messages", { type: "stream", to: "general", topic: "", content: "hi" });
    expectError(send, "Sending messages to the general chat topic is not allowed in this channel.");
    log.notices.length = 0;
    const again = await as(t.admin).patch("/realm", { topics_policy: "disable_empty_topic" });
    assert.deepEqual(again.body, { result: "success", msg: "", topics_policy: 3 });
    assert.deepEqual(log.notices, []);
  });

  test("name and description are reported as updated", async () => {
    const { t } = await freshRealm();
    await refusedUnchanged(t, () => as(t.admin).patch("/realm", { name: "n".repeat(41) }), "name is too long (limit: 40 characters)");
    await refusedUnchanged(t, () => as(t.admin).patch("/realm", { description: "d".repeat(1001) }), "description is too long (limit: 1000 characters)");
    const r = await as(t.admin).patch("/realm", { name: "Renamed Org", description: "All about us" });
    assert.deepEqual(r.body, { result: "success", msg: "", name: "updated", description: "updated" });
    assert.deepEqual(log.notices.map((n) => n.event), [
      { type: "realm", op: "update", property: "description", value: "All about us" },
      { type: "realm", op: "update", property: "name", value: "Renamed Org" },
    ]);
  });

  test("group permission settings take update objects, with each setting's rules", async () => {
    const { t, sys } = await freshRealm();
    const patch = (params: Record<string, ParamValue>) => () => as(t.owner).patch("/realm", params);
    await refusedUnchanged(
      t,
      patch({ can_create_web_public_channel_group: { new: sys.get("role:members")! } }),
      "'can_create_web_public_channel_group' setting cannot be set to 'role:members' group.",
    );
    await refusedUnchanged(
      t,
      patch({ can_create_web_public_channel_group: { new: anon([t.member.id]) } }),
      "'can_create_web_public_channel_group' must be a system user group.",
      "SYSTEM_GROUP_REQUIRED",
    );
    await refusedUnchanged(t, patch({ can_manage_all_groups: { new: sys.get("role:nobody")! } }), "'can_manage_all_groups' setting cannot be set to 'role:nobody' group.");
    await refusedUnchanged(t, patch({ can_create_groups: { new: sys.get("role:everyone")! } }), "'can_create_groups' setting cannot be set to 'role:everyone' group.");
    await refusedUnchanged(t, patch({ can_create_groups: { new: sys.get("role:internet")! } }), "'can_create_groups' setting cannot be set to 'role:internet' group.");
    await refusedUnchanged(
      t,
      patch({ can_create_groups: { new: sys.get("role:moderators")!, old: sys.get("role:owners")! } }),
      "'old' value does not match the expected value.",
      "EXPECTATION_MISMATCH",
    );
    await refusedUnchanged(t, patch({ can_create_groups: sys.get("role:moderators")! }), "can_create_groups is not a dict");
    await refusedUnchanged(
      t,
      patch({ enable_spectator_access: true, can_create_groups: { new: sys.get("role:moderators")! }, can_manage_all_groups: { new: 999999 } }),
      "Invalid user group",
    );

    const r = await as(t.owner).patch("/realm", {
      can_create_web_public_channel_group: { new: sys.get("role:moderators")!, old: sys.get("role:owners")! },
      can_create_groups: { new: anon([t.member.id], []) },
      can_add_custom_emoji_group: { new: anon([], [sys.get("role:administrators")!]) },
    });
    assert.deepEqual(r.body, {
      result: "success",
      msg: "",
      can_add_custom_emoji_group: sys.get("role:administrators"),
      can_create_groups: anon([t.member.id]),
      can_create_web_public_channel_group: sys.get("role:moderators"),
    });
    assert.deepEqual(log.notices.map((n) => [n.event, n.userIds]), [
      [{ type: "realm", op: "update_dict", property: "default", data: { can_add_custom_emoji_group: sys.get("role:administrators") } }, idsOf(t)],
      [{ type: "realm", op: "update_dict", property: "default", data: { can_create_groups: anon([t.member.id]) } }, idsOf(t)],
      [{ type: "realm", op: "update_dict", property: "default", data: { can_create_web_public_channel_group: sys.get("role:moderators") } }, idsOf(t)],
    ]);
  });

  test("the settings decide: can_create_groups governs who may create user groups; deactivated groups are refused", async () => {
    const { t, sys } = await freshRealm();
    const dead = await as(t.owner).post("/user_groups/create", { name: "dead", description: "", members: [] });
    expectSuccess(await as(t.owner).post(`/user_groups/${dead.body.group_id}/deactivate`));
    expectSuccess(await as(t.owner).patch("/realm", { can_create_groups: { new: anon([t.member2.id]) } }));
    expectError(await as(t.member).post("/user_groups/create", { name: "mine", description: "", members: [] }), "Insufficient permission");
    expectSuccess(await as(t.member2).post("/user_groups/create", { name: "theirs", description: "", members: [] }));
    await refusedUnchanged(t, () => as(t.owner).patch("/realm", { can_create_groups: { new: dead.body.group_id } }), "User group is deactivated.");
    expectSuccess(await as(t.owner).patch("/realm", { can_create_groups: { new: sys.get("role:members")! } }));
  });

  test("organization changes reach registered clients and their initial state", async () => {
    const { t, sys } = await freshRealm();
    const reg = await as(t.guest).post("/register", { fetch_event_types: ["realm"], event_types: ["realm"] });
    expectSuccess(reg);
    const queue = await as(other.member).post("/register", { event_types: ["realm"] });
    expectSuccess(await as(t.owner).patch("/realm", { can_create_groups: { new: sys.get("role:moderators")! }, topics_policy: "disable_empty_topic" }));
    const r = await as(t.guest).get("/events", { queue_id: reg.body.queue_id, last_event_id: -1, dont_block: true });
    assert.deepEqual(r.body.events.map((e: { data: unknown }) => e.data), [
      { topics_policy: "disable_empty_topic", mandatory_topics: true },
      { can_create_groups: sys.get("role:moderators") },
    ]);
    assert.deepEqual((await as(other.member).get("/events", { queue_id: queue.body.queue_id, last_event_id: -1, dont_block: true })).body.events, []);
    const state = (await as(t.guest).post("/register", { fetch_event_types: ["realm"] })).body;
    assert.deepEqual([state.realm_can_create_groups, state.realm_topics_policy, state.realm_mandatory_topics], [sys.get("role:moderators"), "disable_empty_topic", true]);
  });
});

describe("custom profile fields", () => {
  test("everyone in the organization lists the fields; only administrators create them", async () => {
    const { t } = await freshRealm();
    for (const u of [t.moderator, t.member, t.guest, t.bot]) {
      expectError(await as(u).post("/realm/profile_fields", { name: "Team", field_type: 1 }), "Must be an organization administrator", "UNAUTHORIZED_PRINCIPAL");
    }
    assert.equal(log.notices.length, 0);
    const r = await as(t.admin).post("/realm/profile_fields", { name: "  Team  ", hint: "Your team", field_type: 1, display_in_profile_summary: true });
    expectSuccess(r);
    const field = { id: r.body.id, name: "Team", type: 1, hint: "Your team", field_data: "", order: r.body.id, required: false, editable_by_user: true, display_in_profile_summary: true };
    for (const u of [t.owner, t.guest, t.bot]) assert.deepEqual((await as(u).get("/realm/profile_fields")).body.custom_fields, [field]);
    assert.deepEqual((await as(other.member).get("/realm/profile_fields")).body.custom_fields, []);
    assert.deepEqual(log.notices.map((n) => [n.event, n.userIds]), [[{ type: "custom_profile_fields", fields: [field] }, idsOf(t)]]);
  });

  test("field definitions in Zulip's words", async () => {
    const { t } = await freshRealm();
    expectSuccess(await as(t.admin).post("/realm/profile_fields", { name: "Taken", field_type: 1 }));
    const attempts: [Record<string, ParamValue>, string][] = [
      [{ name: "   ", field_type: 1 }, "Label cannot be blank."],
      [{ name: "n".repeat(41), field_type: 1 }, "name is too long (limit: 40 characters)"],
      [{ name: "Hinted", hint: "h".repeat(81), field_type: 1 }, "hint is too long (limit: 80 characters)"],
      [{ name: "Odd", field_type: 99 }, "Invalid field type."],
      [{ name: "Odd" }, "Missing 'field_type' argument"],
      [{ name: "Taken", field_type: 2 }, "A field with that label already exists."],
      [{ name: "Pick", field_type: 3, field_data: {} }, "Field must have at least one choice."],
      [{ name: "Pick", field_type: 3, field_data: { a: { text: "A" } } }, "order key is missing from field_data"],
      [{ name: "Pick", field_type: 3, field_data: { a: { text: "A", order: "1" }, b: { text: "A", order: "2" } } }, "Field must not have duplicate choices."],
      [{ name: "Pick", field_type: 3, field_data: { " ": { text: "A", order: "1" } } }, "'value' cannot be blank."],
      [{ name: "Acct", field_type: 7, field_data: { subtype: "myspace" } }, "Invalid external account type"],
      [{ name: "Acct", field_type: 7, field_data: { subtype: "custom" } }, "Custom external account must define URL pattern"],
      [{ name: "Acct", field_type: 7, field_data: { subtype: "custom", url_pattern: "https://x.com/" } }, "URL pattern must contain '%(username)s'."],
      [{ name: "Bio", field_type: 2, display_in_profile_summary: true }, "Field type not supported for display in profile summary."],
    ];
    for (const [params, msg] of attempts) {
      const before = (await as(t.owner).get("/realm/profile_fields")).body.custom_fields;
      expectError(await as(t.admin).post("/realm/profile_fields", params), msg, msg.startsWith("Missing") ? "REQUEST_VARIABLE_MISSING" : "BAD_REQUEST");
      assert.deepEqual((await as(t.owner).get("/realm/profile_fields")).body.custom_fields, before);
    }
  });

  test("ready-made external accounts take Zulip's label; at most two fields show in the profile summary", async () => {
    const { t } = await freshRealm();
    const gh = await as(t.admin).post("/realm/profile_fields", { name: "ignored", field_type: 7, field_data: { subtype: "github" } });
    expectSuccess(gh);
    const custom = await as(t.admin).post("/realm/profile_fields", {
      name: "Mastodon",
      field_type: 7,
      field_data: { subtype: "custom", url_pattern: "https://example.social/@%(username)s" },
      display_in_profile_summary: true,
    });
    expectSuccess(custom);
    const fields = (await as(t.member).get("/realm/profile_fields")).body.custom_fields;
    assert.deepEqual(fields.map((f: { name: string; field_data: string }) => [f.name, JSON.parse(f.field_data)]), [
      ["GitHub username", { subtype: "github" }],
      ["Mastodon", { subtype: "custom", url_pattern: "https://example.social/@%(username)s" }],
    ]);
    expectSuccess(await as(t.admin).post("/realm/profile_fields", { name: "Two", field_type: 1, display_in_profile_summary: true }));
    expectError(
      await as(t.admin).post("/realm/profile_fields", { name: "Three", field_type: 1, display_in_profile_summary: true }),
      "Only 2 custom profile fields can be displayed in the profile summary.",
    );
  });

  test("a new field reaches registered clients", async () => {
    const { t } = await freshRealm();
    const reg = await as(t.bot).post("/register", { fetch_event_types: ["custom_profile_fields"], event_types: ["custom_profile_fields"] });
    assert.deepEqual(reg.body.custom_profile_fields, []);
    expectSuccess(await as(t.admin).post("/realm/profile_fields", { name: "Birthday", field_type: 4 }));
    const r = await as(t.bot).get("/events", { queue_id: reg.body.queue_id, last_event_id: -1, dont_block: true });
    assert.deepEqual(r.body.events.map((e: { fields: { name: string }[] }) => e.fields.map((f) => f.name)), [["Birthday"]]);
  });
});

import { test, before, after, beforeEach, describe } from "node:test";
import assert from "node:assert/strict";
import { ManualClock, startTestServer, type TestServer } from "../helpers/server.js";
import { Api, type ApiResponse, type ParamValue } from "../helpers/client.js";
import { createTestRealm, type TestRealm, type TestUser } from "../helpers/realm.js";
import { EventLog } from "../helpers/events.js";
import { nextLongPoll } from "../helpers/event_queues.js";
import { clearOutbox, joinPath, readOutbox } from "../helpers/mail.js";
import { clearInvites, setRealmGroupSetting, setRealmProp, streamId } from "../helpers/invites.js";
import { runAction } from "../../src/actions/run.js";
import { createUserInTx } from "../../src/actions/users.js";
import { systemGroupIds } from "../../src/store/groups.js";

const clock = new ManualClock(1_700_000_000);
let srv: TestServer;
let t: TestRealm;
let o: TestRealm;
let general: number;
let lobby: number;
let secret: number;
let otherGeneral: number;

const api = (u: TestUser) => new Api(srv.url, u);
const invite = (u: TestUser, params: Record<string, ParamValue | undefined> = {}) =>
  api(u).post("/invites", { invitee_emails: "new@example.com", stream_ids: [], ...params });
const listInvites = async (u: TestUser) => (await api(u).get("/invites")).body.invites as Record<string, any>[];
const adminIds = () => [t.owner.id, t.admin.id];
const sorted = (ids: number[]) => [...new Set(ids)].sort((a, b) => a - b);

function expectError(r: ApiResponse, msg: string, code = "BAD_REQUEST") {
  assert.equal(r.status, 400, JSON.stringify(r.body));
  assert.deepEqual({ result: r.body.result, msg: r.body.msg, code: r.body.code }, { result: "error", msg, code });
}

function expectInvitationFailed(r: ApiResponse, msg: string, errors: unknown[], flags: { sent: boolean; daily?: boolean }) {
  assert.equal(r.status, 400, JSON.stringify(r.body));
  assert.deepEqual(r.body, {
    result: "error",
    msg,
    code: "INVITATION_FAILED",
    errors,
    sent_invitations: flags.sent,
    license_limit_reached: false,
    daily_limit_reached: flags.daily ?? false,
  });
}

const invitesChanged = (recipients: number[]) => ({ realmId: t.realm.id, event: { type: "invites_changed" }, userIds: sorted(recipients) });

/** A request that was refused left no invitation, no email and no event behind. */
async function assertNothingHappened(log: EventLog) {
  assert.deepEqual(log.stop(), []);
  assert.deepEqual(await listInvites(t.owner), []);
  assert.deepEqual(await readOutbox(srv), []);
}

async function createGroup(by: TestUser, name: string, params: Record<string, ParamValue> = {}): Promise<number> {
  const r = await api(by).post("/user_groups/create", { name, description: "", members: [], ...params });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.group_id;
}

before(async () => {
  srv = await startTestServer({}, { clock });
  t = await createTestRealm(srv.app);
  o = await createTestRealm(srv.app, "other");
  for (const [name, inviteOnly] of [["lobby", false], ["secret", true]] as const) {
    const r = await api(t.admin).post("/users/me/subscriptions", { subscriptions: [{ name }], invite_only: inviteOnly });
    assert.equal(r.status, 200, JSON.stringify(r.body));
  }
  general = await streamId(srv.app, t.realm.id, "general");
  lobby = await streamId(srv.app, t.realm.id, "lobby");
  secret = await streamId(srv.app, t.realm.id, "secret");
  otherGeneral = await streamId(srv.app, o.realm.id, "general");
});
after(() => srv.close());
beforeEach(async () => {
  await clearInvites(srv.app);
  await clearOutbox(srv);
});

describe("POST /invites: who may invite", () => {
  test("owners, administrators, moderators and members invite; administrators and the inviter hear of it", async () => {
    for (const [i, u] of [t.owner, t.admin, t.moderator, t.member].entries()) {
      const log = new EventLog(srv);
      const r = await invite(u, { invitee_emails: `person${i}@example.com` });
      assert.deepEqual(r.body, { result: "success", msg: "" });
      assert.deepEqual(log.stop(), [invitesChanged([...adminIds(), u.id])]);
    }
    assert.deepEqual(
      (await readOutbox(srv)).map((m) => m.to),
      [0, 1, 2, 3].map((i) => `person${i}@example.com`),
    );
  });

  test("guests and bots are refused before parameters are read", async () => {
    const log = new EventLog(srv);
    expectError(await api(t.guest).post("/invites", {}), "Not allowed for guest users");
    expectError(await api(t.bot).post("/invites", {}), "This endpoint does not accept bot requests.");
    await assertNothingHappened(log);
  });

  test("only members of can_invite_users_group may invite", async () => {
    await setRealmGroupSetting(srv.app, t.realm.id, "can_invite_users_group", "role:administrators");
    try {
      const log = new EventLog(srv);
      expectError(await invite(t.moderator), "Insufficient permission");
      expectError(await invite(t.member), "Insufficient permission");
      await assertNothingHappened(log);
      assert.equal((await invite(t.admin)).status, 200);
    } finally {
      await setRealmGroupSetting(srv.app, t.realm.id, "can_invite_users_group", "role:members");
    }
  });

  test("required parameters", async () => {
    const log = new EventLog(srv);
    const noEmails = await api(t.admin).post("/invites", { stream_ids: [] });
    assert.deepEqual(noEmails.body, {
      result: "error",
      msg: "Missing 'invitee_emails' argument",
      code: "REQUEST_VARIABLE_MISSING",
      var_name: "invitee_emails",
    });
    const noStreams = await api(t.admin).post("/invites", { invitee_emails: "a@example.com" });
    assert.equal(noStreams.body.msg, "Missing 'stream_ids' argument");
    expectError(await invite(t.admin, { invitee_emails: "" }), "You must specify at least one email address.");
    await assertNothingHappened(log);
  });
});

describe("POST /invites: invite_as", () => {
  const roles = { owner: 100, admin: 200, moderator: 300, member: 400, guest: 600 };

  test("owners invite any role; the role is kept on the invitation", async () => {
    for (const [i, role] of Object.values(roles).entries()) {
      assert.equal((await invite(t.owner, { invitee_emails: `r${i}@example.com`, invite_as: role })).status, 200);
    }
    assert.deepEqual(
      (await listInvites(t.owner)).map((i) => [i.email, i.invited_as]),
      Object.values(roles).map((role, i) => [`r${i}@example.com`, role]),
    );
  });

  test("member by default", async () => {
    await invite(t.member);
    assert.equal((await listInvites(t.member))[0].invited_as, 400);
  });

  test("only owners invite owners; only administrators invite administrators and moderators", async () => {
    const log = new EventLog(srv);
    expectError(await invite(t.admin, { invite_as: roles.owner }), "Must be an organization owner", "UNAUTHORIZED_PRINCIPAL");
    for (const u of [t.moderator, t.member]) {
      expectError(await invite(u, { invite_as: roles.owner }), "Must be an organization owner", "UNAUTHORIZED_PRINCIPAL");
      expectError(await invite(u, { invite_as: roles.admin }), "Must be an organization administrator");
      expectError(await invite(u, { invite_as: roles.moderator }), "Must be an organization administrator");
    }
    await assertNothingHappened(log);
    assert.equal((await invite(t.admin, { invite_as: roles.moderator })).status, 200);
    assert.equal((await invite(t.member, { invitee_emails: "g@example.com", invite_as: roles.guest })).status, 200);
  });

  test("values that are not a role", async () => {
    const log = new EventLog(srv);
    expectError(await invite(t.owner, { invite_as: 500 }), "Invalid invite_as: Not in the list of possible values");
    expectError(await invite(t.owner, { invite_as: "member" }), "invite_as is not valid JSON");
    expectError(await invite(t.owner, { invite_as: "4.5" }), "invite_as is not an integer");
    await assertNothingHappened(log);
  });
});

describe("POST /invites: invite_expires_in_minutes", () => {
  test("ten days by default, minutes when given, never with null", async () => {
    await invite(t.admin, { invitee_emails: "default@example.com" });
    await invite(t.admin, { invitee_emails: "hour@example.com", invite_expires_in_minutes: 60 });
    await invite(t.admin, { invitee_emails: "never@example.com", invite_expires_in_minutes: null });
    const now = Math.floor(clock.now());
    assert.deepEqual(
      (await listInvites(t.admin)).map((i) => [i.email, i.invited, i.expiry_date]),
      [
        ["default@example.com", now, now + 14400 * 60],
        ["hour@example.com", now, now + 3600],
        ["never@example.com", now, null],
      ],
    );
    assert.match((await readOutbox(srv))[2].text, /This invitation does not expire\./);
  });

  test("expired invitations are no longer listed", async () => {
    await invite(t.admin, { invitee_emails: "short@example.com", invite_expires_in_minutes: 1 });
    await invite(t.admin, { invitee_emails: "never@example.com", invite_expires_in_minutes: null });
    clock.advance(61);
    try {
      assert.deepEqual((await listInvites(t.admin)).map((i) => i.email), ["never@example.com"]);
    } finally {
      clock.advance(-61);
    }
  });

  test("bad values", async () => {
    expectError(await invite(t.admin, { invite_expires_in_minutes: "soon" }), "invite_expires_in_minutes is not valid JSON");
    expectError(await invite(t.admin, { invite_expires_in_minutes: "1.5" }), "invite_expires_in_minutes is not an integer");
  });
});

describe("POST /invites: stream_ids", () => {
  test("channels the inviter can read and add subscribers to, and default channels", async () => {
    assert.equal((await invite(t.member, { stream_ids: [general, lobby] })).status, 200);
    assert.equal((await invite(t.admin, { invitee_emails: "s@example.com", stream_ids: [secret] })).status, 200);
  });

  test("channels that do not exist, are archived, private to others or in another organization", async () => {
    await srv.app.db.updateTable("streams").set({ is_archived: 1 }).where("id", "=", lobby).execute();
    try {
      const log = new EventLog(srv);
      for (const [u, id] of [
        [t.admin, 999999],
        [t.admin, 99999999999],
        [t.admin, otherGeneral],
        [t.admin, lobby],
        [t.member, secret],
      ] as const) {
        expectError(await invite(u, { stream_ids: [general, id] }), `Invalid channel ID ${id}. No invites were sent.`);
      }
      expectError(await invite(t.admin, { stream_ids: "[1" }), "stream_ids is not valid JSON");
      expectError(await invite(t.admin, { stream_ids: ["x"] }), "stream_ids[0] is not an integer");
      await assertNothingHappened(log);
    } finally {
      await srv.app.db.updateTable("streams").set({ is_archived: 0 }).where("id", "=", lobby).execute();
    }
  });

  test("without permission to subscribe others, only default channels may be given", async () => {
    await setRealmGroupSetting(srv.app, t.realm.id, "can_add_subscribers_group", "role:administrators");
    try {
      const log = new EventLog(srv);
      expectError(await invite(t.member, { stream_ids: [lobby] }), "You do not have permission to subscribe other users to channels.");
      await assertNothingHappened(log);
      assert.equal((await invite(t.member, { stream_ids: [general] })).status, 200);
      assert.equal((await invite(t.member, { invitee_emails: "d@example.com", stream_ids: [], include_realm_default_subscriptions: true })).status, 200);
      assert.equal((await invite(t.admin, { invitee_emails: "a@example.com", stream_ids: [lobby] })).status, 200);
    } finally {
      await setRealmGroupSetting(srv.app, t.realm.id, "can_add_subscribers_group", "role:members");
    }
  });
});

describe("POST /invites: group_ids", () => {
  let adminsGroup: number;
  let membersGroup: number;
  let deactivated: number;

  before(async () => {
    adminsGroup = await createGroup(t.admin, "admin's group");
    membersGroup = await createGroup(t.member, "member's group");
    deactivated = await createGroup(t.member, "old group");
    await srv.app.db.updateTable("user_groups").set({ deactivated: 1 }).where("id", "=", deactivated).execute();
  });

  test("groups the inviter manages or may add members to", async () => {
    assert.equal((await invite(t.member, { group_ids: [membersGroup] })).status, 200);
    assert.equal((await invite(t.owner, { invitee_emails: "x@example.com", group_ids: [adminsGroup, membersGroup] })).status, 200);
    assert.equal((await invite(t.admin, { invitee_emails: "y@example.com", group_ids: [] })).status, 200);
    assert.equal((await invite(t.admin, { invitee_emails: "z@example.com", group_ids: null })).status, 200);
  });

  test("unknown, system, deactivated and other people's groups", async () => {
    const sys = await systemGroupIds(srv.app.db, t.realm.id);
    const otherGroup = (await systemGroupIds(srv.app.db, o.realm.id)).get("role:members")!;
    const log = new EventLog(srv);
    expectError(await invite(t.owner, { group_ids: [999999] }), "Invalid user group");
    expectError(await invite(t.owner, { group_ids: [otherGroup] }), "Invalid user group");
    expectError(await invite(t.owner, { group_ids: [sys.get("role:members")!] }), "Insufficient permission");
    expectError(await invite(t.owner, { group_ids: [deactivated] }), "User group is deactivated.");
    expectError(await invite(t.member2, { group_ids: [membersGroup] }), "Insufficient permission");
    expectError(await invite(t.member, { group_ids: [membersGroup, adminsGroup] }), "Insufficient permission");
    await assertNothingHappened(log);
  });
});

describe("POST /invites: welcome_message_custom_text", () => {
  test("administrators may set it, up to 8000 characters, empty included", async () => {
    for (const [i, text] of ["Welcome!", "", "x".repeat(8000)].entries()) {
      assert.equal((await invite(t.admin, { invitee_emails: `w${i}@example.com`, welcome_message_custom_text: text })).status, 200);
    }
    const stored = await srv.app.db.selectFrom("email_invites").select(["email", "welcome_message_custom_text"]).orderBy("id").execute();
    assert.deepEqual(
      stored.map((s) => s.welcome_message_custom_text?.length),
      [8, 0, 8000],
    );
  });

  test("is refused from others, and when too long", async () => {
    const log = new EventLog(srv);
    for (const u of [t.moderator, t.member]) {
      expectError(await invite(u, { welcome_message_custom_text: "Hi" }), "Must be an organization administrator");
      expectError(await invite(u, { welcome_message_custom_text: "" }), "Must be an organization administrator");
    }
    expectError(
      await invite(t.admin, { welcome_message_custom_text: "x".repeat(8001) }),
      "welcome_message_custom_text is too long (limit: 8000 characters)",
    );
    await assertNothingHappened(log);
  });

  test("without it, the invitation uses the organization's default later", async () => {
    await invite(t.member);
    const row = await srv.app.db.selectFrom("email_invites").select("welcome_message_custom_text").executeTakeFirstOrThrow();
    assert.equal(row.welcome_message_custom_text, null);
  });
});

describe("POST /invites: addresses", () => {
  test("commas, newlines and named addresses; duplicates once", async () => {
    const r = await invite(t.admin, { invitee_emails: "a@example.com, Bee <b@example.com>\nc@example.com,a@example.com" });
    assert.equal(r.status, 200);
    assert.deepEqual(
      (await listInvites(t.admin)).map((i) => i.email),
      ["a@example.com", "b@example.com", "c@example.com"],
    );
    assert.deepEqual(
      (await readOutbox(srv)).map((m) => m.to),
      ["a@example.com", "b@example.com", "c@example.com"],
    );
  });

  test("any invalid address stops every invitation; accounts that exist are listed too", async () => {
    const log = new EventLog(srv);
    const r = await invite(t.admin, {
      invitee_emails: `good@example.com, not-an-address, junk@mailinator.com, ${t.member.email}, ,notification-bot@zulip.com`,
    });
    expectInvitationFailed(
      r,
      "Some emails did not validate, so we didn't send any invitations.",
      [
        ["not-an-address", "Invalid address.", false],
        ["junk@mailinator.com", "Please use your real email address.", false],
        ["", "Invalid address.", false],
        [t.member.email, "Already has an account.", false],
        ["notification-bot@zulip.com", "Reserved for system bots.", false],
      ],
      { sent: false },
    );
    await assertNothingHappened(log);
  });

  test("when every address has an account, nobody is invited", async () => {
    const gone = await runAction(srv.app, (tx) =>
      createUserInTx(tx, srv.app, t.realm, { email: "gone@example.com", fullName: "Gone", role: 400 }),
    );
    await srv.app.db.updateTable("users").set({ is_active: 0 }).where("id", "=", gone.id).execute();
    const log = new EventLog(srv);
    expectInvitationFailed(
      await invite(t.admin, { invitee_emails: `${t.member.email.toUpperCase()}, gone@example.com` }),
      "We weren't able to invite anyone.",
      [
        [t.member.email.toUpperCase(), "Already has an account.", false],
        ["gone@example.com", "Account has been deactivated.", true],
      ],
      { sent: false },
    );
    await assertNothingHappened(log);
  });

  test("some addresses with accounts: the others are invited, and the error says so", async () => {
    const log = new EventLog(srv);
    expectInvitationFailed(
      await invite(t.member, { invitee_emails: `${t.admin.email}, fresh@example.com` }),
      "Some of those addresses are already using Zulip, so we didn't send them an invitation. We did send invitations to everyone else!",
      [[t.admin.email, "Already has an account.", false]],
      { sent: true },
    );
    assert.deepEqual(log.stop(), [invitesChanged([...adminIds(), t.member.id])]);
    assert.deepEqual((await listInvites(t.member)).map((i) => i.email), ["fresh@example.com"]);
    assert.deepEqual((await readOutbox(srv)).map((m) => m.to), ["fresh@example.com"]);
  });

  test("an address in another organization may be invited here", async () => {
    assert.equal((await invite(t.admin, { invitee_emails: o.member.email })).status, 200);
  });

  test("disposable addresses are allowed when the organization allows them", async () => {
    await setRealmProp(srv.app, t.realm.id, "disallow_disposable_email_addresses", false);
    try {
      assert.equal((await invite(t.admin, { invitee_emails: "junk@mailinator.com" })).status, 200);
    } finally {
      await setRealmProp(srv.app, t.realm.id, "disallow_disposable_email_addresses", true);
    }
  });

  test("an organization restricted to domains it has not listed accepts no address", async () => {
    await setRealmProp(srv.app, t.realm.id, "emails_restricted_to_domains", true);
    try {
      expectInvitationFailed(
        await invite(t.admin, { invitee_emails: "a@example.com, b+c@example.com" }),
        "Some emails did not validate, so we didn't send any invitations.",
        [
          ["a@example.com", "Outside your domain.", false],
          ["b+c@example.com", "Email addresses containing + are not allowed.", false],
        ],
        { sent: false },
      );
    } finally {
      await setRealmProp(srv.app, t.realm.id, "emails_restricted_to_domains", false);
    }
  });
});

describe("POST /invites: new accounts in open organizations", () => {
  test("members who joined less than three days ago may not invite; administrators may", async () => {
    await setRealmProp(srv.app, t.realm.id, "invite_required", false);
    try {
      const log = new EventLog(srv);
      expectInvitationFailed(
        await invite(t.member),
        "Your account is too new to send invites for this organization. Ask an organization admin, or a more experienced user.",
        [],
        { sent: false },
      );
      await assertNothingHappened(log);
      assert.equal((await invite(t.admin)).status, 200);
      await srv.app.db.updateTable("users").set({ date_joined: Math.floor(clock.now()) - 3 * 86400 }).where("id", "=", t.member.id).execute();
      assert.equal((await invite(t.member, { invitee_emails: "later@example.com" })).status, 200);
    } finally {
      await setRealmProp(srv.app, t.realm.id, "invite_required", true);
    }
  });
});

describe("GET /invites", () => {
  test("administrators see every pending invitation and link; others only their own", async () => {
    await invite(t.member, { invitee_emails: "m@example.com", notify_referrer_on_join: false, invite_expires_in_minutes: null });
    await invite(t.owner, { invitee_emails: "o@example.com", invite_as: 100 });
    const link = (await api(t.admin).post("/invites/multiuse", { invite_expires_in_minutes: 30 })).body.invite_link as string;
    const now = Math.floor(clock.now());
    const rows = await srv.app.db.selectFrom("email_invites").select(["id", "email"]).orderBy("id").execute();
    const linkRow = await srv.app.db.selectFrom("multiuse_invites").select("id").executeTakeFirstOrThrow();
    const memberInvite = {
      email: "m@example.com",
      invited_by_user_id: t.member.id,
      invited: now,
      expiry_date: null,
      id: rows[0].id,
      invited_as: 400,
      is_multiuse: false,
      notify_referrer_on_join: false,
    };
    const ownerInvite = {
      email: "o@example.com",
      invited_by_user_id: t.owner.id,
      invited: now,
      expiry_date: now + 14400 * 60,
      id: rows[1].id,
      invited_as: 100,
      is_multiuse: false,
      notify_referrer_on_join: true,
    };
    const linkInvite = {
      invited_by_user_id: t.admin.id,
      invited: now,
      expiry_date: now + 1800,
      id: linkRow.id,
      link_url: link,
      invited_as: 400,
      is_multiuse: true,
    };
    assert.deepEqual(await api(t.admin).get("/invites").then((r) => r.body), {
      result: "success",
      msg: "",
      invites: [memberInvite, ownerInvite, linkInvite],
    });
    assert.deepEqual(await listInvites(t.owner), [memberInvite, ownerInvite, linkInvite]);
    assert.deepEqual(await listInvites(t.member), [memberInvite]);
    assert.deepEqual(await listInvites(t.moderator), []);
    assert.deepEqual(await listInvites(o.owner), []);
  });

  test("guests and bots are refused", async () => {
    expectError(await api(t.guest).get("/invites"), "Not allowed for guest users");
    expectError(await api(t.bot).get("/invites"), "This endpoint does not accept bot requests.");
  });
});

describe("DELETE /invites/{invite_id}", () => {
  const idOf = async (email: string) =>
    (await srv.app.db.selectFrom("email_invites").select("id").where("email", "=", email).executeTakeFirstOrThrow()).id;

  test("the inviter revokes their own; afterwards there is no such invitation", async () => {
    await invite(t.member);
    const id = await idOf("new@example.com");
    const log = new EventLog(srv);
    assert.deepEqual((await api(t.member).delete(`/invites/${id}`)).body, { result: "success", msg: "" });
    assert.deepEqual(log.stop(), [invitesChanged([...adminIds(), t.member.id])]);
    assert.deepEqual(await listInvites(t.admin), []);
    expectError(await api(t.member).delete(`/invites/${id}`), "No such invitation");
    expectError(await api(t.admin).post(`/invites/${id}/resend`), "No such invitation");
  });

  test("administrators revoke other people's invitations; owners' invitations need an owner", async () => {
    await invite(t.member, { invitee_emails: "m@example.com" });
    await invite(t.owner, { invitee_emails: "o@example.com", invite_as: 100 });
    await invite(t.owner, { invitee_emails: "a@example.com", invite_as: 200 });
    const log = new EventLog(srv);
    expectError(await api(t.member2).delete(`/invites/${await idOf("m@example.com")}`), "Must be an organization administrator");
    expectError(await api(t.moderator).delete(`/invites/${await idOf("m@example.com")}`), "Must be an organization administrator");
    expectError(await api(t.admin).delete(`/invites/${await idOf("o@example.com")}`), "Must be an organization owner", "UNAUTHORIZED_PRINCIPAL");
    expectError(await api(t.member).delete(`/invites/${await idOf("o@example.com")}`), "Must be an organization owner", "UNAUTHORIZED_PRINCIPAL");
    assert.deepEqual(log.notices, []);
    assert.equal((await listInvites(t.owner)).length, 3);

    assert.equal((await api(t.admin).delete(`/invites/${await idOf("m@example.com")}`)).status, 200);
    assert.equal((await api(t.admin).delete(`/invites/${await idOf("a@example.com")}`)).status, 200);
    assert.equal((await api(t.owner).delete(`/invites/${await idOf("o@example.com")}`)).status, 200);
    assert.deepEqual(log.stop(), [
      invitesChanged([...adminIds(), t.member.id]),
      invitesChanged(adminIds()),
      invitesChanged(adminIds()),
    ]);
  });

  test("unknown ids and other organizations' invitations", async () => {
    await invite(o.admin, { invitee_emails: "theirs@example.com" });
    const theirs = await idOf("theirs@example.com");
    expectError(await api(t.owner).delete(`/invites/${theirs}`), "No such invitation");
    expectError(await api(t.owner).delete("/invites/999999"), "No such invitation");
    expectError(await api(t.owner).delete("/invites/99999999999"), "No such invitation");
    assert.deepEqual((await listInvites(o.admin)).map((i) => i.email), ["theirs@example.com"]);
  });

  test("guests and bots are refused", async () => {
    expectError(await api(t.guest).delete("/invites/1"), "Not allowed for guest users");
    expectError(await api(t.bot).delete("/invites/1"), "This endpoint does not accept bot requests.");
  });
});

describe("POST /invites/{invite_id}/resend", () => {
  test("sends the same link again, to whoever may manage the invitation", async () => {
    await invite(t.member);
    const [first] = await readOutbox(srv);
    const id = (await listInvites(t.member))[0].id;
    const log = new EventLog(srv);
    assert.deepEqual((await api(t.member).post(`/invites/${id}/resend`)).body, { result: "success", msg: "" });
    assert.deepEqual((await api(t.admin).post(`/invites/${id}/resend`)).body, { result: "success", msg: "" });
    expectError(await api(t.member2).post(`/invites/${id}/resend`), "Must be an organization administrator");
    expectError(await api(o.owner).post(`/invites/${id}/resend`), "No such invitation");
    expectError(await api(t.guest).post(`/invites/${id}/resend`), "Not allowed for guest users");
    assert.deepEqual(log.stop(), []);
    const mails = await readOutbox(srv);
    assert.equal(mails.length, 3);
    for (const m of mails) {
      assert.equal(m.to, "new@example.com");
      assert.equal(joinPath(m), joinPath(first));
    }
  });

  test("an owner's invitation is resent only by its inviter or an owner", async () => {
    await invite(t.owner, { invite_as: 100 });
    const id = (await listInvites(t.owner))[0].id;
    expectError(await api(t.admin).post(`/invites/${id}/resend`), "Must be an organization owner", "UNAUTHORIZED_PRINCIPAL");
    assert.equal((await api(t.owner).post(`/invites/${id}/resend`)).status, 200);
  });
});

describe("the invitation email", () => {
  test("names the inviter and organization and carries a working sign-up link", async () => {
    await invite(t.admin, { invitee_emails: "Reader <reader@example.com>" });
    const [mail] = await readOutbox(srv);
    assert.equal(mail.to, "reader@example.com");
    assert.equal(mail.subject, `${t.admin.fullName} invited you to join ${t.realm.name}`);
    assert.match(mail.headers.get("from")!, /^noreply@/);
    assert.match(mail.text, new RegExp(`${t.admin.fullName} invited you to join ${t.realm.name}`));
    const key = (await srv.app.db.selectFrom("email_invites").select("confirmation_key").executeTakeFirstOrThrow()).confirmation_key;
    assert.equal(joinPath(mail), `/join/${key}/`);
    const page = await fetch(srv.url + joinPath(mail));
    assert.equal(page.status, 200);
  });
});

describe("POST /invites/multiuse", () => {
  test("administrators create links by default; the link is reported to administrators", async () => {
    const log = new EventLog(srv);
    const r = await api(t.admin).post("/invites/multiuse", { stream_ids: [lobby], invite_as: 600 });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const key = (await srv.app.db.selectFrom("multiuse_invites").selectAll().executeTakeFirstOrThrow()).confirmation_key;
    assert.deepEqual(r.body, { result: "success", msg: "", invite_link: `${srv.app.config.externalUrl}/join/${key}/` });
    assert.deepEqual(log.stop(), [invitesChanged(adminIds())]);
    assert.deepEqual(await readOutbox(srv), []);
  });

  test("others need create_multiuse_invite_group, and the same role, channel, group and welcome text rules", async () => {
    const log = new EventLog(srv);
    expectError(await api(t.moderator).post("/invites/multiuse", {}), "Insufficient permission");
    expectError(await api(t.member).post("/invites/multiuse", {}), "Insufficient permission");
    expectError(await api(t.guest).post("/invites/multiuse", {}), "Not allowed for guest users");
    expectError(await api(t.bot).post("/invites/multiuse", {}), "This endpoint does not accept bot requests.");
    await setRealmGroupSetting(srv.app, t.realm.id, "create_multiuse_invite_group", "role:members");
    try {
      expectError(await api(t.member).post("/invites/multiuse", { invite_as: 300 }), "Must be an organization administrator");
      expectError(await api(t.admin).post("/invites/multiuse", { invite_as: 100 }), "Must be an organization owner", "UNAUTHORIZED_PRINCIPAL");
      expectError(await api(t.member).post("/invites/multiuse", { stream_ids: [secret] }), `Invalid channel ID ${secret}. No invites were sent.`);
      expectError(await api(t.member).post("/invites/multiuse", { group_ids: [999999] }), "Invalid user group");
      expectError(await api(t.member).post("/invites/multiuse", { welcome_message_custom_text: "Hi" }), "Must be an organization administrator");
      expectError(await api(t.member).post("/invites/multiuse", { invite_as: 1 }), "Invalid invite_as: Not in the list of possible values");
      assert.deepEqual(log.stop(), []);
      assert.equal((await api(t.member).post("/invites/multiuse", { stream_ids: [lobby], group_ids: null })).status, 200);
      assert.deepEqual((await listInvites(t.member)).map((i) => [i.invited_by_user_id, i.is_multiuse]), [[t.member.id, true]]);
    } finally {
      await setRealmGroupSetting(srv.app, t.realm.id, "create_multiuse_invite_group", "role:administrators");
    }
  });
});

describe("DELETE /invites/multiuse/{invite_id}", () => {
  const createLink = async (u: TestUser, params: Record<string, ParamValue> = {}) => {
    assert.equal((await api(u).post("/invites/multiuse", params)).status, 200);
    return (await srv.app.db.selectFrom("multiuse_invites").select("id").orderBy("id", "desc").executeTakeFirstOrThrow()).id;
  };

  test("revoked once; then it is already revoked and no longer listed", async () => {
    const id = await createLink(t.admin);
    const log = new EventLog(srv);
    assert.deepEqual((await api(t.owner).delete(`/invites/multiuse/${id}`)).body, { result: "success", msg: "" });
    assert.deepEqual(log.stop(), [invitesChanged(adminIds())]);
    expectError(await api(t.owner).delete(`/invites/multiuse/${id}`), "Invitation has already been revoked");
    assert.deepEqual(await listInvites(t.owner), []);
  });

  test("who may revoke", async () => {
    const ownerLink = await createLink(t.owner, { invite_as: 100 });
    const adminLink = await createLink(t.admin);
    await setRealmGroupSetting(srv.app, t.realm.id, "create_multiuse_invite_group", "role:members");
    try {
      const memberLink = await createLink(t.member);
      expectError(await api(t.admin).delete(`/invites/multiuse/${ownerLink}`), "Must be an organization owner", "UNAUTHORIZED_PRINCIPAL");
      expectError(await api(t.member2).delete(`/invites/multiuse/${memberLink}`), "Must be an organization administrator");
      expectError(await api(t.member).delete(`/invites/multiuse/${adminLink}`), "Must be an organization administrator");
      expectError(await api(o.owner).delete(`/invites/multiuse/${adminLink}`), "No such invitation");
      expectError(await api(t.owner).delete("/invites/multiuse/999999"), "No such invitation");
      expectError(await api(t.guest).delete(`/invites/multiuse/${adminLink}`), "Not allowed for guest users");
      assert.equal((await listInvites(t.owner)).length, 3);
      assert.equal((await api(t.member).delete(`/invites/multiuse/${memberLink}`)).status, 200);
      assert.equal((await api(t.admin).delete(`/invites/multiuse/${adminLink}`)).status, 200);
      assert.equal((await api(t.owner).delete(`/invites/multiuse/${ownerLink}`)).status, 200);
    } finally {
      await setRealmGroupSetting(srv.app, t.realm.id, "create_multiuse_invite_group", "role:administrators");
    }
  });
});

describe("invites_changed through an event queue", () => {
  test("an administrator's client registered for it receives it", async () => {
    const reg = await api(t.admin).post("/register", { event_types: ["invites_changed"] });
    assert.equal(reg.status, 200, JSON.stringify(reg.body));
    const waiting = nextLongPoll(srv, reg.body.queue_id);
    const events = api(t.admin).get("/events", { queue_id: reg.body.queue_id, last_event_id: reg.body.last_event_id });
    await waiting;
    await invite(t.member);
    const r = await events;
    assert.deepEqual(r.body.events, [{ type: "invites_changed", id: 0 }]);
  });
});

describe("the daily invitation limit", () => {
  const limitClock = new ManualClock(1_700_000_000);
  let limited: TestServer;
  let l: TestRealm;
  const limitedInvite = (emails: string) => new Api(limited.url, l.admin).post("/invites", { invitee_emails: emails, stream_ids: [] });

  before(async () => {
    limited = await startTestServer({ invitesDailyLimit: 3 }, { clock: limitClock });
    l = await createTestRealm(limited.app, "limited");
  });
  after(() => limited.close());

  test("counts invitations and resends over the last day", async () => {
    assert.equal((await limitedInvite("a@example.com, b@example.com")).status, 200);
    const log = new EventLog(limited);
    const refused = await limitedInvite("c@example.com, d@example.com");
    assert.deepEqual(refused.body, {
      result: "error",
      msg: "To protect users, Zulip limits the number of invitations you can send in one day. Because you have reached the limit, no invitations were sent.",
      code: "INVITATION_FAILED",
      errors: [],
      sent_invitations: false,
      license_limit_reached: false,
      daily_limit_reached: true,
    });
    assert.deepEqual(log.notices, []);
    const id = (await new Api(limited.url, l.admin).get("/invites")).body.invites[0].id;
    assert.equal((await new Api(limited.url, l.admin).post(`/invites/${id}/resend`)).status, 200);
    const resend = await new Api(limited.url, l.admin).post(`/invites/${id}/resend`);
    assert.equal(resend.body.daily_limit_reached, true);
    assert.equal((await readOutbox(limited)).length, 3);

    limitClock.advance(86400);
    assert.equal((await limitedInvite("c@example.com, d@example.com")).status, 200);
    assert.deepEqual(log.stop(), [{ realmId: l.realm.id, event: { type: "invites_changed" }, userIds: [l.owner.id, l.admin.id] }]);
  });

  test("is read from CONFAB_INVITES_DAILY_LIMIT, with Zulip's 100 by default", async () => {
    const { loadConfig } = await import("../../src/config.js");
    assert.equal(loadConfig({}).invitesDailyLimit, 100);
    assert.equal(loadConfig({ CONFAB_INVITES_DAILY_LIMIT: "7" }).invitesDailyLimit, 7);
    assert.equal(loadConfig({ CONFAB_INVITES_DAILY_LIMIT: "many" }).invitesDailyLimit, 100);
  });
});

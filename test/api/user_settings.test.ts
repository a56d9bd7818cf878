/** PATCH /settings and PATCH /realm/user_settings_defaults: storage, validation, events, defaults. */
import { test, before, after, describe } from "node:test";
import assert from "node:assert/strict";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { Api } from "../helpers/client.js";
import { expectError } from "../helpers/expect.js";
import { createTestRealm, TEST_PASSWORD, type TestRealm, type TestUser } from "../helpers/realm.js";
import { clearOutbox, readOutbox } from "../helpers/mail.js";
import { ok, setRealmProps } from "../helpers/channels.js";
import { USER_SETTINGS, REALM_DEFAULT_SETTING_NAMES } from "../../src/domain/user_settings.js";
import { runAction } from "../../src/actions/run.js";
import { createUserInTx } from "../../src/actions/users.js";
import { getRealm } from "../../src/store/realms.js";
import { Role } from "../../src/domain/roles.js";

let srv: TestServer;
let t: TestRealm;
let o: TestRealm;
const api = (u: TestUser) => new Api(srv.url, u);

before(async () => {
  srv = await startTestServer();
  t = await createTestRealm(srv.app);
  o = await createTestRealm(srv.app, "other");
});
after(() => srv.close());


/** A value other than the default that the setting allows. */
function otherValue(name: string): unknown {
  const spec = USER_SETTINGS[name];
  const values = (spec.kind as { values?: readonly unknown[] }).values;
  if (values) return values.find((v) => v !== spec.default);
  if (spec.kind.type === "bool") return !spec.default;
  if (spec.kind.type === "int") return Number(spec.default) + 1;
  return `${spec.default}x`;
}

async function queue(u: TestUser, params: Record<string, unknown> = {}) {
  return (await ok(api(u).post("/register", { event_types: ["user_settings", "update_display_settings", "update_global_notifications", "realm_user", "realm_user_settings_defaults", "realm_export_consent"], ...params } as never))).queue_id as string;
}
async function eventsOf(u: TestUser, q: string) {
  return (await ok(api(u).get("/events", { queue_id: q, last_event_id: -1, dont_block: true }))).events as Record<string, unknown>[];
}

describe("PATCH /settings", () => {
  test("every setting is stored, shown by register and announced to the user alone", async () => {
    const member = t.member;
    const mine = await queue(member, { client_capabilities: { user_settings_object: true } });
    const others = await queue(t.member2);
    for (const name of Object.keys(USER_SETTINGS)) {
      const value = otherValue(name);
      await ok(api(member).patch("/settings", { [name]: value } as never));
      const state = await ok(api(member).post("/register", { fetch_event_types: ["user_settings"] }));
      assert.equal(state.user_settings[name], value, name);
    }
    const events = (await eventsOf(member, mine)).filter((e) => e.type === "user_settings");
    const presence = events.filter((e) => e.property === "presence_enabled").length;
    assert.equal(events.length, Object.keys(USER_SETTINGS).length + presence - 1);
    assert.deepEqual(events.find((e) => e.property === "default_language"), {
      type: "user_settings", op: "update", property: "default_language", value: otherValue("default_language"), language_name: "العربية", id: (events.find((e) => e.property === "default_language") as { id: number }).id,
    });
    assert.ok((await eventsOf(t.member2, others)).every((e) => e.type !== "user_settings"));
  });

  test("clients without the user_settings object hear the legacy events", async () => {
    const q = await queue(t.moderator);
    await ok(api(t.moderator).patch("/settings", { enter_sends: true, enable_sounds: false }));
    const events = await eventsOf(t.moderator, q);
    assert.deepEqual(
      events.filter((e) => e.type !== "user_settings").map((e) => [e.type, e.setting_name ?? e.notification_name, e.setting]),
      [["update_display_settings", "enter_sends", true], ["update_global_notifications", "enable_sounds", false]],
    );
  });

  test("values outside what Zulip allows are refused, and nothing changes", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ color_scheme: 7 }, "Invalid color_scheme"],
      [{ emojiset: "apple" }, "Invalid emojiset"],
      [{ default_language: "xx" }, "Invalid default_language"],
      [{ notification_sound: "bell" }, "Invalid notification sound 'bell'"],
      [{ email_notifications_batching_period_seconds: 0 }, "Invalid email batching period: 0 seconds"],
      [{ email_notifications_batching_period_seconds: 604801 }, "Invalid email batching period: 604801 seconds"],
      [{ web_home_view: "nowhere" }, "Invalid web_home_view"],
      [{ timezone: "Mars/Olympus" }, "Invalid timezone: Not a recognized time zone"],
      [{ enter_sends: "maybe" }, "enter_sends is not valid JSON"],
      [{ color_scheme: 2, emojiset: "apple" }, "Invalid emojiset"],
    ];
    for (const [params, msg] of cases) expectError(await api(t.member2).patch("/settings", params as never), msg);
    const state = await ok(api(t.member2).post("/register", { fetch_event_types: ["user_settings"] }));
    assert.equal(state.user_settings.color_scheme, 1);
  });

  test("bots may not use it; other organizations' settings stay apart", async () => {
    expectError(await api(t.bot).patch("/settings", { enter_sends: true }), "This endpoint does not accept bot requests.");
    await ok(api(o.member).patch("/settings", { twenty_four_hour_time: true }));
    const state = await ok(api(t.guest).post("/register", { fetch_event_types: ["user_settings"] }));
    assert.equal(state.user_settings.twenty_four_hour_time, false);
  });

  test("a timezone change reaches everyone who can see the user", async () => {
    const q = await queue(t.admin);
    await ok(api(t.guest).patch("/settings", { timezone: "Europe/Berlin" }));
    const events = await eventsOf(t.admin, q);
    assert.ok(events.some((e) => e.type === "realm_user" && JSON.stringify(e.person) === JSON.stringify({ user_id: t.guest.id, timezone: "Europe/Berlin" })));
    const state = await ok(api(t.guest).post("/register", { fetch_event_types: ["user_settings"] }));
    assert.equal(state.user_settings.timezone, "Europe/Berlin");
  });

  test("full name: Zulip's rules, and silently ignored where the organization forbids changes", async () => {
    const q = await queue(t.owner);
    await ok(api(t.member2).patch("/settings", { full_name: "  Maria Two  " }));
    assert.ok((await eventsOf(t.owner, q)).some((e) => e.type === "realm_user" && (e.person as { full_name?: string }).full_name === "Maria Two"));
    expectError(await api(t.member2).patch("/settings", { full_name: "x".repeat(101) }), "Name too long!");
    await setRealmProps(srv.app, t.realm.id, { name_changes_disabled: true });
    try {
      await ok(api(t.member2).patch("/settings", { full_name: "Ignored" }));
      const me = await ok(api(t.member2).get("/users/me"));
      assert.equal(me.full_name, "Maria Two");
      await ok(api(t.admin).patch("/settings", { full_name: "Admins May" }));
      assert.equal((await ok(api(t.admin).get("/users/me"))).full_name, "Admins May");
    } finally {
      await setRealmProps(srv.app, t.realm.id, { name_changes_disabled: false });
    }
  });

  test("password: the old one is checked, the new one must not be too weak", async () => {
    expectError(await api(t.moderator).patch("/settings", { old_password: "wrong", new_password: "a long new one" }), "Wrong password!");
    expectError(await api(t.moderator).patch("/settings", { new_password: "a long new one" }), "Wrong password!");
    expectError(await api(t.moderator).patch("/settings", { old_password: TEST_PASSWORD, new_password: "abc" }), "New password is too weak!");
    await ok(api(t.moderator).patch("/settings", { old_password: TEST_PASSWORD, new_password: "a long new one" }));
    const login = await new Api(srv.url).post("/fetch_api_key", { username: t.moderator.email, password: "a long new one" });
    assert.equal(login.body.api_key, t.moderator.apiKey);
    await ok(api(t.moderator).patch("/settings", { old_password: "a long new one", new_password: TEST_PASSWORD }));
  });

  test("email: a confirmation link is mailed; following it changes the address", async () => {
    await clearOutbox(srv);
    expectError(await api(t.member).patch("/settings", { email: "not an address" }), "Invalid address.");
    expectError(await api(t.member).patch("/settings", { email: t.admin.email }), "Already has an account.");
    await setRealmProps(srv.app, t.realm.id, { email_changes_disabled: true });
    expectError(await api(t.member).patch("/settings", { email: "new-member@example.com" }), "Email address changes are disabled in this organization.");
    await setRealmProps(srv.app, t.realm.id, { email_changes_disabled: false });
    await ok(api(t.member).patch("/settings", { email: " new-member@example.com " }));
    assert.equal((await ok(api(t.member).get("/users/me"))).delivery_email, t.member.email, "nothing changes before confirmation");
    const [mail] = await readOutbox(srv);
    assert.equal(mail.to, "new-member@example.com");
    const link = /https?:\/\/\S+?(\/accounts\/confirm_new_email\/\S+\/)/.exec(mail.text)![1];
    const forged = await fetch(`${srv.url}${link.replace(/-([A-Za-z0-9]+)\/$/, "-AAAA/")}`);
    assert.equal(forged.status, 400);
    const page = await fetch(`${srv.url}${link}`);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /new-member@example\.com/);
    const renamed = { ...t.member, email: "new-member@example.com" };
    assert.equal((await ok(api(renamed).get("/users/me"))).delivery_email, "new-member@example.com");
    await ok(api(renamed).patch("/settings", { email: t.member.email }));
    const back = /https?:\/\/\S+?(\/accounts\/confirm_new_email\/\S+\/)/.exec((await readOutbox(srv))[1].text)![1];
    assert.equal((await fetch(`${srv.url}${back}`)).status, 200);
  });

  test("consenting to exports tells the administrators", async () => {
    const q = await queue(t.admin);
    await ok(api(t.guest).patch("/settings", { allow_private_data_export: true }));
    const events = await eventsOf(t.admin, q);
    assert.ok(events.some((e) => e.type === "realm_export_consent" && e.user_id === t.guest.id && e.consented === true));
  });
});

describe("PATCH /realm/user_settings_defaults", () => {
  test("administrators only", async () => {
    for (const u of [t.moderator, t.member, t.guest, t.bot]) {
      expectError(await api(u).patch("/realm/user_settings_defaults", { enter_sends: true }), "Must be an organization administrator", "UNAUTHORIZED_PRINCIPAL");
    }
    expectError(await api(t.admin).patch("/realm/user_settings_defaults", { emojiset: "apple" }), "Invalid emojiset");
  });

  test("changes are stored, announced to the organization, and new people start from them", async () => {
    const q = await queue(t.member);
    const otherQ = await queue(o.member);
    await ok(api(t.admin).patch("/realm/user_settings_defaults", { enter_sends: true, color_scheme: 2, presence_enabled: false, email_address_visibility: 1 }));
    const events = (await eventsOf(t.member, q)).filter((e) => e.type === "realm_user_settings_defaults");
    assert.deepEqual(
      events.map((e) => [e.property, e.value]).sort(),
      [["color_scheme", 2], ["email_address_visibility", 1], ["enter_sends", true], ["presence_enabled", false]],
    );
    assert.deepEqual((await eventsOf(o.member, otherQ)).filter((e) => e.type === "realm_user_settings_defaults"), []);
    const state = await ok(api(t.member).post("/register", { fetch_event_types: ["realm_user_settings_defaults"] }));
    assert.equal(state.realm_user_settings_defaults.enter_sends, true);
    assert.equal(state.realm_user_settings_defaults.color_scheme, 2);
    assert.deepEqual(
      Object.keys(state.realm_user_settings_defaults).sort(),
      [...REALM_DEFAULT_SETTING_NAMES, "allow_private_data_export", "default_language", "emojiset_choices", "available_notification_sounds"].sort(),
    );
    const newcomer = await runAction(srv.app, async (tx) =>
      createUserInTx(tx, srv.app, (await getRealm(tx, t.realm.id))!, { email: "newcomer@zulip.example.com", fullName: "New Comer", role: Role.MEMBER, password: TEST_PASSWORD }),
    );
    const creds = { email: newcomer.delivery_email, apiKey: newcomer.api_key };
    const mine = await ok(new Api(srv.url, creds).post("/register", { fetch_event_types: ["user_settings"] }));
    assert.deepEqual([mine.user_settings.enter_sends, mine.user_settings.color_scheme, mine.user_settings.presence_enabled], [true, 2, false]);
    await ok(api(t.admin).patch("/realm/user_settings_defaults", { enter_sends: false, color_scheme: 1, presence_enabled: true, email_address_visibility: 3 }));
  });
});

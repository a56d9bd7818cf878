import { test, before, after, describe } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { Api } from "../helpers/client.js";
import { DEV_PASSWORD, seedDevOrganization, type DevOrganization } from "../../src/dev/seed.js";
import { devConfig, startDevServer } from "../../src/dev/server.js";

let srv: TestServer;
let org: DevOrganization;
let anon: Api;
let stepSawOrganization = false;

const PEOPLE: [string, string, number, string][] = [
  ["Zoe", "ZOE@zulip.com", 400, "US/Eastern"],
  ["Othello, the Moor of Venice", "othello@zulip.com", 400, "US/Pacific"],
  ["Iago", "iago@zulip.com", 200, "US/Eastern"],
  ["Prospero from The Tempest", "prospero@zulip.com", 400, ""],
  ["Cordelia, Lear's daughter", "cordelia@zulip.com", 400, "UTC"],
  ["King Hamlet", "hamlet@zulip.com", 400, ""],
  ["aaron", "AARON@zulip.com", 400, "US/Pacific"],
  ["Polonius", "polonius@zulip.com", 600, "Asia/Shanghai"],
  ["Desdemona", "desdemona@zulip.com", 100, "Canada/Newfoundland"],
  ["शिव", "shiva@zulip.com", 300, "Asia/Kolkata"],
];

async function login(email: string): Promise<Api> {
  const r = await anon.post("/fetch_api_key", { username: email, password: DEV_PASSWORD });
  assert.equal(r.body.result, "success", email);
  return anon.as({ email, apiKey: r.body.api_key });
}

before(async () => {
  srv = await startTestServer({ development: true });
  org = await seedDevOrganization(srv.app, [
    async (tx, _app, o) => {
      const row = await tx.selectFrom("users").select("id").where("id", "=", o.people.hamlet.id).executeTakeFirst();
      stepSawOrganization = row !== undefined;
    },
  ]);
  anon = new Api(srv.url);
});
after(() => srv.close());

describe("the development organization", () => {
  test("is Zulip's development realm", async () => {
    assert.equal(org.realm.string_id, "zulip");
    assert.equal(org.realm.name, "Zulip Dev");
    assert.equal(org.realm.description, "The Zulip development environment default organization.  It's great for testing!");
    assert.equal(org.realm.props.invite_required, false);
    assert.equal(org.realm.props.enable_read_receipts, true);
    assert.equal(org.realm.props.enable_spectator_access, true);
    assert.equal(org.realm.props.org_type, 10);
    assert.equal(org.realm.props.email_address_visibility, 3);
    assert.equal(org.realm.props.moderation_request_channel_id, org.channels["core team"]);
    const settings = await anon.get("/server_settings");
    assert.equal(settings.body.realm_name, "Zulip Dev");
    assert.equal(settings.body.authentication_methods.dev, true);
    assert.equal(stepSawOrganization, true, "extra seed steps run inside the seed's transaction");
  });

  test("has the ten people with their roles and time zones, all with the documented password", async () => {
    const iago = await login("iago@zulip.com");
    const members = (await iago.get("/users", { client_gravatar: false })).body.members;
    const humans = members.filter((m: any) => !m.is_bot);
    assert.deepEqual(
      humans.map((m: any) => [m.full_name, m.delivery_email, m.role, m.timezone]),
      PEOPLE,
    );
    for (const m of humans) assert.equal(m.email, `user${m.user_id}@zulipdev.com`);
    for (const [, email] of PEOPLE) await login(email);
    const hamlet = await login("hamlet@zulip.com");
    const seenByHamlet = (await hamlet.get(`/users/${org.people.iago.id}`)).body.user;
    assert.equal(seenByHamlet.delivery_email, null);
    assert.equal(seenByHamlet.email, `user${org.people.iago.id}@zulipdev.com`);
  });

  test("has the bots with their types and owners", async () => {
    const members = (await (await login("iago@zulip.com")).get("/users")).body.members;
    const bots = members.filter((m: any) => m.is_bot);
    assert.deepEqual(
      bots.map((b: any) => [b.full_name, b.email, b.delivery_email, b.bot_type, b.bot_owner_id]),
      [
        ["Zulip Default Bot", "default-bot@zulip.com", "default-bot@zulip.com", 1, org.people.desdemona.id],
        ["Zulip Webhook Bot", "webhook-bot@zulip.com", "webhook-bot@zulip.com", 2, org.people.ZOE.id],
        ["Outgoing Webhook", "outgoing-webhook@zulip.com", "outgoing-webhook@zulip.com", 3, org.people.AARON.id],
      ],
    );
  });

  test("development login endpoints work", async () => {
    const r = await anon.post("/dev_fetch_api_key", { username: "polonius@zulip.com" });
    assert.equal(r.body.user_id, org.people.polonius.id);
    const list = await anon.get("/dev_list_users");
    assert.deepEqual(list.body.direct_admins.map((u: any) => u.email), ["iago@zulip.com", "desdemona@zulip.com"]);
    assert.equal(list.body.direct_users.length, 8);
  });

  test("has the channels with their descriptions, privacy and creators", async () => {
    const rows = await srv.app.db
      .selectFrom("streams")
      .select(["id", "name", "description", "invite_only", "is_web_public", "creator_id"])
      .where("realm_id", "=", org.realm.id)
      .orderBy("name")
      .execute();
    const byName = Object.fromEntries(rows.map((r) => [r.name, r]));
    assert.deepEqual(Object.keys(byName).sort(), ["Denmark", "Rome", "Scotland", "Venice", "Verona", "Zulip", "core team", "sandbox"]);
    const expected: [string, string, number, number, number | null][] = [
      ["Verona", "A city in Italy", 0, 0, null],
      ["Denmark", "A Scandinavian country", 0, 0, null],
      ["Scotland", "Located in the United Kingdom", 0, 0, org.people.iago.id],
      ["Venice", "A northeastern Italian city", 0, 0, org.people.polonius.id],
      ["Rome", "Yet another Italian city", 0, 1, null],
      ["core team", "A private channel for core team members", 1, 0, org.people.desdemona.id],
      ["Zulip", "Questions and discussion about using Zulip.", 0, 0, null],
      ["sandbox", "Experiment with Zulip here. :test_tube:", 0, 0, null],
    ];
    for (const [name, description, inviteOnly, webPublic, creator] of expected) {
      assert.deepEqual(
        [byName[name].description, byName[name].invite_only, byName[name].is_web_public, byName[name].creator_id],
        [description, inviteOnly, webPublic, creator],
        name,
      );
      assert.equal(org.channels[name], byName[name].id);
    }
    const defaults = await srv.app.db.selectFrom("default_streams").select("stream_id").where("realm_id", "=", org.realm.id).execute();
    assert.deepEqual(defaults.map((d) => d.stream_id).sort(), [org.channels.Verona, org.channels.Zulip, org.channels.sandbox].sort());
    assert.equal(org.realm.props.new_stream_announcements_stream_id, org.channels.Verona);
  });

  test("has Zulip's test-suite subscriptions", async () => {
    const rows = await srv.app.db
      .selectFrom("subscriptions")
      .innerJoin("streams", "streams.id", "subscriptions.stream_id")
      .innerJoin("users", "users.id", "subscriptions.user_id")
      .select(["users.delivery_email", "streams.name"])
      .where("streams.realm_id", "=", org.realm.id)
      .where("subscriptions.active", "=", 1)
      .execute();
    const subs: Record<string, string[]> = {};
    for (const r of rows) (subs[r.delivery_email] ??= []).push(r.name);
    for (const list of Object.values(subs)) list.sort();
    assert.deepEqual(subs, {
      "AARON@zulip.com": ["Verona"],
      "cordelia@zulip.com": ["Verona"],
      "hamlet@zulip.com": ["Denmark", "Verona", "Zulip", "core team", "sandbox"],
      "iago@zulip.com": ["Denmark", "Scotland", "Verona", "Zulip", "core team", "sandbox"],
      "othello@zulip.com": ["Denmark", "Scotland", "Verona"],
      "prospero@zulip.com": ["Denmark", "Scotland", "Venice", "Verona"],
      "ZOE@zulip.com": ["Denmark", "Rome", "Scotland", "Venice", "Verona"],
      "polonius@zulip.com": ["Verona"],
      "desdemona@zulip.com": ["Denmark", "Venice", "Verona", "Zulip", "core team", "sandbox"],
      "shiva@zulip.com": ["Denmark", "Scotland", "Verona"],
    });
  });

  test("has the hamletcharacters group, created by Cordelia", async () => {
    const groups = (await (await login("hamlet@zulip.com")).get("/user_groups")).body.user_groups;
    const g = groups.find((x: any) => x.name === "hamletcharacters");
    assert.equal(g.id, org.hamletCharactersGroupId);
    assert.equal(g.description, "Characters of Hamlet");
    assert.deepEqual(g.members, [org.people.cordelia.id, org.people.hamlet.id].sort((a, b) => a - b));
    assert.equal(g.creator_id, org.people.cordelia.id);
    assert.deepEqual(g.can_manage_group, { direct_members: [org.people.cordelia.id], direct_subgroups: [] });
  });

  test("has custom profile fields filled in for Iago and Hamlet", async () => {
    const iago = await login("iago@zulip.com");
    const fields = await srv.app.db.selectFrom("custom_profile_fields").select(["id", "name"]).where("realm_id", "=", org.realm.id).orderBy("order").execute();
    assert.deepEqual(fields.map((f) => f.name), [
      "Phone number", "Biography", "Favorite food", "Favorite editor", "Birthday", "Favorite website", "Mentor", "GitHub", "Pronouns",
    ]);
    const id = (name: string) => String(fields.find((f) => f.name === name)!.id);
    const hamlet = (await iago.get(`/users/${org.people.hamlet.id}`, { include_custom_profile_fields: true })).body.user.profile_data;
    assert.deepEqual(hamlet[id("Phone number")], { value: "+0-11-23-456-7890", rendered_value: "<p>+0-11-23-456-7890</p>" });
    assert.equal(hamlet[id("Mentor")].value, `[${org.people.iago.id}]`);
    assert.deepEqual(hamlet[id("Favorite editor")], { value: "0" });
    assert.equal(hamlet[id("GitHub")].value, "zulipbot");
    const me = (await iago.get("/users/me")).body.profile_data;
    assert.equal(me[id("Biography")].value, "Betrayer of Othello.");
    assert.equal(Object.keys(me).length, 9);
  });
});

describe("startDevServer", () => {
  test("wipes the previous development database and seeds afresh, leaving other files alone", async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "confab-dev-"));
    try {
      fs.writeFileSync(path.join(dataDir, "keep.txt"), "mine");
      const config = { ...devConfig({ CONFAB_DATA_DIR: dataDir, LOG_LEVEL: "silent" }), port: 0 };
      assert.equal(config.development, true);
      assert.equal(config.databaseUrl, undefined);
      assert.equal(config.fakeEmailDomain, "zulipdev.com");

      const first = await startDevServer(config);
      const hamletId = first.org.people.hamlet.id;
      await first.running.app.db.updateTable("users").set({ full_name: "Changed" }).where("id", "=", hamletId).execute();
      await first.running.close();

      const second = await startDevServer(config);
      try {
        assert.equal(second.org.people.hamlet.id, hamletId);
        const r = await new Api(second.running.url).post("/dev_fetch_api_key", { username: "hamlet@zulip.com" });
        const me = await new Api(second.running.url, { email: "hamlet@zulip.com", apiKey: r.body.api_key }).get("/users/me");
        assert.equal(me.body.full_name, "King Hamlet");
        const realms = await second.running.app.db.selectFrom("realms").select("string_id").execute();
        assert.deepEqual(realms.map((x) => x.string_id), ["zulip"]);
      } finally {
        await second.running.close();
      }
      assert.equal(fs.readFileSync(path.join(dataDir, "keep.txt"), "utf8"), "mine");
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe("the development organization's message history", () => {
  test("channel messages and direct messages are there, readable by their recipients", async () => {
    const hamlet = await login("hamlet@zulip.com");
    const verona = await hamlet.get("/messages", { anchor: "newest", num_before: 50, num_after: 0, narrow: [["channel", "Verona"]] });
    assert.equal(verona.status, 200, JSON.stringify(verona.body));
    assert.ok(verona.body.messages.length >= 4);
    assert.ok(verona.body.messages.some((m: any) => m.flags.includes("mentioned")), "Cordelia mentions Hamlet");
    const dms = await hamlet.get("/messages", { anchor: "newest", num_before: 50, num_after: 0, narrow: [["is", "dm"]] });
    assert.equal(dms.body.messages.length, 3);
    const polonius = await login("polonius@zulip.com");
    const core = await polonius.get("/messages", { anchor: "newest", num_before: 50, num_after: 0, narrow: [["channel", "core team"]] });
    assert.deepEqual(core.body.messages, [], "a guest outside the private channel reads nothing of it");
  });
});

describe("the development organization's scheduled messages", () => {
  test("Iago has two, a year ahead: one to Denmark and a note to himself", async () => {
    const iago = await login("iago@zulip.com");
    const r = await iago.get("/scheduled_messages");
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const yearAhead = (m: { scheduled_delivery_timestamp: number }) => m.scheduled_delivery_timestamp - Date.now() / 1000 > 364 * 24 * 3600;
    assert.ok(r.body.scheduled_messages.every(yearAhead));
    assert.deepEqual(
      r.body.scheduled_messages.map((m: any) => [m.type, m.to, m.topic, m.content, m.failed]),
      [
        ["stream", org.channels.Denmark, "test-api", "It's time to celebrate the anniversary of provisioning this development environment :tada:!", false],
        ["private", [org.people.iago.id], undefined, "Note to self: It's been a while since you've provisioned this development environment.", false],
      ],
    );
    assert.deepEqual((await (await login("hamlet@zulip.com")).get("/scheduled_messages")).body.scheduled_messages, []);
  });
});

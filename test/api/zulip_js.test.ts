/**
 * The real zulip-js client against Confab's development organization: it logs in with
 * fetch_api_key, posts multipart bodies and sends GET parameters in the query string.
 */
import { test, before, after, describe } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import zulip, { type ZulipClient } from "zulip-js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { DEV_PASSWORD, seedDevOrganization, type DevOrganization } from "../../src/dev/seed.js";
import { setCanCreateUsers } from "../../src/actions/users.js";
import { zuliprcText } from "../../src/cli/zuliprc.js";

let srv: TestServer;
let org: DevOrganization;
let hamlet: ZulipClient;

/** Logs in as a development user the way zulip-js does: username and password. */
const connect = (email: string) => zulip({ username: email, password: DEV_PASSWORD, realm: srv.url });

before(async () => {
  srv = await startTestServer({ development: true });
  org = await seedDevOrganization(srv.app);
  hamlet = await connect("hamlet@zulip.com");
});
after(() => srv.close());

describe("zulip-js", () => {
  test("obtains an API key with fetch_api_key", async () => {
    assert.equal(hamlet.config.apiKey, org.people.hamlet.api_key);
    const wrong = await zulip({ username: "hamlet@zulip.com", password: "wrong", realm: srv.url });
    assert.equal(wrong.config.apiKey, undefined);
  });

  test("sends a channel message and reads it back", async () => {
    const sent = await hamlet.messages.send({ to: "Verona", type: "stream", topic: "zulip-js", content: "Sent by **zulip-js**" });
    assert.equal(sent.result, "success", JSON.stringify(sent));
    const read = await hamlet.messages.retrieve({
      anchor: "newest",
      num_before: 5,
      num_after: 0,
      narrow: [
        { operator: "stream", operand: "Verona" },
        { operator: "topic", operand: "zulip-js" },
      ],
    });
    assert.equal(read.result, "success", JSON.stringify(read));
    const message = read.messages.find((m: { id: number }) => m.id === sent.id);
    assert.ok(message, "the sent message is read back");
    assert.equal(message.content, "<p>Sent by <strong>zulip-js</strong></p>");
    assert.equal(message.sender_id, org.people.hamlet.id);
    assert.equal(message.display_recipient, "Verona");
    const rendered = await hamlet.messages.render("**hi**");
    assert.equal(rendered.rendered, "<p><strong>hi</strong></p>");
  });

  test("users.me.getProfile()", async () => {
    const me = await hamlet.users.me.getProfile();
    assert.equal(me.result, "success");
    assert.equal(me.user_id, org.people.hamlet.id);
    assert.equal(me.full_name, "King Hamlet");
    assert.equal(me.delivery_email, "hamlet@zulip.com");
    assert.equal(me.email, `user${org.people.hamlet.id}@zulipdev.com`);
    const newest = await srv.app.db
      .selectFrom("user_messages")
      .select((eb) => eb.fn.max("message_id").as("id"))
      .where("user_id", "=", org.people.hamlet.id)
      .executeTakeFirstOrThrow();
    assert.equal(me.max_message_id, Number(newest.id));
    assert.equal(Object.keys(me.profile_data).length, 9);
  });

  test("users.retrieve() with query-string parameters", async () => {
    const all = await hamlet.users.retrieve();
    assert.equal(all.result, "success");
    assert.equal(all.members.length, 13);
    const some = await hamlet.users.retrieve({ client_gravatar: false, include_custom_profile_fields: true });
    const iago = some.members.find((m: { user_id: number }) => m.user_id === org.people.iago.id);
    assert.match(iago.avatar_url, /^https:\/\/secure\.gravatar\.com\/avatar\//);
    assert.equal(iago.delivery_email, null);
    assert.equal(Object.keys(iago.profile_data).length, 9);
  });

  test("callEndpoint reaches single users and user groups", async () => {
    const byId = await hamlet.callEndpoint(`/users/${org.people.cordelia.id}`);
    assert.equal(byId.user.full_name, "Cordelia, Lear's daughter");
    const byEmail = await hamlet.callEndpoint(`/users/${encodeURIComponent("default-bot@zulip.com")}`);
    assert.equal(byEmail.user.user_id, org.bots.default_bot.id);
    const groups = await hamlet.callEndpoint("/user_groups", "GET", { include_deactivated_groups: true });
    assert.ok(groups.user_groups.some((g: { name: string }) => g.name === "hamletcharacters"));
    const members = await hamlet.callEndpoint(`/user_groups/${org.hamletCharactersGroupId}/members`, "GET", { direct_member_only: true });
    assert.deepEqual(members.members, [org.people.cordelia.id, org.people.hamlet.id].sort((a, b) => a - b));
  });

  test("POST as multipart: users.create() and /user_groups/create", async () => {
    await setCanCreateUsers(srv.app, org.people.iago.id, true);
    const iago = await connect("iago@zulip.com");
    const created = await iago.users.create({ email: "newbie@zulip.com", password: "newbie-password", full_name: "New Bie" });
    assert.equal(created.result, "success", JSON.stringify(created));
    const newbie = await zulip({ username: "newbie@zulip.com", password: "newbie-password", realm: srv.url });
    assert.equal((await newbie.users.me.getProfile()).user_id, created.user_id);

    const group = await hamlet.callEndpoint("/user_groups/create", "POST", {
      name: "players",
      description: "The players",
      members: [org.people.hamlet.id, created.user_id],
    });
    assert.equal(group.result, "success", JSON.stringify(group));
    const listed = await hamlet.callEndpoint(`/user_groups/${group.group_id}/members`);
    assert.deepEqual(listed.members, [org.people.hamlet.id, created.user_id]);
  });

  test("errors come back as Zulip error objects", async () => {
    const r = await hamlet.callEndpoint("/users/99999");
    assert.deepEqual(r, { result: "error", msg: "No such user", code: "BAD_REQUEST" });
    const iago = await connect("iago@zulip.com");
    const dup = await iago.users.create({ email: "HAMLET@zulip.com", password: "whatever1", full_name: "Twin" });
    assert.equal(dup.msg, "Email 'HAMLET@zulip.com' already in use");
  });

  test("reads a zuliprc file", async () => {
    const file = path.join(srv.dataDir, "zuliprc");
    fs.writeFileSync(file, zuliprcText("othello@zulip.com", org.people.othello.api_key, srv.url));
    const othello = await zulip({ zuliprc: file });
    assert.equal((await othello.users.me.getProfile()).full_name, "Othello, the Moor of Venice");
  });
});

/**
 * zulip-js against subscription settings and muted users. zulip-js has `users.me.subscriptions`
 * add/remove but no method for settings or muting, so those go through its callEndpoint, which
 * posts multipart bodies (JSON-encoding arrays) and sends DELETE parameters in the query string.
 */
import { test, before, after, describe } from "node:test";
import assert from "node:assert/strict";
import zulip, { type ZulipClient } from "zulip-js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { DEV_PASSWORD, seedDevOrganization, type DevOrganization } from "../../src/dev/seed.js";
import { streamIdOf } from "../helpers/channels.js";

let srv: TestServer;
let org: DevOrganization;
let hamlet: ZulipClient;
let verona: number;

before(async () => {
  srv = await startTestServer({ development: true });
  org = await seedDevOrganization(srv.app);
  hamlet = await zulip({ username: "hamlet@zulip.com", password: DEV_PASSWORD, realm: srv.url });
  verona = await streamIdOf(srv.app, org.realm.id, "Verona");
});
after(() => srv.close());

const veronaSub = async () =>
  (await hamlet.streams.subscriptions.retrieve()).subscriptions.find((s: { stream_id: number }) => s.stream_id === verona);

describe("zulip-js", () => {
  test("changes subscription settings through callEndpoint and sees them in streams.subscriptions.retrieve()", async () => {
    const r = await hamlet.callEndpoint("/users/me/subscriptions/properties", "POST", {
      subscription_data: [
        { stream_id: verona, property: "color", value: "#f00f00" },
        { stream_id: verona, property: "in_home_view", value: false },
        { stream_id: verona, property: "pin_to_top", value: true },
      ],
    });
    assert.deepEqual(r, { result: "success", msg: "" });
    const sub = await veronaSub();
    assert.deepEqual([sub.color, sub.is_muted, sub.in_home_view, sub.pin_to_top], ["#f00f00", true, false, true]);
    const bad = await hamlet.callEndpoint("/users/me/subscriptions/properties", "POST", {
      subscription_data: [{ stream_id: verona, property: "colour", value: "#fff" }],
    });
    assert.deepEqual(bad, { result: "error", msg: "Unknown subscription property: colour", code: "BAD_REQUEST" });
  });

  test("users.me.subscriptions.add() takes a color; remove() unsubscribes", async () => {
    const added = await hamlet.users.me.subscriptions.add({ subscriptions: [{ name: "zulip-js colored", color: "#76ce90" }] });
    assert.equal(added.result, "success", JSON.stringify(added));
    const list = (await hamlet.streams.subscriptions.retrieve()).subscriptions;
    assert.equal(list.find((s: { name: string }) => s.name === "zulip-js colored").color, "#76ce90");
    const removed = await hamlet.users.me.subscriptions.remove({ subscriptions: JSON.stringify(["zulip-js colored"]) });
    assert.deepEqual(removed.removed, ["zulip-js colored"]);
  });

  test("mutes and unmutes a user through callEndpoint", async () => {
    const cordelia = org.people.cordelia.id;
    assert.deepEqual(await hamlet.callEndpoint(`/users/me/muted_users/${cordelia}`, "POST"), { result: "success", msg: "" });
    const again = await hamlet.callEndpoint(`/users/me/muted_users/${cordelia}`, "POST");
    assert.equal(again.msg, "User already muted");
    assert.deepEqual(await hamlet.callEndpoint(`/users/me/muted_users/${cordelia}`, "DELETE"), { result: "success", msg: "" });
    const status = await hamlet.callEndpoint(`/users/${cordelia}/subscriptions/${verona}`);
    assert.equal(typeof status.is_subscribed, "boolean");
  });
});

import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { checkSubscriptionChange, isHexColor, subscriptionUpdateEvents } from "../../src/domain/subscription_properties.js";
import { channelEmailAddress, channelEmailSlug, newEmailToken } from "../../src/domain/email_gateway.js";
import { ZulipError } from "../../src/http/errors.js";

function fails(fn: () => unknown, msg: string) {
  assert.throws(fn, (e: unknown) => e instanceof ZulipError && e.msg === msg && e.status === 400);
}

describe("subscription property changes", () => {
  test("colors are a # and three to six hex digits, kept as sent", () => {
    for (const c of ["#abc", "#ABCD", "#a1b2c", "#A1b2C3"]) assert.ok(isHexColor(c), c);
    for (const c of ["abc", "#ab", "#abcdefa", "#ggg", " #abc", "#abc\n"]) assert.ok(!isHexColor(c), c);
    assert.deepEqual(checkSubscriptionChange(0, "color", "#A1b2C3"), { property: "color", value: "#A1b2C3" });
    fails(() => checkSubscriptionChange(2, "color", true), "Invalid subscription_data[2]: Value error, color is not a valid hex color code");
  });

  test("in_home_view is stored as the inverse is_muted; other booleans as they are", () => {
    assert.deepEqual(checkSubscriptionChange(0, "in_home_view", true), { property: "is_muted", value: false });
    assert.deepEqual(checkSubscriptionChange(0, "is_muted", true), { property: "is_muted", value: true });
    assert.deepEqual(checkSubscriptionChange(0, "email_notifications", false), { property: "email_notifications", value: false });
  });

  test("unknown properties come before value checks; booleans must be booleans", () => {
    fails(() => checkSubscriptionChange(0, "name", true), "Unknown subscription property: name");
    fails(() => checkSubscriptionChange(0, "pin_to_top", "true"), "pin_to_top is not a boolean");
  });

  test("muting is announced under both names, the legacy one first", () => {
    assert.deepEqual(subscriptionUpdateEvents(7, { property: "is_muted", value: true }), [
      { type: "subscription", op: "update", property: "in_home_view", value: false, stream_id: 7 },
      { type: "subscription", op: "update", property: "is_muted", value: true, stream_id: 7 },
    ]);
    assert.deepEqual(subscriptionUpdateEvents(7, { property: "color", value: "#fff" }), [
      { type: "subscription", op: "update", property: "color", value: "#fff", stream_id: 7 },
    ]);
  });
});

describe("channel email addresses", () => {
  test("names become lowercase ASCII slugs with hyphens", () => {
    assert.equal(channelEmailSlug("Verona"), "verona");
    assert.equal(channelEmailSlug("core team"), "core-team");
    assert.equal(channelEmailSlug("a -- b__c"), "a-b__c");
    assert.equal(channelEmailSlug("Café"), "cafe");
  });

  test("names that lose letters or trimmed hyphens on the way become 'channel'", () => {
    assert.equal(channelEmailSlug("日本"), "channel");
    assert.equal(channelEmailSlug("hello!"), "channel");
    assert.equal(channelEmailSlug("!!!"), "channel");
    assert.equal(channelEmailSlug("_x"), "channel");
  });

  test("the address follows the gateway pattern, and is empty without one", () => {
    const token = newEmailToken();
    assert.match(token, /^[0-9a-f]{32}$/);
    assert.notEqual(newEmailToken(), token);
    assert.equal(channelEmailAddress("%s@zulip.example.com", "core team", token), `core-team.${token}.show-sender@zulip.example.com`);
    assert.equal(channelEmailAddress(undefined, "core team", token), "");
  });
});

/** Mattermost → Zulip conversion rules, as Zulip's Mattermost importer tests state them. */
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  channelMembers,
  directGroupKey,
  isImageFileName,
  maskContent,
  mattermostContent,
  mattermostFullName,
  mattermostRole,
  mentionedUsernames,
  type MattermostUser,
} from "../../src/importers/mattermost/convert.js";

const user = (username: string, teams: MattermostUser["teams"], names: Partial<MattermostUser> = {}): MattermostUser => ({ username, email: `${username}@zulip.com`, teams, ...names });

test("users: full name from first and last name, else the username; team roles", () => {
  assert.equal(mattermostFullName(user("harry", null, { first_name: "Harry", last_name: "Potter" })), "Harry Potter");
  assert.equal(mattermostFullName(user("harry", null, { first_name: "", last_name: "" })), "harry");
  const harry = user("harry", [{ name: "gryffindor", roles: "team_admin team_user" }]);
  assert.equal(mattermostRole(harry, "gryffindor"), 100);
  assert.equal(mattermostRole(harry, "slytherin"), 400);
  assert.equal(mattermostRole(user("harry", null), "gryffindor"), 400);
  assert.equal(mattermostRole(user("sirius", [{ name: "slytherin", roles: "team_guest" }]), "slytherin"), 600);
  assert.equal(mattermostRole(user("ron", [{ name: "gryffindor", roles: "team_user" }]), "gryffindor"), 400);
});

test("channel members: channel admins and users of the team, not guests' rows", () => {
  const members = channelMembers(
    [
      user("harry", [{ name: "gryffindor", roles: "team_admin", channels: [{ name: "common", roles: "channel_admin channel_user" }] }]),
      user("ron", [{ name: "gryffindor", roles: "team_user", channels: [{ name: "common", roles: "channel_user" }, { name: "army", roles: "channel_user" }] }]),
      user("sirius", [{ name: "gryffindor", roles: "team_guest", channels: [{ name: "common", roles: "channel_guest" }] }]),
      user("malfoy", [{ name: "slytherin", roles: "team_user", channels: [{ name: "common", roles: "channel_user" }] }]),
      user("nobody", null),
    ],
    "gryffindor",
  );
  assert.deepEqual(Object.fromEntries(members), { common: ["harry", "ron"], army: ["ron"] });
});

test("mentions: @username at the start, middle and before punctuation; not in addresses", () => {
  const known = new Set(["harry", "ron", "harry_", "harry.", "ha_rry."]);
  const found = (text: string) => mentionedUsernames(text).filter((u) => known.has(u));
  assert.deepEqual(found("@harry how are you?"), ["harry"]);
  assert.deepEqual(found("Hello @harry how are you?"), ["harry"]);
  assert.deepEqual(found("Hello @harry, how are you?"), ["harry"]);
  assert.deepEqual(found("@harry @ron hey"), ["harry", "ron"]);
  assert.deepEqual(found("Hello @harry.com"), []);
  assert.deepEqual(found("hello@harry.com"), []);
  assert.deepEqual(found("Hello @harry_ how are you"), ["harry_"]);
  assert.deepEqual(found("Hello @harry. how are you"), ["harry."]);
  assert.deepEqual(found("Hello @ha_rry. how are you"), ["ha_rry."]);
  assert.deepEqual(found("Hello @ron. how are you"), []);
  assert.deepEqual(found("Hello @ron_ how are you"), []);
  // Linear on hostile input.
  assert.equal(mentionedUsernames("@" + "a_".repeat(50_000) + "!").length, 1);
});

test("content: mentions by full name, channel-wide mentions as @**all**, a closing blank line", () => {
  assert.equal(mattermostContent("@harry hi @channel", [{ username: "harry", fullName: "Harry Potter" }]), "@**Harry Potter** hi @**all**\n\n");
  assert.equal(mattermostContent("@all and @here", []), "@**all** and @**all**\n\n");
  assert.equal(mattermostContent("harry joined the channel.", []), "harry joined the channel.\n\n");
});

test("DM groups are the same whatever the order of members; masking; image names", () => {
  assert.equal(directGroupKey(["ron", "harry", "ginny"]), directGroupKey(["harry", "ron", "ginny"]));
  assert.notEqual(directGroupKey(["ron", "harry"]), directGroupKey(["ron", "harry", "ginny"]));
  assert.equal(maskContent("harry joined the channel."), "xxxxx xxxxxx xxx xxxxxxx.");
  assert.equal(maskContent("Ron 2 Weasley!"), "Xxx 2 Xxxxxxx!");
  assert.equal(isImageFileName("harry-ron.jpg"), true);
  assert.equal(isImageFileName("HARRY.PNG"), true);
  assert.equal(isImageFileName("this is a file"), false);
});

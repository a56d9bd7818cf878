/** Pure rules of organization administration: group permissions, channel folders, custom profile fields. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { ZulipError } from "../../src/http/errors.js";
import {
  USER_GROUP_PERMISSION_SETTINGS,
  checkNamedGroupForSetting,
  hasGroupPermission,
  permissionConfigOf,
} from "../../src/domain/group_setting_value.js";
import { REALM_PERMISSION_SETTINGS } from "../../src/domain/permission_settings.js";
import { checkChannelFolderName, folderOrderMapping } from "../../src/domain/channel_folders.js";
import {
  FIELD_TYPE,
  checkFieldDefinition,
  checkProfileFieldValue,
  isDefaultExternalField,
  isEmptyProfileValue,
  isIsoDate,
  isUrl,
  type FieldDefinition,
  type UserFieldFacts,
} from "../../src/domain/custom_profile_fields.js";
import { Role } from "../../src/domain/roles.js";
import { shapeForQueue, type QueueProfile } from "../../src/events/shaping.js";

function throwsZulip(fn: () => unknown, msg: string, code = "BAD_REQUEST") {
  assert.throws(fn, (e: unknown) => e instanceof ZulipError && e.msg === msg && e.code === code, msg);
}

const system = (name: string) => ({ name, isSystemGroup: true, deactivated: false });

test("user group settings refuse the system groups the product rules out", () => {
  const mention = USER_GROUP_PERMISSION_SETTINGS.can_mention_group;
  const manage = USER_GROUP_PERMISSION_SETTINGS.can_manage_group;
  throwsZulip(() => checkNamedGroupForSetting("can_mention_group", system("role:owners"), mention), "'can_mention_group' setting cannot be set to 'role:owners' group.");
  throwsZulip(() => checkNamedGroupForSetting("can_mention_group", system("role:internet"), mention), "'can_mention_group' setting cannot be set to 'role:internet' group.");
  checkNamedGroupForSetting("can_mention_group", system("role:everyone"), mention);
  checkNamedGroupForSetting("can_mention_group", { name: "role:owners", isSystemGroup: false, deactivated: false }, mention);
  throwsZulip(() => checkNamedGroupForSetting("can_manage_group", system("role:everyone"), manage), "'can_manage_group' setting cannot be set to 'role:everyone' group.");
  throwsZulip(() => checkNamedGroupForSetting("can_manage_group", system("role:internet"), manage), "'can_manage_group' setting cannot be set to 'role:internet' group.");
  checkNamedGroupForSetting("can_manage_group", system("role:owners"), manage);
});

test("guests never hold a permission whose setting may not name role:everyone", () => {
  const groups = new Set([5]);
  const strict = { allowEveryoneGroup: false };
  const lenient = { allowEveryoneGroup: true };
  assert.equal(hasGroupPermission({ role: Role.GUEST }, groups, 5, strict), false);
  assert.equal(hasGroupPermission({ role: Role.GUEST }, groups, 5, lenient), true);
  assert.equal(hasGroupPermission({ role: Role.MEMBER }, groups, 5, strict), true);
  assert.equal(hasGroupPermission({ role: Role.OWNER }, groups, 6, lenient), false);
});

test("organization settings keep their register-reported rules", () => {
  const web = permissionConfigOf(REALM_PERMISSION_SETTINGS.can_create_web_public_channel_group);
  assert.equal(web.requireSystemGroup, true);
  assert.deepEqual(web.allowedSystemGroups, ["role:moderators", "role:administrators", "role:owners", "role:nobody"]);
  throwsZulip(
    () => checkNamedGroupForSetting("can_create_web_public_channel_group", system("role:members"), web),
    "'can_create_web_public_channel_group' setting cannot be set to 'role:members' group.",
  );
  const manageAll = permissionConfigOf(REALM_PERMISSION_SETTINGS.can_manage_all_groups);
  throwsZulip(() => checkNamedGroupForSetting("can_manage_all_groups", system("role:nobody"), manageAll), "'can_manage_all_groups' setting cannot be set to 'role:nobody' group.");
  assert.equal(permissionConfigOf(REALM_PERMISSION_SETTINGS.can_delete_own_message_group).allowEveryoneGroup, true);
});

test("channel folder names: not blank, printable, kept as given", () => {
  assert.equal(checkChannelFolderName(" Frontend "), " Frontend ");
  throwsZulip(() => checkChannelFolderName(" \t"), "Channel folder name can't be empty.");
  throwsZulip(() => checkChannelFolderName("ab\u0000c"), "Invalid character in channel folder name, at position 3.");
  throwsZulip(() => checkChannelFolderName("😀\uFFFF"), "Invalid character in channel folder name, at position 2.");
});

test("folder order: every folder listed, unknown ids ignored, a repeated id takes its last place", () => {
  assert.deepEqual([...folderOrderMapping([1, 2, 3], [3, 1, 2])], [[1, 1], [2, 2], [3, 0]]);
  assert.deepEqual([...folderOrderMapping([1, 2], [2, 99, 1])], [[1, 2], [2, 0]]);
  assert.deepEqual([...folderOrderMapping([1, 2], [1, 2, 1])], [[1, 2], [2, 1]]);
  assert.deepEqual([...folderOrderMapping([], [])], []);
  throwsZulip(() => folderOrderMapping([1, 2], [1]), "Invalid order mapping.");
});

const definition = (over: Partial<FieldDefinition>): FieldDefinition => ({
  name: "Field",
  hint: "",
  type: FIELD_TYPE.SHORT_TEXT,
  data: {},
  displayInProfileSummary: false,
  ...over,
});

test("field definitions", () => {
  checkFieldDefinition(definition({}));
  throwsZulip(() => checkFieldDefinition(definition({ name: " " })), "Label cannot be blank.");
  throwsZulip(() => checkFieldDefinition(definition({ name: "n".repeat(41) })), "name is too long (limit: 40 characters)");
  throwsZulip(() => checkFieldDefinition(definition({ hint: "h".repeat(81) })), "hint is too long (limit: 80 characters)");
  throwsZulip(() => checkFieldDefinition(definition({ type: 0 })), "Invalid field type.");
  throwsZulip(() => checkFieldDefinition(definition({ type: FIELD_TYPE.USER, displayInProfileSummary: true })), "Field type not supported for display in profile summary.");
  checkFieldDefinition(definition({ type: FIELD_TYPE.DATE, displayInProfileSummary: true }));
  const select = (data: Record<string, unknown>) => definition({ type: FIELD_TYPE.SELECT, data });
  checkFieldDefinition(select({ a: { text: "A", order: "1" } }));
  throwsZulip(() => checkFieldDefinition(select({})), "Field must have at least one choice.");
  throwsZulip(() => checkFieldDefinition(select({ a: "A" })), "field_data is not a dict");
  throwsZulip(() => checkFieldDefinition(select({ a: { order: "1" } })), "text key is missing from field_data");
  throwsZulip(() => checkFieldDefinition(select({ a: { text: 1, order: "1" } })), 'field_data["text"] is not a string');
  throwsZulip(() => checkFieldDefinition(select({ a: { text: " ", order: "1" } })), 'field_data["text"] cannot be blank.');
  throwsZulip(() => checkFieldDefinition(select({ a: { text: "A", order: "1", x: 1 } })), "Unexpected arguments: x");
  const account = (data: Record<string, unknown>, name = "Field") => definition({ type: FIELD_TYPE.EXTERNAL_ACCOUNT, data, name });
  checkFieldDefinition(account({ subtype: "twitter" }, ""));
  checkFieldDefinition(account({ subtype: "custom", url_pattern: "https://example.com/%(username)s" }));
  throwsZulip(() => checkFieldDefinition(account({})), "subtype key is missing from field_data");
  throwsZulip(() => checkFieldDefinition(account({ subtype: "custom", url_pattern: "https://example.com/%(username)s/%(username)s" })), "URL pattern must contain '%(username)s'.");
  throwsZulip(() => checkFieldDefinition(account({ subtype: "custom", url_pattern: "nope %(username)s" })), 'field_data["url_pattern"] is not a URL');
  throwsZulip(() => checkFieldDefinition(account({ subtype: "custom", url_pattern: "https://e.com/%(username)s", extra: 1 })), "Unexpected arguments: extra");
  assert.equal(isDefaultExternalField(FIELD_TYPE.EXTERNAL_ACCOUNT, { subtype: "github" }), true);
  assert.equal(isDefaultExternalField(FIELD_TYPE.EXTERNAL_ACCOUNT, { subtype: "custom" }), false);
  assert.equal(isDefaultExternalField(FIELD_TYPE.SHORT_TEXT, { subtype: "github" }), false);
});

test("profile values by field type", () => {
  const users = new Map<number, UserFieldFacts>([
    [1, { isActive: true, isBot: false }],
    [2, { isActive: false, isBot: false }],
    [3, { isActive: true, isBot: true }],
  ]);
  const field = (type: number, fieldData = "") => ({ name: "F", type, fieldData });
  const check = (type: number, value: unknown, data = "") => checkProfileFieldValue(field(type, data), value, users);
  assert.equal(check(FIELD_TYPE.SHORT_TEXT, "x".repeat(50)), "x".repeat(50));
  throwsZulip(() => check(FIELD_TYPE.SHORT_TEXT, "x".repeat(51)), "F is too long (limit: 50 characters)");
  throwsZulip(() => check(FIELD_TYPE.PRONOUNS, 5), "F is not a string");
  assert.equal(check(FIELD_TYPE.LONG_TEXT, "y".repeat(500)).length, 500);
  throwsZulip(() => check(FIELD_TYPE.LONG_TEXT, "y".repeat(501)), "F is too long (limit: 500 characters)");
  assert.equal(check(FIELD_TYPE.DATE, "2024-02-29"), "2024-02-29");
  throwsZulip(() => check(FIELD_TYPE.DATE, "2023-02-29"), "F is not a date");
  throwsZulip(() => check(FIELD_TYPE.DATE, ["2024-01-01"]), "F is not a string");
  assert.equal(check(FIELD_TYPE.URL, "https://zulip.com"), "https://zulip.com");
  throwsZulip(() => check(FIELD_TYPE.URL, "zulip.com"), "F is not a URL");
  assert.equal(check(FIELD_TYPE.SELECT, "a", '{"a":{"text":"A","order":"1"}}'), "a");
  throwsZulip(() => check(FIELD_TYPE.SELECT, "A", '{"a":{"text":"A","order":"1"}}'), "'A' is not a valid choice for 'F'.");
  assert.equal(check(FIELD_TYPE.USER, [1]), "[1]");
  throwsZulip(() => check(FIELD_TYPE.USER, "1"), "User IDs is not a list");
  throwsZulip(() => check(FIELD_TYPE.USER, [1, "2"]), "User IDs[1] is not an integer");
  throwsZulip(() => check(FIELD_TYPE.USER, [9]), "Invalid user ID: 9");
  throwsZulip(() => check(FIELD_TYPE.USER, [2]), "User with ID 2 is deactivated");
  throwsZulip(() => check(FIELD_TYPE.USER, [3]), "User with ID 3 is a bot");
  assert.equal(check(FIELD_TYPE.EXTERNAL_ACCOUNT, "octocat"), "octocat");
});

test("dates, URLs and empty values", () => {
  for (const d of ["2000-01-01", "0001-01-01", "9999-12-31"]) assert.equal(isIsoDate(d), true, d);
  for (const d of ["2000-1-01", "2000-13-01", "2000-00-10", "0000-01-01", "20000-01-01", "2000-01-01T00:00"]) assert.equal(isIsoDate(d), false, d);
  for (const u of ["http://localhost:9991/x", "https://a.b.co/path?q=1#f", "ftp://files.example.org", "http://192.168.0.1"]) assert.equal(isUrl(u), true, u);
  for (const u of ["mailto:a@b.c", "http://", "https://exa mple.com", "example.com"]) assert.equal(isUrl(u), false, u);
  assert.deepEqual([null, "", [], "x", [1], 0].map(isEmptyProfileValue), [true, true, true, false, false, false]);
});

test("user_group events: each queue gets the form its client declared it handles", () => {
  const queue = (keeps: boolean): QueueProfile => ({
    queueId: "q",
    eventTypes: null,
    narrow: [],
    applyMarkdown: false,
    clientGravatar: false,
    slimPresence: false,
    capabilities: { include_deactivated_groups: keeps },
  });
  const shape = (event: Record<string, unknown>, keeps: boolean) => shapeForQueue(event, { id: 1 }, queue(keeps), new Map());
  const removed = { type: "user_group", op: "remove", group_id: 4 };
  const deactivated = { type: "user_group", op: "update", group_id: 4, data: { deactivated: true } };
  const renamedDead = { type: "user_group", op: "update", group_id: 4, data: { name: "x" }, deactivated: true };
  const renamedLive = { type: "user_group", op: "update", group_id: 4, data: { name: "x" }, deactivated: false };
  const revived = { type: "user_group", op: "add", group: { id: 4 }, for_reactivation: true };
  const created = { type: "user_group", op: "add", group: { id: 5 } };
  assert.deepEqual(shape(removed, true), []);
  assert.deepEqual(shape(removed, false), [{ ...removed, id: 1 }]);
  assert.deepEqual(shape(deactivated, true), [{ ...deactivated, id: 1 }]);
  assert.deepEqual(shape(deactivated, false), []);
  assert.deepEqual(shape(renamedDead, true), [{ type: "user_group", op: "update", group_id: 4, data: { name: "x" }, id: 1 }]);
  assert.deepEqual(shape(renamedDead, false), []);
  assert.deepEqual(shape(renamedLive, false), [{ type: "user_group", op: "update", group_id: 4, data: { name: "x" }, id: 1 }]);
  assert.deepEqual(shape(revived, true), []);
  assert.deepEqual(shape(revived, false), [{ type: "user_group", op: "add", group: { id: 4 }, id: 1 }]);
  assert.deepEqual(shape(created, true), [{ ...created, id: 1 }]);
});

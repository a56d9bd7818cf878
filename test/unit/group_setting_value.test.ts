import { test } from "node:test";
import assert from "node:assert/strict";
import { z } from "zod";
import { ZulipError } from "../../src/http/errors.js";
import {
  USER_GROUP_PERMISSION_SETTINGS,
  USER_GROUP_SETTINGS,
  checkAnonymousValueForSetting,
  checkNamedGroupForSetting,
  firstMissing,
  groupSettingChangeNeeded,
  groupSettingChangeSchema,
  groupSettingValueSchema,
  normalizeGroupSettingValue,
  permissionConfig,
  sameGroupSettingValue,
} from "../../src/domain/group_setting_value.js";

const NOBODY = 1;
const anon = (direct_members: number[], direct_subgroups: number[]) => ({ direct_members, direct_subgroups });

function throwsZulip(fn: () => unknown, msg: string, code = "BAD_REQUEST") {
  assert.throws(fn, (e: unknown) => e instanceof ZulipError && e.msg === msg && e.code === code && e.status === 400);
}

test("normalization: ids stay, a lone subgroup becomes its id, an empty value becomes role:nobody", () => {
  assert.equal(normalizeGroupSettingValue(7, NOBODY), 7);
  assert.equal(normalizeGroupSettingValue(anon([], [9]), NOBODY), 9);
  assert.equal(normalizeGroupSettingValue(anon([], []), NOBODY), NOBODY);
  assert.deepEqual(normalizeGroupSettingValue(anon([3], []), NOBODY), anon([3], []));
  assert.deepEqual(normalizeGroupSettingValue(anon([3], [9]), NOBODY), anon([3], [9]));
  assert.deepEqual(normalizeGroupSettingValue(anon([], [9, 10]), NOBODY), anon([], [9, 10]));
});

test("equality compares ids by value and anonymous groups as sets, never across forms", () => {
  assert.equal(sameGroupSettingValue(3, 3), true);
  assert.equal(sameGroupSettingValue(3, 4), false);
  assert.equal(sameGroupSettingValue(anon([1, 2], [5]), anon([2, 1, 1], [5])), true);
  assert.equal(sameGroupSettingValue(anon([1, 2], [5]), anon([1], [5])), false);
  assert.equal(sameGroupSettingValue(anon([1], [5]), anon([1], [5, 6])), false);
  assert.equal(sameGroupSettingValue(anon([], [5]), 5), false);
  assert.equal(sameGroupSettingValue(5, anon([], [5])), false);
});

test("a change is needed unless new equals current; a wrong old is refused", () => {
  assert.equal(groupSettingChangeNeeded(3, 4, undefined), true);
  assert.equal(groupSettingChangeNeeded(3, 3, undefined), false);
  assert.equal(groupSettingChangeNeeded(anon([1, 2], []), anon([2, 1], []), undefined), false);
  assert.equal(groupSettingChangeNeeded(3, 4, 3), true);
  assert.equal(groupSettingChangeNeeded(anon([1], [2]), 4, anon([1], [2])), true);
  throwsZulip(() => groupSettingChangeNeeded(3, 4, 5), "'old' value does not match the expected value.", "EXPECTATION_MISMATCH");
  throwsZulip(() => groupSettingChangeNeeded(3, 3, anon([], [3])), "'old' value does not match the expected value.", "EXPECTATION_MISMATCH");
});

test("value schemas accept ids and {direct_members, direct_subgroups}, ignoring unknown keys", () => {
  const valueSchema = groupSettingValueSchema(z);
  const changeSchema = groupSettingChangeSchema(z);
  assert.equal(valueSchema.parse(5), 5);
  assert.deepEqual(valueSchema.parse({ direct_members: [1], direct_subgroups: [], extra: true }), anon([1], []));
  for (const bad of [1.5, "5", null, [], {}, { direct_members: [1] }, { direct_members: ["1"], direct_subgroups: [] }]) {
    assert.equal(valueSchema.safeParse(bad).success, false, JSON.stringify(bad));
  }
  assert.deepEqual(changeSchema.parse({ new: 3 }), { new: 3 });
  assert.deepEqual(changeSchema.parse({ new: anon([], []), old: 4 }), { new: anon([], []), old: 4 });
  assert.equal(changeSchema.safeParse({ old: 4 }).success, false);
});

const group = (name: string, extra: Partial<{ isSystemGroup: boolean; deactivated: boolean }> = {}) => ({
  name,
  isSystemGroup: name.startsWith("role:"),
  deactivated: false,
  ...extra,
});

test("named groups are checked against each setting's rules, deactivation first", () => {
  const strict = permissionConfig({});
  const lenient = permissionConfig({ allowEveryoneGroup: true, allowInternetGroup: true });
  throwsZulip(() => checkNamedGroupForSetting("s", group("role:internet"), strict), "'s' setting cannot be set to 'role:internet' group.");
  throwsZulip(() => checkNamedGroupForSetting("s", group("role:everyone"), strict), "'s' setting cannot be set to 'role:everyone' group.");
  checkNamedGroupForSetting("s", group("role:internet"), lenient);
  checkNamedGroupForSetting("s", group("role:everyone"), lenient);
  checkNamedGroupForSetting("s", group("role:nobody"), strict);
  throwsZulip(() => checkNamedGroupForSetting("s", group("role:nobody"), permissionConfig({ allowNobodyGroup: false })), "'s' setting cannot be set to 'role:nobody' group.");
  throwsZulip(() => checkNamedGroupForSetting("s", group("role:internet", { deactivated: true }), strict), "User group is deactivated.");
  throwsZulip(() => checkNamedGroupForSetting("s", group("team", { deactivated: true }), lenient), "User group is deactivated.");
  checkNamedGroupForSetting("s", group("team"), strict);
});

test("settings that require a system group, or only some, refuse the rest", () => {
  const system = permissionConfig({ requireSystemGroup: true });
  throwsZulip(() => checkNamedGroupForSetting("x_group", group("team"), system), "'x_group' must be a system user group.", "SYSTEM_GROUP_REQUIRED");
  throwsZulip(() => checkAnonymousValueForSetting("x_group", system), "'x_group' must be a system user group.", "SYSTEM_GROUP_REQUIRED");
  checkNamedGroupForSetting("x_group", group("role:members"), system);
  checkAnonymousValueForSetting("x_group", permissionConfig({}));
  const some = permissionConfig({ requireSystemGroup: true, allowedSystemGroups: ["role:administrators", "role:owners"] });
  checkNamedGroupForSetting("y", group("role:owners"), some);
  throwsZulip(() => checkNamedGroupForSetting("y", group("role:members"), some), "'y' setting cannot be set to 'role:members' group.");
});

test("user group settings follow Zulip's GROUP_PERMISSION_SETTINGS", () => {
  assert.deepEqual(Object.keys(USER_GROUP_PERMISSION_SETTINGS), [...USER_GROUP_SETTINGS]);
  const everyoneAllowed = USER_GROUP_SETTINGS.filter((s) => USER_GROUP_PERMISSION_SETTINGS[s].allowEveryoneGroup);
  assert.deepEqual(everyoneAllowed, ["can_leave_group", "can_mention_group"]);
  for (const s of USER_GROUP_SETTINGS) {
    const spec = USER_GROUP_PERMISSION_SETTINGS[s];
    assert.equal(spec.allowInternetGroup, false);
    assert.equal(spec.allowNobodyGroup, true);
    assert.equal(spec.requireSystemGroup, false);
    assert.equal(spec.defaultForSystemGroups, "role:nobody");
  }
  assert.deepEqual(
    USER_GROUP_SETTINGS.map((s) => USER_GROUP_PERMISSION_SETTINGS[s].defaultValue),
    ["group_creator", "role:nobody", "role:everyone", "group_creator", "role:everyone", "role:nobody"],
  );
});

test("firstMissing reports the first unknown id in request order", () => {
  assert.equal(firstMissing([4, 9, 2, 8], [2, 4]), 9);
  assert.equal(firstMissing([4, 4], [4]), undefined);
  assert.equal(firstMissing([], []), undefined);
});

import { test } from "node:test";
import assert from "node:assert/strict";
import { REALM_PERMISSION_SETTINGS, legacyPolicy } from "../../src/domain/permission_settings.js";
import { REALM_GROUP_SETTING_DEFAULTS } from "../../src/domain/realm_settings.js";

test("every organization permission setting has a configuration with the same default group", () => {
  assert.deepEqual(Object.keys(REALM_PERMISSION_SETTINGS).sort(), Object.keys(REALM_GROUP_SETTING_DEFAULTS).sort());
  for (const [name, group] of Object.entries(REALM_GROUP_SETTING_DEFAULTS)) {
    assert.equal(REALM_PERMISSION_SETTINGS[name].default_group_name, group, name);
  }
});

test("channel-creation policies: members 1, admins 2, full members 3, moderators 4; anything else admins", () => {
  const cases: [string | undefined, number][] = [
    ["role:members", 1],
    ["role:administrators", 2],
    ["role:fullmembers", 3],
    ["role:moderators", 4],
    ["role:owners", 2],
    ["role:everyone", 2],
    ["role:nobody", 2],
    [undefined, 2],
  ];
  for (const [group, policy] of cases) assert.equal(legacyPolicy("common", group), policy, String(group));
});

test("web-public channel policy: admins 2, moderators 4, nobody 6, owners 7", () => {
  const cases: [string | undefined, number][] = [
    ["role:administrators", 2],
    ["role:moderators", 4],
    ["role:nobody", 6],
    ["role:owners", 7],
    ["role:members", 2],
    [undefined, 2],
  ];
  for (const [group, policy] of cases) assert.equal(legacyPolicy("web_public", group), policy, String(group));
});

test("wildcard mention policy has its own numbering", () => {
  const cases: [string | undefined, number][] = [
    ["role:everyone", 1],
    ["role:members", 2],
    ["role:fullmembers", 3],
    ["role:administrators", 5],
    ["role:nobody", 6],
    ["role:moderators", 7],
    ["role:owners", 1],
    [undefined, 5],
  ];
  for (const [group, policy] of cases) assert.equal(legacyPolicy("wildcard", group), policy, String(group));
});

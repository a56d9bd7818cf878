/** The web client's user groups follow `user_group` events. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { applyUserGroupEvent } from "../../../web/src/state/user_groups.js";

const groups = [
  { id: 1, name: "admins", members: [5], direct_subgroup_ids: [] },
  { id: 2, name: "staff", members: [7], direct_subgroup_ids: [1] },
];

test("members and subgroups come and go, without duplicates; other groups are left as they were", () => {
  const added = applyUserGroupEvent(groups, { op: "add_members", group_id: 1, user_ids: [9, 5] });
  assert.deepEqual(added[0].members, [5, 9]);
  assert.equal(added[1], groups[1]);
  assert.deepEqual(applyUserGroupEvent(added, { op: "remove_members", group_id: 1, user_ids: [5] })[0].members, [9]);
  assert.deepEqual(applyUserGroupEvent(groups, { op: "add_subgroups", group_id: 1, direct_subgroup_ids: [2] })[0].direct_subgroup_ids, [2]);
  assert.deepEqual(applyUserGroupEvent(groups, { op: "remove_subgroups", group_id: 2, direct_subgroup_ids: [1] })[1].direct_subgroup_ids, []);
  assert.deepEqual(groups[0].members, [5], "the list given is not changed");
});

test("a new group is added, an updated one takes the changed fields, a removed one goes", () => {
  const g3 = { id: 3, name: "new", members: [], direct_subgroup_ids: [] };
  assert.deepEqual(applyUserGroupEvent(groups, { op: "add", group: g3 }).map((g) => g.id), [1, 2, 3]);
  assert.equal(applyUserGroupEvent(groups, { op: "update", group_id: 2, data: { name: "crew" } })[1].name, "crew");
  assert.deepEqual(applyUserGroupEvent(groups, { op: "remove", group_id: 1 }).map((g) => g.id), [2]);
  assert.equal(applyUserGroupEvent(groups, { op: "unknown", group_id: 1 })[0], groups[0]);
});

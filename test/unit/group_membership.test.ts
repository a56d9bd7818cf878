import { test } from "node:test";
import assert from "node:assert/strict";
import { groupsContaining, subgroupClosure, wouldCreateCycle } from "../../src/domain/group_membership.js";

// 1 ⊃ 2 ⊃ 3, 1 ⊃ 4, 5 alone
const edges = [
  { group_id: 1, subgroup_id: 2 },
  { group_id: 2, subgroup_id: 3 },
  { group_id: 1, subgroup_id: 4 },
];

test("a member of a nested group belongs to every group above it", () => {
  assert.deepEqual([...groupsContaining([3], edges)].sort(), [1, 2, 3]);
  assert.deepEqual([...groupsContaining([4], edges)].sort(), [1, 4]);
  assert.deepEqual([...groupsContaining([5], edges)], [5]);
  assert.deepEqual([...groupsContaining([], edges)], []);
});

test("subgroup closure includes the group and every nested group", () => {
  assert.deepEqual([...subgroupClosure(1, edges)].sort(), [1, 2, 3, 4]);
  assert.deepEqual([...subgroupClosure(3, edges)], [3]);
});

test("cycles are detected, including self-nesting", () => {
  assert.equal(wouldCreateCycle(3, 1, edges), true);
  assert.equal(wouldCreateCycle(2, 2, edges), true);
  assert.equal(wouldCreateCycle(1, 5, edges), false);
  assert.equal(wouldCreateCycle(4, 2, edges), false);
});

test("terminates on cyclic data", () => {
  const cyclic = [
    { group_id: 1, subgroup_id: 2 },
    { group_id: 2, subgroup_id: 1 },
  ];
  assert.deepEqual([...groupsContaining([1], cyclic)].sort(), [1, 2]);
});

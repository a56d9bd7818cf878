/**
 * Resolving membership through nested subgroups. A user belongs to a group when they are a
 * direct member of it or of any group nested inside it, at any depth.
 */
export interface SubgroupEdge {
  group_id: number;
  subgroup_id: number;
}

/** Every group that contains one of `directGroupIds`, directly or through nesting. */
export function groupsContaining(directGroupIds: Iterable<number>, edges: readonly SubgroupEdge[]): Set<number> {
  const parents = new Map<number, number[]>();
  for (const e of edges) {
    const list = parents.get(e.subgroup_id);
    if (list) list.push(e.group_id);
    else parents.set(e.subgroup_id, [e.group_id]);
  }
  const result = new Set<number>();
  const stack = [...directGroupIds];
  while (stack.length) {
    const g = stack.pop()!;
    if (result.has(g)) continue;
    result.add(g);
    for (const p of parents.get(g) ?? []) stack.push(p);
  }
  return result;
}

/** Every group nested inside `groupId` (including itself), at any depth. */
export function subgroupClosure(groupId: number, edges: readonly SubgroupEdge[]): Set<number> {
  const children = new Map<number, number[]>();
  for (const e of edges) {
    const list = children.get(e.group_id);
    if (list) list.push(e.subgroup_id);
    else children.set(e.group_id, [e.subgroup_id]);
  }
  const result = new Set<number>();
  const stack = [groupId];
  while (stack.length) {
    const g = stack.pop()!;
    if (result.has(g)) continue;
    result.add(g);
    for (const c of children.get(g) ?? []) stack.push(c);
  }
  return result;
}

/** Whether adding `subgroupId` inside `groupId` would make a group contain itself. */
export function wouldCreateCycle(groupId: number, subgroupId: number, edges: readonly SubgroupEdge[]): boolean {
  return subgroupClosure(subgroupId, edges).has(groupId);
}

/**
 * The organization's user groups kept current from `user_group` events, as register listed them
 * (`realm_user_groups`), so what the reader may do follows membership and setting changes live.
 * Pure: each event gives a new list.
 */
export interface GroupRecord {
  id: number;
  members: number[];
  direct_subgroup_ids: number[];
  [key: string]: unknown;
}

const without = (list: number[], ids: number[]) => list.filter((id) => !ids.includes(id));
const withAdded = (list: number[], ids: number[]) => [...list, ...ids.filter((id) => !list.includes(id))];

export function applyUserGroupEvent<G extends GroupRecord>(groups: G[], e: Record<string, any>): G[] {
  if (e.op === "add") return [...groups.filter((g) => g.id !== e.group.id), e.group as G];
  if (e.op === "remove") return groups.filter((g) => g.id !== e.group_id);
  return groups.map((g) => {
    if (g.id !== e.group_id) return g;
    switch (e.op) {
      case "update":
        return { ...g, ...e.data };
      case "add_members":
        return { ...g, members: withAdded(g.members, e.user_ids ?? []) };
      case "remove_members":
        return { ...g, members: without(g.members, e.user_ids ?? []) };
      case "add_subgroups":
        return { ...g, direct_subgroup_ids: withAdded(g.direct_subgroup_ids, e.direct_subgroup_ids ?? []) };
      case "remove_subgroups":
        return { ...g, direct_subgroup_ids: without(g.direct_subgroup_ids, e.direct_subgroup_ids ?? []) };
      default:
        return g;
    }
  });
}

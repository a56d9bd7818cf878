import { Role } from "./roles.js";

/** The system groups every organization has, from most to least privileged after nobody. */
export const SYSTEM_GROUPS = [
  { name: "role:nobody", description: "Nobody" },
  { name: "role:owners", description: "Owners of this organization" },
  { name: "role:administrators", description: "Administrators of this organization, including owners" },
  { name: "role:moderators", description: "Moderators of this organization, including administrators" },
  { name: "role:fullmembers", description: "Members of this organization, not including new accounts and guests" },
  { name: "role:members", description: "Members of this organization, not including guests" },
  { name: "role:everyone", description: "Everyone in this organization, including guests" },
  { name: "role:internet", description: "Everyone on the Internet" },
] as const;
export type SystemGroupName = (typeof SYSTEM_GROUPS)[number]["name"];

/** Each system group (but nobody) is a direct subgroup of the next, less privileged one. */
export const SYSTEM_GROUP_NESTING: readonly [child: SystemGroupName, parent: SystemGroupName][] = [
  ["role:owners", "role:administrators"],
  ["role:administrators", "role:moderators"],
  ["role:moderators", "role:fullmembers"],
  ["role:fullmembers", "role:members"],
  ["role:members", "role:everyone"],
  ["role:everyone", "role:internet"],
];

/** The system group a user of this role is a direct member of. */
export function systemGroupForRole(role: number): SystemGroupName {
  switch (role) {
    case Role.OWNER:
      return "role:owners";
    case Role.ADMINISTRATOR:
      return "role:administrators";
    case Role.MODERATOR:
      return "role:moderators";
    case Role.GUEST:
      return "role:everyone";
    default:
      return "role:members";
  }
}

/**
 * Members who are not moderators belong directly to role:fullmembers once their account is
 * older than the organization's waiting period; role:members contains them either way.
 */
export function isFullMember(role: number, dateJoined: number, waitingPeriodDays: number, now: number): boolean {
  if (role === Role.GUEST) return false;
  if (role !== Role.MEMBER) return true;
  return now - dateJoined >= waitingPeriodDays * 86400;
}

export const RESERVED_GROUP_NAME_PREFIXES = ["@", "role:", "user:", "stream:", "channel:"];

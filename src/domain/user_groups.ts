import { badRequest } from "../http/errors.js";
import { LIMITS } from "./limits.js";
import { RESERVED_GROUP_NAME_PREFIXES } from "./system_groups.js";

/** Zulip's check_user_group_name; the name is kept as given, surrounding spaces included. */
export function checkUserGroupName(name: string): string {
  if (name.trim() === "") throw badRequest("User group name can't be empty!");
  if ([...name].length > LIMITS.maxUserGroupNameLength) {
    throw badRequest(`User group name cannot exceed ${LIMITS.maxUserGroupNameLength} characters.`);
  }
  const prefix = RESERVED_GROUP_NAME_PREFIXES.find((p) => name.startsWith(p));
  if (prefix !== undefined) throw badRequest(`User group name cannot start with '${prefix}'.`);
  return name;
}

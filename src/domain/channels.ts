/** Channel naming and privacy rules. */
import { badRequest } from "../http/errors.js";
import { LIMITS } from "./limits.js";
import { firstNonPrintablePosition } from "./text.js";

/** Refuses a channel name Zulip would refuse (the name is already stripped). */
export function checkChannelName(name: string): void {
  if (name.trim() === "") throw badRequest("Channel name can't be empty.");
  if ([...name].length > LIMITS.maxStreamNameLength) {
    throw badRequest(`Channel name too long (limit: ${LIMITS.maxStreamNameLength} characters).`);
  }
  const bad = firstNonPrintablePosition(name);
  if (bad !== null) throw badRequest(`Invalid character in channel name, at position ${bad}.`);
}

/** Public channels always share history; private ones keep it protected unless asked. */
export function historyPublicToSubscribersFor(inviteOnly: boolean, requested: boolean | undefined): boolean {
  return inviteOnly ? (requested ?? false) : true;
}

export type PermissionPolicy = "web_public" | "public" | "private_shared_history" | "private_protected_history";

export function permissionPolicy(c: { inviteOnly: boolean; isWebPublic: boolean; historyPublicToSubscribers: boolean }): PermissionPolicy {
  if (c.isWebPublic) return "web_public";
  if (!c.inviteOnly) return "public";
  return c.historyPublicToSubscribers ? "private_shared_history" : "private_protected_history";
}

/** The deprecated `stream_post_policy` implied by a system group holding can_send_message_group. */
export function streamPostPolicy(sendGroupName: string | null): number {
  switch (sendGroupName) {
    case "role:administrators":
      return 2;
    case "role:fullmembers":
      return 3;
    case "role:moderators":
      return 4;
    default:
      return 1;
  }
}

export interface ChannelPrivacy {
  inviteOnly: boolean;
  isWebPublic: boolean;
  historyPublicToSubscribers: boolean;
}

export interface PrivacyRequest {
  isPrivate?: boolean;
  isWebPublic?: boolean;
  historyPublicToSubscribers?: boolean;
  isDefault?: boolean;
}

/**
 * The privacy a channel update asks for, with what is not given kept (history follows
 * `is_private` when only that is given), refused when it is not one of Zulip's four policies or
 * would make a default channel private.
 */
export function proposeChannelPrivacy(current: ChannelPrivacy & { isDefault: boolean }, req: PrivacyRequest): ChannelPrivacy {
  const inviteOnly = req.isPrivate ?? current.inviteOnly;
  const isWebPublic = req.isWebPublic ?? current.isWebPublic;
  const isDefault = req.isDefault ?? current.isDefault;
  const historyPublicToSubscribers =
    req.historyPublicToSubscribers ?? (req.isPrivate !== undefined ? !req.isPrivate : current.historyPublicToSubscribers);
  if (isWebPublic && (!historyPublicToSubscribers || inviteOnly)) throw badRequest("Invalid parameters");
  if (!inviteOnly && !historyPublicToSubscribers) throw badRequest("Invalid parameters");
  if (inviteOnly && isDefault) throw badRequest("A default channel cannot be private.");
  return { inviteOnly, isWebPublic, historyPublicToSubscribers };
}

const POLICY_NAMES: Record<PermissionPolicy, string> = {
  web_public: "Web-public",
  public: "Public",
  private_shared_history: "Private, shared history",
  private_protected_history: "Private, protected history",
};

/** How channel notices name a privacy policy. */
export const permissionPolicyName = (p: ChannelPrivacy) => POLICY_NAMES[permissionPolicy(p)];

/**
 * Invitation rules as pure functions: reading the invitee list, which roles a user may invite
 * as, which addresses an organization accepts, limits, expiry and the welcome text to use.
 */
import { createRequire } from "node:module";
import { Role, isAdmin, isOwner } from "./roles.js";
import { isValidEmail } from "./users.js";

/** Zulip's INVITATION_LINK_VALIDITY_DAYS (10) in minutes: the default lifetime of an invitation. */
export const DEFAULT_INVITE_EXPIRES_IN_MINUTES = 14400;
/** Realm.MAX_REALM_WELCOME_MESSAGE_CUSTOM_TEXT_LENGTH. */
export const MAX_WELCOME_MESSAGE_CUSTOM_TEXT_LENGTH = 8000;
/** Zulip's INVITES_MIN_USER_AGE_DAYS: in organizations anyone may join, newer accounts may not invite. */
export const INVITES_MIN_USER_AGE_DAYS = 3;
/** How long a sign-up link emailed to someone who used a reusable invitation link stays valid. */
export const REGISTRATION_LINK_VALIDITY_SECONDS = 24 * 3600;

export const INVITE_STATUS = { ACTIVE: 0, USED: 1, REVOKED: 2 } as const;

/** Addresses of the system bots, which nobody may be invited as. */
export const SYSTEM_BOT_EMAILS = ["notification-bot@zulip.com", "welcome-bot@zulip.com", "emailgateway@zulip.com"] as const;

/**
 * The addresses in `invitee_emails`: split on commas and newlines, `Name <address>` reduced to
 * the address, surrounding space stripped, duplicates dropped. An empty piece stays in (as ""),
 * so that a stray separator is reported as an invalid address, as Zulip reports it.
 */
export function parseInviteeEmails(raw: string): string[] {
  const out = new Set<string>();
  for (const piece of raw.split(/[,\n]/)) {
    const named = /<(.*)>/.exec(piece);
    out.add((named ? named[1] : piece).trim());
  }
  return [...out];
}

export type InviteRoleRefusal = "owner_required" | "admin_required" | null;

/** Owners are invited only by owners; administrators and moderators only by administrators. */
export function inviteRoleRefusal(inviteAs: number, callerRole: number): InviteRoleRefusal {
  if (inviteAs === Role.OWNER && !isOwner(callerRole)) return "owner_required";
  const needsAdmin = inviteAs === Role.OWNER || inviteAs === Role.ADMINISTRATOR || inviteAs === Role.MODERATOR;
  if (needsAdmin && !isAdmin(callerRole)) return "admin_required";
  return null;
}

/** Someone else's invitation may be managed by administrators, and an owner's invitation only by owners. */
export function manageInviteRefusal(invitedAs: number, callerRole: number): InviteRoleRefusal {
  if (invitedAs === Role.OWNER && !isOwner(callerRole)) return "owner_required";
  return isAdmin(callerRole) ? null : "admin_required";
}

export interface RealmEmailPolicy {
  emailsRestrictedToDomains: boolean;
  disallowDisposableEmailAddresses: boolean;
  /** Allowed domains when restricted; `allowSubdomains` also admits any subdomain of the domain. */
  domains: readonly { domain: string; allowSubdomains: boolean }[];
}

let disposable: Set<string> | undefined;
/** The disposable-address domain list Zulip uses, loaded on first need. */
function isDisposableDomain(domain: string): boolean {
  disposable ??= new Set(createRequire(import.meta.url)("disposable-email-domains") as string[]);
  return disposable.has(domain.toLowerCase());
}

function domainAllowed(domain: string, policy: RealmEmailPolicy): boolean {
  const d = domain.toLowerCase();
  if (policy.domains.some((r) => r.domain === d)) return true;
  const parents = d.split(".").map((_, i, parts) => parts.slice(i + 1).join("."));
  return policy.domains.some((r) => r.allowSubdomains && parents.includes(r.domain));
}

/** Why an address cannot be invited to this organization, as Zulip words it; null if it can. */
export function emailAddressProblem(email: string, policy: RealmEmailPolicy): string | null {
  if (!isValidEmail(email)) return "Invalid address.";
  const at = email.lastIndexOf("@");
  const domain = email.slice(at + 1);
  if (!policy.emailsRestrictedToDomains) {
    return policy.disallowDisposableEmailAddresses && isDisposableDomain(domain) ? "Please use your real email address." : null;
  }
  if (email.slice(0, at).includes("+")) return "Email addresses containing + are not allowed.";
  return domainAllowed(domain, policy) ? null : "Outside your domain.";
}

export interface ExistingAccount {
  isActive: boolean;
}

/** Why an address already taken cannot be invited: [message, whether the account is deactivated]. */
export function existingAccountProblem(email: string, existing: ExistingAccount | undefined): [string, boolean] | null {
  if ((SYSTEM_BOT_EMAILS as readonly string[]).includes(email.toLowerCase())) return ["Reserved for system bots.", false];
  if (!existing) return null;
  return existing.isActive ? ["Already has an account.", false] : ["Account has been deactivated.", true];
}

/** Zulip's daily check: the invitations asked for plus those sent in the last day may not exceed the limit. */
export function exceedsDailyLimit(requested: number, sentInLastDay: number, limit: number): boolean {
  return requested + sentInLastDay > limit;
}

/** Whether an account created at `dateJoined` is too new to invite people to an open organization. */
export function accountTooNewToInvite(opts: { inviteRequired: boolean; role: number; dateJoined: number; now: number }): boolean {
  if (opts.inviteRequired || isAdmin(opts.role)) return false;
  return opts.dateJoined > opts.now - INVITES_MIN_USER_AGE_DAYS * 86400;
}

export function expiryDate(now: number, expiresInMinutes: number | null): number | null {
  return expiresInMinutes === null ? null : Math.floor(now + expiresInMinutes * 60);
}

export type InviteState = "active" | "expired" | "used" | "revoked";

export function inviteState(invite: { status: number; expiry_date: number | null }, now: number): InviteState {
  if (invite.status === INVITE_STATUS.REVOKED) return "revoked";
  if (invite.status === INVITE_STATUS.USED) return "used";
  return invite.expiry_date !== null && invite.expiry_date < now ? "expired" : "active";
}

/**
 * The custom text Welcome Bot sends a new user: the invitation's own text, or the organization's
 * default when the invitation has none; empty means no custom message.
 */
export function welcomeTextFor(inviteText: string | null, realmDefault: string): string | null {
  const text = inviteText ?? realmDefault;
  return text === "" ? null : text;
}

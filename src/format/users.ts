import type { UserRow } from "../store/users.js";
import type { ProfileData } from "../store/custom_profile_fields.js";
import { Role, isAdmin, isGuest, isOwner } from "../domain/roles.js";
import { EMAIL_ADDRESS_VISIBILITY } from "../domain/realm_settings.js";
import { settingValue } from "../domain/user_settings.js";
import { avatarUrl, gravatarHash, isGravatar } from "../media/avatars.js";

export function userProps(user: UserRow): Record<string, unknown> {
  return JSON.parse(user.props);
}

/** One of the user's personal settings, Zulip's default where they have not set it. */
export function userSetting(user: UserRow, name: string): unknown {
  return settingValue(userProps(user), name);
}

/**
 * What every user list shows of a user whatever the viewer: remembered per row object (cached
 * rows are shared), so a large organization's list does not parse each user's settings JSON or
 * format each join date again.
 */
interface RowFacts {
  emailVisibility: number;
  dateJoined: string;
}
const rowFacts = new WeakMap<UserRow, RowFacts>();

function factsOf(user: UserRow): RowFacts {
  let facts = rowFacts.get(user);
  if (facts === undefined) {
    facts = { emailVisibility: Number(userSetting(user, "email_address_visibility")), dateJoined: isoMinutes(Number(user.date_joined)) };
    rowFacts.set(user, facts);
  }
  return facts;
}

export function emailVisibility(user: UserRow): number {
  return factsOf(user).emailVisibility;
}

/** Which email_address_visibility values let a user of `role` see the address (Nobody: none). */
export function visibilityAllowsRole(visibility: number, role: number): boolean {
  switch (visibility) {
    case EMAIL_ADDRESS_VISIBILITY.EVERYONE:
      return true;
    case EMAIL_ADDRESS_VISIBILITY.MEMBERS:
      return !isGuest(role);
    case EMAIL_ADDRESS_VISIBILITY.MODERATORS:
      return role <= Role.MODERATOR;
    case EMAIL_ADDRESS_VISIBILITY.ADMINS:
      return isAdmin(role);
    default:
      return false;
  }
}

/** Whether `viewer` may see `user`'s real email address, by the user's visibility setting. */
export function canSeeDeliveryEmail(viewer: UserRow, user: UserRow): boolean {
  return viewer.id === user.id || visibilityAllowsRole(emailVisibility(user), viewer.role);
}

/** A Gravatar URL of the address at the first version, as a user who never had an upload has. */
export function gravatarUrl(email: string): string {
  return `https://secure.gravatar.com/avatar/${gravatarHash(email)}?d=identicon&version=1`;
}

/** Whether a client_gravatar client computes the user's avatar URL itself, as Zulip decides. */
export function clientComputesAvatar(user: UserRow): boolean {
  return isGravatar(user) && emailVisibility(user) === EMAIL_ADDRESS_VISIBILITY.EVERYONE;
}

/** Python's isoformat(timespec="minutes") of a UTC time, as Zulip shows date_joined. */
export function isoMinutes(unixSeconds: number): string {
  return new Date(unixSeconds * 1000).toISOString().slice(0, 16) + "+00:00";
}

export interface FormatUserOptions {
  /**
   * The client computes gravatars itself: avatar_url is null for users with a Gravatar whose
   * address everyone may see (the only ones whose gravatar a client can compute).
   */
  clientGravatar?: boolean;
  /** Custom profile field values; shown for humans only. */
  profileData?: ProfileData;
}

/** A user as Zulip's API shows it to `viewer`. */
export function formatUser(user: UserRow, viewer: UserRow, opts: FormatUserOptions = {}): Record<string, unknown> {
  const out: Record<string, unknown> = {
    email: user.email,
    user_id: user.id,
    avatar_version: user.avatar_version,
    is_admin: isAdmin(user.role),
    is_owner: isOwner(user.role),
    is_guest: isGuest(user.role),
    role: user.role,
    is_bot: user.is_bot === 1,
    full_name: user.full_name,
    timezone: user.timezone,
    is_active: user.is_active === 1,
    date_joined: factsOf(user).dateJoined,
    delivery_email: canSeeDeliveryEmail(viewer, user) ? user.delivery_email : null,
    avatar_url: opts.clientGravatar && clientComputesAvatar(user) ? null : avatarUrl(user),
  };
  if (user.is_bot === 1) {
    out.bot_type = user.bot_type;
    if (user.is_system_bot === 1) out.is_system_bot = true;
    out.bot_owner_id = user.bot_owner_id;
  } else if (opts.profileData) {
    out.profile_data = opts.profileData;
  }
  return out;
}

/** Zulip's INACCESSIBLE_USER_NAME and its placeholder avatar. */
const INACCESSIBLE_USER_NAME = "Unknown user";
const INACCESSIBLE_USER_AVATAR = "/static/images/unknown-user-avatar.png";

/** What a guest who may not see a user is told about them (get_data_for_inaccessible_user). */
export function formatInaccessibleUser(userId: number, fakeEmailDomain: string): Record<string, unknown> {
  return {
    email: `user${userId}@${fakeEmailDomain}`,
    user_id: userId,
    avatar_version: 1,
    is_admin: false,
    is_owner: false,
    is_guest: false,
    role: Role.MEMBER,
    is_bot: false,
    full_name: INACCESSIBLE_USER_NAME,
    timezone: "",
    is_active: true,
    date_joined: "1970-01-01T00:00:00+00:00",
    delivery_email: null,
    avatar_url: INACCESSIBLE_USER_AVATAR,
    profile_data: {},
  };
}

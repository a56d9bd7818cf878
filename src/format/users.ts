import { createHash } from "node:crypto";
import type { UserRow } from "../store/users.js";
import { isAdmin, isGuest, isModeratorOrAbove, isOwner } from "../domain/roles.js";
import { EMAIL_ADDRESS_VISIBILITY } from "../domain/realm_settings.js";

export function userProps(user: UserRow): Record<string, unknown> {
  return JSON.parse(user.props);
}

/** Whether `viewer` may see `user`'s real email address, by the user's visibility setting. */
export function canSeeDeliveryEmail(viewer: UserRow, user: UserRow): boolean {
  if (viewer.id === user.id) return true;
  const visibility = Number(userProps(user).email_address_visibility ?? EMAIL_ADDRESS_VISIBILITY.EVERYONE);
  switch (visibility) {
    case EMAIL_ADDRESS_VISIBILITY.EVERYONE:
      return true;
    case EMAIL_ADDRESS_VISIBILITY.MEMBERS:
      return !isGuest(viewer.role);
    case EMAIL_ADDRESS_VISIBILITY.MODERATORS:
      return isModeratorOrAbove(viewer.role);
    case EMAIL_ADDRESS_VISIBILITY.ADMINS:
      return isAdmin(viewer.role);
    default:
      return false;
  }
}

export function gravatarUrl(email: string): string {
  const hash = createHash("md5").update(email.trim().toLowerCase()).digest("hex");
  return `https://secure.gravatar.com/avatar/${hash}?d=identicon&version=1`;
}

export interface FormatUserOptions {
  /** With client_gravatar, avatar_url is null for gravatar users whose email the viewer can see. */
  clientGravatar?: boolean;
  profileData?: Record<string, { value: string; rendered_value?: string | null }>;
}

/** A user as Zulip's API shows it to `viewer`. */
export function formatUser(user: UserRow, viewer: UserRow, opts: FormatUserOptions = {}): Record<string, unknown> {
  const seesEmail = canSeeDeliveryEmail(viewer, user);
  const out: Record<string, unknown> = {
    user_id: user.id,
    delivery_email: seesEmail ? user.delivery_email : null,
    email: user.email,
    full_name: user.full_name,
    date_joined: new Date(Number(user.date_joined) * 1000).toISOString(),
    is_active: user.is_active === 1,
    is_owner: isOwner(user.role),
    is_admin: isAdmin(user.role),
    is_guest: isGuest(user.role),
    is_bot: user.is_bot === 1,
    role: user.role,
    timezone: user.timezone,
    avatar_url: opts.clientGravatar && seesEmail ? null : gravatarUrl(user.delivery_email),
    avatar_version: 1,
  };
  if (user.is_bot === 1) {
    out.bot_type = user.bot_type;
    out.bot_owner_id = user.bot_owner_id;
    if (user.is_system_bot === 1) out.is_system_bot = true;
  }
  if (opts.profileData) out.profile_data = opts.profileData;
  return out;
}

/**
 * Guards that run before a route's parameters are read, as Zulip's view decorators do.
 */
import type { AuthedContext } from "./endpoint.js";
import { adminRequired, badRequest, guestNotAllowed } from "./errors.js";
import { isAdmin, isGuest } from "../domain/roles.js";

/** Zulip's require_non_guest_user. */
export function requireNonGuest({ caller }: AuthedContext): void {
  if (isGuest(caller.user.role)) throw guestNotAllowed();
}

/** Zulip's require_member_or_admin: neither guests nor bots. */
export function requireMemberOrAdmin(ctx: AuthedContext): void {
  requireNonGuest(ctx);
  const { caller } = ctx;
  if (caller.user.bot_type !== null) throw badRequest("This endpoint does not accept bot requests.");
}

/** Zulip's require_realm_admin. */
export function requireRealmAdmin({ caller }: AuthedContext): void {
  if (!isAdmin(caller.user.role)) throw adminRequired();
}

/** Zulip's human_users_only: bots are refused, guests are not. */
export function requireHuman({ caller }: AuthedContext): void {
  if (caller.user.bot_type !== null) throw badRequest("This endpoint does not accept bot requests.");
}

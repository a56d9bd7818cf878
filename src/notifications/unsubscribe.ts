/**
 * One-click unsubscribe links (Zulip's /accounts/unsubscribe/{type}/{token}): each kind of email
 * names the personal setting its link turns off. The token is the user's id signed with the
 * server's key, so a link works for as long as the account exists and cannot be made for another.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import type { AppContext } from "../context.js";

/** Zulip's email types and the setting each turns off. */
export const UNSUBSCRIBE_SETTINGS = {
  missed_messages: "enable_offline_email_notifications",
  digest: "enable_digest_emails",
  login: "enable_login_emails",
  marketing: "enable_marketing_emails",
} as const;
export type UnsubscribeType = keyof typeof UNSUBSCRIBE_SETTINGS;

export const isUnsubscribeType = (type: string): type is UnsubscribeType => Object.hasOwn(UNSUBSCRIBE_SETTINGS, type);

const signature = (app: AppContext, type: UnsubscribeType, userId: number) =>
  createHmac("sha256", app.uploadTokenKey).update(`confab unsubscribe\0${type}\0${userId}`).digest("hex").slice(0, 32);

export function unsubscribeUrl(app: AppContext, type: UnsubscribeType, userId: number): string {
  return `${baseUrl(app)}/accounts/unsubscribe/${type}/${userId}-${signature(app, type, userId)}`;
}

/** The user a token was made for, or null if it was not made by this server for this type. */
export function unsubscribeTokenUser(app: AppContext, type: UnsubscribeType, token: string): number | null {
  const match = /^([1-9][0-9]{0,15})-([0-9a-f]{32})$/.exec(token);
  if (!match) return null;
  const userId = Number(match[1]);
  const expected = Buffer.from(signature(app, type, userId));
  return timingSafeEqual(expected, Buffer.from(match[2])) ? userId : null;
}

/** The server's URL without a trailing slash, which every link in an email starts with. */
export const baseUrl = (app: AppContext) => app.config.externalUrl.replace(/\/+$/, "");

/**
 * Personal settings (PATCH /settings) and the organization's defaults for new users
 * (PATCH /realm/user_settings_defaults), with the events Zulip sends for each change.
 */
import { timingSafeEqual } from "node:crypto";
import { countAttempt } from "../http/rate_limit.js";
import type { AppContext } from "../context.js";
import type { Caller } from "../http/auth.js";
import type { Realm } from "../store/realms.js";
import { getRealm, updateRealmRow } from "../store/realms.js";
import { activeRealmUserIds, activeRealmUsers, getRealmUser, setUserProp, updateUser, type UserRow } from "../store/users.js";
import { userIdsWhoCanAccess } from "../store/user_access.js";
import { runAction, type PendingEvents, type Tx } from "./run.js";
import type { Notice } from "../events/bus.js";
import { badRequest, ZulipError } from "../http/errors.js";
import { generateConfirmationKey, hashPassword, verifyPassword } from "../security/credentials.js";
import { canSeeDeliveryEmail, userProps } from "../format/users.js";
import { isAdmin } from "../domain/roles.js";
import { EMAIL_ADDRESS_VISIBILITY } from "../domain/realm_settings.js";
import {
  LANGUAGES,
  REALM_DEFAULT_SETTING_NAMES,
  USER_SETTINGS,
  isKnownTimezone,
  settingRefusal,
  settingValues,
} from "../domain/user_settings.js";
import { changeEmailInTx, changeFullNameInTx, checkNewEmail, sendUserUpdate } from "./user_admin.js";
import { setPresenceEnabledInTx } from "./presence.js";
import { queueOutboxJob } from "../outbound/outbox.js";

/** Zulip's PASSWORD_MIN_LENGTH. */
const PASSWORD_MIN_LENGTH = 6;
/** How long an email-change confirmation link works (Zulip's confirmation links: a day). */
const EMAIL_CHANGE_VALIDITY_SECS = 24 * 3600;

export interface SettingsChange {
  fullName?: string;
  email?: string;
  oldPassword?: string;
  newPassword?: string;
  timezone?: string;
  settings: Record<string, unknown>;
}

function checkSettings(settings: Record<string, unknown>): void {
  for (const [name, value] of Object.entries(settings)) {
    const refusal = settingRefusal(name, value);
    if (refusal) throw badRequest(refusal);
  }
}

/** The modern event, and the legacy one of the setting's family for older clients. */
const userSettingEvents = (realmId: number, user: UserRow, name: string, value: unknown): Notice[] => {
  const extra = name === "default_language" ? { language_name: LANGUAGES[String(value)] } : {};
  const notices: Notice[] = [{ realmId, userIds: [user.id], event: { type: "user_settings", op: "update", property: name, value, ...extra } }];
  const legacy = name === "timezone" ? "display" : USER_SETTINGS[name]?.legacy;
  if (legacy === "display") {
    notices.push({ realmId, userIds: [user.id], event: { type: "update_display_settings", user: user.email, setting_name: name, setting: value, ...extra } });
  } else if (legacy === "notification") {
    notices.push({ realmId, userIds: [user.id], event: { type: "update_global_notifications", user: user.email, notification_name: name, setting: value } });
  }
  return notices;
};

/** Who may see the address changes with its visibility: those who gain it learn it, those who lose it get null. */
async function announceEmailVisibility(tx: Tx, events: PendingEvents, realm: Realm, before: UserRow, after: UserRow): Promise<void> {
  for (const viewer of await activeRealmUsers(tx, realm.id)) {
    const could = canSeeDeliveryEmail(viewer, before);
    const can = canSeeDeliveryEmail(viewer, after);
    if (could !== can) await sendUserUpdate(tx, events, realm, after, { delivery_email: can ? after.delivery_email : null }, [viewer.id]);
  }
}

async function changeSettingInTx(app: AppContext, tx: Tx, events: PendingEvents, realm: Realm, user: UserRow, name: string, value: unknown) {
  if (name === "presence_enabled") return setPresenceEnabledInTx(app, tx, events, realm, user, value === true);
  await setUserProp(tx, user.id, name, value);
  for (const notice of userSettingEvents(realm.id, user, name, value)) events.send(notice);
  if (name === "allow_private_data_export") {
    const admins = (await activeRealmUsers(tx, realm.id)).filter((u) => isAdmin(u.role) && u.is_bot === 0).map((u) => u.id);
    events.send({ realmId: realm.id, userIds: admins, event: { type: "realm_export_consent", user_id: user.id, consented: value === true } });
  }
  if (name === "email_address_visibility") {
    const after = (await getRealmUser(tx, realm.id, user.id))!;
    // The API address is the real one only while everyone may see it.
    const apiEmail = value === EMAIL_ADDRESS_VISIBILITY.EVERYONE ? user.delivery_email : `user${user.id}@${app.config.fakeEmailDomain}`;
    if (apiEmail !== user.email) {
      await updateUser(tx, user.id, { email: apiEmail });
      await sendUserUpdate(tx, events, realm, user, { new_email: apiEmail }, await activeRealmUserIds(tx, realm.id));
    }
    await announceEmailVisibility(tx, events, realm, user, { ...after, email: apiEmail });
  }
}

/** PATCH /settings. Everything is checked before anything changes; one transaction. */
export async function doUpdateSettings(app: AppContext, caller: Caller, change: SettingsChange): Promise<Record<string, unknown>> {
  const { realm } = caller;
  checkSettings(change.settings);
  if (change.timezone !== undefined && !isKnownTimezone(change.timezone)) throw badRequest("Invalid timezone: Not a recognized time zone");
  if (change.newPassword !== undefined) {
    if (!(await verifyPassword(change.oldPassword ?? "", caller.user.password_hash))) throw badRequest("Wrong password!");
    if ([...change.newPassword].length < PASSWORD_MIN_LENGTH) throw badRequest("New password is too weak!");
  }
  const newEmail = change.email?.trim();
  const emailChange = newEmail !== undefined && newEmail !== caller.user.delivery_email ? newEmail : undefined;
  if (emailChange !== undefined) {
    if (realm.props.email_changes_disabled && !isAdmin(caller.user.role)) throw badRequest("Email address changes are disabled in this organization.");
    await checkNewEmail(app.db, realm.id, emailChange);
    await countAttempt(app, "email_change_by_user", caller.user.id);
  }
  await runAction(app, async (tx, events) => {
    let user = (await getRealmUser(tx, realm.id, caller.user.id))!;
    if (change.newPassword !== undefined) await updateUser(tx, user.id, { password_hash: await hashPassword(change.newPassword) });
    // Zulip ignores a name change the organization forbids, without an error.
    const mayRename = !realm.props.name_changes_disabled || isAdmin(user.role);
    if (change.fullName !== undefined && change.fullName !== user.full_name && mayRename) {
      await changeFullNameInTx(tx, events, realm, user, change.fullName);
    }
    const current = settingValues(userProps(user));
    current.presence_enabled = user.presence_enabled === 1;
    for (const [name, value] of Object.entries(change.settings)) {
      if (current[name] === value) continue;
      await changeSettingInTx(app, tx, events, realm, user, name, value);
      // Only the address visibility changes a column later events name (the API email).
      if (name === "email_address_visibility") user = (await getRealmUser(tx, realm.id, user.id))!;
    }
    if (change.timezone !== undefined && change.timezone !== user.timezone) {
      await updateUser(tx, user.id, { timezone: change.timezone });
      for (const notice of userSettingEvents(realm.id, user, "timezone", change.timezone)) events.send(notice);
      await sendUserUpdate(tx, events, realm, user, { timezone: change.timezone }, await userIdsWhoCanAccess(tx, realm, user));
    }
    if (emailChange !== undefined) await queueEmailChangeConfirmation(app, tx, events, caller, emailChange);
  });
  return {};
}

interface PendingEmailChange {
  email: string;
  key: string;
  expires: number;
}

/** Remembers the requested address under a fresh key and queues the email with the link that confirms it. */
async function queueEmailChangeConfirmation(app: AppContext, tx: Tx, events: PendingEvents, caller: Caller, email: string): Promise<void> {
  const pending: PendingEmailChange = { email, key: generateConfirmationKey(), expires: Math.floor(app.clock.now()) + EMAIL_CHANGE_VALIDITY_SECS };
  await setUserProp(tx, caller.user.id, "pending_email_change", pending);
  const link = `${app.config.externalUrl}/accounts/confirm_new_email/${caller.user.id}-${pending.key}/`;
  await queueOutboxJob(app, tx, events, "email", {
    to: email,
    subject: `Verify your new email address for ${caller.realm.name}`,
    text: `${caller.user.full_name} asked to use this address for their account in ${caller.realm.name}.\n\nTo confirm, open:\n${link}\n\nThe link works for one day.\n`,
  });
}

export class EmailChangeRefused extends Error {}

/** Follows a confirmation link: the address changes, as an owner's change of it would. */
export async function confirmEmailChange(app: AppContext, link: string): Promise<{ email: string; realm: Realm }> {
  const match = /^(\d{1,10})-([A-Za-z0-9]{1,64})$/.exec(link);
  if (!match) throw new EmailChangeRefused("This confirmation link is not valid.");
  return runAction(app, async (tx, events) => {
    const user = await tx.selectFrom("users").selectAll().where("id", "=", Number(match[1])).executeTakeFirst();
    const pending = user && (userProps(user).pending_email_change as PendingEmailChange | undefined);
    const given = Buffer.from(match[2]);
    if (!user || !pending || given.length !== pending.key.length || !timingSafeEqual(given, Buffer.from(pending.key))) {
      throw new EmailChangeRefused("This confirmation link is not valid.");
    }
    if (app.clock.now() > pending.expires) throw new EmailChangeRefused("This confirmation link has expired.");
    const realm = await getRealm(tx, user.realm_id);
    if (!realm || user.is_active !== 1) throw new EmailChangeRefused("This account is no longer active.");
    try {
      await changeEmailInTx(tx, events, realm, user, pending.email);
    } catch (err) {
      // The address may have been taken since the link was sent.
      if (err instanceof ZulipError) throw new EmailChangeRefused(err.msg);
      throw err;
    }
    await setUserProp(tx, user.id, "pending_email_change", undefined);
    return { email: pending.email, realm };
  });
}

/** The organization's defaults for new users, as register shows them. */
export function realmUserSettingsDefaults(realm: Realm): Record<string, unknown> {
  const stored = storedRealmDefaults(realm);
  return settingValues(
    { ...stored, email_address_visibility: realm.props.email_address_visibility },
    [...REALM_DEFAULT_SETTING_NAMES, "allow_private_data_export", "default_language"],
  );
}

/** Only what administrators changed is stored; new users start from it. */
export function storedRealmDefaults(realm: Realm): Record<string, unknown> {
  return ((realm.props as Record<string, unknown>).user_settings_defaults as Record<string, unknown> | undefined) ?? {};
}

/** PATCH /realm/user_settings_defaults. */
export async function doUpdateRealmUserDefaults(app: AppContext, caller: Caller, settings: Record<string, unknown>): Promise<void> {
  checkSettings(settings);
  await runAction(app, async (tx, events) => {
    const realm = (await getRealm(tx, caller.realm.id))!;
    const current = realmUserSettingsDefaults(realm);
    const stored = { ...storedRealmDefaults(realm) };
    const props: Record<string, unknown> = { ...realm.props };
    const changed = Object.entries(settings).filter(([name, value]) => current[name] !== value);
    if (!changed.length) return;
    for (const [name, value] of changed) {
      // The default address visibility has been an organization setting all along; it stays there.
      if (name === "email_address_visibility") props.email_address_visibility = value;
      else stored[name] = value;
    }
    await updateRealmRow(tx, realm.id, { props: JSON.stringify({ ...props, user_settings_defaults: stored }) });
    const everyone = await activeRealmUserIds(tx, realm.id);
    for (const [name, value] of changed) {
      events.send({ realmId: realm.id, userIds: everyone, event: { type: "realm_user_settings_defaults", op: "update", property: name, value } });
    }
  });
}

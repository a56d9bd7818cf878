/**
 * Administering other users: PATCH /users/{id} (name, role, profile data, email), deactivating
 * and reactivating accounts. Each request is one transaction; every change is announced only
 * to the users allowed to see it.
 */
import type { AppContext } from "../context.js";
import type { Caller } from "../http/auth.js";
import type { Realm } from "../store/realms.js";
import type { Executor } from "../store/schema.js";
import { runAction, type PendingEvents, type Tx } from "./run.js";
import { adminRequired, badRequest, ownerRequired, ZulipError } from "../http/errors.js";
import {
  activeHumanOwnerIds,
  activeRealmUserIds,
  activeRealmUsers,
  directMessagePeerIds,
  getRealmUser,
  getUserByDeliveryEmail,
  updateUser,
  type UserRow,
} from "../store/users.js";
import { addGroupMembers, groupsOfUser, systemGroupIds } from "../store/groups.js";
import { directMemberships, listNamedGroups, removeGroupMembers } from "../store/user_groups.js";
import { userIdsWhoCanAccess } from "../store/user_access.js";
import { activeSubscriptionsOf, subscribersByStream, type StreamRow } from "../store/streams.js";
import { Role, isAdmin, isGuest, isOwner } from "../domain/roles.js";
import { isFullMember, systemGroupForRole } from "../domain/system_groups.js";
import { isValidEmail, nameKey, validateFullName } from "../domain/users.js";
import { hasGroupPermission, permissionConfigOf, USER_GROUP_SETTINGS } from "../domain/group_setting_value.js";
import { REALM_PERMISSION_SETTINGS } from "../domain/permission_settings.js";
import { EMAIL_ADDRESS_VISIBILITY } from "../domain/realm_settings.js";
import { canSeeDeliveryEmail, emailVisibility, userSetting } from "../format/users.js";
import { avatarUrl, isGravatar } from "../media/avatars.js";
import { groupSettingValueForApi } from "../format/group_setting.js";
import { allChannelAudiences, announceChannelAudienceChanges } from "./channel_visibility.js";
import { sendPeerEvents } from "./subscriptions.js";
import { updateProfileDataInTx, type ProfileDataEntry } from "./custom_profile_fields.js";
import { canChangeUserEmails } from "./users.js";
import { checkBotReactivation, sendBotOwnerUpdateEvents, sendBotUpdate } from "./bots.js";

const noSuchUser = () => badRequest("No such user");
const insufficientPermission = () => badRequest("Insufficient permission");

/** Zulip's can_admin_user: administrators, and a bot's owner for that bot. */
export const canAdminUser = (actor: UserRow, target: UserRow) => target.bot_owner_id === actor.id || isAdmin(actor.role);

/** Zulip's access_user_by_id with for_admin: the target, if the caller may administer it. */
export async function accessUserForAdmin(
  tx: Tx,
  caller: Caller,
  userId: number,
  opts: { allowDeactivated: boolean; allowBots: boolean },
): Promise<UserRow> {
  const target = await getRealmUser(tx, caller.realm.id, userId);
  if (!target) throw noSuchUser();
  if (target.is_bot === 1 && !opts.allowBots) throw noSuchUser();
  if (target.is_active !== 1 && !opts.allowDeactivated) throw badRequest("User is deactivated");
  if (!canAdminUser(caller.user, target)) throw insufficientPermission();
  return target;
}

/** Whether taking the owner role from `target` (or deactivating them) would leave no human owner. */
async function isOnlyHumanOwner(tx: Tx, target: UserRow): Promise<boolean> {
  return isOwner(target.role) && target.is_bot === 0 && (await activeHumanOwnerIds(tx, target.realm_id)).length === 1;
}

const everyone = (tx: Tx, realm: Realm) => activeRealmUserIds(tx, realm.id);

export async function sendUserUpdate(tx: Tx, events: PendingEvents, realm: Realm, target: UserRow, person: Record<string, unknown>, to?: number[]) {
  events.send({
    realmId: realm.id,
    event: { type: "realm_user", op: "update", person: { user_id: target.id, ...person } },
    userIds: to ?? (await userIdsWhoCanAccess(tx, realm, target)),
  });
}

async function sendMembersEvent(tx: Tx, events: PendingEvents, realm: Realm, op: "add_members" | "remove_members", groupId: number, userId: number, to?: number[]) {
  events.send({
    realmId: realm.id,
    event: { type: "user_group", op, group_id: groupId, user_ids: [userId] },
    userIds: to ?? (await everyone(tx, realm)),
  });
}

/** Moves a user between role system groups and keeps role:fullmembers right, as do_change_user_role does. */
export async function changeRoleInTx(tx: Tx, app: AppContext, events: PendingEvents, realm: Realm, target: UserRow, role: number) {
  const audiences = await allChannelAudiences(tx, realm);
  const system = await systemGroupIds(tx, realm.id);
  await updateUser(tx, target.id, { role });
  await sendUserUpdate(tx, events, realm, target, { role });
  const oldGroup = system.get(systemGroupForRole(target.role))!;
  const newGroup = system.get(systemGroupForRole(role))!;
  await removeGroupMembers(tx, oldGroup, [target.id]);
  await addGroupMembers(tx, newGroup, [target.id]);
  await sendMembersEvent(tx, events, realm, "remove_members", oldGroup, target.id);
  await sendMembersEvent(tx, events, realm, "add_members", newGroup, target.id);
  if (target.role === Role.MEMBER || role === Role.MEMBER) {
    const fullMembers = system.get("role:fullmembers")!;
    const isDirect = (await directMemberships(tx, [fullMembers])).get(fullMembers)!.members.includes(target.id);
    const belongs =
      role === Role.MEMBER && isFullMember(role, Number(target.date_joined), realm.props.waiting_period_threshold, app.clock.now());
    if (isDirect && !belongs) {
      await removeGroupMembers(tx, fullMembers, [target.id]);
      await sendMembersEvent(tx, events, realm, "remove_members", fullMembers, target.id);
    } else if (!isDirect && belongs) {
      await addGroupMembers(tx, fullMembers, [target.id]);
      await sendMembersEvent(tx, events, realm, "add_members", fullMembers, target.id);
    }
  }
  await announceChannelAudienceChanges(tx, app, events, realm, audiences);
}

export async function changeFullNameInTx(tx: Tx, events: PendingEvents, realm: Realm, target: UserRow, raw: string) {
  const fullName = validateFullName(raw);
  if (realm.props.require_unique_names) {
    const others = await tx.selectFrom("users").select("full_name").where("realm_id", "=", realm.id).where("id", "!=", target.id).execute();
    if (others.some((u) => nameKey(u.full_name) === nameKey(fullName))) throw badRequest("Unique names required in this organization.");
  }
  await updateUser(tx, target.id, { full_name: fullName });
  await sendUserUpdate(tx, events, realm, target, { full_name: fullName });
  if (target.is_bot === 1) await sendBotUpdate(tx, events, realm, target, { full_name: fullName });
}

/** Whether an address may become someone's in this organization. */
export async function checkNewEmail(db: Executor, realmId: number, email: string): Promise<void> {
  if (!isValidEmail(email)) throw badRequest("Invalid address.");
  const existing = await getUserByDeliveryEmail(db, realmId, email);
  if (existing) throw badRequest(existing.is_active === 1 ? "Already has an account." : "Account has been deactivated.");
}

export async function changeEmailInTx(tx: Tx, events: PendingEvents, realm: Realm, target: UserRow, email: string) {
  await checkNewEmail(tx, realm.id, email);
  const isPublic = emailVisibility(target) === EMAIL_ADDRESS_VISIBILITY.EVERYONE;
  await updateUser(tx, target.id, isPublic ? { delivery_email: email, email } : { delivery_email: email });
  const updated = { ...target, delivery_email: email };
  const viewers = (await activeRealmUsers(tx, realm.id)).filter((v) => canSeeDeliveryEmail(v, updated)).map((v) => v.id);
  await sendUserUpdate(tx, events, realm, target, { delivery_email: email }, viewers);
  // A Gravatar follows the address, so clients must fetch the new picture; an uploaded one stays.
  if (isGravatar(target)) {
    const moved = { ...target, delivery_email: email };
    await sendUserUpdate(tx, events, realm, target, {
      avatar_source: moved.avatar_source,
      avatar_url: avatarUrl(moved),
      avatar_url_medium: avatarUrl(moved, true),
      avatar_version: moved.avatar_version,
    });
  }
  if (isPublic) await sendUserUpdate(tx, events, realm, target, { new_email: email }, await everyone(tx, realm));
}

export interface UpdateUserRequest {
  fullName?: string;
  role?: number;
  profileData?: ProfileDataEntry[];
  newEmail?: string;
}

/** PATCH /users/{id}: role, then name, then profile data, then the address. */
export async function doUpdateUser(app: AppContext, caller: Caller, userId: number, req: UpdateUserRequest): Promise<void> {
  const { realm, user: actor } = caller;
  await runAction(app, async (tx, events) => {
    const target = await accessUserForAdmin(tx, caller, userId, { allowDeactivated: true, allowBots: true });
    if (req.newEmail !== undefined && !(isOwner(actor.role) && canChangeUserEmails(actor))) {
      throw badRequest("User not authorized to change user emails");
    }
    if (req.role !== undefined && req.role !== target.role) {
      if ((isOwner(req.role) || isOwner(target.role)) && !isOwner(actor.role)) throw ownerRequired();
      if (!isAdmin(actor.role)) throw adminRequired();
      if (await isOnlyHumanOwner(tx, target)) {
        throw badRequest("The owner permission cannot be removed from the only organization owner.");
      }
      await changeRoleInTx(tx, app, events, realm, target, req.role);
    }
    if (req.fullName !== undefined && req.fullName !== target.full_name && req.fullName.trim() !== "") {
      await changeFullNameInTx(tx, events, realm, target, req.fullName);
    }
    if (req.profileData !== undefined) await updateProfileDataInTx(tx, app, events, realm, actor, target, req.profileData);
    if (req.newEmail !== undefined && req.newEmail !== target.delivery_email) await changeEmailInTx(tx, events, realm, target, req.newEmail);
  });
}

/** Whether the organization hides some users from guests (so deactivations reach them differently). */
async function accessRestricted(tx: Tx, realm: Realm, target: UserRow): Promise<boolean> {
  if (target.is_bot === 1) return false;
  return realm.groupSettings.can_access_all_users_group !== (await systemGroupIds(tx, realm.id)).get("role:everyone");
}

/** The groups a user belongs to directly, whether or not the account is active. */
async function directGroupsOf(tx: Tx, userId: number): Promise<{ named: number[]; anonymous: number[] }> {
  const rows = await tx
    .selectFrom("user_group_members")
    .innerJoin("user_groups", "user_groups.id", "user_group_members.group_id")
    .select(["user_groups.id", "user_groups.name"])
    .where("user_group_members.user_id", "=", userId)
    .orderBy("user_groups.id")
    .execute();
  return { named: rows.filter((r) => r.name !== null).map((r) => r.id), anonymous: rows.filter((r) => r.name === null).map((r) => r.id) };
}

/**
 * Tells the users in `to` the values of the settings these anonymous groups hold: each group's
 * named-group or organization setting is announced with its value now.
 */
async function announceAnonymousSettings(tx: Tx, events: PendingEvents, realm: Realm, anonymous: number[], to: number[]) {
  if (!anonymous.length || !to.length) return;
  const named = (await listNamedGroups(tx, realm.id, true)).map((g) => ({ id: g.id, settings: JSON.parse(g.group_settings) as Record<string, number> }));
  for (const groupId of anonymous) {
    const value = await groupSettingValueForApi(tx, groupId);
    const holder = named.find((g) => USER_GROUP_SETTINGS.some((s) => g.settings[s] === groupId));
    if (holder) {
      const setting = USER_GROUP_SETTINGS.find((s) => holder.settings[s] === groupId)!;
      events.send({ realmId: realm.id, event: { type: "user_group", op: "update", group_id: holder.id, data: { [setting]: value } }, userIds: to });
      continue;
    }
    const setting = Object.keys(REALM_PERMISSION_SETTINGS).find((s) => realm.groupSettings[s] === groupId);
    if (setting) {
      events.send({ realmId: realm.id, event: { type: "realm", op: "update_dict", property: "default", data: { [setting]: value } }, userIds: to });
    }
  }
}

async function subscribedStreams(tx: Tx, userId: number): Promise<Map<number, StreamRow>> {
  const subs = await activeSubscriptionsOf(tx, userId);
  if (!subs.length) return new Map();
  const rows = await tx
    .selectFrom("streams")
    .selectAll()
    .where("id", "in", subs.map((s) => s.stream_id))
    .where("is_archived", "=", 0)
    .execute();
  return new Map(rows.map((s) => [s.id, s]));
}

async function sendPeerChange(tx: Tx, events: PendingEvents, realm: Realm, user: UserRow, op: "peer_add" | "peer_remove") {
  const streams = await subscribedStreams(tx, user.id);
  const altered = new Map([...streams.keys()].map((id) => [id, new Set([user.id])]));
  await sendPeerEvents(tx, realm, events, op, streams, altered);
}

/** do_deactivate_user for one account: its subscriptions, its profile for whoever may see it, and its groups for those who may not. */
export async function deactivateInTx(tx: Tx, events: PendingEvents, realm: Realm, user: UserRow) {
  await updateUser(tx, user.id, { is_active: 0 });
  await sendPeerChange(tx, events, realm, user, "peer_remove");
  const active = await everyone(tx, realm);
  if (!(await accessRestricted(tx, realm, user))) {
    await sendUserUpdate(tx, events, realm, user, { is_active: false }, active);
  } else {
    const users = await activeRealmUsers(tx, realm.id);
    const withAccess = new Set([...users.filter((u) => !isGuest(u.role)).map((u) => u.id), ...(await directMessagePeerIds(tx, user.id))]);
    await sendUserUpdate(tx, events, realm, user, { is_active: false }, active.filter((id) => withAccess.has(id)));
    const without = active.filter((id) => !withAccess.has(id));
    if (without.length) {
      const groups = await directGroupsOf(tx, user.id);
      for (const groupId of groups.named) await sendMembersEvent(tx, events, realm, "remove_members", groupId, user.id, without);
      await announceAnonymousSettings(tx, events, realm, groups.anonymous, without);
      const coSubscribers = new Set([...(await subscribersByStream(tx, [...(await subscribedStreams(tx, user.id)).keys()])).values()].flat());
      const losing = without.filter((id) => coSubscribers.has(id));
      if (losing.length) {
        events.send({
          realmId: realm.id,
          event: { type: "realm_user", op: "remove", person: { user_id: user.id, full_name: "Unknown user" } },
          userIds: losing,
        });
      }
    }
  }
  if (user.is_bot === 1) await sendBotUpdate(tx, events, realm, user, { is_active: false });
}

/** DELETE /users/{id}: the account and every bot it owns stop working. */
export async function doDeactivateUser(app: AppContext, caller: Caller, userId: number): Promise<void> {
  const { realm } = caller;
  await runAction(app, async (tx, events) => {
    const target = await accessUserForAdmin(tx, caller, userId, { allowDeactivated: false, allowBots: false });
    if (isOwner(target.role) && !isOwner(caller.user.role)) throw ownerRequired();
    if (await isOnlyHumanOwner(tx, target)) throw badRequest("Cannot deactivate the only organization owner");
    await deactivateWithBots(tx, events, realm, target);
  });
}

/** A person's bots go with them. */
async function deactivateWithBots(tx: Tx, events: PendingEvents, realm: Realm, target: UserRow): Promise<void> {
  const bots = await tx
    .selectFrom("users")
    .selectAll()
    .where("realm_id", "=", realm.id)
    .where("bot_owner_id", "=", target.id)
    .where("is_bot", "=", 1)
    .where("is_active", "=", 1)
    .orderBy("id")
    .execute();
  for (const bot of bots) await deactivateInTx(tx, events, realm, bot);
  await deactivateInTx(tx, events, realm, target);
}

/** Zulip's CannotDeactivateLastUserError: an organization keeps at least one user, and one owner. */
const cannotDeactivateLast = (isLastOwner: boolean) => {
  const entity = isLastOwner ? "organization owner" : "user";
  return new ZulipError(`Cannot deactivate the only ${entity}.`, "CANNOT_DEACTIVATE_LAST_USER", 400, { is_last_owner: isLastOwner, entity });
};

/** DELETE /users/me: anyone may leave, bots included, but not the last user or the last owner. */
export async function doDeactivateOwnUser(app: AppContext, caller: Caller): Promise<void> {
  const { realm } = caller;
  await runAction(app, async (tx, events) => {
    const me = (await getRealmUser(tx, realm.id, caller.user.id))!;
    if ((await activeRealmUserIds(tx, realm.id)).length === 1) throw cannotDeactivateLast(false);
    if (await isOnlyHumanOwner(tx, me)) throw cannotDeactivateLast(true);
    await deactivateWithBots(tx, events, realm, me);
  });
}

/** POST /users/{id}/reactivate. */
export async function doReactivateUser(app: AppContext, caller: Caller, userId: number): Promise<void> {
  const { realm } = caller;
  await runAction(app, async (tx, events) => {
    let target = await accessUserForAdmin(tx, caller, userId, { allowDeactivated: true, allowBots: true });
    if (target.is_bot === 1) await checkBotReactivation(tx, caller, target);
    await updateUser(tx, target.id, { is_active: 1 });
    // A bot whose owner has left comes back owned by whoever brings it back.
    const leftOwner = target.bot_owner_id === null ? undefined : await getRealmUser(tx, realm.id, target.bot_owner_id);
    const ownerChanged = target.is_bot === 1 && leftOwner !== undefined && leftOwner.is_active !== 1;
    if (ownerChanged) {
      await tx.updateTable("users").set({ bot_owner_id: caller.user.id }).where("id", "=", target.id).execute();
      target = { ...target, bot_owner_id: caller.user.id };
    }
    await sendUserUpdate(tx, events, realm, target, { is_active: true });
    if (target.is_bot === 1) {
      await sendBotUpdate(tx, events, realm, target, { is_active: true });
      if (ownerChanged) await sendBotOwnerUpdateEvents(tx, events, realm, target, caller.user, leftOwner);
    } else {
      const admins = (await activeRealmUsers(tx, realm.id)).filter((u) => isAdmin(u.role) && u.is_bot === 0).map((u) => u.id);
      events.send({
        realmId: realm.id,
        event: { type: "realm_export_consent", user_id: target.id, consented: userSetting(target, "allow_private_data_export") === true },
        userIds: admins,
      });
    }
    await sendPeerChange(tx, events, realm, target, "peer_add");
    const active = await everyone(tx, realm);
    const groups = await directGroupsOf(tx, target.id);
    for (const groupId of groups.named) await sendMembersEvent(tx, events, realm, "add_members", groupId, target.id, active);
    await announceAnonymousSettings(tx, events, realm, groups.anonymous, active);
  });
}

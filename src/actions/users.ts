import type { AppContext } from "../context.js";
import type { Caller } from "../http/auth.js";
import { runAction, type PendingEvents, type Tx } from "./run.js";
import { storedRealmDefaults } from "./user_settings.js";
import type { Realm } from "../store/realms.js";
import type { Executor } from "../store/schema.js";
import {
  activeRealmUsers,
  getRealmUser,
  getUserByDeliveryEmail,
  listRealmUsers,
  listUsers,
  maxMessageIdForUser,
  setUserProp,
  type UserRow,
} from "../store/users.js";
import { profileDataByUser, type ProfileData } from "../store/custom_profile_fields.js";
import { accessibleUserIds as accessibleUserIdsOf } from "../store/user_access.js";
import { addSubscriptions } from "../store/subscriptions.js";
import { badRequest } from "../http/errors.js";
import { canSeeDeliveryEmail, emailVisibility, formatInaccessibleUser, formatUser, visibilityAllowsRole } from "../format/users.js";
import { isValidEmail, nameKey, passwordStrongEnough, validateFullName } from "../domain/users.js";
import { addGroupMembers, groupsOfUser, systemGroupIds } from "../store/groups.js";
import { generateApiKey, hashPassword } from "../security/credentials.js";
import { isFullMember, systemGroupForRole } from "../domain/system_groups.js";
import { Role, isGuest } from "../domain/roles.js";
import { EMAIL_ADDRESS_VISIBILITY } from "../domain/realm_settings.js";

export interface CreateUserInput {
  email: string;
  fullName: string;
  role: number;
  password?: string;
  isBot?: boolean;
  /** 1 generic, 2 incoming webhook, 3 outgoing webhook, 4 embedded. */
  botType?: number;
  botOwnerId?: number;
  isSystemBot?: boolean;
  timezone?: string;
  dateJoined?: number;
}

/**
 * Creating the user row and what every user has: an API key, a personal recipient and
 * membership of the system group for their role. Callers validate and send events.
 */
export async function createUserInTx(tx: Tx, app: AppContext, realm: Realm, input: CreateUserInput): Promise<UserRow> {
  const now = input.dateJoined ?? Math.floor(app.clock.now());
  const visibility = input.isBot ? EMAIL_ADDRESS_VISIBILITY.EVERYONE : realm.props.email_address_visibility;
  // New people start from the organization's defaults; bots from Zulip's.
  const defaults = input.isBot ? {} : storedRealmDefaults(realm);
  const inserted = await tx
    .insertInto("users")
    .values({
      realm_id: realm.id,
      email: input.email,
      delivery_email: input.email,
      full_name: input.fullName,
      role: input.role,
      is_active: 1,
      is_bot: input.isBot ? 1 : 0,
      bot_type: input.isBot ? (input.botType ?? 1) : null,
      bot_owner_id: input.botOwnerId ?? null,
      is_system_bot: input.isSystemBot ? 1 : 0,
      api_key: generateApiKey(),
      password_hash: input.password ? await hashPassword(input.password) : null,
      date_joined: now,
      timezone: input.timezone ?? "",
      presence_enabled: defaults.presence_enabled === false ? 0 : 1,
      props: JSON.stringify({ ...defaults, email_address_visibility: visibility }),
    })
    .returningAll()
    .executeTakeFirstOrThrow();

  let user = inserted;
  if (visibility !== EMAIL_ADDRESS_VISIBILITY.EVERYONE) {
    // Hidden addresses are replaced by a stable placeholder, as Zulip does.
    const email = `user${inserted.id}@${app.config.fakeEmailDomain}`;
    await tx.updateTable("users").set({ email }).where("id", "=", inserted.id).execute();
    user = { ...inserted, email };
  }

  await tx.insertInto("recipients").values({ type: 1, type_id: user.id }).execute();
  const system = await systemGroupIds(tx, realm.id);
  const groups = [system.get(systemGroupForRole(input.role))!];
  if (input.role === 400 && isFullMember(input.role, now, realm.props.waiting_period_threshold, app.clock.now())) {
    groups.push(system.get("role:fullmembers")!);
  }
  for (const g of groups) await addGroupMembers(tx, g, [user.id]);
  return user;
}

/** Zulip's `can_create_users` special permission, granted by server administrators only. */
export function canCreateUsers(user: UserRow): boolean {
  return JSON.parse(user.props).can_create_users === true;
}

export async function setCanCreateUsers(app: AppContext, userId: number, allowed: boolean): Promise<void> {
  await setUserProp(app.db, userId, "can_create_users", allowed);
}

/** Zulip's `can_change_user_emails` special permission, granted by server administrators only. */
export function canChangeUserEmails(user: UserRow): boolean {
  return JSON.parse(user.props).can_change_user_emails === true;
}

export async function setCanChangeUserEmails(app: AppContext, userId: number, allowed: boolean): Promise<void> {
  await setUserProp(app.db, userId, "can_change_user_emails", allowed);
}

const noSuchUser = () => badRequest("No such user");

/**
 * The users a guest may see in full when the organization's can_access_all_users_group leaves
 * them out; undefined when the caller may see everyone. Bots are always visible.
 */
export async function accessibleUserIds(app: AppContext, { realm, user }: Pick<Caller, "realm" | "user">): Promise<Set<number> | undefined> {
  if ((await groupsOf(app, app.db, user)).has(realm.groupSettings.can_access_all_users_group)) return undefined;
  return accessibleUserIdsOf(app.db, realm, user.id);
}

/** The user's groups, direct and through subgroups: from memory until a group, a membership or a user changes. */
export async function groupsOf(app: AppContext, db: Executor, user: UserRow): Promise<ReadonlySet<number>> {
  return (await app.caches.groupsOfUser.get(`${user.realm_id}:${user.id}`, db, () => groupsOfUser(db, user.realm_id, user.id)))!;
}

const hiddenFrom = (accessible: Set<number> | undefined, user: UserRow) =>
  accessible !== undefined && user.is_bot === 0 && !accessible.has(user.id);

/** A user of the caller's organization by id; deactivated users and bots included. */
export async function accessUserById(app: AppContext, caller: Caller, userId: number): Promise<UserRow> {
  const user = await getRealmUser(app.db, caller.realm.id, userId);
  if (!user) throw noSuchUser();
  if (hiddenFrom(await accessibleUserIds(app, caller), user)) throw badRequest("Insufficient permission");
  return user;
}

/**
 * A user by email, as Zulip resolves it: a placeholder address `user<ID>@<fake domain>` names
 * that user; any other address must be a real address the caller's role may see.
 */
export async function accessUserByEmail(app: AppContext, caller: Caller, email: string): Promise<UserRow> {
  const domain = app.config.fakeEmailDomain.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const placeholder = new RegExp(`^user(\\d+)@${domain}`).exec(email);
  if (placeholder) return accessUserById(app, caller, Number(placeholder[1]));
  const user = await getUserByDeliveryEmail(app.db, caller.realm.id, email);
  if (!user || user.is_system_bot === 1 || !visibilityAllowsRole(emailVisibility(user), caller.user.role)) throw noSuchUser();
  if (hiddenFrom(await accessibleUserIds(app, caller), user)) throw badRequest("Insufficient permission");
  return user;
}

export interface UserListOptions {
  clientGravatar: boolean;
  includeCustomProfileFields: boolean;
}

/**
 * Every account of an organization, system bots included, in id order: from memory until the
 * users table is written (every client's POST /register lists them all). Shared, so frozen.
 */
export async function realmUserRows(app: AppContext, realmId: number, db: Executor = app.db): Promise<readonly UserRow[]> {
  const rows = await app.caches.realmUsers.get(String(realmId), db, async () =>
    Object.freeze((await listUsers(db, realmId)).map((u) => Object.freeze(u))),
  );
  return rows!;
}

/** Users as GET /users shows them to the caller; `userIds` limits the list (unknown ids are skipped). */
export async function usersForApi(app: AppContext, caller: Caller, opts: UserListOptions & { userIds?: number[] }) {
  const users = opts.userIds
    ? await listRealmUsers(app.db, caller.realm.id, opts.userIds)
    : (await realmUserRows(app, caller.realm.id)).filter((u) => u.is_system_bot === 0);
  const accessible = await accessibleUserIds(app, caller);
  const profiles = opts.includeCustomProfileFields
    ? await profileDataByUser(app.db, caller.realm.id, opts.userIds)
    : undefined;
  return users.map((u) =>
    hiddenFrom(accessible, u)
      ? formatInaccessibleUser(u.id, app.config.fakeEmailDomain)
      : formatUser(u, caller.user, { clientGravatar: opts.clientGravatar, profileData: profiles && (profiles.get(u.id) ?? {}) }),
  );
}

export async function userForApi(app: AppContext, caller: Caller, user: UserRow, opts: UserListOptions) {
  const profileData = opts.includeCustomProfileFields ? await oneUsersProfileData(app, caller.realm.id, user.id) : undefined;
  return formatUser(user, caller.user, { clientGravatar: opts.clientGravatar, profileData });
}

/** From memory until profile fields or values change; shared between requests, so frozen. */
async function oneUsersProfileData(app: AppContext, realmId: number, userId: number): Promise<ProfileData> {
  const cached = await app.caches.profileData.get(`${realmId}:${userId}`, app.db, async () => {
    const data = (await profileDataByUser(app.db, realmId, [userId])).get(userId) ?? {};
    Object.values(data).forEach((value) => Object.freeze(value));
    return Object.freeze(data);
  });
  return cached!;
}

/** GET /users/me: the caller with their profile data and newest message id. */
export async function ownUserForApi(app: AppContext, caller: Caller) {
  return {
    ...(await userForApi(app, caller, caller.user, { clientGravatar: false, includeCustomProfileFields: true })),
    max_message_id: await maxMessageIdForUser(app.db, caller.user.id),
  };
}

/**
 * Sends `realm_user` add: the real address only to those allowed to see it, and only a
 * placeholder to guests when the organization limits what guests see.
 */
export async function notifyCreatedUser(tx: Tx, app: AppContext, events: PendingEvents, realm: Realm, user: UserRow): Promise<void> {
  const everyone = (await systemGroupIds(tx, realm.id)).get("role:everyone");
  const restricted = realm.groupSettings.can_access_all_users_group !== everyone;
  const recipients = await activeRealmUsers(tx, realm.id);
  const guests = restricted ? recipients.filter((r) => isGuest(r.role)) : [];
  const informed = recipients.filter((r) => !guests.includes(r));
  const withAccess = informed.filter((r) => canSeeDeliveryEmail(r, user));
  const without = informed.filter((r) => !canSeeDeliveryEmail(r, user));
  for (const group of [withAccess, without]) {
    if (!group.length) continue;
    events.send({
      realmId: realm.id,
      event: { type: "realm_user", op: "add", person: formatUser(user, group[0], { profileData: {} }) },
      userIds: group.map((r) => r.id),
    });
  }
  if (guests.length) {
    events.send({
      realmId: realm.id,
      event: { type: "realm_user", op: "add", person: formatInaccessibleUser(user.id, app.config.fakeEmailDomain), inaccessible_user: true },
      userIds: guests.map((g) => g.id),
    });
  }
  // Clients keep group memberships (their permission checks read them), so the new user's
  // system groups are announced as Zulip's do_create_user announces them.
  const everyoneIds = recipients.map((r) => r.id);
  for (const { group_id } of await tx.selectFrom("user_group_members").select("group_id").where("user_id", "=", user.id).orderBy("group_id").execute()) {
    events.send({ realmId: realm.id, event: { type: "user_group", op: "add_members", group_id, user_ids: [user.id] }, userIds: everyoneIds });
  }
}

/** New users join the organization's default channels. */
export async function subscribeToDefaultChannels(tx: Tx, realmId: number, userId: number): Promise<void> {
  const defaults = await tx
    .selectFrom("default_streams")
    .innerJoin("streams", "streams.id", "default_streams.stream_id")
    .select("streams.id")
    .where("default_streams.realm_id", "=", realmId)
    .where("streams.is_archived", "=", 0)
    .orderBy("streams.id")
    .execute();
  for (const stream of defaults) await addSubscriptions(tx, stream.id, [userId]);
}

export interface NewHumanUser {
  email: string;
  fullName: string;
  password?: string;
  role: number;
}

/** Zulip's checks on a new person's name, address and password, in its order; returns the name to store. */
export async function checkNewHumanUser(tx: Tx, realm: Realm, input: NewHumanUser): Promise<string> {
  const fullName = validateFullName(input.fullName);
  if (realm.props.require_unique_names) {
    const names = await tx.selectFrom("users").select("full_name").where("realm_id", "=", realm.id).execute();
    if (names.some((n) => nameKey(n.full_name) === nameKey(fullName))) {
      throw badRequest("Unique names required in this organization.");
    }
  }
  if (!isValidEmail(input.email)) throw badRequest("Bad name or username");
  if (await getUserByDeliveryEmail(tx, realm.id, input.email)) throw badRequest(`Email '${input.email}' already in use`);
  if (input.password !== undefined && !passwordStrongEnough(input.password)) throw badRequest("The password is too weak.");
  return fullName;
}

/**
 * Creates a person (not a bot) with Zulip's checks in Zulip's order, subscribes them to the
 * organization's default channels and announces them to everyone.
 */
export async function doCreateUser(app: AppContext, realm: Realm, input: NewHumanUser): Promise<UserRow> {
  return runAction(app, async (tx, events) => {
    const fullName = await checkNewHumanUser(tx, realm, input);
    const user = await createUserInTx(tx, app, realm, {
      email: input.email,
      fullName,
      role: input.role,
      password: input.password,
    });
    await subscribeToDefaultChannels(tx, realm.id, user.id);
    await notifyCreatedUser(tx, app, events, realm, user);
    return user;
  });
}

/** POST /users: only administrators holding the can_create_users permission; new users are members. */
export async function doCreateUserByApi(
  app: AppContext,
  caller: Caller,
  input: { email: string; fullName: string; password: string },
): Promise<number> {
  if (!canCreateUsers(caller.user)) throw badRequest("User not authorized to create users");
  return (await doCreateUser(app, caller.realm, { ...input, role: Role.MEMBER })).id;
}

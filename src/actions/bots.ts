/**
 * Bots: creating them (POST /bots), configuring them (PATCH /bots/{id}), their keys and their
 * deactivation, and the `realm_bot` events that keep their administrators' lists current.
 */
import type { AppContext } from "../context.js";
import type { Caller } from "../http/auth.js";
import type { Realm } from "../store/realms.js";
import { changeAvatarInTx, prepareAvatar, storeNewUserAvatar } from "./avatars.js";
import type { UploadedFile } from "../files/multipart.js";
import { runAction, type PendingEvents, type Tx } from "./run.js";
import { adminRequired, badRequest, ownerRequired } from "../http/errors.js";
import { activeRealmUsers, getRealmUser, getUserByDeliveryEmail, type UserRow } from "../store/users.js";
import { groupsOfUser } from "../store/groups.js";
import { botExtras, insertBotService, putBotConfigEntry, setBotDefaults, updateBotService, type BotExtras } from "../store/bots.js";
import { BotType, botEmail, checkBotType, checkConfigEntry, checkInterfaceType, checkShortName } from "../domain/bots.js";
import { Role, isAdmin, isOwner } from "../domain/roles.js";
import { nameKey, validateFullName } from "../domain/users.js";
import { hasGroupPermission, permissionConfigOf } from "../domain/group_setting_value.js";
import { REALM_PERMISSION_SETTINGS } from "../domain/permission_settings.js";
import { avatarUrl } from "../media/avatars.js";
import { generateApiKey } from "../security/credentials.js";
import { createUserInTx, notifyCreatedUser } from "./users.js";
import { accessStreamByName } from "./streams.js";
import { canAdminUser, changeFullNameInTx, changeRoleInTx, deactivateInTx, sendUserUpdate } from "./user_admin.js";

const insufficientPermission = () => badRequest("Insufficient permission");

/** A bot's default channels, as every answer about a bot names them. */
function defaultChannelFields(extras: BotExtras) {
  return {
    default_sending_stream: extras.defaultSendingStream?.name ?? null,
    default_events_register_stream: extras.defaultEventsRegisterStream?.name ?? null,
    default_all_public_streams: extras.defaultAllPublicStreams,
  };
}

/** A bot as `realm_bots` and `realm_bot` events show it to the users who administer it. */
export function botDict(bot: UserRow, extras: BotExtras): Record<string, unknown> {
  return {
    email: bot.email,
    user_id: bot.id,
    full_name: bot.full_name,
    bot_type: bot.bot_type,
    is_active: bot.is_active === 1,
    api_key: bot.api_key,
    ...defaultChannelFields(extras),
    avatar_url: avatarUrl(bot),
    services: serviceDicts(bot, extras),
    owner_id: bot.bot_owner_id,
  };
}

/** Outgoing webhooks show where they post; embedded bots their configuration; other bots nothing. */
function serviceDicts(bot: UserRow, extras: BotExtras): Record<string, unknown>[] {
  if (bot.bot_type === BotType.OUTGOING_WEBHOOK) {
    return extras.services.map((s) => ({ base_url: s.base_url, interface: s.interface, token: s.token }));
  }
  if (bot.bot_type === BotType.EMBEDDED) {
    return extras.services.map((s) => ({ config_data: extras.config, service_name: s.name }));
  }
  return [];
}

async function extrasOf(tx: Tx, bot: UserRow): Promise<BotExtras> {
  return (await botExtras(tx, [bot.id])).get(bot.id)!;
}

/**
 * Zulip's bot_owner_user_ids: the owner and the human administrators; only the owner when the
 * bot's default channels include a private one, which the administrators may not be able to see.
 */
export async function botAdministratorIds(tx: Tx, realm: Realm, bot: UserRow, extras?: BotExtras): Promise<number[]> {
  const { defaultSendingStream, defaultEventsRegisterStream } = extras ?? (await extrasOf(tx, bot));
  const isPrivate = defaultSendingStream?.invite_only === 1 || defaultEventsRegisterStream?.invite_only === 1;
  const ids = new Set<number>();
  if (!isPrivate || bot.bot_owner_id === null) {
    for (const u of await activeRealmUsers(tx, realm.id)) if (isAdmin(u.role) && u.is_bot === 0) ids.add(u.id);
  }
  if (bot.bot_owner_id !== null) ids.add(bot.bot_owner_id);
  return [...ids].sort((a, b) => a - b);
}

export async function sendBotUpdate(tx: Tx, events: PendingEvents, realm: Realm, bot: UserRow, data: Record<string, unknown>): Promise<void> {
  events.send({
    realmId: realm.id,
    event: { type: "realm_bot", op: "update", bot: { user_id: bot.id, ...data } },
    userIds: await botAdministratorIds(tx, realm, bot),
  });
}

/** Zulip's check_bot_creation_policy: any bot with can_create_bots_group, incoming webhooks also with the write-only group. */
export async function checkBotCreationPolicy(tx: Tx, caller: Caller, botType: number): Promise<{ canCreateAllBots: boolean }> {
  const canCreateAllBots = await mayCreate(tx, caller, "can_create_bots_group");
  if (canCreateAllBots) return { canCreateAllBots };
  if (botType === BotType.INCOMING_WEBHOOK && (await mayCreate(tx, caller, "can_create_write_only_bots_group"))) return { canCreateAllBots };
  throw insufficientPermission();
}

async function mayCreate(tx: Tx, { realm, user }: Caller, setting: string): Promise<boolean> {
  const groups = await groupsOfUser(tx, realm.id, user.id);
  return hasGroupPermission(user, groups, realm.groupSettings[setting], permissionConfigOf(REALM_PERMISSION_SETTINGS[setting]));
}

/** Zulip's check_bot_name_available: no active user of the organization may have the name already. */
export async function checkBotNameAvailable(tx: Tx, realmId: number, fullName: string, isActivation: boolean): Promise<void> {
  const namesake = await tx
    .selectFrom("users")
    .select("id")
    .where("realm_id", "=", realmId)
    .where("full_name", "=", fullName.trim())
    .where("is_active", "=", 1)
    .executeTakeFirst();
  if (!namesake) return;
  if (!isActivation) throw badRequest("Name is already in use!");
  throw badRequest(
    `There is already an active bot named "${fullName}" in this organization. To reactivate this bot, you must rename or deactivate the other one first.`,
  );
}

/** Zulip's check_full_name: a valid name, unique when the organization requires it. */
async function checkFullName(tx: Tx, realm: Realm, raw: string, exceptUserId?: number): Promise<string> {
  const fullName = validateFullName(raw);
  if (realm.props.require_unique_names) {
    const others = await tx.selectFrom("users").select(["id", "full_name"]).where("realm_id", "=", realm.id).execute();
    if (others.some((u) => u.id !== exceptUserId && nameKey(u.full_name) === nameKey(fullName))) {
      throw badRequest("Unique names required in this organization.");
    }
  }
  return fullName;
}

/** Zulip's access_bot_by_id: a bot of the organization (deactivated ones too) the caller administers. */
export async function accessBotById(tx: Tx, caller: Caller, botId: number): Promise<UserRow> {
  const bot = await getRealmUser(tx, caller.realm.id, botId);
  if (!bot || bot.is_bot !== 1) throw badRequest("No such bot");
  if (!canAdminUser(caller.user, bot)) throw insufficientPermission();
  return bot;
}

export interface CreateBotRequest {
  fullName: string;
  shortName: string;
  botType: number;
  payloadUrl: string;
  serviceName?: string;
  interfaceType: number;
  configData: Record<string, string>;
  defaultSendingStream?: string;
  defaultEventsRegisterStream?: string;
  defaultAllPublicStreams?: boolean;
  /** Files sent with the request: one is the bot's avatar. */
  avatarFiles?: UploadedFile[];
}

/** POST /bots, with Zulip's checks in Zulip's order. */
export async function doCreateBot(app: AppContext, caller: Caller, req: CreateBotRequest) {
  const { realm, user } = caller;
  const files = req.avatarFiles ?? [];
  if (files.length > 1) throw badRequest("You may only upload one file at a time");
  const avatar = files.length === 1 ? await prepareAvatar(files) : null;
  return runAction(app, async (tx, events) => {
    const short = checkShortName(req.shortName);
    const serviceName = req.botType === BotType.INCOMING_WEBHOOK ? req.serviceName : req.serviceName || short;
    const fullName = await checkFullName(tx, realm, req.fullName);
    const email = botEmail(short, app.config.fakeEmailDomain);
    if (await getUserByDeliveryEmail(tx, realm.id, email)) throw badRequest("Username already in use");
    await checkBotNameAvailable(tx, realm.id, fullName, false);
    const { canCreateAllBots } = await checkBotCreationPolicy(tx, caller, req.botType);
    checkBotType(req.botType, canCreateAllBots);
    checkInterfaceType(req.interfaceType);
    const sending = req.defaultSendingStream === undefined ? undefined : (await accessStreamByName(app, tx, user, req.defaultSendingStream)).stream;
    const register =
      req.defaultEventsRegisterStream === undefined ? undefined : (await accessStreamByName(app, tx, user, req.defaultEventsRegisterStream)).stream;
    const config = Object.entries(req.configData);
    for (const [key, value] of config) checkConfigEntry(key, value);

    let bot = await createUserInTx(tx, app, realm, {
      email,
      fullName,
      role: Role.MEMBER,
      isBot: true,
      botType: req.botType,
      botOwnerId: user.id,
    });
    if (avatar) bot = await storeNewUserAvatar(app, tx, bot, avatar);
    if (sending || register || req.defaultAllPublicStreams) {
      await setBotDefaults(tx, bot.id, {
        default_sending_stream_id: sending?.id ?? null,
        default_events_register_stream_id: register?.id ?? null,
        default_all_public_streams: req.defaultAllPublicStreams ? 1 : 0,
      });
    }
    if (req.botType === BotType.OUTGOING_WEBHOOK) {
      await insertBotService(tx, { user_id: bot.id, name: serviceName!, base_url: req.payloadUrl, interface: req.interfaceType, token: generateApiKey() });
    }
    if (req.botType === BotType.INCOMING_WEBHOOK) {
      if (serviceName) await putBotConfigEntry(tx, bot.id, "integration_id", serviceName);
      for (const [key, value] of config) await putBotConfigEntry(tx, bot.id, key, value);
    }

    await notifyCreatedUser(tx, app, events, realm, bot);
    const extras = await extrasOf(tx, bot);
    events.send({
      realmId: realm.id,
      event: { type: "realm_bot", op: "add", bot: botDict(bot, extras) },
      userIds: await botAdministratorIds(tx, realm, bot, extras),
    });
    return {
      user_id: bot.id,
      api_key: bot.api_key,
      avatar_url: avatarUrl(bot),
      ...defaultChannelFields(extras),
    };
  });
}

/** GET /bots: the caller's own active bots, administrators included, oldest first. */
export async function ownBotsForApi(app: AppContext, caller: Caller) {
  const bots = await app.db
    .selectFrom("users")
    .selectAll()
    .where("realm_id", "=", caller.realm.id)
    .where("is_bot", "=", 1)
    .where("is_active", "=", 1)
    .where("bot_owner_id", "=", caller.user.id)
    .orderBy("date_joined")
    .orderBy("id")
    .execute();
  const extras = await botExtras(app.db, bots.map((b) => b.id));
  return bots.map((bot) => {
    const e = extras.get(bot.id)!;
    return {
      username: bot.email,
      full_name: bot.full_name,
      api_key: bot.api_key,
      avatar_url: avatarUrl(bot),
      ...defaultChannelFields(e),
    };
  });
}

export interface UpdateBotRequest {
  fullName?: string;
  role?: number;
  botOwnerId?: number;
  configData?: Record<string, string>;
  servicePayloadUrl?: string;
  serviceInterface: number;
  defaultSendingStream?: string;
  defaultEventsRegisterStream?: string;
  defaultAllPublicStreams?: boolean;
  /** Files sent with the request: one is the bot's new avatar. */
  avatarFiles?: UploadedFile[];
}

/** Zulip's do_change_bot_owner: the new owner is written, then its events sent. */
async function changeBotOwnerInTx(tx: Tx, events: PendingEvents, realm: Realm, bot: UserRow, owner: UserRow): Promise<UserRow> {
  const previous = bot.bot_owner_id === null ? undefined : await getRealmUser(tx, realm.id, bot.bot_owner_id);
  await tx.updateTable("users").set({ bot_owner_id: owner.id }).where("id", "=", bot.id).execute();
  const updated = { ...bot, bot_owner_id: owner.id };
  await sendBotOwnerUpdateEvents(tx, events, realm, updated, owner, previous);
  return updated;
}

/**
 * Zulip's send_bot_owner_update_events: the old owner loses the bot from their list, the new one
 * gains it, the other administrators hear of the new owner, and everyone of the user's new
 * bot_owner_id. Administrators keep every bot, so they get updates, never a delete or an add.
 */
export async function sendBotOwnerUpdateEvents(tx: Tx, events: PendingEvents, realm: Realm, bot: UserRow, owner: UserRow, previous: UserRow | undefined): Promise<void> {
  let informed = await botAdministratorIds(tx, realm, bot);
  if (previous && !isAdmin(previous.role)) {
    events.send({ realmId: realm.id, event: { type: "realm_bot", op: "delete", bot: { user_id: bot.id } }, userIds: [previous.id] });
    informed = informed.filter((id) => id !== previous.id);
  }
  if (!isAdmin(owner.role)) {
    events.send({ realmId: realm.id, event: { type: "realm_bot", op: "add", bot: botDict(bot, await extrasOf(tx, bot)) }, userIds: [owner.id] });
    informed = informed.filter((id) => id !== owner.id);
  }
  events.send({ realmId: realm.id, event: { type: "realm_bot", op: "update", bot: { user_id: bot.id, owner_id: owner.id } }, userIds: informed });
  const everyone = (await activeRealmUsers(tx, realm.id)).map((u) => u.id);
  await sendUserUpdate(tx, events, realm, bot, { bot_owner_id: owner.id }, everyone);
}

/** PATCH /bots/{id}: name, role, owner, default channels, service and configuration, in Zulip's order. */
export async function doUpdateBot(app: AppContext, caller: Caller, botId: number, req: UpdateBotRequest) {
  const { realm, user: actor } = caller;
  const files = req.avatarFiles ?? [];
  if (files.length > 1) throw badRequest("You may only upload one file at a time");
  const avatar = files.length === 1 ? await prepareAvatar(files) : null;
  return runAction(app, async (tx, events) => {
    let bot = await accessBotById(tx, caller, botId);
    if (req.fullName !== undefined) {
      const fullName = await checkFullName(tx, realm, req.fullName, bot.id);
      if (fullName !== bot.full_name) {
        await checkBotNameAvailable(tx, realm.id, fullName, false);
        await changeFullNameInTx(tx, events, realm, bot, fullName);
        bot = { ...bot, full_name: fullName };
      }
    }
    if (req.role !== undefined && req.role !== bot.role) {
      if ((isOwner(req.role) || isOwner(bot.role)) && !isOwner(actor.role)) throw ownerRequired();
      if (!isAdmin(actor.role)) throw adminRequired();
      await changeRoleInTx(tx, app, events, realm, bot, req.role);
      bot = { ...bot, role: req.role };
    }
    if (req.botOwnerId !== undefined) {
      const owner = await getRealmUser(tx, realm.id, req.botOwnerId);
      if (!owner) throw badRequest("Failed to change owner, no such user");
      if (owner.is_active !== 1) throw badRequest("Failed to change owner, user is deactivated");
      if (owner.is_bot === 1) throw badRequest("Failed to change owner, bots can't own other bots");
      if (owner.id !== bot.bot_owner_id) bot = await changeBotOwnerInTx(tx, events, realm, bot, owner);
    }
    for (const [name, column] of [
      ["default_sending_stream", "default_sending_stream_id"],
      ["default_events_register_stream", "default_events_register_stream_id"],
    ] as const) {
      const value = name === "default_sending_stream" ? req.defaultSendingStream : req.defaultEventsRegisterStream;
      if (value === undefined) continue;
      const stream = value === "" ? null : (await accessStreamByName(app, tx, actor, value)).stream;
      await setBotDefaults(tx, bot.id, { [column]: stream?.id ?? null });
      await sendBotUpdate(tx, events, realm, bot, { [name]: stream?.name ?? null });
    }
    if (req.defaultAllPublicStreams !== undefined) {
      await setBotDefaults(tx, bot.id, { default_all_public_streams: req.defaultAllPublicStreams ? 1 : 0 });
      await sendBotUpdate(tx, events, realm, bot, { default_all_public_streams: req.defaultAllPublicStreams });
    }
    if (req.servicePayloadUrl !== undefined) {
      checkInterfaceType(req.serviceInterface);
      const [service] = (await extrasOf(tx, bot)).services;
      // Zulip assumes the bot has a service here; only outgoing webhook and embedded bots do.
      if (!service) throw badRequest("This bot has no service to update");
      await updateBotService(tx, service.id, { base_url: req.servicePayloadUrl, interface: req.serviceInterface });
      await sendBotUpdate(tx, events, realm, bot, {
        services: [{ base_url: req.servicePayloadUrl, interface: req.serviceInterface, token: service.token }],
      });
    }
    if (req.configData !== undefined) {
      for (const [key, value] of Object.entries(req.configData)) {
        checkConfigEntry(key, value);
        await putBotConfigEntry(tx, bot.id, key, value);
      }
      await sendBotUpdate(tx, events, realm, bot, { services: [{ config_data: (await extrasOf(tx, bot)).config }] });
    }
    if (avatar) bot = await changeAvatarInTx(app, tx, events, realm, bot, avatar);

    const extras = await extrasOf(tx, bot);
    const owner = bot.bot_owner_id === null ? undefined : await getRealmUser(tx, realm.id, bot.bot_owner_id);
    return {
      full_name: bot.full_name,
      avatar_url: avatarUrl(bot),
      service_interface: req.serviceInterface,
      service_payload_url: req.servicePayloadUrl ?? null,
      config_data: req.configData ?? null,
      ...defaultChannelFields(extras),
      ...(owner ? { bot_owner: owner.email } : {}),
    };
  });
}

/** DELETE /bots/{id}: deactivating a bot that is already deactivated changes nothing. */
export async function doDeactivateBot(app: AppContext, caller: Caller, botId: number): Promise<void> {
  await runAction(app, async (tx, events) => {
    const bot = await accessBotById(tx, caller, botId);
    if (bot.is_active === 1) await deactivateInTx(tx, events, caller.realm, bot);
  });
}

/** POST /bots/{id}/api_key/regenerate: the old key stops working at once. */
export async function doRegenerateBotApiKey(app: AppContext, caller: Caller, botId: number): Promise<{ api_key: string }> {
  return runAction(app, async (tx, events) => {
    const bot = await accessBotById(tx, caller, botId);
    const apiKey = generateApiKey();
    await tx.updateTable("users").set({ api_key: apiKey }).where("id", "=", bot.id).execute();
    await sendBotUpdate(tx, events, caller.realm, bot, { api_key: apiKey });
    return { api_key: apiKey };
  });
}

/** Reactivating a bot is creating it again, as far as permissions go. */
export async function checkBotReactivation(tx: Tx, caller: Caller, bot: UserRow): Promise<void> {
  await checkBotCreationPolicy(tx, caller, bot.bot_type ?? BotType.GENERIC);
  await checkBotNameAvailable(tx, caller.realm.id, bot.full_name, true);
}


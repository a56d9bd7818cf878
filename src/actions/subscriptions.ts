/** Subscribing and unsubscribing users, creating channels on the way, with Zulip's events. */
import type { AppContext } from "../context.js";
import { runAction, type PendingEvents, type Tx } from "./run.js";
import type { ChannelGroupSetting, Executor } from "../store/schema.js";
import { CHANNEL_GROUP_SETTINGS } from "../store/schema.js";
import type { Realm } from "../store/realms.js";
import { getNotificationBot, type UserRow } from "../store/users.js";
import { getRealm } from "../store/realms.js";
import { recursiveMemberIds, systemGroupIds } from "../store/groups.js";
import { addSubscriptions, removeSubscriptions } from "../store/subscriptions.js";
import {
  activeSubscriptionsOf,
  getStream,
  getStreamsByNames,
  subscribersByStream,
  type StreamRow,
  type SubscriptionRow,
} from "../store/streams.js";
import { badRequest, channelAlreadyExists, guestNotAllowed, ownerRequired } from "../http/errors.js";
import { isAdmin, isGuest } from "../domain/roles.js";
import { LIMITS } from "../domain/limits.js";
import { checkChannelName, historyPublicToSubscribersFor, permissionPolicyName } from "../domain/channels.js";
import { DELETE_POLICY_SETTINGS, channelSettingConfig, checkedRetentionDays } from "../domain/channel_settings.js";
import type { TopicsPolicy } from "../domain/topics.js";
import {
  METADATA_GRANTING_SETTINGS,
  canRemoveSubscribers,
  canSetTopicsPolicy,
  cannotAddSubscribers,
  channelCreationRefusal,
  holdsRealmPermission,
  hasContentAccess,
  hasBasicAccess,
  type UserFacts,
} from "../domain/channel_access.js";
import { activeUsers, channelFacts, metadataAccessUserIds, streamDisplayData, subscribedChannelIds, userFacts } from "./channel_context.js";
import { checkChannelFolderId, createStreamInTx, realmStreamRows } from "./streams.js";
import { normalizeForRealm, resolveGroupSettingValue } from "./group_settings.js";
import type { GroupSettingValue } from "../domain/group_setting_value.js";
import { sendMessageInTx } from "./messages.js";
import { formatSubscription } from "../format/streams.js";
import { channelEventsTopic, sendStreamCreate, silentMention } from "./channel_events.js";

export type Principals = string[] | number[];

/** Users named by `principals` (API emails or ids) in the caller's organization. */
async function resolvePrincipals(db: Executor, realmId: number, principals: Principals): Promise<UserRow[]> {
  const users: UserRow[] = [];
  for (const p of principals) {
    const q = db.selectFrom("users").selectAll().where("realm_id", "=", realmId);
    const user =
      typeof p === "number"
        ? await q.where("id", "=", p).executeTakeFirst()
        : (await q.execute()).find((u) => u.email.toLowerCase() === p.trim().toLowerCase());
    if (!user) throw badRequest(typeof p === "number" ? `Invalid user ID: ${p}` : "No such user");
    if (user.is_active !== 1) throw badRequest("User is deactivated");
    if (!users.some((u) => u.id === user.id)) users.push(user);
  }
  return users;
}

/** The user themself, or a bot they own, is not "someone else" when unsubscribing. */
const directlyControls = (actor: UserRow, target: UserRow) =>
  actor.id === target.id || (target.is_bot === 1 && target.bot_owner_id === actor.id);

const channelLink = (s: StreamRow) => `#**${s.name}**`;

/** Non-guest members of the groups that let people see a private channel. */
async function metadataGroupUserIds(db: Executor, realm: Realm, stream: StreamRow, nonGuests: Set<number>): Promise<Set<number>> {
  const ids = new Set<number>();
  for (const s of METADATA_GRANTING_SETTINGS) {
    for (const id of await recursiveMemberIds(db, realm.id, stream[s])) if (nonGuests.has(id)) ids.add(id);
  }
  return ids;
}

/**
 * peer_add / peer_remove to everyone tracking these channels' subscribers, except the users
 * who changed. Public channels changed for the same users share one event per audience.
 */
export async function sendPeerEvents(
  db: Executor,
  realm: Realm,
  events: PendingEvents,
  op: "peer_add" | "peer_remove",
  streams: Map<number, StreamRow>,
  altered: Map<number, Set<number>>,
) {
  const users = await activeUsers(db, realm.id);
  const allIds = users.map((u) => u.id);
  const nonGuests = new Set(users.filter((u) => u.role !== 600).map((u) => u.id));
  const subscribers = await subscribersByStream(db, [...altered.keys()]);
  const send = (streamIds: number[], userIds: Set<number>, recipients: Iterable<number>) => {
    const to = [...recipients].filter((id) => !userIds.has(id)).sort((a, b) => a - b);
    if (!to.length || !userIds.size) return;
    events.send({
      realmId: realm.id,
      event: { type: "subscription", op, stream_ids: [...streamIds].sort((a, b) => a - b), user_ids: [...userIds].sort((a, b) => a - b) },
      userIds: to,
    });
  };
  const publicGroups = new Map<string, number[]>();
  for (const [streamId, changed] of altered) {
    const stream = streams.get(streamId)!;
    if (stream.invite_only === 1) {
      send([streamId], changed, await metadataAccessUserIds(db, realm, stream));
      continue;
    }
    const key = [...changed].sort((a, b) => a - b).join(",");
    publicGroups.set(key, [...(publicGroups.get(key) ?? []), streamId]);
  }
  for (const [key, streamIds] of publicGroups) {
    const changed = new Set(key.split(",").map(Number));
    const webPublic = streamIds.filter((id) => streams.get(id)!.is_web_public === 1);
    const withoutGuests: number[] = [];
    for (const id of streamIds) {
      if (webPublic.includes(id)) continue;
      const subs = subscribers.get(id) ?? [];
      if (subs.every((u) => nonGuests.has(u))) withoutGuests.push(id);
      else send([id], changed, new Set([...nonGuests, ...subs]));
    }
    if (webPublic.length) send(webPublic, changed, allIds);
    if (withoutGuests.length) send(withoutGuests, changed, nonGuests);
  }
}

/** How new channels are set up, as POST /users/me/subscriptions and POST /channels/create take it. */
export interface NewChannelOptions {
  announce: boolean;
  inviteOnly: boolean;
  isWebPublic: boolean;
  isDefaultStream: boolean;
  historyPublicToSubscribers: boolean | undefined;
  messageRetentionDays: string | number;
  topicsPolicy: TopicsPolicy | undefined;
  groupSettings: Partial<Record<ChannelGroupSetting, GroupSettingValue>>;
  folderId: number | undefined;
  sendNewSubscriptionMessages: boolean;
}

export interface SubscribeRequest extends NewChannelOptions {
  subscriptions: { name: string; description?: string; color?: string }[];
  principals: Principals | undefined;
  authorizationErrorsFatal: boolean;
}

/** The checks on new-channel options that come before the channels are looked at; returns the retention. */
async function checkNewChannelOptions(tx: Tx, realm: Realm, facts: UserFacts, opts: NewChannelOptions): Promise<number | null> {
  if (opts.folderId !== undefined) await checkChannelFolderId(tx, realm.id, opts.folderId);
  const retentionDays = checkedRetentionDays(opts.messageRetentionDays);
  if (opts.topicsPolicy !== undefined && opts.topicsPolicy !== "inherit" && !canSetTopicsPolicy(facts, realm.groupSettings)) {
    throw badRequest("Insufficient permission");
  }
  return retentionDays;
}

/** Checks and creates the channels that do not exist yet, telling everyone who can see them. */
async function createMissingChannels(
  tx: Tx,
  app: AppContext,
  events: PendingEvents,
  realm: Realm,
  actor: UserRow,
  facts: UserFacts,
  req: NewChannelOptions,
  missing: { name: string; description?: string }[],
  retentionDays: number | null,
): Promise<StreamRow[]> {
  const system = await systemGroupIds(tx, realm.id);
  const created: StreamRow[] = [];
  for (const spec of missing) {
    const groups: Partial<Record<ChannelGroupSetting, number>> = {};
    for (const setting of CHANNEL_GROUP_SETTINGS) {
      const value = req.groupSettings[setting];
      if (value === undefined) continue;
      const normalized = await normalizeForRealm(tx, realm.id, value);
      groups[setting] = await resolveGroupSettingValue(tx, realm, setting, normalized, channelSettingConfig(setting));
      if (
        DELETE_POLICY_SETTINGS.includes(setting) &&
        groups[setting] !== system.get("role:nobody") &&
        !holdsRealmPermission(facts, realm.groupSettings, "can_set_delete_message_policy_group")
      ) {
        throw badRequest("Insufficient permission");
      }
    }
    const refusal = channelCreationRefusal(
      facts,
      {
        canCreatePublicGroup: realm.groupSettings.can_create_public_channel_group,
        canCreatePrivateGroup: realm.groupSettings.can_create_private_channel_group,
        canCreateWebPublicGroup: realm.groupSettings.can_create_web_public_channel_group,
        webPublicEnabled: app.config.webPublicStreamsEnabled && realm.props.enable_spectator_access,
      },
      { inviteOnly: req.inviteOnly, isWebPublic: req.isWebPublic, isDefault: req.isDefaultStream },
    );
    if (refusal) throw badRequest(refusal);
    if (retentionDays !== null && actor.role !== 100) throw ownerRequired();
    const stream = await createStreamInTx(tx, app, realm, actor, {
      name: spec.name,
      description: spec.description,
      inviteOnly: req.inviteOnly,
      isWebPublic: req.isWebPublic,
      historyPublicToSubscribers: historyPublicToSubscribersFor(req.inviteOnly, req.historyPublicToSubscribers),
      isDefault: req.isDefaultStream,
      messageRetentionDays: retentionDays,
      topicsPolicy: req.topicsPolicy,
      folderId: req.folderId ?? null,
      groupSettings: groups,
    });
    await sendStreamCreate(tx, app, events, realm, stream, await metadataAccessUserIds(tx, realm, stream));
    created.push(stream);
  }
  return created;
}

/** POST /users/me/subscriptions (guests are refused by the route, before parameters are read). */
export async function subscribe(app: AppContext, actor: UserRow, realmRow: Realm, req: SubscribeRequest) {
  return runAction(app, (tx, events) => subscribeInTx(tx, app, events, actor, realmRow, req));
}

export async function subscribeInTx(tx: Tx, app: AppContext, events: PendingEvents, actor: UserRow, realmRow: Realm, req: SubscribeRequest) {
  const realm = (await getRealm(tx, realmRow.id))!;
  const facts = await userFacts(app, tx, actor);
  const principals = req.principals ?? [];
  const retentionDays = await checkNewChannelOptions(tx, realm, facts, req);

  const specs = req.subscriptions.map((s) => ({
    name: s.name.trim(),
    description: s.description?.replace(/\n/g, " "),
  }));
  for (const s of specs) checkChannelName(s.name);
  const existingByName = await getStreamsByNames(tx, realm.id, specs.map((s) => s.name));
  const existing: StreamRow[] = [];
  const missing: typeof specs = [];
  for (const s of specs) {
    const found = existingByName.get(s.name.toLowerCase());
    if (found) {
      if (!existing.includes(found)) existing.push(found);
    } else if (!missing.some((m) => m.name.toLowerCase() === s.name.toLowerCase())) missing.push(s);
  }
  const subscribingOthers = principals.length > 0 && !principals.every((p) => p === actor.id);
  const created = await createMissingChannels(tx, app, events, realm, actor, facts, req, missing, retentionDays);

  const mySubs = await subscribedChannelIds(app, tx, actor.id);
  const readable = existing.filter((s) => hasContentAccess(facts, channelFacts(s), mySubs.has(s.id)));
  const unauthorized = existing.filter((s) => !readable.includes(s));
  if (unauthorized.length && req.authorizationErrorsFatal) {
    throw badRequest(`Unable to access channel (${unauthorized[0].name}).`);
  }
  if (subscribingOthers) {
    const refused = cannotAddSubscribers(facts, readable.map(channelFacts), realm.groupSettings.can_add_subscribers_group);
    if (refused.length) throw badRequest("Insufficient permission");
  }
  const streams = [...readable, ...created];
  const subscribers = subscribingOthers ? await resolvePrincipals(tx, realm.id, principals) : [actor];

  const colors = new Map(req.subscriptions.filter((s) => s.color !== undefined).map((s) => [s.name, s.color!]));
  const { subscribed, alreadySubscribed } = await subscribeUsersInTx(tx, app, events, realm, subscribers, streams, colors);

  const result: Record<string, unknown> = { subscribed, already_subscribed: alreadySubscribed };
  if (!req.authorizationErrorsFatal) result.unauthorized = unauthorized.map((s) => s.name);
  const sent = await sendNewSubscriptionNotices(tx, app, events, realm, actor, req, subscribers, subscribed, created);
  if (req.sendNewSubscriptionMessages) result.new_subscription_messages_sent = sent;
  return result;
}

/**
 * Subscribes the users to the channels, with the events; reports by user id what was new and what
 * was not. `colors` (by channel name, as requested) colors new subscriptions.
 */
export async function subscribeUsersInTx(
  tx: Tx,
  app: AppContext,
  events: PendingEvents,
  realm: Realm,
  subscribers: UserRow[],
  streams: StreamRow[],
  colors: ReadonlyMap<string, string> = new Map(),
) {
  const subscribed: Record<string, string[]> = {};
  const alreadySubscribed: Record<string, string[]> = {};
  const altered = new Map<number, Set<number>>();
  for (const stream of streams) {
    const added = new Set(await addSubscriptions(tx, stream.id, subscribers.map((u) => u.id), colors.get(stream.name)));
    for (const u of subscribers) {
      const bucket = added.has(u.id) ? subscribed : alreadySubscribed;
      (bucket[String(u.id)] ??= []).push(stream.name);
    }
    if (added.size) altered.set(stream.id, added);
  }
  await sendSubscriptionAddEvents(tx, app, events, realm, subscribers, new Map(streams.map((s) => [s.id, s])), altered);
  return { subscribed, alreadySubscribed };
}

export interface CreateChannelRequest extends NewChannelOptions {
  name: string;
  description: string | undefined;
  subscribers: number[];
}

/** POST /channels/create (guests are refused by the route): one new channel and its first subscribers. */
export async function createChannel(app: AppContext, actor: UserRow, req: CreateChannelRequest) {
  return runAction(app, async (tx, events) => {
    const realm = (await getRealm(tx, actor.realm_id))!;
    const facts = await userFacts(app, tx, actor);
    const name = req.name.trim();
    checkChannelName(name);
    if ((await getStreamsByNames(tx, realm.id, [name])).size) throw channelAlreadyExists(name);
    const retentionDays = await checkNewChannelOptions(tx, realm, facts, req);
    const spec = { name, description: req.description?.replace(/\n/g, " ") };
    const [stream] = await createMissingChannels(tx, app, events, realm, actor, facts, req, [spec], retentionDays);
    const subscribers = req.subscribers.length ? await resolvePrincipals(tx, realm.id, req.subscribers) : [];
    const { subscribed } = await subscribeUsersInTx(tx, app, events, realm, subscribers, [stream]);
    await sendNewSubscriptionNotices(tx, app, events, realm, actor, req, subscribers, subscribed, [stream]);
    return { id: stream.id };
  });
}

async function sendSubscriptionAddEvents(
  tx: Tx,
  app: AppContext,
  events: PendingEvents,
  realm: Realm,
  subscribers: UserRow[],
  streams: Map<number, StreamRow>,
  altered: Map<number, Set<number>>,
) {
  if (!altered.size) return;
  const users = await activeUsers(tx, realm.id);
  const nonGuests = new Set(users.filter((u) => u.role !== 600).map((u) => u.id));
  const admins = new Set(users.filter((u) => u.role <= 200).map((u) => u.id));
  const guests = new Set(subscribers.filter((u) => isGuest(u.role)).map((u) => u.id));
  for (const [streamId, changed] of altered) {
    const stream = streams.get(streamId)!;
    let newlyVisible: number[] = [];
    if (stream.invite_only === 1) {
      const viaGroups = await metadataGroupUserIds(tx, realm, stream, nonGuests);
      newlyVisible = [...changed].filter((id) => !admins.has(id) && !viaGroups.has(id));
    } else if (stream.is_web_public === 0) {
      newlyVisible = [...changed].filter((id) => guests.has(id));
    }
    await sendStreamCreate(tx, app, events, realm, stream, newlyVisible);
  }
  const rows = [...altered.keys()].map((id) => streams.get(id)!);
  const data = await streamDisplayData(app, tx, rows, { subscribers: true });
  for (const user of subscribers) {
    const mine = rows.filter((s) => altered.get(s.id)!.has(user.id));
    if (!mine.length) continue;
    const subs = await activeSubscriptionsOf(tx, user.id);
    const objects = mine.map((s) =>
      formatSubscription(s, subs.find((x) => x.stream_id === s.id)!, data, { includeSubscribers: true }),
    );
    events.send({ realmId: realm.id, event: { type: "subscription", op: "add", subscriptions: objects }, userIds: [user.id] });
  }
  await sendPeerEvents(tx, realm, events, "peer_add", streams, altered);
}

/**
 * Notification Bot's messages: a DM to each other human newly subscribed to existing channels
 * (unless too many were added), the new-channel announcement, and a notice in each new channel.
 * Returns whether the DMs were sent.
 */
async function sendNewSubscriptionNotices(
  tx: Tx,
  app: AppContext,
  events: PendingEvents,
  realm: Realm,
  actor: UserRow,
  req: NewChannelOptions,
  subscribers: UserRow[],
  subscribed: Record<string, string[]>,
  created: StreamRow[],
): Promise<boolean> {
  const bot = await getNotificationBot(tx, realm.id);
  const asBot = { clientName: "Internal", readBySender: false, markReadFor: [actor.id] };
  const createdNames = new Set(created.map((s) => s.name));
  const sendDms = req.sendNewSubscriptionMessages && Object.keys(subscribed).length <= LIMITS.maxBulkNewSubscriptionMessages;
  if (sendDms) {
    for (const user of subscribers) {
      if (user.id === actor.id || user.is_bot === 1) continue;
      const names = (subscribed[String(user.id)] ?? []).filter((n) => !createdNames.has(n)).sort();
      if (!names.length) continue;
      const content =
        names.length === 1
          ? `${silentMention(actor)} subscribed you to #**${names[0]}**.`
          : `${silentMention(actor)} subscribed you to the following channels:\n\n` + names.map((n) => `* #**${n}**\n`).join("");
      await sendMessageInTx(tx, app, events, realm, bot, { kind: "direct", recipients: [user] }, content, asBot);
    }
  }
  if (req.announce && created.length) {
    const announceStream = await getStream(tx, realm.id, realm.props.new_stream_announcements_stream_id);
    if (announceStream) {
      const links = created.map(channelLink).join(", ");
      const content =
        created.length > 1
          ? `${silentMention(actor)} created the following channels: ${links}.`
          : `${silentMention(actor)} created a new channel ${links}.`;
      await sendMessageInTx(tx, app, events, realm, bot, { kind: "stream", stream: announceStream, topic: "new channels" }, content, asBot);
    }
  }
  if (realm.props.send_channel_events_messages) {
    for (const stream of created) {
      const kind = permissionPolicyName({
        inviteOnly: stream.invite_only === 1,
        isWebPublic: stream.is_web_public === 1,
        historyPublicToSubscribers: stream.history_public_to_subscribers === 1,
      });
      const description = stream.description === "" ? "*No description.*" : stream.description;
      const content = `**${kind}** channel created by ${silentMention(actor)}. **Description:**\n\`\`\`\` quote\n${description}\n\`\`\`\``;
      const fresh = (await getStream(tx, realm.id, stream.id))!;
      await sendMessageInTx(tx, app, events, realm, bot, { kind: "stream", stream: fresh, topic: channelEventsTopic(fresh) }, content, asBot);
    }
  }
  return sendDms;
}

/** DELETE /users/me/subscriptions. */
export async function unsubscribe(app: AppContext, actor: UserRow, realm: Realm, names: string[], principals: Principals | undefined) {
  return runAction(app, (tx, events) => unsubscribeInTx(app, tx, events, actor, realm, names, principals));
}

export async function unsubscribeInTx(
  app: AppContext,
  tx: Tx,
  events: PendingEvents,
  actor: UserRow,
  realm: Realm,
  names: string[],
  principals: Principals | undefined,
) {
  const targets = principals && principals.length ? await resolvePrincipals(tx, realm.id, principals) : [actor];
  const unsubscribingOthers = targets.some((t) => !directlyControls(actor, t));
  const stripped = names.map((n) => n.trim());
  for (const n of stripped) checkChannelName(n);
  const found = await getStreamsByNames(tx, realm.id, stripped);
  const facts = await userFacts(app, tx, actor);
  if (unsubscribingOthers) {
    const mine = await subscribedChannelIds(app, tx, actor.id);
    const checks = [...found.values()].map((s) => ({ channel: channelFacts(s), subscribed: mine.has(s.id) }));
    if (!canRemoveSubscribers(facts, checks)) throw badRequest("Insufficient permission");
  }
  const missing = stripped.filter((n) => !found.has(n.toLowerCase()));
  if (missing.length) throw badRequest(`Channel(s) (${missing.join(", ")}) do not exist`);
  const streams = [...new Map(stripped.map((n) => found.get(n.toLowerCase())!).map((s) => [s.id, s])).values()];

  const removed: string[] = [];
  const notRemoved: string[] = [];
  const altered = new Map<number, Set<number>>();
  const removedByUser = new Map<number, StreamRow[]>();
  for (const user of targets) {
    for (const stream of streams) {
      const gone = await removeSubscriptions(tx, stream.id, [user.id]);
      if (gone.length) {
        removed.push(stream.name);
        if (!altered.has(stream.id)) altered.set(stream.id, new Set());
        altered.get(stream.id)!.add(user.id);
        removedByUser.set(user.id, [...(removedByUser.get(user.id) ?? []), stream]);
      } else notRemoved.push(stream.name);
    }
  }
  for (const user of targets) {
    const lost = removedByUser.get(user.id);
    if (!lost) continue;
    events.send({
      realmId: realm.id,
      event: { type: "subscription", op: "remove", subscriptions: lost.map((s) => ({ name: s.name, stream_id: s.id })) },
      userIds: [user.id],
    });
    if (isAdmin(user.role)) continue;
    const userFactsAfter = await userFacts(app, tx, user);
    const hidden = lost.filter((s) => !hasBasicAccess(userFactsAfter, channelFacts(s), false));
    if (hidden.length) {
      events.send({
        realmId: realm.id,
        event: { type: "stream", op: "delete", streams: hidden.map((s) => ({ stream_id: s.id })), stream_ids: hidden.map((s) => s.id) },
        userIds: [user.id],
      });
    }
  }
  await sendPeerEvents(tx, realm, events, "peer_remove", new Map(streams.map((s) => [s.id, s])), altered);
  return { removed, not_removed: notRemoved };
}

export interface UpdateSubscriptionsRequest extends Omit<SubscribeRequest, "subscriptions"> {
  add: SubscribeRequest["subscriptions"];
  delete: string[];
}

/**
 * PATCH /users/me/subscriptions: subscribing, then unsubscribing, in one transaction, with both
 * results. Zulip refuses guests here even when they only unsubscribe.
 */
export async function updateSubscriptions(app: AppContext, actor: UserRow, realm: Realm, req: UpdateSubscriptionsRequest) {
  if (!req.add.length && !req.delete.length) throw badRequest('Nothing to do. Specify at least one of "add" or "delete".');
  if (isGuest(actor.role)) throw guestNotAllowed();
  return runAction(app, async (tx, events) => ({
    ...(await subscribeInTx(tx, app, events, actor, realm, { ...req, subscriptions: req.add })),
    ...(await unsubscribeInTx(app, tx, events, actor, realm, req.delete, req.principals)),
  }));
}

/** GET /users/me/subscriptions: the user's active subscriptions, by name (archived channels only for clients that know them). */
export async function listSubscriptions(app: AppContext, user: UserRow, includeSubscribers: boolean, includeArchived = false) {
  const subs = await activeSubscriptionsOf(app.db, user.id);
  return formatSubscriptionsOf(app, user, subs, (r) => includeArchived || !r.is_archived, includeSubscribers);
}

/** These subscriptions to the channels `shown` keeps, as subscription objects, by channel name. */
export async function formatSubscriptionsOf(
  app: AppContext,
  user: UserRow,
  subscriptions: readonly SubscriptionRow[],
  shown: (r: StreamRow) => boolean,
  includeSubscribers: boolean,
) {
  const subs = new Map(subscriptions.map((s) => [s.stream_id, s]));
  // From the organization's cached channels: every POST /register lists the subscribed ones.
  const rows = (await realmStreamRows(app, user.realm_id)).filter((r) => subs.has(r.id) && shown(r));
  rows.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const data = await streamDisplayData(app, app.db, rows, { subscribers: includeSubscribers });
  return rows.map((r) => formatSubscription(r, subs.get(r.id)!, data, { includeSubscribers }));
}

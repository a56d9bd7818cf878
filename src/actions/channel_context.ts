/**
 * Loading what the channel permission rules and channel formatting need: a user's group
 * memberships, a channel's facts, who can see a channel, and display data.
 */
import type { Executor } from "../store/schema.js";
import { CHANNEL_GROUP_SETTINGS } from "../store/schema.js";
import type { Realm } from "../store/realms.js";
import type { UserRow } from "../store/users.js";
import { groupsOfUser, recursiveMemberIds } from "../store/groups.js";
import { groupDescriptions } from "./group_settings.js";
import { groupsOf } from "./users.js";
import {
  messageActivityOfRealm,
  subscriberCountsOfRealm,
  subscribersByStream,
  subscribedStreamIds,
  SUBSCRIBER_COUNT_TABLES,
  type ChannelActivity,
  type StreamRow,
} from "../store/streams.js";
import { readsCommittedState } from "../store/table_versions.js";
import type { AppContext } from "../context.js";
import type { ChannelFacts, SenderFacts, UserFacts } from "../domain/channel_access.js";
import { METADATA_GRANTING_SETTINGS } from "../domain/channel_access.js";
import { groupSettingValues } from "../format/group_setting.js";
import type { StreamDisplayData } from "../format/streams.js";

/** Facts of the organization's cached rows (frozen, shared): every POST /register checks them all. */
const factsOfSharedRows = new WeakMap<StreamRow, ChannelFacts>();

export function channelFacts(row: StreamRow): ChannelFacts {
  const known = factsOfSharedRows.get(row);
  if (known) return known;
  const facts: ChannelFacts = {
    inviteOnly: row.invite_only === 1,
    isWebPublic: row.is_web_public === 1,
    historyPublicToSubscribers: row.history_public_to_subscribers === 1,
    isArchived: row.is_archived === 1,
    groups: Object.fromEntries(CHANNEL_GROUP_SETTINGS.map((s) => [s, row[s]])) as ChannelFacts["groups"],
  };
  if (Object.isFrozen(row)) factsOfSharedRows.set(row, Object.freeze(facts));
  return facts;
}

/**
 * What the channel rules need to know of a user. Their groups come from memory until a group,
 * a membership or a user changes: nearly every send and channel narrow asks.
 */
export async function userFacts(app: AppContext, db: Executor, user: UserRow): Promise<UserFacts> {
  return {
    id: user.id,
    role: user.role,
    isBot: user.is_bot === 1,
    groups: await groupsOf(app, db, user),
  };
}

/**
 * The active subscribers of each channel, from memory until a subscription or a user changes:
 * a client that registers with `include_subscribers` gets those of every channel it may see,
 * a million ids in an organization of 10,000 users. Shared, so frozen.
 */
export async function channelSubscriberLists(app: AppContext, db: Executor, streamIds: readonly number[]): Promise<Map<number, readonly number[]>> {
  const lists = await app.caches.channelSubscribers.getMany(streamIds.map(String), db, async (missing) => {
    const loaded = await subscribersByStream(db, missing.map(Number));
    return new Map([...loaded].map(([id, users]) => [String(id), Object.freeze(users)]));
  });
  return new Map(streamIds.map((id) => [id, lists.get(String(id)) ?? []]));
}

/** The channels the user is actively subscribed to: from memory until a subscription changes. Shared, so read-only. */
export async function subscribedChannelIds(app: AppContext, db: Executor, userId: number): Promise<ReadonlySet<number>> {
  return (await app.caches.subscribedChannels.get(String(userId), db, () => subscribedStreamIds(db, userId)))!;
}

/** A sender's facts, with their bot owner's groups and subscription where that matters. */
export async function senderFacts(app: AppContext, db: Executor, user: UserRow, streamId: number): Promise<SenderFacts> {
  const facts: SenderFacts = await userFacts(app, db, user);
  if (user.is_bot === 1 && user.bot_owner_id !== null) {
    const sub = await db
      .selectFrom("subscriptions")
      .select("user_id")
      .where("user_id", "=", user.bot_owner_id)
      .where("stream_id", "=", streamId)
      .where("active", "=", 1)
      .executeTakeFirst();
    facts.owner = { groups: await groupsOfUser(db, user.realm_id, user.bot_owner_id), subscribed: !!sub };
  }
  return facts;
}

/** Active users of the organization; Zulip keeps system bots in a realm of their own. */
export async function activeUsers(db: Executor, realmId: number) {
  return db
    .selectFrom("users")
    .select(["id", "role"])
    .where("realm_id", "=", realmId)
    .where("is_active", "=", 1)
    .where("is_system_bot", "=", 0)
    .orderBy("id")
    .execute();
}

/**
 * Who receives a channel's events (Zulip's can_access_stream_metadata_user_ids): for a public
 * or web-public channel, every non-guest and the guests subscribed to it; for a private one,
 * its subscribers, the administrators, and the non-guest members of the groups that grant
 * metadata access.
 */
export async function channelEventUserIds(db: Executor, realm: Realm, row: StreamRow): Promise<number[]> {
  const users = await activeUsers(db, realm.id);
  const subscribers = new Set((await subscribersByStream(db, [row.id])).get(row.id));
  const ids = new Set<number>();
  if (row.invite_only === 0) {
    users.filter((u) => u.role !== 600 || subscribers.has(u.id)).forEach((u) => ids.add(u.id));
  } else {
    subscribers.forEach((id) => ids.add(id));
    users.filter((u) => u.role <= 200).forEach((u) => ids.add(u.id));
    const nonGuests = new Set(users.filter((u) => u.role !== 600).map((u) => u.id));
    for (const setting of METADATA_GRANTING_SETTINGS) {
      for (const id of await recursiveMemberIds(db, realm.id, row[setting])) if (nonGuests.has(id)) ids.add(id);
    }
  }
  return [...ids].sort((a, b) => a - b);
}

/** Active users who can see a channel's metadata: the event audience, plus every guest for a web-public channel. */
export async function metadataAccessUserIds(db: Executor, realm: Realm, row: StreamRow): Promise<number[]> {
  if (row.is_web_public === 0) return channelEventUserIds(db, realm, row);
  return (await activeUsers(db, realm.id)).map((u) => u.id);
}

const DAY = 86400;

/**
 * Group values, subscriber counts (and, when asked, the subscribers) and traffic estimates for
 * showing these channels of one organization. Counts and traffic come from the organization's
 * caches.
 */
export async function streamDisplayData(
  app: AppContext,
  db: Executor,
  rows: readonly StreamRow[],
  opts: { subscribers?: boolean } = {},
): Promise<StreamDisplayData> {
  const now = app.clock.now();
  const ids = rows.map((r) => r.id);
  const realmId = rows[0]?.realm_id;
  const groupIds = new Set<number>();
  for (const r of rows) for (const setting of CHANNEL_GROUP_SETTINGS) groupIds.add(r[setting]);
  const groups = await groupDescriptions(app, db, [...groupIds]);
  // Inside a transaction that changed subscriptions, the organization's counts would be read
  // afresh and thrown away: the few channels shown are counted instead.
  const committed = readsCommittedState(db, SUBSCRIBER_COUNT_TABLES);
  const subscribers = !committed ? await subscribersByStream(db, ids) : opts.subscribers ? await channelSubscriberLists(app, db, ids) : undefined;
  const subscriberCounts =
    realmId === undefined
      ? new Map<number, number>()
      : subscribers
        ? new Map([...subscribers].map(([id, users]) => [id, users.length]))
        : (await app.caches.subscriberCounts.get(String(realmId), db, () => subscriberCountsOfRealm(db, realmId)))!;
  const activity =
    realmId === undefined
      ? new Map<number, ChannelActivity>()
      : await app.caches.channelActivity.get(String(realmId), db, () => messageActivityOfRealm(db, realmId, Math.floor(now) - 28 * DAY));
  const weeklyTraffic = new Map<number, number | null>();
  const recentlyActive = new Map<number, boolean>();
  for (const r of rows) {
    const ageDays = Math.floor((now - Number(r.date_created)) / DAY);
    const a = activity.get(r.id);
    const recent = a?.recent ?? 0;
    let traffic: number | null = null;
    if (ageDays >= 28) traffic = Math.round(recent / 4);
    else if (ageDays >= 7) traffic = Math.round((recent * 7) / ageDays);
    if (traffic === 0 && recent > 0) traffic = 1;
    weeklyTraffic.set(r.id, traffic);
    const lastActivity = Math.max(Number(r.date_created), a?.last ?? 0);
    recentlyActive.set(r.id, now - lastActivity <= 180 * DAY);
  }
  return {
    groupValues: groupSettingValues(groups),
    groupNames: new Map(groups.map((g) => [g.id, g.name])),
    subscriberCounts,
    subscribers,
    weeklyTraffic,
    recentlyActive,
  };
}

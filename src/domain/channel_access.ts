/**
 * Who may see, read, post to, administer and change the subscribers of a channel — Zulip's
 * channel permission rules as pure functions. Group memberships are passed in as the set of
 * every group the user belongs to (recursively), so nothing here touches the database.
 */
import type { ChannelGroupSetting } from "../store/schema.js";
import { isAdmin, isGuest } from "./roles.js";
import { REALM_PERMISSION_SETTINGS } from "./permission_settings.js";

export interface ChannelFacts {
  inviteOnly: boolean;
  isWebPublic: boolean;
  historyPublicToSubscribers: boolean;
  isArchived: boolean;
  /** Permission setting -> the user group holding its value. */
  groups: Record<ChannelGroupSetting, number>;
}

export interface UserFacts {
  id: number;
  role: number;
  isBot: boolean;
  /** Every group the user is in, directly or through subgroups. */
  groups: ReadonlySet<number>;
}

/** Settings whose members may see a private channel's metadata without being subscribed. */
export const METADATA_GRANTING_SETTINGS: readonly ChannelGroupSetting[] = [
  "can_administer_channel_group",
  "can_add_subscribers_group",
  "can_subscribe_group",
];

const inGroup = (user: UserFacts, groupId: number) => user.groups.has(groupId);

/**
 * Settings that never grant guests anything (allow_everyone_group=False) are checked through
 * this, so a guest listed in such a group still gets nothing.
 */
const inNonGuestGroup = (user: UserFacts, groupId: number) => !isGuest(user.role) && inGroup(user, groupId);

function inContentGrantingGroups(user: UserFacts, channel: ChannelFacts): boolean {
  return (
    inNonGuestGroup(user, channel.groups.can_subscribe_group) ||
    inNonGuestGroup(user, channel.groups.can_add_subscribers_group)
  );
}

/** May read the channel's messages: subscribed, public to non-guests, web-public, or via groups. */
export function hasContentAccess(user: UserFacts, channel: ChannelFacts, subscribed: boolean): boolean {
  if (channel.isWebPublic || subscribed) return true;
  if (isGuest(user.role)) return false;
  if (!channel.inviteOnly) return true;
  return inContentGrantingGroups(user, channel);
}

/** May see the channel exists, its name, description and settings. */
export function hasMetadataAccess(user: UserFacts, channel: ChannelFacts, subscribed: boolean): boolean {
  if (channel.isWebPublic || subscribed) return true;
  if (isGuest(user.role)) return false;
  if (!channel.inviteOnly || isAdmin(user.role)) return true;
  return METADATA_GRANTING_SETTINGS.some((s) => inGroup(user, channel.groups[s]));
}

/** Content access, or (for realm admins and metadata groups) access to the channel itself. */
export function hasBasicAccess(user: UserFacts, channel: ChannelFacts, subscribed: boolean): boolean {
  return hasContentAccess(user, channel, subscribed) || hasMetadataAccess(user, channel, subscribed);
}

/** Organization administrators administer every channel; others need can_administer_channel_group. */
export function canAdminister(user: UserFacts, channel: ChannelFacts): boolean {
  return isAdmin(user.role) || inNonGuestGroup(user, channel.groups.can_administer_channel_group);
}

/**
 * How an update or archive request fares: allowed; refused with the permission error (when the
 * user can see the channel); or refused as if the channel did not exist.
 */
export function administerAccess(user: UserFacts, channel: ChannelFacts, subscribed: boolean): "ok" | "forbidden" | "hidden" {
  if (canAdminister(user, channel)) return "ok";
  return hasContentAccess(user, channel, subscribed) ? "forbidden" : "hidden";
}

/** Whether the user may read history from before they subscribed (or without subscribing). */
export function canAccessHistory(user: UserFacts, channel: ChannelFacts, subscribed: boolean): boolean {
  if (channel.isWebPublic) return true;
  if (!channel.inviteOnly && channel.historyPublicToSubscribers && !isGuest(user.role)) return true;
  return channel.historyPublicToSubscribers && hasContentAccess(user, channel, subscribed);
}

export interface SenderFacts extends UserFacts {
  /** For a bot with an owner: the owner's groups and subscription to this channel. */
  owner?: { groups: ReadonlySet<number>; subscribed: boolean };
}

export type PostRefusal = "no_post_permission" | "not_authorized" | null;

/**
 * Whether a message may be sent to the channel, in Zulip's order: the posting group first
 * (a bot may use its owner's membership), then access to the channel itself.
 */
export function postRefusal(sender: SenderFacts, channel: ChannelFacts, subscribed: boolean): PostRefusal {
  const postGroup = channel.groups.can_send_message_group;
  if (!inGroup(sender, postGroup) && !(sender.isBot && sender.owner?.groups.has(postGroup))) {
    return "no_post_permission";
  }
  if (channel.isArchived) return "not_authorized";
  if (channel.isWebPublic) return null;
  if (!channel.inviteOnly && !isGuest(sender.role)) return null;
  if (subscribed) return null;
  if (sender.isBot && sender.owner?.subscribed) return null;
  if (channel.historyPublicToSubscribers && inContentGrantingGroups(sender, channel)) return null;
  return "not_authorized";
}

/**
 * Among channels the user can read, those to which they may not add other subscribers: users
 * in the organization's can_add_subscribers_group and administrators may add to all; others
 * need the channel's can_administer_channel_group or can_add_subscribers_group.
 */
export function cannotAddSubscribers<C extends ChannelFacts>(
  user: UserFacts,
  channels: readonly C[],
  realmCanAddSubscribersGroup: number,
): C[] {
  if (isGuest(user.role)) return [...channels];
  if (inGroup(user, realmCanAddSubscribersGroup) || isAdmin(user.role)) return [];
  return channels.filter(
    (c) => !inGroup(user, c.groups.can_administer_channel_group) && !inGroup(user, c.groups.can_add_subscribers_group),
  );
}

/** Whether the user may unsubscribe other people from every one of these channels. */
export function canRemoveSubscribers(
  user: UserFacts,
  channels: readonly { channel: ChannelFacts; subscribed: boolean }[],
): boolean {
  if (isAdmin(user.role)) return true;
  if (isGuest(user.role)) return false;
  const notAdministered = channels.filter(({ channel }) => !inGroup(user, channel.groups.can_administer_channel_group));
  return notAdministered.every(
    ({ channel, subscribed }) =>
      hasBasicAccess(user, channel, subscribed) && inGroup(user, channel.groups.can_remove_subscribers_group),
  );
}

export interface ChannelCreationPolicy {
  canCreatePublicGroup: number;
  canCreatePrivateGroup: number;
  canCreateWebPublicGroup: number;
  webPublicEnabled: boolean;
}

/** Why the user may not create a channel of this kind, as Zulip says it; null when allowed. */
export function channelCreationRefusal(
  user: UserFacts,
  policy: ChannelCreationPolicy,
  kind: { inviteOnly: boolean; isWebPublic: boolean; isDefault: boolean },
): string | null {
  const createGroup = kind.inviteOnly ? policy.canCreatePrivateGroup : policy.canCreatePublicGroup;
  if (!inNonGuestGroup(user, createGroup)) return "Insufficient permission";
  if (kind.isDefault && !isAdmin(user.role)) return "Insufficient permission";
  if (kind.inviteOnly && kind.isDefault) return "A default channel cannot be private.";
  if (kind.isWebPublic) {
    if (!policy.webPublicEnabled) return "Web-public channels are not enabled.";
    if (!inNonGuestGroup(user, policy.canCreateWebPublicGroup)) return "Insufficient permission";
  }
  return null;
}

/** The organization's permission settings: setting name -> the group holding it. */
export type RealmGroupSettings = Readonly<Record<string, number>>;

/**
 * Whether the user holds an organization-level permission. Settings that do not accept
 * role:everyone never grant guests anything, whatever group they point at.
 */
export function holdsRealmPermission(user: UserFacts, realmGroups: RealmGroupSettings, setting: string): boolean {
  const groupId = realmGroups[setting];
  return REALM_PERMISSION_SETTINGS[setting]?.allow_everyone_group ? inGroup(user, groupId) : inNonGuestGroup(user, groupId);
}

/** Zulip's can_move_messages_within_channel: administrators of the channel, or its own group. */
export function canMoveMessagesWithinChannel(user: UserFacts, channel: ChannelFacts): boolean {
  return canAdminister(user, channel) || inGroup(user, channel.groups.can_move_messages_within_channel_group);
}

/** Changing a topic: the organization-wide permission, or the channel's in the origin or destination. */
export function canEditTopic(user: UserFacts, realmGroups: RealmGroupSettings, origin: ChannelFacts, target: ChannelFacts): boolean {
  return (
    holdsRealmPermission(user, realmGroups, "can_move_messages_between_topics_group") ||
    canMoveMessagesWithinChannel(user, origin) ||
    canMoveMessagesWithinChannel(user, target)
  );
}

/** Marking a topic (un)resolved has its own permission, organization-wide or per channel. */
export function canResolveTopics(user: UserFacts, realmGroups: RealmGroupSettings, origin: ChannelFacts, target: ChannelFacts): boolean {
  return (
    holdsRealmPermission(user, realmGroups, "can_resolve_topics_group") ||
    inGroup(user, origin.groups.can_resolve_topics_group) ||
    inGroup(user, target.groups.can_resolve_topics_group)
  );
}

/** Moving messages to another channel: administrators, the organization's movers, channel administrators, or the channel's group. */
export function canMoveMessagesOutOfChannel(user: UserFacts, realmGroups: RealmGroupSettings, channel: ChannelFacts): boolean {
  return (
    holdsRealmPermission(user, realmGroups, "can_move_messages_between_channels_group") ||
    canAdminister(user, channel) ||
    inGroup(user, channel.groups.can_move_messages_out_of_channel_group)
  );
}

export interface DeletableMessage {
  senderId: number;
  /** The sender's owner, when the sender is a bot. */
  senderBotOwnerId: number | null;
  ageSeconds: number;
}

/**
 * Why the user may not delete the message (one they can read), in Zulip's order: deleting any
 * message (organization-wide, or the channel's group) needs nothing more; otherwise the message
 * must be theirs or their bot's, they must be allowed to delete their own, within the time limit.
 */
export function deleteMessageRefusal(
  user: UserFacts,
  realmGroups: RealmGroupSettings,
  message: DeletableMessage,
  channel: ChannelFacts | null,
  deleteLimitSeconds: number | null,
): "not_allowed" | "time_limit" | null {
  const deleteAny =
    holdsRealmPermission(user, realmGroups, "can_delete_any_message_group") ||
    (channel !== null && inGroup(user, channel.groups.can_delete_any_message_group));
  if (deleteAny) return null;
  if (message.senderId !== user.id && message.senderBotOwnerId !== user.id) return "not_allowed";
  const deleteOwn =
    holdsRealmPermission(user, realmGroups, "can_delete_own_message_group") ||
    (channel !== null && inGroup(user, channel.groups.can_delete_own_message_group));
  if (!deleteOwn) return "not_allowed";
  if (deleteLimitSeconds !== null && message.ageSeconds > deleteLimitSeconds) return "time_limit";
  return null;
}

/** Organization administrators may always set a channel's topics policy; others need the organization's group. */
export function canSetTopicsPolicy(user: UserFacts, realmGroups: RealmGroupSettings): boolean {
  return isAdmin(user.role) || holdsRealmPermission(user, realmGroups, "can_set_topics_policy_group");
}

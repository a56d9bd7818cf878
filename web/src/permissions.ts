/**
 * What the reader may do, from the organization's and channels' group settings, so menus and
 * forms offer only what the server would allow. The server still decides: its refusal (a
 * changed setting, a time limit) is shown where the action was asked for.
 */
import { isAdmin, model, type Message } from "./model";

export interface UserGroup {
  id: number;
  name: string;
  members: number[];
  direct_subgroup_ids: number[];
  is_system_group: boolean;
}

const GUEST = 600;

export const isGuest = () => model.me.role === GUEST;

/** The organization's user groups, system groups included, as register gave them. */
export const userGroups = () => (model.realmSettings.realm_user_groups ?? []) as UserGroup[];

// The groups by id, built once per groups array: register and each user_group event (model.ts) replace the array, nothing changes it in place.
let indexed: { groups: UserGroup[]; byId: Map<number, UserGroup> } | null = null;

function groupsById(): Map<number, UserGroup> {
  const groups = userGroups();
  if (indexed?.groups !== groups) indexed = { groups, byId: new Map(groups.map((g) => [g.id, g])) };
  return indexed.byId;
}

/** Whether the reader is in the group a setting's value names (a group's id, or people and subgroups), directly or through subgroups. */
export function holdsGroupSetting(value: unknown): boolean {
  const byId = groupsById();
  const me = model.me.user_id;
  const seen = new Set<number>();
  const inGroup = (id: number): boolean => {
    if (seen.has(id)) return false;
    seen.add(id);
    const g = byId.get(id);
    return !!g && (g.members.includes(me) || g.direct_subgroup_ids.some(inGroup));
  };
  if (typeof value === "number") return inGroup(value);
  if (value && typeof value === "object") {
    const v = value as { direct_members?: number[]; direct_subgroups?: number[] };
    return (v.direct_members ?? []).includes(me) || (v.direct_subgroups ?? []).some(inGroup);
  }
  return false;
}

/** An organization permission; those that cannot be given to everyone are never a guest's. */
function realm(setting: string, guestsMay: boolean): boolean {
  return (guestsMay || !isGuest()) && holdsGroupSetting(model.realmSettings[`realm_${setting}`]);
}

const channel = (streamId: number | undefined, setting: string) => streamId !== undefined && holdsGroupSetting(model.streams.get(streamId)?.[setting]);
const administers = (streamId: number | undefined) => isAdmin() || channel(streamId, "can_administer_channel_group");
const ageSeconds = (m: Message) => Date.now() / 1000 - m.timestamp;
/** A null limit is none. */
const within = (m: Message, limit: unknown) => typeof limit !== "number" || ageSeconds(m) < limit;

/** Only the sender edits a message's content, while the organization allows it and in its time limit. */
export function canEditContent(m: Message): boolean {
  return m.sender_id === model.me.user_id && model.realmSettings.realm_allow_message_editing !== false && within(m, model.realmSettings.realm_message_content_edit_limit_seconds);
}

/** Deleting any message, or one's own within the organization's time limit. */
export function canDelete(m: Message): boolean {
  if (realm("can_delete_any_message_group", false) || channel(m.stream_id, "can_delete_any_message_group")) return true;
  if (m.sender_id !== model.me.user_id) return false;
  return (realm("can_delete_own_message_group", true) || channel(m.stream_id, "can_delete_own_message_group")) && within(m, model.realmSettings.realm_message_content_delete_limit_seconds);
}

export function canResolve(streamId: number): boolean {
  return realm("can_resolve_topics_group", true) || channel(streamId, "can_resolve_topics_group");
}

export function canMoveWithinChannel(streamId: number): boolean {
  return realm("can_move_messages_between_topics_group", true) || administers(streamId) || channel(streamId, "can_move_messages_within_channel_group");
}

export function canMoveBetweenChannels(streamId: number): boolean {
  return realm("can_move_messages_between_channels_group", false) || administers(streamId) || channel(streamId, "can_move_messages_out_of_channel_group");
}

/** Whether the channel's messages may be moved at all: to another topic or another channel. */
export const canMove = (streamId: number) => canMoveWithinChannel(streamId) || canMoveBetweenChannels(streamId);

/** Zulip's edit history policy: "all", "moves" (only where it moved) or "none". */
export function canSeeEditHistory(m: Message & { last_moved_timestamp?: number }): boolean {
  const policy = model.realmSettings.realm_message_edit_history_visibility_policy ?? "all";
  if (policy === "none") return false;
  return !!m.last_moved_timestamp || (policy === "all" && !!m.last_edit_timestamp);
}

/** Reports go to the moderators' channel, when the organization has one; one's own messages are not reported. */
export function canReport(m: Message): boolean {
  return m.sender_id !== model.me.user_id && Number(model.realmSettings.realm_moderation_request_channel_id ?? -1) > 0;
}

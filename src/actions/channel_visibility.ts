/**
 * Keeping clients' channel lists right when who may see a channel changes without the channel
 * itself changing: a user's role, or the membership of a group a private channel's settings
 * name. Record the audiences before the change, then announce the difference after it.
 */
import type { AppContext } from "../context.js";
import type { PendingEvents, Tx } from "./run.js";
import type { Realm } from "../store/realms.js";
import type { StreamRow } from "../store/streams.js";
import { subgroupEdges } from "../store/groups.js";
import { subscribersByStream } from "../store/streams.js";
import { groupsContaining } from "../domain/group_membership.js";
import { METADATA_GRANTING_SETTINGS } from "../domain/channel_access.js";
import { metadataAccessUserIds } from "./channel_context.js";
import { sendPeerAdd, sendStreamCreate, sendStreamDelete } from "./channel_events.js";

export interface ChannelAudience {
  stream: StreamRow;
  userIds: Set<number>;
}

async function audiences(tx: Tx, realm: Realm, streams: StreamRow[]): Promise<ChannelAudience[]> {
  const out: ChannelAudience[] = [];
  for (const stream of streams) out.push({ stream, userIds: new Set(await metadataAccessUserIds(tx, realm, stream)) });
  return out;
}

/** Who sees each of the organization's unarchived channels now. */
export async function allChannelAudiences(tx: Tx, realm: Realm): Promise<ChannelAudience[]> {
  const streams = await tx.selectFrom("streams").selectAll().where("realm_id", "=", realm.id).where("is_archived", "=", 0).orderBy("id").execute();
  return audiences(tx, realm, streams);
}

/**
 * Who sees each private channel whose visibility depends on membership of one of `groupIds`:
 * a setting that grants access names a group containing one of them, at any depth.
 */
export async function channelAudiencesForGroups(tx: Tx, realm: Realm, groupIds: number[]): Promise<ChannelAudience[]> {
  const containing = groupsContaining(groupIds, await subgroupEdges(tx, realm.id));
  const streams = await tx
    .selectFrom("streams")
    .selectAll()
    .where("realm_id", "=", realm.id)
    .where("is_archived", "=", 0)
    .where("invite_only", "=", 1)
    .orderBy("id")
    .execute();
  return audiences(
    tx,
    realm,
    streams.filter((s) => METADATA_GRANTING_SETTINGS.some((setting) => containing.has(s[setting]))),
  );
}

/** Sends `stream` create (with the subscriber list) to users who can now see a channel, `stream` delete to those who no longer can. */
export async function announceChannelAudienceChanges(
  tx: Tx,
  app: AppContext,
  events: PendingEvents,
  realm: Realm,
  before: ChannelAudience[],
): Promise<void> {
  for (const { stream: old, userIds: was } of before) {
    const stream = (await tx.selectFrom("streams").selectAll().where("id", "=", old.id).executeTakeFirstOrThrow()) as StreamRow;
    const now = new Set(await metadataAccessUserIds(tx, realm, stream));
    const gained = [...now].filter((id) => !was.has(id)).sort((a, b) => a - b);
    const lost = [...was].filter((id) => !now.has(id)).sort((a, b) => a - b);
    if (gained.length) {
      await sendStreamCreate(tx, app, events, realm, stream, gained, { newChannel: false });
      const subscribers = (await subscribersByStream(tx, [stream.id])).get(stream.id) ?? [];
      sendPeerAdd(events, realm, stream.id, [...subscribers], gained);
    }
    sendStreamDelete(events, realm, [stream.id], lost);
  }
}

/**
 * Administering a channel: PATCH /streams/{id}, archiving, default channels and the
 * subscriber list. Every request is one transaction, so a refused step leaves nothing behind.
 */
import type { AppContext } from "../context.js";
import { unlessTaken } from "../store/unique.js";
import { runAction, type PendingEvents, type Tx } from "./run.js";
import type { ChannelGroupSetting } from "../store/schema.js";
import type { Realm } from "../store/realms.js";
import type { UserRow } from "../store/users.js";
import { getRealm } from "../store/realms.js";
import { defaultStreamIds, getStream, getStreamByName, getSubscription, type StreamRow } from "../store/streams.js";
import { subscriberIds } from "../store/subscriptions.js";
import { adminRequired, badRequest, cannotAdministerChannel, channelAlreadyExists, ownerRequired } from "../http/errors.js";
import { isAdmin, isOwner } from "../domain/roles.js";
import {
  METADATA_GRANTING_SETTINGS,
  administerAccess,
  canSetTopicsPolicy,
  hasContentAccess,
  holdsRealmPermission,
  type UserFacts,
} from "../domain/channel_access.js";
import { checkChannelName, permissionPolicyName, proposeChannelPrivacy, streamPostPolicy, type ChannelPrivacy } from "../domain/channels.js";
import {
  CHANNEL_SETTINGS_IN_MODEL_ORDER,
  CONTENT_ACCESS_SETTINGS,
  DELETE_POLICY_SETTINGS,
  channelSettingConfig,
  checkedRetentionDays,
  retentionPeriodText,
} from "../domain/channel_settings.js";
import { groupSettingChangeNeeded, type GroupSettingChange } from "../domain/group_setting_value.js";
import { EMPTY_TOPIC_DISPLAY_NAME } from "../domain/limits.js";
import type { TopicsPolicy } from "../domain/topics.js";
import { normalizeForRealm, resolveGroupSettingValue } from "./group_settings.js";
import { groupSettingValueForApi } from "../format/group_setting.js";
import { renderMarkdown } from "../markdown/render.js";
import { renderContextFor } from "../markdown/context.js";
import { accessStreamById, checkChannelFolderId } from "./streams.js";
import { channelEventUserIds, channelFacts, userFacts } from "./channel_context.js";
import {
  sendChannelNotice,
  sendDefaultStreams,
  sendPeerAdd,
  sendStreamCreate,
  sendStreamDelete,
  sendStreamUpdate,
  silentMention,
} from "./channel_events.js";

interface AdministeredChannel {
  stream: StreamRow;
  subscribed: boolean;
  facts: UserFacts;
}

/**
 * Zulip's access check for updating or archiving a channel: administrators of the channel
 * pass (archived channels included); users who can read it are told they may not administer
 * it; for everyone else it does not exist.
 */
async function accessForAdministration(app: AppContext, tx: Tx, user: UserRow, streamId: number): Promise<AdministeredChannel> {
  const stream = await getStream(tx, user.realm_id, streamId);
  if (!stream) throw badRequest("Invalid channel ID");
  const subscribed = (await getSubscription(tx, user.id, stream.id))?.active === 1;
  const facts = await userFacts(app, tx, user);
  const access = administerAccess(facts, channelFacts(stream), subscribed);
  if (access === "forbidden") throw cannotAdministerChannel();
  if (access === "hidden") throw badRequest("Invalid channel ID");
  return { stream, subscribed, facts };
}

/** Everything one channel change needs besides the channel. */
interface ChangeContext {
  tx: Tx;
  app: AppContext;
  events: PendingEvents;
  realm: Realm;
  actor: UserRow;
  facts: UserFacts;
}

const reload = async (tx: Tx, stream: StreamRow) => (await getStream(tx, stream.realm_id, stream.id))!;

/** Users who receive the channel's events, as it is now. */
const audienceOf = (c: ChangeContext, stream: StreamRow) => channelEventUserIds(c.tx, c.realm, stream);

const notice = (c: ChangeContext, stream: StreamRow, content: string, markReadFor: readonly number[] = []) =>
  sendChannelNotice(c.tx, c.app, c.events, c.realm, stream.id, content, markReadFor);

const privacyOf = (s: StreamRow): ChannelPrivacy => ({
  inviteOnly: s.invite_only === 1,
  isWebPublic: s.is_web_public === 1,
  historyPublicToSubscribers: s.history_public_to_subscribers === 1,
});

const difference = (a: readonly number[], b: readonly number[]) => {
  const exclude = new Set(b);
  return a.filter((id) => !exclude.has(id));
};

/** What a change of who can see a channel tells people: the channel to those who newly see it, its removal to those who no longer do. */
async function announceVisibilityChange(
  { tx, app, events, realm }: ChangeContext,
  stream: StreamRow,
  before: number[],
  after: number[],
): Promise<number[]> {
  const gaining = difference(after, before);
  await sendStreamCreate(tx, app, events, realm, stream, gaining, { newChannel: false });
  sendPeerAdd(events, realm, stream.id, await subscriberIds(tx, stream.id), gaining);
  sendStreamDelete(events, realm, [stream.id], difference(before, after));
  return difference(after, gaining);
}

export interface ChannelUpdate {
  description?: string;
  newName?: string;
  isPrivate?: boolean;
  isWebPublic?: boolean;
  historyPublicToSubscribers?: boolean;
  isDefaultStream?: boolean;
  messageRetentionDays?: string | number;
  isArchived?: boolean;
  /** null removes the channel from its folder; undefined leaves it. */
  folderId?: number | null;
  topicsPolicy?: TopicsPolicy;
  groupSettings: Partial<Record<ChannelGroupSetting, GroupSettingChange>>;
}

/** PATCH /streams/{stream_id}: checked and applied in Zulip's order, all or nothing. */
export async function updateChannel(app: AppContext, actor: UserRow, streamId: number, req: ChannelUpdate) {
  return runAction(app, async (tx, events) => {
    const realm = (await getRealm(tx, actor.realm_id))!;
    const { stream: original, subscribed, facts } = await accessForAdministration(app, tx, actor, streamId);
    let stream = original;
    const isDefault = (await defaultStreamIds(tx, realm.id)).has(stream.id);
    const privacyGiven = req.isPrivate !== undefined || req.isWebPublic !== undefined || req.historyPublicToSubscribers !== undefined;

    const proposed = proposeChannelPrivacy({ ...privacyOf(stream), isDefault }, {
      isPrivate: req.isPrivate,
      isWebPublic: req.isWebPublic,
      historyPublicToSubscribers: req.historyPublicToSubscribers,
      isDefault: req.isDefaultStream,
    });
    if (!proposed.inviteOnly && stream.id === realm.props.moderation_request_channel_id) {
      throw badRequest("Moderation request channel must be private.");
    }
    if (req.isPrivate !== undefined) {
      if (!hasContentAccess(facts, channelFacts(stream), subscribed)) throw badRequest("Channel content access is required.");
      const setting = req.isPrivate ? "can_create_private_channel_group" : "can_create_public_channel_group";
      if (!holdsRealmPermission(facts, realm.groupSettings, setting)) throw badRequest("Insufficient permission");
    }
    if (req.isWebPublic) {
      if (!(app.config.webPublicStreamsEnabled && realm.props.enable_spectator_access)) {
        throw badRequest("Web-public channels are not enabled.");
      }
      if (!holdsRealmPermission(facts, realm.groupSettings, "can_create_web_public_channel_group")) {
        throw badRequest("Insufficient permission");
      }
    }
    const c: ChangeContext = { tx, app, events, realm, actor, facts };
    if (privacyGiven) stream = await changePrivacy(c, stream, proposed);

    if (req.isDefaultStream !== undefined) {
      if (!isAdmin(actor.role)) throw adminRequired();
      await setDefault(tx, events, realm, stream, req.isDefaultStream);
    }
    if (req.messageRetentionDays !== undefined) {
      if (!isOwner(actor.role)) throw ownerRequired();
      stream = await changeRetention(c, stream, checkedRetentionDays(req.messageRetentionDays));
    }
    if (req.isArchived === false) stream = await unarchive(c, stream);
    if (req.topicsPolicy !== undefined) stream = await changeTopicsPolicy(c, stream, req.topicsPolicy);
    if (req.description !== undefined) stream = await changeDescription(c, stream, req.description);
    if (req.newName !== undefined) stream = await rename(c, stream, req.newName);
    if (req.folderId !== undefined) stream = await changeFolder(c, stream, req.folderId);
    for (const setting of CHANNEL_SETTINGS_IN_MODEL_ORDER) {
      const change = req.groupSettings[setting];
      if (change === undefined) continue;
      stream = await changeGroupSetting(c, stream, setting, change);
    }
    return {};
  });
}

async function changePrivacy(c: ChangeContext, stream: StreamRow, proposed: ChannelPrivacy): Promise<StreamRow> {
  const { tx, events, realm } = c;
  const before = await audienceOf(c, stream);
  await tx
    .updateTable("streams")
    .set({
      invite_only: proposed.inviteOnly ? 1 : 0,
      is_web_public: proposed.isWebPublic ? 1 : 0,
      history_public_to_subscribers: proposed.historyPublicToSubscribers ? 1 : 0,
    })
    .where("id", "=", stream.id)
    .execute();
  const updated = await reload(tx, stream);
  const after = await audienceOf(c, updated);
  const informed = await announceVisibilityChange(c, updated, before, after);
  sendStreamUpdate(events, realm, updated, "invite_only", proposed.inviteOnly, informed, {
    history_public_to_subscribers: proposed.historyPublicToSubscribers,
    is_web_public: proposed.isWebPublic,
  });
  const oldPolicy = permissionPolicyName(privacyOf(stream));
  const newPolicy = permissionPolicyName(proposed);
  if (oldPolicy !== newPolicy) {
    await notice(
      c,
      stream,
      `${silentMention(c.actor)} changed the [access permissions](/help/channel-permissions) for this channel from **${oldPolicy}** to **${newPolicy}**.`,
    );
  }
  return updated;
}

/** Adds or removes a default channel; the organization hears of it only when the set changes. */
async function setDefault(tx: Tx, events: PendingEvents, realm: Realm, stream: StreamRow, makeDefault: boolean) {
  const isDefault = (await defaultStreamIds(tx, realm.id)).has(stream.id);
  if (isDefault === makeDefault) return;
  if (makeDefault) {
    await tx.insertInto("default_streams").values({ realm_id: realm.id, stream_id: stream.id }).execute();
  } else {
    await tx.deleteFrom("default_streams").where("realm_id", "=", realm.id).where("stream_id", "=", stream.id).execute();
  }
  await sendDefaultStreams(tx, events, realm);
}

async function changeRetention(c: ChangeContext, stream: StreamRow, days: number | null): Promise<StreamRow> {
  const { tx, events, realm } = c;
  await tx.updateTable("streams").set({ message_retention_days: days }).where("id", "=", stream.id).execute();
  const updated = await reload(tx, stream);
  sendStreamUpdate(events, realm, updated, "message_retention_days", days, await audienceOf(c, updated));
  // The organization's default stands in for "realm_default" on either side.
  const oldDays = stream.message_retention_days ?? realm.props.message_retention_days;
  const newDays = days ?? realm.props.message_retention_days;
  const summary =
    newDays === -1
      ? "Messages in this channel will now be retained forever."
      : `Messages in this channel will now be automatically deleted ${newDays} days after they are sent.`;
  await notice(
    c,
    stream,
    `${silentMention(c.actor)} has changed the [message retention period](/help/message-retention-policy) for this channel:\n` +
      `* **Old retention period**: ${retentionPeriodText(oldDays)}\n` +
      `* **New retention period**: ${retentionPeriodText(newDays)}\n\n${summary}`,
  );
  return updated;
}

/** Unarchiving: the channel comes back as it was, unless it was both private and web-public. */
async function unarchive(c: ChangeContext, stream: StreamRow): Promise<StreamRow> {
  const { tx, app, events, realm } = c;
  if (stream.is_archived !== 1) throw badRequest("Channel is not currently deactivated");
  if (stream.invite_only === 1 && !(await subscriberIds(tx, stream.id)).length) {
    throw badRequest("Channel is private and have no subscribers");
  }
  await tx
    .updateTable("streams")
    .set({ is_archived: 0, ...(stream.invite_only === 1 ? { is_web_public: 0 } : {}) })
    .where("id", "=", stream.id)
    .execute();
  const updated = await reload(tx, stream);
  const audience = await audienceOf(c, updated);
  sendStreamUpdate(events, realm, updated, "is_archived", false, audience);
  await sendStreamCreate(tx, app, events, realm, updated, audience, { newChannel: false, forUnarchiving: true });
  await notice(c, stream, `Channel #**${updated.name}** has been unarchived.`);
  return updated;
}

async function changeTopicsPolicy(c: ChangeContext, stream: StreamRow, policy: TopicsPolicy): Promise<StreamRow> {
  const { tx, events, realm, facts } = c;
  if (policy !== "inherit" && !canSetTopicsPolicy(facts, realm.groupSettings)) throw badRequest("Insufficient permission");
  if (policy === "empty_topic_only") {
    const named = await tx.selectFrom("messages").select("id").where("stream_id", "=", stream.id).where("topic", "!=", "").executeTakeFirst();
    if (named) {
      throw badRequest(
        `To enable this configuration, all messages in this channel must be in the ${EMPTY_TOPIC_DISPLAY_NAME} topic. Consider renaming or deleting other topics.`,
      );
    }
  }
  if (stream.topics_policy === policy) return stream;
  await tx.updateTable("streams").set({ topics_policy: policy }).where("id", "=", stream.id).execute();
  const updated = await reload(tx, stream);
  sendStreamUpdate(events, realm, updated, "topics_policy", policy, await audienceOf(c, updated));
  return updated;
}

const quoted = (description: string) => `\`\`\`\` quote\n${description === "" ? "*No description.*" : description}\n\`\`\`\``;

async function changeDescription(c: ChangeContext, stream: StreamRow, raw: string): Promise<StreamRow> {
  const { tx, app, events, realm, actor } = c;
  // Channel descriptions are one line.
  const description = raw.replace(/\n/g, " ");
  const rendered = renderMarkdown(description, await renderContextFor(app, realm, actor, tx)).html;
  await tx.updateTable("streams").set({ description, rendered_description: rendered }).where("id", "=", stream.id).execute();
  const updated = await reload(tx, stream);
  sendStreamUpdate(events, realm, updated, "description", description, await audienceOf(c, updated), {
    rendered_description: rendered,
  });
  await notice(
    c,
    stream,
    `${silentMention(actor)} changed the description for this channel.\n\n` +
      `* **Old description:**\n${quoted(stream.description)}\n* **New description:**\n${quoted(description)}`,
  );
  return updated;
}

async function rename(c: ChangeContext, stream: StreamRow, raw: string): Promise<StreamRow> {
  const { tx, events, realm, actor } = c;
  const name = raw.trim();
  if (name === stream.name) throw badRequest("Channel already has that name.");
  // Changing only the case keeps the name's owner, so nothing else needs checking.
  if (name.toLowerCase() !== stream.name.toLowerCase()) {
    checkChannelName(name);
    if (await getStreamByName(tx, realm.id, name)) throw channelAlreadyExists(name);
  }
  await unlessTaken(tx.updateTable("streams").set({ name }).where("id", "=", stream.id).execute(), () => channelAlreadyExists(name));
  const updated = await reload(tx, stream);
  sendStreamUpdate(events, realm, updated, "name", name, await audienceOf(c, updated), { name: stream.name });
  await notice(c, stream, `${silentMention(actor)} renamed channel **${stream.name}** to **${name}**.`);
  return updated;
}

async function changeFolder(c: ChangeContext, stream: StreamRow, folderId: number | null): Promise<StreamRow> {
  const { tx, events, realm } = c;
  if (folderId !== null) await checkChannelFolderId(tx, realm.id, folderId);
  await tx.updateTable("streams").set({ folder_id: folderId }).where("id", "=", stream.id).execute();
  const updated = await reload(tx, stream);
  sendStreamUpdate(events, realm, updated, "folder_id", folderId, await audienceOf(c, updated));
  return updated;
}

async function systemGroupName(tx: Tx, groupId: number): Promise<string | null> {
  const row = await tx.selectFrom("user_groups").select(["name", "is_system_group"]).where("id", "=", groupId).executeTakeFirst();
  return row?.is_system_group === 1 ? row.name : null;
}

async function changeGroupSetting(
  c: ChangeContext,
  stream: StreamRow,
  setting: ChannelGroupSetting,
  change: GroupSettingChange,
): Promise<StreamRow> {
  const { tx, events, realm, actor, facts } = c;
  const next = await normalizeForRealm(tx, realm.id, change.new);
  const expected = change.old === undefined ? undefined : await normalizeForRealm(tx, realm.id, change.old);
  const current = await groupSettingValueForApi(tx, stream[setting]);
  if (!groupSettingChangeNeeded(current, next, expected)) return stream;
  if (CONTENT_ACCESS_SETTINGS.includes(setting)) {
    const subscribed = (await getSubscription(tx, actor.id, stream.id))?.active === 1;
    if (!hasContentAccess(facts, channelFacts(stream), subscribed)) throw badRequest("Channel content access is required.");
  }
  if (DELETE_POLICY_SETTINGS.includes(setting) && !holdsRealmPermission(facts, realm.groupSettings, "can_set_delete_message_policy_group")) {
    throw badRequest("Insufficient permission");
  }
  const grantsMetadata = METADATA_GRANTING_SETTINGS.includes(setting);
  const before = grantsMetadata ? await audienceOf(c, stream) : [];
  const groupId = await resolveGroupSettingValue(tx, realm, setting, next, channelSettingConfig(setting), stream[setting]);
  await tx.updateTable("streams").set({ [setting]: groupId }).where("id", "=", stream.id).execute();
  const updated = await reload(tx, stream);
  const after = await audienceOf(c, updated);
  const informed = grantsMetadata ? await announceVisibilityChange(c, updated, before, after) : after;
  sendStreamUpdate(events, realm, updated, setting, await groupSettingValueForApi(tx, groupId), informed);
  if (setting === "can_send_message_group") {
    const oldPolicy = streamPostPolicy(await systemGroupName(tx, stream[setting]));
    const newPolicy = streamPostPolicy(await systemGroupName(tx, groupId));
    if (oldPolicy !== newPolicy) {
      sendStreamUpdate(events, realm, updated, "stream_post_policy", newPolicy, informed);
      sendStreamUpdate(events, realm, updated, "is_announcement_only", newPolicy === 2, informed);
    }
  }
  return updated;
}

/** DELETE /streams/{stream_id}: the channel keeps its name, settings and subscribers. */
export async function archiveChannel(app: AppContext, actor: UserRow, streamId: number) {
  return runAction(app, async (tx, events) => {
    const realm = (await getRealm(tx, actor.realm_id))!;
    const { stream, facts } = await accessForAdministration(app, tx, actor, streamId);
    if (stream.is_archived === 1) throw badRequest("Channel is already deactivated");
    const c: ChangeContext = { tx, app, events, realm, actor, facts };
    await setDefault(tx, events, realm, stream, false);
    await tx.updateTable("streams").set({ is_archived: 1 }).where("id", "=", stream.id).execute();
    const updated = await reload(tx, stream);
    const audience = await audienceOf(c, updated);
    sendStreamUpdate(events, realm, updated, "is_archived", true, audience);
    sendStreamDelete(events, realm, [stream.id], audience, { forArchiving: true });
    // Nobody needs to read the notice: it starts out read for everyone.
    await notice(c, stream, `Channel #**${stream.name}** has been archived.`, await subscriberIds(tx, stream.id));
    return {};
  });
}

/** POST /default_streams (administrators only, checked by the route). */
export async function addDefaultChannel(app: AppContext, actor: UserRow, streamId: number) {
  return runAction(app, async (tx, events) => {
    const realm = (await getRealm(tx, actor.realm_id))!;
    const { stream } = await accessStreamById(app, tx, actor, streamId);
    if (stream.invite_only === 1) throw badRequest("Private channels cannot be made default.");
    await setDefault(tx, events, realm, stream, true);
    return {};
  });
}

/** DELETE /default_streams (administrators only, checked by the route). */
export async function removeDefaultChannel(app: AppContext, actor: UserRow, streamId: number) {
  return runAction(app, async (tx, events) => {
    const realm = (await getRealm(tx, actor.realm_id))!;
    const { stream } = await accessStreamById(app, tx, actor, streamId, { requireContentAccess: false });
    await setDefault(tx, events, realm, stream, false);
    return {};
  });
}

/** GET /streams/{stream_id}/members: for anyone who can see the channel. */
export async function channelMembers(app: AppContext, user: UserRow, streamId: number) {
  const { stream } = await accessStreamById(app, app.db, user, streamId, { requireContentAccess: false });
  return { subscribers: await subscriberIds(app.db, stream.id) };
}

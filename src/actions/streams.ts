import type { AppContext } from "../context.js";
import { unlessTaken } from "../store/unique.js";
import type { Tx } from "./run.js";
import type { Realm } from "../store/realms.js";
import type { UserRow } from "../store/users.js";
import type { ChannelGroupSetting } from "../store/schema.js";
import { createAnonymousGroup, systemGroupIds } from "../store/groups.js";
import { renderMarkdown } from "../markdown/render.js";
import { renderContextFor } from "../markdown/context.js";
import type { Executor } from "../store/schema.js";
import {
  defaultStreamIds,
  getStreamByName,
  listStreams,
  type StreamRow,
} from "../store/streams.js";
import { badRequest, channelAlreadyExists } from "../http/errors.js";
import { getChannelFolder } from "../store/channel_folders.js";
import { indexById } from "../store/read_cache.js";
import { isGuest } from "../domain/roles.js";
import { hasBasicAccess, hasContentAccess, hasMetadataAccess } from "../domain/channel_access.js";
import { channelFacts, streamDisplayData, subscribedChannelIds, userFacts } from "./channel_context.js";
import { formatStream, streamJson, type StreamDisplayData } from "../format/streams.js";

export interface CreateStreamInput {
  name: string;
  description?: string;
  inviteOnly?: boolean;
  isWebPublic?: boolean;
  historyPublicToSubscribers?: boolean;
  isDefault?: boolean;
  messageRetentionDays?: number | null;
  topicsPolicy?: string;
  folderId?: number | null;
  /** Group-setting values already resolved to user group ids. */
  groupSettings?: Partial<Record<ChannelGroupSetting, number>>;
}

/** Creating a channel row with Zulip's defaults; callers validate and send events. */
export async function createStreamInTx(
  tx: Tx,
  app: AppContext,
  realm: Realm,
  creator: UserRow | null,
  input: CreateStreamInput,
) {
  const system = await systemGroupIds(tx, realm.id);
  const nobody = system.get("role:nobody")!;
  const given = input.groupSettings ?? {};
  const administer =
    given.can_administer_channel_group ??
    (creator ? await createAnonymousGroup(tx, realm.id, [creator.id], []) : nobody);
  const inviteOnly = input.inviteOnly ?? false;
  const description = (input.description ?? "").replace(/\n/g, " ");
  const stream = await unlessTaken(
    tx
      .insertInto("streams")
      .values({
        realm_id: realm.id,
        name: input.name,
        description,
        rendered_description: renderMarkdown(description, await renderContextFor(app, realm, creator, tx)).html,
        invite_only: inviteOnly ? 1 : 0,
        is_web_public: input.isWebPublic ? 1 : 0,
        history_public_to_subscribers: (input.historyPublicToSubscribers ?? !inviteOnly) ? 1 : 0,
        date_created: Math.floor(app.clock.now()),
        creator_id: creator?.id ?? null,
        message_retention_days: input.messageRetentionDays ?? null,
        is_archived: 0,
        folder_id: input.folderId ?? null,
        topics_policy: input.topicsPolicy ?? "inherit",
        recipient_id: null,
        first_message_id: null,
        can_add_subscribers_group: given.can_add_subscribers_group ?? nobody,
        can_administer_channel_group: administer,
        can_delete_any_message_group: given.can_delete_any_message_group ?? nobody,
        can_delete_own_message_group: given.can_delete_own_message_group ?? nobody,
        can_move_messages_out_of_channel_group: given.can_move_messages_out_of_channel_group ?? nobody,
        can_move_messages_within_channel_group: given.can_move_messages_within_channel_group ?? nobody,
        can_remove_subscribers_group: given.can_remove_subscribers_group ?? system.get("role:administrators")!,
        can_resolve_topics_group: given.can_resolve_topics_group ?? nobody,
        can_send_message_group: given.can_send_message_group ?? system.get("role:everyone")!,
        can_subscribe_group: given.can_subscribe_group ?? nobody,
      })
      .returningAll()
      .executeTakeFirstOrThrow(),
    () => channelAlreadyExists(input.name),
  );
  const { id: recipientId } = await tx
    .insertInto("recipients")
    .values({ type: 2, type_id: stream.id })
    .returning("id")
    .executeTakeFirstOrThrow();
  await tx.updateTable("streams").set({ recipient_id: recipientId }).where("id", "=", stream.id).execute();
  if (input.isDefault) {
    await tx.insertInto("default_streams").values({ realm_id: realm.id, stream_id: stream.id }).execute();
  }
  return { ...stream, recipient_id: recipientId };
}

/** A channel folder of the organization (archived ones included), or Zulip's error. */
export async function checkChannelFolderId(db: Executor, realmId: number, folderId: number): Promise<void> {
  if (!(await getChannelFolder(db, realmId, folderId))) throw badRequest("Invalid channel folder ID");
}

export interface StreamAccess {
  stream: StreamRow;
  subscribed: boolean;
}

/**
 * Finds a channel the caller may access, failing with `error` both when it does not exist and
 * when the caller may not see it, so that existence is not revealed.
 */
async function accessStream(
  app: AppContext,
  db: Executor,
  user: UserRow,
  stream: StreamRow | undefined,
  error: string,
  opts: { requireContentAccess: boolean },
): Promise<StreamAccess> {
  if (!stream || stream.is_archived === 1) throw badRequest(error);
  const subscribed = (await subscribedChannelIds(app, db, user.id)).has(stream.id);
  const facts = await userFacts(app, db, user);
  const channel = channelFacts(stream);
  const allowed = opts.requireContentAccess
    ? hasContentAccess(facts, channel, subscribed)
    : hasBasicAccess(facts, channel, subscribed);
  if (!allowed) throw badRequest(error);
  return { stream, subscribed };
}

export async function accessStreamById(
  app: AppContext,
  db: Executor,
  user: UserRow,
  streamId: number,
  opts = { requireContentAccess: true },
): Promise<StreamAccess> {
  return accessStream(app, db, user, await findChannel(app, db, user.realm_id, streamId), "Invalid channel ID", opts);
}

export async function accessStreamByName(
  app: AppContext,
  db: Executor,
  user: UserRow,
  name: string,
  opts = { requireContentAccess: true },
): Promise<StreamAccess> {
  const stream = await getStreamByName(db, user.realm_id, name);
  return accessStream(app, db, user, stream, `Invalid channel name '${name}'`, opts);
}

export interface ListStreamsOptions {
  includePublic: boolean;
  includeWebPublic: boolean;
  includeSubscribed: boolean;
  excludeArchived: boolean;
  includeAll: boolean;
  includeDefault: boolean;
  includeOwnerSubscribed: boolean;
  includeCanAccessContent: boolean;
}

/**
 * Every channel of an organization, archived ones too, in id order: from memory until the
 * streams table is written (every client's POST /register reads them all). Shared, so frozen.
 */
export async function realmStreamRows(app: AppContext, realmId: number, db: Executor = app.db): Promise<readonly StreamRow[]> {
  const rows = await app.caches.realmStreams.get(String(realmId), db, async () =>
    Object.freeze((await listStreams(db, realmId)).map((r) => Object.freeze(r))),
  );
  return rows!;
}

/**
 * A channel of the organization by id, or by name in any case, from the cached channels (which
 * a transaction that has written channels reads afresh: its writes moved their version on).
 */
export async function findChannel(app: AppContext, db: Executor, realmId: number, indicator: number | string): Promise<StreamRow | undefined> {
  const rows = await realmStreamRows(app, realmId, db);
  if (typeof indicator === "number") return indexById(rows).get(indicator);
  const name = indicator.toLowerCase();
  return rows.find((r) => r.name.toLowerCase() === name);
}

/** The channels of the requested sources, sorted by name, and what showing them needs. */
async function selectStreamsFor(
  app: AppContext,
  user: UserRow,
  opts: ListStreamsOptions,
): Promise<{ selected: readonly StreamRow[]; data: StreamDisplayData }> {
  const db = app.db;
  let rows = await realmStreamRows(app, user.realm_id);
  if (opts.excludeArchived) rows = rows.filter((r) => r.is_archived === 0);
  const facts = await userFacts(app, db, user);
  const subscribed = await subscribedChannelIds(app, db, user.id);
  const isSubscribed = (r: StreamRow) => subscribed.has(r.id);

  let selected: StreamRow[];
  if (opts.includeAll) {
    selected = rows.filter((r) => hasMetadataAccess(facts, channelFacts(r), isSubscribed(r)));
  } else {
    const ownerSubscribed =
      opts.includeOwnerSubscribed && user.is_bot === 1 && user.bot_owner_id !== null
        ? await subscribedChannelIds(app, db, user.bot_owner_id)
        : new Set<number>();
    const includePublic = opts.includePublic && !isGuest(user.role);
    selected = rows.filter((r) => {
      if (ownerSubscribed.has(r.id)) return true;
      if (opts.includeCanAccessContent) return hasContentAccess(facts, channelFacts(r), isSubscribed(r));
      if (opts.includeSubscribed && isSubscribed(r)) return true;
      if (includePublic && r.invite_only === 0) return true;
      return (
        opts.includeWebPublic &&
        r.is_web_public === 1 &&
        r.invite_only === 0 &&
        r.history_public_to_subscribers === 1 &&
        r.is_archived === 0
      );
    });
  }
  selected.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { selected, data: await streamDisplayData(app, db, selected) };
}

/** GET /streams: the union of the requested sources, sorted by name. */
export async function listStreamsFor(app: AppContext, user: UserRow, opts: ListStreamsOptions) {
  const { selected, data } = await selectStreamsFor(app, user, opts);
  const defaults = opts.includeDefault ? await defaultStreamIds(app.db, user.realm_id) : undefined;
  return selected.map((r) => {
    const out = formatStream(r, data);
    if (defaults) out.is_default = defaults.has(r.id);
    return out;
  });
}

/** The channels `listStreamsFor` shows, each as its JSON (POST /register sends them all), without `is_default`. */
export async function streamJsonFor(
  app: AppContext,
  user: UserRow,
  opts: ListStreamsOptions & { includeDefault: false },
): Promise<{ id: number; json: Buffer }[]> {
  const { selected, data } = await selectStreamsFor(app, user, opts);
  return selected.map((r) => ({ id: r.id, json: streamJson(r, data) }));
}

/** GET /streams/{stream_id}: channels the user can read or, for admins and metadata groups, see. */
export async function getStreamFor(app: AppContext, user: UserRow, streamId: number) {
  const { stream } = await accessStreamById(app, app.db, user, streamId, { requireContentAccess: false });
  return formatStream(stream, await streamDisplayData(app, app.db, [stream]));
}

/** What a bot has beyond its user row: default channels, services, configuration and storage. */
import type { Selectable } from "kysely";
import type { BotServiceTable, Executor } from "./schema.js";

export type BotServiceRow = Selectable<BotServiceTable>;

export interface BotExtras {
  defaultSendingStream: { id: number; name: string; invite_only: number } | null;
  defaultEventsRegisterStream: { id: number; name: string; invite_only: number } | null;
  defaultAllPublicStreams: boolean;
  services: BotServiceRow[];
  config: Record<string, string>;
}

/** The extras of each of `botIds` (bots without a row get none), read in four statements. */
export async function botExtras(db: Executor, botIds: readonly number[]): Promise<Map<number, BotExtras>> {
  const out = new Map<number, BotExtras>();
  if (!botIds.length) return out;
  for (const id of botIds) {
    out.set(id, { defaultSendingStream: null, defaultEventsRegisterStream: null, defaultAllPublicStreams: false, services: [], config: {} });
  }
  const defaults = await db.selectFrom("bot_defaults").selectAll().where("user_id", "in", botIds).execute();
  const streamIds = defaults.flatMap((d) => [d.default_sending_stream_id, d.default_events_register_stream_id]).filter((id): id is number => id !== null);
  const streams = streamIds.length
    ? new Map((await db.selectFrom("streams").select(["id", "name", "invite_only"]).where("id", "in", streamIds).execute()).map((s) => [s.id, s]))
    : new Map();
  for (const d of defaults) {
    const extras = out.get(d.user_id)!;
    extras.defaultSendingStream = d.default_sending_stream_id === null ? null : (streams.get(d.default_sending_stream_id) ?? null);
    extras.defaultEventsRegisterStream =
      d.default_events_register_stream_id === null ? null : (streams.get(d.default_events_register_stream_id) ?? null);
    extras.defaultAllPublicStreams = d.default_all_public_streams === 1;
  }
  const services = await db.selectFrom("bot_services").selectAll().where("user_id", "in", botIds).orderBy("id").execute();
  for (const s of services) out.get(s.user_id)!.services.push(s);
  const config = await db.selectFrom("bot_config").selectAll().where("user_id", "in", botIds).orderBy("key").execute();
  for (const c of config) out.get(c.user_id)!.config[c.key] = c.value;
  return out;
}

export interface BotDefaultsChange {
  default_sending_stream_id?: number | null;
  default_events_register_stream_id?: number | null;
  default_all_public_streams?: 0 | 1;
}

/** Writes some of a bot's defaults, creating its row on the first change. */
export async function setBotDefaults(db: Executor, botId: number, change: BotDefaultsChange): Promise<void> {
  const existing = await db.selectFrom("bot_defaults").select("user_id").where("user_id", "=", botId).executeTakeFirst();
  if (existing) {
    await db.updateTable("bot_defaults").set(change).where("user_id", "=", botId).execute();
    return;
  }
  await db
    .insertInto("bot_defaults")
    .values({
      user_id: botId,
      default_sending_stream_id: change.default_sending_stream_id ?? null,
      default_events_register_stream_id: change.default_events_register_stream_id ?? null,
      default_all_public_streams: change.default_all_public_streams ?? 0,
    })
    .execute();
}

export async function insertBotService(db: Executor, row: Omit<BotServiceRow, "id">): Promise<void> {
  await db.insertInto("bot_services").values(row).execute();
}

export async function updateBotService(db: Executor, serviceId: number, change: { base_url: string; interface: number }): Promise<void> {
  await db.updateTable("bot_services").set(change).where("id", "=", serviceId).execute();
}

/** Sets one entry of a bot's configuration, replacing the entry of the same key. */
export async function putBotConfigEntry(db: Executor, userId: number, key: string, value: string): Promise<void> {
  const updated = await db.updateTable("bot_config").set({ value }).where("user_id", "=", userId).where("key", "=", key).executeTakeFirst();
  if (Number(updated.numUpdatedRows) === 0) await db.insertInto("bot_config").values({ user_id: userId, key, value }).execute();
}

/** Rows per insert: three bound values each, well inside both databases' limits. */
const ENTRIES_PER_INSERT = 300;

/**
 * Writes many storage entries at once, each replacing the entry of the same key: a request may
 * carry hundreds of thousands, which one statement per entry would take seconds to write.
 */
export async function putBotStorageEntries(db: Executor, userId: number, entries: [string, string][]): Promise<void> {
  if (!entries.length) return;
  await db.deleteFrom("bot_storage").where("user_id", "=", userId).where("key", "in", entries.map(([key]) => key)).execute();
  for (let i = 0; i < entries.length; i += ENTRIES_PER_INSERT) {
    const rows = entries.slice(i, i + ENTRIES_PER_INSERT).map(([key, value]) => ({ user_id: userId, key, value }));
    await db.insertInto("bot_storage").values(rows).execute();
  }
}

export async function botStorage(db: Executor, userId: number): Promise<Map<string, string>> {
  const rows = await db.selectFrom("bot_storage").select(["key", "value"]).where("user_id", "=", userId).orderBy("key").execute();
  return new Map(rows.map((r) => [r.key, r.value]));
}

export async function deleteBotStorage(db: Executor, userId: number, keys: readonly string[] | undefined): Promise<void> {
  let q = db.deleteFrom("bot_storage").where("user_id", "=", userId);
  if (keys) {
    if (!keys.length) return;
    q = q.where("key", "in", keys);
  }
  await q.execute();
}

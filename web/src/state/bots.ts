/**
 * The bots the reader administers, kept current from `realm_bot` events as register listed them
 * (`realm_bots`), and the texts the Bots settings hand out: a zuliprc file and an incoming
 * webhook's URL. Pure.
 */
export interface BotService {
  base_url?: string;
  interface?: number;
  token?: string;
  config_data?: Record<string, string>;
  service_name?: string;
}

export interface Bot {
  user_id: number;
  email: string;
  full_name: string;
  bot_type: number;
  is_active: boolean;
  api_key: string;
  owner_id?: number;
  default_sending_stream: string | null;
  default_events_register_stream: string | null;
  default_all_public_streams: boolean;
  avatar_url: string;
  services: BotService[];
}

export const BOT_TYPES: [number, string][] = [
  [1, "Generic"],
  [2, "Incoming webhook"],
  [3, "Outgoing webhook"],
];

export const botTypeName = (type: number) => BOT_TYPES.find(([t]) => t === type)?.[1] ?? "Embedded";

/** `add` replaces (an owner change re-adds the bot), `update` merges its fields, `delete` and the old `remove` drop it. */
export function applyBotEvent(bots: ReadonlyMap<number, Bot>, e: Record<string, any>): Map<number, Bot> {
  const next = new Map(bots);
  if (e.op === "add") next.set(e.bot.user_id, e.bot as Bot);
  else if (e.op === "update") {
    const bot = next.get(e.bot.user_id);
    if (bot) next.set(bot.user_id, { ...bot, ...e.bot });
  } else if (e.op === "delete" || e.op === "remove") next.delete(e.bot.user_id);
  return next;
}

/** The file Zulip's clients and the zulip_bots framework read the bot's credentials from. */
export function zuliprc(bot: Pick<Bot, "email" | "api_key">, site: string): string {
  return `[api]\nemail=${bot.email}\nkey=${bot.api_key}\nsite=${site}\n`;
}

/** The address an integration posts to: `<site>/api/v1/external/<name>?api_key=…&stream=…&topic=…`. */
export function integrationUrl(site: string, integration: string, apiKey: string, channel: string, topic: string): string {
  const query = new URLSearchParams({ api_key: apiKey });
  if (channel) query.set("stream", channel);
  if (topic.trim()) query.set("topic", topic.trim());
  return `${site}/api/v1/external/${encodeURIComponent(integration.trim())}?${query}`;
}

/** Zulip's rules for bots: kinds, addresses, services and the sizes of their stored data. */
import { badRequest } from "../http/errors.js";
import { isValidEmail } from "./users.js";

export const BotType = {
  GENERIC: 1,
  INCOMING_WEBHOOK: 2,
  OUTGOING_WEBHOOK: 3,
  EMBEDDED: 4,
} as const;

/** Service.GENERIC and Service.SLACK: the formats an outgoing webhook can post in. */
export const INTERFACE_TYPES = [1, 2] as const;

/** Zulip's USER_STATE_SIZE_LIMIT: characters of keys and values one user may keep in /bot_storage. */
export const USER_STATE_SIZE_LIMIT = 10_000_000;

/** Zulip's BOT_CONFIG_SIZE_LIMIT: characters of one configuration entry (key and value). */
export const BOT_CONFIG_SIZE_LIMIT = 10_000;

/** Zulip's check_short_name: surrounding spaces dropped, something must remain. */
export function checkShortName(raw: string): string {
  const short = raw.trim();
  if (!short) throw badRequest("Bad name or username");
  return short;
}

/** The address of a new bot, `<short name>-bot@<bot domain>`, if it is one Zulip would accept. */
export function botEmail(shortName: string, botDomain: string): string {
  const email = `${shortName}-bot@${botDomain}`;
  if (!isValidEmail(email)) throw badRequest("Bad name or username");
  return email;
}

/**
 * Zulip's allowed_bot_types: a user who may create only write-only bots cannot choose a generic
 * one; embedded bots need a server that runs them, which Confab is not.
 */
export function allowedBotTypes(canCreateAllBots: boolean): number[] {
  const types: number[] = canCreateAllBots ? [BotType.GENERIC] : [];
  return [...types, BotType.INCOMING_WEBHOOK, BotType.OUTGOING_WEBHOOK];
}

export function checkBotType(botType: number, canCreateAllBots: boolean): void {
  if (!allowedBotTypes(canCreateAllBots).includes(botType)) throw badRequest("Invalid bot type");
}

export function checkInterfaceType(interfaceType: number): void {
  if (!(INTERFACE_TYPES as readonly number[]).includes(interfaceType)) throw badRequest("Invalid interface type");
}

/** Python's len(): code points, not UTF-16 units. */
const size = (s: string) => [...s].length;

/** Zulip's check on one configuration entry, measured as the key and the value together. */
export function checkConfigEntry(key: string, value: string): void {
  const needed = size(key) + size(value);
  if (needed > BOT_CONFIG_SIZE_LIMIT) {
    throw badRequest(
      `Cannot store configuration. Request would require ${needed} characters. The current configuration size limit is ${BOT_CONFIG_SIZE_LIMIT} characters.`,
    );
  }
}

/**
 * Zulip's set_bot_storage limit: the stored total after writing `entries` (each replacing the
 * entry of the same key) may not pass the limit.
 */
export function checkStorageSize(stored: ReadonlyMap<string, string>, entries: [string, string][], limit = USER_STATE_SIZE_LIMIT): void {
  let total = 0;
  for (const [key, value] of stored) total += size(key) + size(value);
  const next = new Map(stored);
  for (const [key, value] of entries) {
    const old = next.get(key);
    total += size(key) + size(value) - (old === undefined ? 0 : size(key) + size(old));
    next.set(key, value);
  }
  if (total > limit) {
    throw badRequest(`Request exceeds storage limit by ${total - limit} characters. The limit is ${limit} characters.`);
  }
}

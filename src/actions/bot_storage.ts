/**
 * /bot_storage: the key-value store the zulip_bots framework keeps for a bot (its StateHandler).
 * Only bots have one; each request reads or changes it as a whole, in one transaction.
 */
import type { AppContext } from "../context.js";
import type { Caller } from "../http/auth.js";
import { badRequest } from "../http/errors.js";
import { runAction } from "./run.js";
import { botStorage, deleteBotStorage, putBotStorageEntries } from "../store/bots.js";
import { checkStorageSize } from "../domain/bots.js";

const keyDoesNotExist = () => badRequest("Key does not exist.");

/** The asked keys (all when none are named); one missing key fails the request. */
export async function getBotStorage(app: AppContext, caller: Caller, keys: string[] | undefined): Promise<Record<string, string>> {
  const stored = await botStorage(app.db, caller.user.id);
  const out: Record<string, string> = {};
  for (const key of keys ?? stored.keys()) {
    const value = stored.get(key);
    if (value === undefined) throw keyDoesNotExist();
    out[key] = value;
  }
  return out;
}

export async function putBotStorage(app: AppContext, caller: Caller, entries: Record<string, string>): Promise<void> {
  await runAction(app, async (tx) => {
    const pairs = Object.entries(entries);
    checkStorageSize(await botStorage(tx, caller.user.id), pairs);
    await putBotStorageEntries(tx, caller.user.id, pairs);
  });
}

/** Removes the named keys (all when none are named); if any is missing, none is removed. */
export async function removeBotStorage(app: AppContext, caller: Caller, keys: string[] | undefined): Promise<void> {
  await runAction(app, async (tx) => {
    if (keys) {
      const stored = await botStorage(tx, caller.user.id);
      if (keys.some((key) => !stored.has(key))) throw keyDoesNotExist();
    }
    await deleteBotStorage(tx, caller.user.id, keys);
  });
}

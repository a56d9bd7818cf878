import { endpoint } from "../http/endpoint.js";
import { P } from "../http/params.js";
import type { AuthedContext } from "../http/endpoint.js";
import { badRequest } from "../http/errors.js";
import { getBotStorage, putBotStorage, removeBotStorage } from "../actions/bot_storage.js";

/** People have no storage: only bots run the zulip_bots framework that keeps one. */
function requireBotUser({ caller }: AuthedContext): void {
  if (caller.user.is_bot !== 1) throw badRequest("Must be a bot user");
}

export const botStorageRoutes = [
  endpoint({
    method: "GET",
    path: "/bot_storage",
    guard: requireBotUser,
    params: { keys: P.stringList().optional() },
    handler: async ({ app, caller }, p) => ({ storage: await getBotStorage(app, caller, p.keys) }),
  }),

  endpoint({
    method: "PUT",
    path: "/bot_storage",
    guard: requireBotUser,
    params: { storage: P.json((z) => z.record(z.string(), z.string())) },
    handler: async ({ app, caller }, p) => putBotStorage(app, caller, p.storage),
  }),

  endpoint({
    method: "DELETE",
    path: "/bot_storage",
    guard: requireBotUser,
    params: { keys: P.stringList().optional() },
    handler: async ({ app, caller }, p) => removeBotStorage(app, caller, p.keys),
  }),
];

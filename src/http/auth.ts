import type { FastifyRequest } from "fastify";
import type { AppContext, Credentials } from "../context.js";
import { getUserByApiKey, type UserRow } from "../store/users.js";
import { frozenRealm, getRealm, type Realm } from "../store/realms.js";
import { ZulipError, unauthorized } from "./errors.js";
import { sessionApiKey } from "./session.js";
import { BotType } from "../domain/bots.js";

export interface Caller {
  user: UserRow;
  realm: Realm;
  /** The client name Zulip records on messages. */
  clientName: string;
}

const API_KEY_SHAPE = /^[A-Za-z0-9]{32}$/;

/**
 * Reads HTTP Basic `email:api_key` credentials, failing exactly as Zulip's API does: every
 * failure is 401 UNAUTHORIZED with a Basic challenge (Zulip's decorator turns the key's own
 * errors, INVALID_API_KEY and the deactivation codes, into that). API endpoints refuse incoming
 * webhook bots (`refuseIncomingWebhooks`) unless they are among the few Zulip opens to them.
 */
export async function authenticate(app: AppContext, request: FastifyRequest, refuseIncomingWebhooks = false): Promise<Caller> {
  const header = request.headers.authorization;
  if (!header) {
    // The web client's session leads to the same credentials as its user's API key.
    const apiKey = await sessionApiKey(app, request);
    if (apiKey) return callerFor(app, request, apiKey, undefined, true);
    throw unauthorized("Not logged in: API authentication or user session required");
  }
  const parts = header.trim().split(/\s+/);
  if (parts.length !== 2) throw unauthorized("Invalid authorization header for basic auth");
  const [scheme, encoded] = parts;
  if (scheme.toLowerCase() !== "basic") {
    throw new ZulipError("This endpoint requires HTTP basic authentication.", "BAD_REQUEST", 400);
  }
  const decoded = Buffer.from(encoded, "base64").toString("utf8");
  if (decoded.split(":").length !== 2) throw unauthorized("Invalid authorization header for basic auth");
  const [email, apiKey] = decoded.split(":").map((s) => s.trim());

  if (!API_KEY_SHAPE.test(apiKey)) throw unauthorized("Malformed API key");
  const caller = await callerFor(app, request, apiKey, email);
  if (refuseIncomingWebhooks && caller.user.bot_type === BotType.INCOMING_WEBHOOK) {
    throw unauthorized("This API is not available to incoming webhook bots.");
  }
  return caller;
}

async function callerFor(app: AppContext, request: FastifyRequest, apiKey: string, email?: string, browserSession = false): Promise<Caller> {
  const credentials = await app.caches.credentials.get(apiKey, app.db, () => loadCredentials(app, apiKey));
  if (!credentials || (email !== undefined && credentials.user.delivery_email.toLowerCase() !== email.toLowerCase())) {
    throw unauthorized("Invalid API key");
  }
  const { user, realm } = credentials;
  if (realm.deactivated) throw unauthorized("This organization has been deactivated");
  if (user.is_active !== 1) throw unauthorized("Account is deactivated");
  return { user, realm, clientName: clientName(request, browserSession) };
}

/** Shared by every request with the key until a write to users or realms: frozen, so no one edits it. */
async function loadCredentials(app: AppContext, apiKey: string): Promise<Credentials | undefined> {
  const user = await getUserByApiKey(app.db, apiKey);
  const realm = user && (await getRealm(app.db, user.realm_id));
  if (!user || !realm) return undefined;
  return { user: Object.freeze(user), realm: frozenRealm(realm) };
}

/**
 * Zulip names a request after its `client` parameter, else its user agent; a browser session is
 * the web app, `website` (so its senders read what they send), unless Zulip's desktop app says
 * otherwise.
 */
export function clientName(request: FastifyRequest, browserSession = false): string {
  const fromParam = (request.body as Record<string, unknown> | undefined)?.client ?? (request.query as Record<string, unknown>)?.client;
  if (typeof fromParam === "string" && fromParam) return fromParam;
  const ua = request.headers["user-agent"];
  if (browserSession && !ua?.startsWith("Zulip")) return "website";
  if (ua) {
    const name = ua.split("/")[0].trim();
    if (name) return name;
  }
  return "Unspecified";
}

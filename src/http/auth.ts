import type { FastifyRequest } from "fastify";
import type { AppContext, Credentials } from "../context.js";
import { getUserByApiKey, type UserRow } from "../store/users.js";
import { frozenRealm, getRealm, type Realm } from "../store/realms.js";
import { ZulipError, unauthorized } from "./errors.js";
import { sessionApiKey } from "./session.js";

export interface Caller {
  user: UserRow;
  realm: Realm;
  /** The client name Zulip records on messages. */
  clientName: string;
}

const API_KEY_SHAPE = /^[A-Za-z0-9]{32}$/;

/** Reads HTTP Basic `email:api_key` credentials, failing exactly as Zulip's API does. */
export async function authenticate(app: AppContext, request: FastifyRequest): Promise<Caller> {
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
  return callerFor(app, request, apiKey, email);
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

/**
 * Browser sessions for the web client, as Zulip's web app signs in: an HttpOnly `sessionid`
 * cookie names the session, and every state-changing request must repeat the session's CSRF
 * token in the `X-CSRFToken` header (the token also travels in the readable `csrftoken` cookie).
 * A session only leads to the same credentials an API key does; see authenticate().
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { AppContext } from "../context.js";
import { ZulipError } from "./errors.js";
import { deleteExpiredWebSessions, deleteWebSession, findWebSession, insertWebSession } from "../store/web_sessions.js";

export const SESSION_COOKIE = "sessionid";
export const CSRF_COOKIE = "csrftoken";
// Django's SESSION_COOKIE_AGE default, which Zulip keeps: two weeks.
const SESSION_AGE_SECS = 14 * 24 * 3600;
const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);
const COOKIE_VALUE = /^[A-Za-z0-9_-]{1,128}$/;

export function readCookie(request: FastifyRequest, name: string): string | undefined {
  const header = request.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) {
      const value = part.slice(eq + 1).trim();
      return COOKIE_VALUE.test(value) ? value : undefined;
    }
  }
  return undefined;
}

const hashKey = (key: string) => createHash("sha256").update(key).digest("hex");

function sameToken(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

const csrfFailure = (reason: string) => new ZulipError(`CSRF error: ${reason}`, "CSRF_FAILED", 403, { reason });

/**
 * The API key of the session's user, or undefined without a session cookie. A stale or unknown
 * session fails like a missing login; a write without the session's CSRF token fails with
 * Zulip's CSRF_FAILED.
 */
export async function sessionApiKey(app: AppContext, request: FastifyRequest): Promise<string | undefined> {
  const key = readCookie(request, SESSION_COOKIE);
  if (!key) return undefined;
  const session = await findWebSession(app.db, hashKey(key), app.clock.now());
  if (!session) return undefined;
  if (!SAFE_METHODS.has(request.method)) {
    const header = request.headers["x-csrftoken"];
    const sent = typeof header === "string" ? header : formToken(request);
    if (!sent) throw csrfFailure("CSRF token missing.");
    if (!sameToken(sent, session.csrf_token)) throw csrfFailure("CSRF token incorrect.");
  }
  return session.api_key;
}

/** HTML forms carry the token as a field, under Django's name for it. */
function formToken(request: FastifyRequest): string | undefined {
  const value = (request.body as Record<string, unknown> | undefined)?.csrfmiddlewaretoken;
  return typeof value === "string" && value ? value : undefined;
}

function cookieFlags(app: AppContext, maxAge: number): string {
  const secure = app.config.externalUrl.startsWith("https:") ? "; Secure" : "";
  return `; Path=/; Max-Age=${maxAge}; SameSite=Lax${secure}`;
}

/** Opens a session for the user and sets its cookies on the reply. */
export async function startSession(app: AppContext, reply: FastifyReply, userId: number): Promise<void> {
  const key = randomBytes(32).toString("base64url");
  const csrf = randomBytes(32).toString("base64url");
  const now = app.clock.now();
  await deleteExpiredWebSessions(app.db, userId, now);
  await insertWebSession(app.db, { key_hash: hashKey(key), user_id: userId, csrf_token: csrf, created_at: now, expires_at: now + SESSION_AGE_SECS });
  reply.header("set-cookie", [
    `${SESSION_COOKIE}=${key}${cookieFlags(app, SESSION_AGE_SECS)}; HttpOnly`,
    `${CSRF_COOKIE}=${csrf}${cookieFlags(app, SESSION_AGE_SECS)}`,
  ]);
}

/** Ends the request's session, if any, and clears its cookies. */
export async function endSession(app: AppContext, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const key = readCookie(request, SESSION_COOKIE);
  if (key) await deleteWebSession(app.db, hashKey(key));
  reply.header("set-cookie", [`${SESSION_COOKIE}=${cookieFlags(app, 0)}; HttpOnly`, `${CSRF_COOKIE}=${cookieFlags(app, 0)}`]);
}

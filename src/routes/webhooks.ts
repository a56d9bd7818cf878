/**
 * POST /api/v1/external/{name}: incoming webhooks. Unlike every other endpoint, the body is read
 * raw (a third-party service's JSON, whatever Content-Type it declares, or its form), so these
 * routes live in a context of their own with one content-type parser that keeps the bytes, and
 * authenticate by the URL's `api_key` (or HTTP Basic) rather than through endpoint().
 * Zulip's webhook URLs are plain URL patterns, so every method reaches the integration.
 */
import type { FastifyReply, FastifyRequest } from "fastify";
import type { AppContext } from "../context.js";
import type { EndpointDef, Method } from "../http/endpoint.js";
import { sendSuccess } from "../http/endpoint.js";
import { authenticate, type Caller } from "../http/auth.js";
import { missingArgument, notFound } from "../http/errors.js";
import { P, parseParams, rawParams } from "../http/params.js";
import { rateLimit } from "../http/rate_limit.js";
import { integrationNamed } from "../integrations/registry.js";
import type { Integration, WebhookRequest } from "../integrations/types.js";
import { realmUserRows } from "../actions/users.js";
import { callerByWebhookKey, receiveWebhook, webhookClientName } from "../actions/webhooks.js";

const PATH = "/external/:name";
/** Third-party payloads are small; GitHub caps its own at 25 MB, and a push of many commits stays far below this. */
const MAX_WEBHOOK_BODY = 10 * 1024 * 1024;

const FILTERS = { only_events: P.stringList().optional(), exclude_events: P.stringList().optional() };

const utf8 = new TextDecoder("utf-8", { fatal: true });

function decodeBody(body: unknown): string | undefined {
  if (!Buffer.isBuffer(body) || !body.length) return undefined;
  try {
    return utf8.decode(body);
  } catch {
    return undefined;
  }
}

function isFormType(contentType: string): boolean {
  return contentType.split(";")[0]!.trim().toLowerCase() === "application/x-www-form-urlencoded";
}

function parseJson(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function stringRecord(source: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!source || typeof source !== "object") return out;
  for (const [k, v] of Object.entries(source as Record<string, unknown>)) {
    const value = Array.isArray(v) ? v[v.length - 1] : v;
    if (typeof value === "string") out[k] = value;
  }
  return out;
}

function headerRecord(request: FastifyRequest): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(request.headers)) {
    if (v === undefined) continue;
    out[k.toLowerCase()] = Array.isArray(v) ? v.join(", ") : v;
  }
  return out;
}

async function handleWebhook(app: AppContext, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const name = (request.params as { name: string }).name;
  const integration = integrationNamed(name);
  // An integration Zulip does not have is a URL it does not have.
  if (!integration) throw notFound("Not Found");

  const contentType = request.headers["content-type"] ?? "";
  const text = decodeBody(request.body);
  const form: Record<string, string> = text !== undefined && isFormType(contentType) ? Object.fromEntries(new URLSearchParams(text)) : {};
  const query = stringRecord(request.query);
  // Zulip reads a parameter from the form body first, then from the query string.
  const param = (key: string): string | undefined => form[key] ?? query[key];

  const caller = await webhookCaller(app, request, integration, param("api_key"));
  request.callerId = caller.user.id;
  await rateLimit(app, reply, "api_by_user", caller.user.id);

  parseParams(rawParams(form, query), FILTERS); // refused with Zulip's texts when not JSON lists of strings
  if (request.method === "HEAD") return sendSuccess(reply, {}); // a service checking that the URL answers

  let json = parseJson(text);
  // Travis and Slack send their JSON as the form field `payload`.
  if (json === undefined && form.payload !== undefined) json = parseJson(form.payload);
  const { api_key: _key, ...params } = query;
  const users = await realmUserRows(app, caller.realm.id);
  const userName = (email: string) => users.find((u) => u.delivery_email.toLowerCase() === email.toLowerCase())?.full_name;
  const webhookRequest: WebhookRequest = { json, form, headers: headerRecord(request), params, body: text, userName };

  const data = await receiveWebhook(app, caller, integration, webhookRequest, {
    stream: param("stream"),
    topic: param("topic"),
    path: request.url.split("?")[0]!,
    supportEmail: app.config.emailFrom,
  });
  if (typeof data.msg === "string") {
    const { msg, ...rest } = data;
    return reply.status(200).type("application/json").send(JSON.stringify({ result: "success", msg, ...rest }) + "\n");
  }
  return sendSuccess(reply, data);
}

/** `api_key` in the URL or form (Zulip's webhook_view), else HTTP Basic (authenticated_rest_api_view). */
async function webhookCaller(app: AppContext, request: FastifyRequest, integration: Integration, apiKey: string | undefined): Promise<Caller> {
  const clientName = webhookClientName(integration);
  if (apiKey !== undefined) return callerByWebhookKey(app, apiKey, clientName);
  if (request.headers.authorization) return { ...(await authenticate(app, request)), clientName };
  throw missingArgument("api_key");
}

function webhookRoute(method: Method): EndpointDef {
  return {
    method,
    path: PATH,
    register(server, app) {
      server.register(async (scope) => {
        scope.removeAllContentTypeParsers();
        scope.addContentTypeParser("*", { parseAs: "buffer", bodyLimit: MAX_WEBHOOK_BODY }, (_req, body, done) => done(null, body));
        scope.route({ method, url: PATH, bodyLimit: MAX_WEBHOOK_BODY, handler: (request, reply) => handleWebhook(app, request, reply) });
      });
    },
  };
}

export const webhookRoutes: EndpointDef[] = (["GET", "POST", "PUT", "PATCH", "DELETE"] as const).map(webhookRoute);

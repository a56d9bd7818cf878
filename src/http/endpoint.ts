/**
 * How a route is declared: method, path, typed parameters, an optional guard that runs
 * before parameters are read (as Zulip's decorators do), and a handler that calls an action.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { AppContext } from "../context.js";
import { authenticate, clientName, type Caller } from "./auth.js";
import { parseParams, rawParams, unusedParameters, type ParamSpecs, type ParamValues } from "./params.js";
import { rateLimit } from "./rate_limit.js";
import { RawJson, extendRawObject, serializeWithRaw } from "./raw_json.js";

export type Method = "GET" | "POST" | "PATCH" | "PUT" | "DELETE";
type Body = Record<string, unknown>;

interface BaseContext {
  app: AppContext;
  /** Path parameters; those declared as `:name(\\d+)` are numbers. */
  path: Record<string, number | string>;
  request: FastifyRequest;
  reply: FastifyReply;
}
export interface PublicContext extends BaseContext {
  clientName: string;
}
export interface AuthedContext extends BaseContext {
  caller: Caller;
}

export interface EndpointDef {
  method: Method;
  path: string;
  register(server: FastifyInstance, app: AppContext): void;
}

/**
 * Sends Zulip's success envelope; the body ends with a newline, as Zulip's does. `data` may be a
 * JSON object serialized ahead (an answer shared by many requests).
 */
export function sendSuccess(reply: FastifyReply, data: Body | RawJson, ignored: string[] = []): FastifyReply {
  // One literal with one spread: V8 copies that quickly, where spreading two objects into a new
  // one cost a tenth of GET /users/me.
  const body: Body = data instanceof RawJson ? { result: "success", msg: "" } : { result: "success", msg: "", ...data };
  if (ignored.length) body.ignored_parameters_unsupported = ignored;
  const json = data instanceof RawJson ? extendRawObject(body, data, "\n") : serializeWithRaw(body, "\n");
  return reply.status(200).type("application/json").send(json);
}

function pathValues(request: FastifyRequest): Record<string, number | string> {
  const out: Record<string, number | string> = {};
  for (const [k, v] of Object.entries((request.params ?? {}) as Record<string, string>)) {
    // The router has already decoded them; decoding again would misread (or fail on) a literal `%`.
    // Ids past 2^53 cannot exist; they stay numbers that no row has, rather than losing precision.
    out[k] = /^\d+$/.test(v) ? Math.min(Number(v), Number.MAX_SAFE_INTEGER) : v;
  }
  return out;
}

function sources(request: FastifyRequest): [unknown, unknown] {
  // GET parameters come only from the query string.
  return [request.method === "GET" ? undefined : request.body, request.query];
}

interface Def<S extends ParamSpecs, C> {
  method: Method;
  path: string;
  /** Off for the event queue's long-polls, which Zulip serves (from Tornado) without limits. */
  rateLimited?: boolean;
  /** Zulip's allow_incoming_webhooks: the one kind of request incoming webhook bots may make with their key. */
  allowIncomingWebhooks?: boolean;
  params: S;
  guard?: (ctx: C) => void | Promise<void>;
  handler: (ctx: C, params: ParamValues<S>) => Promise<Body | RawJson | void>;
}

function define<S extends ParamSpecs, C extends BaseContext>(
  def: Def<S, C>,
  makeContext: (app: AppContext, request: FastifyRequest, reply: FastifyReply) => Promise<C>,
): EndpointDef {
  return {
    method: def.method,
    path: def.path,
    register(server, app) {
      server.route({
        method: def.method,
        url: def.path,
        handler: async (request, reply) => {
          const ctx = await makeContext(app, request, reply);
          if (def.guard) await def.guard(ctx);
          const raw = rawParams(...sources(request));
          const params = parseParams(raw, def.params);
          const data = await def.handler(ctx, params);
          if (reply.sent) return reply;
          return sendSuccess(reply, data ?? {}, unusedParameters(raw, def.params));
        },
      });
    },
  };
}

/** An endpoint that requires HTTP Basic authentication. */
export function endpoint<S extends ParamSpecs>(def: Def<S, AuthedContext>): EndpointDef {
  return define(def, async (app, request, reply) => {
    const caller = await authenticate(app, request, !def.allowIncomingWebhooks);
    request.callerId = caller.user.id;
    if (def.rateLimited !== false) await rateLimit(app, reply, "api_by_user", caller.user.id);
    return { app, caller, path: pathValues(request), request, reply };
  });
}

/** An endpoint anyone may call. */
export function publicEndpoint<S extends ParamSpecs>(def: Def<S, PublicContext>): EndpointDef {
  return define(def, async (app, request, reply) => {
    if (def.rateLimited !== false) await rateLimit(app, reply, "api_by_ip", request.ip);
    return { app, clientName: clientName(request), path: pathValues(request), request, reply };
  });
}

declare module "fastify" {
  interface FastifyRequest {
    callerId?: number;
    /** Why the request was refused, for its log line: operators read the log for every non-2xx. */
    refusal?: { code: string; msg: string };
  }
}

import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from "fastify";
import formbody from "@fastify/formbody";
import multipart from "@fastify/multipart";
import compress from "@fastify/compress";
import { pino } from "pino";
import type { AppContext } from "./context.js";
import { ZulipError } from "./http/errors.js";
import type { EndpointDef, Method } from "./http/endpoint.js";
import { ALL_ENDPOINTS } from "./routes/index.js";
import { registerSignupPages } from "./routes/web/signup.js";
import { registerEmailChangePages } from "./routes/web/email_change.js";
import { registerUnsubscribePages } from "./routes/web/unsubscribe.js";
import { registerExportDownloads } from "./routes/web/exports.js";
import { registerVideoCallPages } from "./routes/web/video_calls.js";
import { registerFilePages } from "./routes/web/files.js";
import { registerAvatarPages } from "./routes/web/avatars.js";
import { registerWebClient } from "./routes/web/client.js";
import { registerExternalContent } from "./routes/web/external_content.js";
import { collectFilePart } from "./files/multipart.js";

const API_PREFIX = "/api/v1";

function sendJson(reply: import("fastify").FastifyReply, status: number, body: Record<string, unknown>) {
  return reply.status(status).type("application/json").send(JSON.stringify(body) + "\n");
}

// Long enough for any email address or navigation-view fragment; longer ones are refused early.
const MAX_PATH_PARAMETER_LENGTH = 1000;

/**
 * Texts for what fails before a route runs (URL decoding, body parsing, sizes). Fastify's own
 * messages quote the URL or headers back, so only the status is kept.
 */
const FRAMEWORK_MESSAGES: Record<number, string> = {
  400: "Malformed request",
  406: "Unsupported request format",
  408: "Request timeout",
  413: "Request too large",
  414: "URL too long",
  415: "Unsupported media type",
  431: "Request headers too large",
};

type HttpError = Error & { statusCode?: number; status?: number };

function clientStatus(error: HttpError): number | undefined {
  const status = error.statusCode ?? error.status;
  return status !== undefined && status >= 400 && status < 500 ? status : undefined;
}

/** Errors of the request itself: Fastify's 4xx, and the multipart parser's complaints about the body. */
function isClientFault(error: HttpError): boolean {
  return clientStatus(error) !== undefined || /^(Multipart|Boundary|Unexpected end of form|Malformed part header)/i.test(error.message);
}

function frameworkErrorBody(status: number) {
  return { result: "error", msg: FRAMEWORK_MESSAGES[status] ?? FRAMEWORK_MESSAGES[400], code: "BAD_REQUEST" };
}

function sendFrameworkError(reply: import("fastify").FastifyReply, error: HttpError) {
  const status = clientStatus(error) ?? 400;
  return sendJson(reply, status, frameworkErrorBody(status));
}

/** Requests Node's HTTP parser refuses (oversized headers, bad syntax) never reach Fastify. */
function answerClientError(error: Error & { code?: string }, socket: import("node:net").Socket) {
  if (error.code === "ECONNRESET" || socket.destroyed) return;
  const status = error.code === "HPE_HEADER_OVERFLOW" ? 431 : error.code === "ERR_HTTP_REQUEST_TIMEOUT" ? 408 : 400;
  const body = JSON.stringify(frameworkErrorBody(status)) + "\n";
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${FRAMEWORK_MESSAGES[status]}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}

/**
 * Parameters are read by src/http/params.ts, never by a route's JSON schema, so Fastify's schema
 * compilers (Ajv and fast-json-stringify, 1.3 MB of heap that it would load at construction)
 * have nothing to do. A route given a schema fails to register, at start, with this message.
 */
function noSchemaCompiler(): never {
  throw new Error("Confab routes take no JSON schema: declare parameters with src/http/params.ts");
}

/** Builds the HTTP server: Zulip's request formats, error envelope, and every endpoint. */
export async function buildServer(app: AppContext, endpoints: EndpointDef[] = ALL_ENDPOINTS): Promise<FastifyInstance> {
  const server = Fastify({
    loggerInstance: app.log as unknown as FastifyBaseLogger,
    // One log line per request comes from the onResponse hook below.
    logController: new LogController({ disableRequestLogging: true }),
    // No per-request child logger: Confab's log lines carry the request's fields themselves.
    childLoggerFactory: (logger) => logger,
    bodyLimit: 25 * 1024 * 1024,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: MAX_PATH_PARAMETER_LENGTH },
    frameworkErrors: (error, _request, reply) => sendFrameworkError(reply, error),
    clientErrorHandler: answerClientError,
    trustProxy: app.config.trustedProxies.length ? app.config.trustedProxies : false,
    schemaController: { compilersFactory: { buildValidator: noSchemaCompiler, buildSerializer: noSchemaCompiler } },
  });

  await server.register(formbody);
  await server.register(multipart, {
    attachFieldsToBody: "keyValues",
    onFile: collectFilePart,
    throwFileSizeLimit: false,
    limits: { fileSize: Math.max(app.config.maxFileUploadSizeMib, app.config.maxEmojiFileSizeMib) * 1024 * 1024 + 1 },
  });
  // Zulip reads parameters only from form bodies; any other body is accepted and ignored.
  server.removeContentTypeParser(["application/json", "text/plain"]);
  server.addContentTypeParser("*", { parseAs: "buffer" }, (_req, _body, done) => done(null, {}));

  server.addHook("onResponse", async (request, reply) => {
    if (!app.log.isLevelEnabled("info")) return;
    app.log.info({
      method: request.method,
      route: request.routeOptions.url ?? request.url.split("?")[0],
      status: reply.statusCode,
      duration_ms: Math.round(reply.elapsedTime * 10) / 10,
      user_id: request.callerId ?? null,
      ...(request.refusal && { error_code: request.refusal.code, error: request.refusal.msg }),
    });
  });

  server.setErrorHandler((error: Error, request, reply) => {
    if (error instanceof ZulipError) {
      request.refusal = { code: error.code, msg: error.msg };
      reply.headers(error.headers);
      return sendJson(reply, error.status, { result: "error", msg: error.msg, code: error.code, ...error.data });
    }
    if (isClientFault(error)) return sendFrameworkError(reply, error);
    request.log.error({ err: error, route: request.routeOptions.url }, "unhandled error");
    return sendJson(reply, 500, { result: "error", msg: "Internal server error" });
  });

  server.setNotFoundHandler((_request, reply) =>
    sendJson(reply, 404, { result: "error", msg: "Not Found", code: "BAD_REQUEST" }),
  );

  await server.register(
    async (api) => {
      // API answers over 1 KB go out as brotli or gzip, whichever the client prefers. Up to 32 KB
      // they are compressed on the spot (well under a millisecond); bigger ones, such as a 5 MB
      // POST /register for a large organization, are streamed through zlib on libuv's thread
      // pool, off the event loop. Files keep their length and byte ranges (they are served
      // outside the API, and the web client's assets are compressed at build time). Request
      // bodies are not inflated: a compressed upload would dodge the body limit.
      await api.register(compress, {
        encodings: ["br", "gzip"],
        threshold: 1024,
        syncThreshold: 32 * 1024,
        globalDecompression: false,
      });
      const methodsByPath = new Map<string, Set<Method>>();
      for (const def of endpoints) {
        def.register(api, app);
        if (!methodsByPath.has(def.path)) methodsByPath.set(def.path, new Set());
        methodsByPath.get(def.path)!.add(def.method);
      }
      // A known path called with another method gets Zulip's 405.
      const all: Method[] = ["GET", "POST", "PATCH", "PUT", "DELETE"];
      for (const [path, methods] of methodsByPath) {
        const others = all.filter((m) => !methods.has(m));
        if (!others.length) continue;
        api.route({
          method: others,
          url: path,
          handler: async (_req, reply) =>
            sendJson(reply, 405, { result: "error", msg: "Method Not Allowed", allowed_methods: [...methods] }),
        });
      }
    },
    { prefix: API_PREFIX },
  );
  registerSignupPages(server, app);
  registerEmailChangePages(server, app);
  registerUnsubscribePages(server, app);
  registerExportDownloads(server, app);
  registerVideoCallPages(server, app);
  registerFilePages(server, app);
  registerAvatarPages(server, app);
  registerExternalContent(server, app);
  registerWebClient(server, app);

  return server;
}

/**
 * One JSON line per request on stdout, written in the background: a synchronous write per line
 * held the event loop for a sixth of a request's time. pino flushes what is buffered at exit.
 */
export function createLogger(level: string) {
  return pino({ level, base: undefined, timestamp: pino.stdTimeFunctions.isoTime }, pino.destination({ sync: false }));
}

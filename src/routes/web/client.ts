/**
 * The web client: its sign-in page, sign-out, and the built single-page app (dist/web, made by
 * `npm run build`) served from memory with long-lived caching for hashed assets and gzip or
 * brotli chosen by Accept-Encoding.
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { brotliCompress, gzip } from "node:zlib";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { AppContext } from "../../context.js";
import { authenticate } from "../../http/auth.js";
import { ZulipError } from "../../http/errors.js";
import { endSession, readCookie, SESSION_COOKIE, sessionApiKey, startSession } from "../../http/session.js";
import { passwordLogin, realmForHost } from "../auth.js";
import { escapeHtml, page } from "./signup.js";
import { serverEmojiDataJson } from "../../markdown/emoji.js";

export const ASSET_PREFIX = "/static/web/";

interface Asset {
  type: string;
  raw: Buffer;
  compressible: boolean;
  /** Made on the asset's first request, off the event loop: brotli at its best takes seconds for the whole client. */
  encoded?: Promise<{ gzip: Buffer; br: Buffer }>;
}

const gzipAsync = promisify(gzip);
const brotliAsync = promisify(brotliCompress);

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".woff2": "font/woff2",
  ".woff": "font/woff",
  ".ttf": "font/ttf",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".json": "application/json",
};
const COMPRESSIBLE = new Set([".html", ".js", ".css", ".svg", ".json", ".ttf"]);

/** The checkout's dist/web, found from this file whether it runs from src/ or dist/src/. */
function builtClientDir(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!fs.existsSync(path.join(dir, "package.json")) && path.dirname(dir) !== dir) dir = path.dirname(dir);
  return path.join(dir, "dist", "web");
}

function loadAssets(root: string): Map<string, Asset> {
  const assets = new Map<string, Asset>();
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else {
        const ext = path.extname(entry.name);
        const raw = fs.readFileSync(full);
        const asset: Asset = { type: TYPES[ext] ?? "application/octet-stream", raw, compressible: COMPRESSIBLE.has(ext) && raw.length > 1024 };
        assets.set(path.relative(root, full).split(path.sep).join("/"), asset);
      }
    }
  };
  if (fs.existsSync(root)) walk(root);
  return assets;
}

const APP_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; " +
  "font-src 'self' data:; connect-src 'self'; media-src 'self'; object-src 'none'; frame-ancestors 'none'; form-action 'self'";

async function sendAsset(request: FastifyRequest, reply: FastifyReply, asset: Asset, cacheControl: string): Promise<FastifyReply> {
  const accepts = String(request.headers["accept-encoding"] ?? "");
  reply.header("content-type", asset.type).header("cache-control", cacheControl).header("vary", "Accept-Encoding");
  reply.header("x-content-type-options", "nosniff");
  const wantsBr = /\bbr\b/.test(accepts);
  if (asset.compressible && (wantsBr || /\bgzip\b/.test(accepts))) {
    asset.encoded ??= Promise.all([gzipAsync(asset.raw, { level: 9 }), brotliAsync(asset.raw)]).then(([gz, br]) => ({ gzip: gz, br }));
    const { gzip: gz, br } = await asset.encoded;
    return wantsBr ? reply.header("content-encoding", "br").send(br) : reply.header("content-encoding", "gzip").send(gz);
  }
  return reply.send(asset.raw);
}

/** Where to go after signing in: only a path on this server, never another site. */
function localPath(next: unknown): string {
  return typeof next === "string" && /^\/(?![/\\])/.test(next) ? next : "/";
}

function loginPage(reply: FastifyReply, realmName: string, form: { email?: string; error?: string; status?: number; next?: string }) {
  const error = form.error ? `<p class="error" role="alert">${escapeHtml(form.error)}</p>` : "";
  return page(
    reply,
    form.status ?? 200,
    `Log in to ${realmName}`,
    `<h1>Log in to ${escapeHtml(realmName)}</h1>
${error}
<form method="post" action="/login/">
<input type="hidden" name="next" value="${escapeHtml(form.next ?? "/")}">
<label for="username">Email</label>
<input id="username" name="username" type="email" required autocomplete="username" autofocus value="${escapeHtml(form.email ?? "")}">
<label for="password">Password</label>
<input id="password" name="password" type="password" required autocomplete="current-password">
<button type="submit">Log in</button>
</form>`,
  );
}

const field = (body: unknown, name: string): string => {
  const value = (body as Record<string, unknown> | undefined)?.[name];
  return typeof value === "string" ? value : "";
};

/** Whether the request comes with a live session (or API credentials). */
async function signedIn(app: AppContext, request: FastifyRequest): Promise<boolean> {
  if (!readCookie(request, SESSION_COOKIE) && !request.headers.authorization) return false;
  try {
    await authenticate(app, request);
    return true;
  } catch (err) {
    if (err instanceof ZulipError) return false;
    throw err;
  }
}

export function registerWebClient(server: FastifyInstance, app: AppContext): void {
  const root = builtClientDir();
  let assets = new Map<string, Asset>();
  let builtAt = -1;
  // Read again whenever index.html changes, so a client rebuilt while the server runs is served.
  const built = (checkForNewBuild: boolean) => {
    if (checkForNewBuild || builtAt < 0) {
      const mtime = fs.statSync(path.join(root, "index.html"), { throwIfNoEntry: false })?.mtimeMs ?? 0;
      if (mtime !== builtAt) {
        assets = loadAssets(root);
        builtAt = mtime;
      }
    }
    return assets;
  };

  server.get("/", async (request, reply) => {
    if (!(await signedIn(app, request))) return reply.redirect("/login/", 302);
    const index = built(true).get("index.html");
    if (!index) {
      return page(reply, 503, "Web client not built", "<h1>Web client not built</h1>\n<p>Run <code>npm run build</code> and reload.</p>");
    }
    reply.header("content-security-policy", APP_CSP).header("referrer-policy", "same-origin");
    return sendAsset(request, reply, index, "no-cache");
  });

  server.get<{ Params: { "*": string } }>(`${ASSET_PREFIX}*`, async (request, reply) => {
    const asset = built(false).get(request.params["*"]);
    if (!asset) return reply.status(404).type("text/plain").send("Not found\n");
    // Vite names every built file by its content hash, so a name never changes meaning.
    return sendAsset(request, reply, asset, "public, max-age=31536000, immutable");
  });

  // Browsers ask every page's server for /favicon.ico, the sign-in form's included; the signed-in
  // client then draws its own icon with the unread count (web/src/favicon.ts).
  server.get("/favicon.ico", async (request, reply) => {
    const icon = built(false).get("favicon.ico");
    if (!icon) return reply.status(404).type("text/plain").send("Not found\n");
    return sendAsset(request, reply, icon, "public, max-age=86400");
  });

  // Clients (the mobile app's emoji picker and autocomplete) fetch this without credentials.
  server.get("/static/generated/emoji/emoji_api.json", async (_request, reply) =>
    reply.type("application/json").header("cache-control", "public, max-age=86400").send(serverEmojiDataJson()),
  );

  server.get("/login", async (request, reply) => {
    const realm = await realmForHost(app, request);
    if (!realm) return page(reply, 404, "Organization not found", "<h1>Organization not found</h1>");
    const next = localPath((request.query as Record<string, unknown>).next);
    if (await signedIn(app, request)) return reply.redirect(next, 302);
    return loginPage(reply, realm.name, { next });
  });

  server.post("/login", async (request, reply) => {
    const realm = await realmForHost(app, request);
    if (!realm) return page(reply, 404, "Organization not found", "<h1>Organization not found</h1>");
    const email = field(request.body, "username");
    try {
      const user = await passwordLogin(app, request, reply, email, field(request.body, "password"));
      await startSession(app, reply, user.id);
      return reply.redirect(localPath(field(request.body, "next")), 303);
    } catch (err) {
      if (err instanceof ZulipError) return loginPage(reply, realm.name, { email, error: err.msg, status: err.status, next: localPath(field(request.body, "next")) });
      throw err;
    }
  });

  // A cross-site form cannot sign someone out: the request must carry the session's CSRF token.
  server.post("/logout", async (request, reply) => {
    await sessionApiKey(app, request);
    await endSession(app, request, reply);
    return reply.redirect("/login/", 303);
  });
}

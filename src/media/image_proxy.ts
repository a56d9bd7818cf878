/**
 * Confab's own camo: images (and the videos and audio the renderer previews) from other sites
 * are fetched by the server at `/external_content/<digest>/<hex url>`, so a reader's browser
 * never contacts the site (which would learn the reader's address) and the page's CSP can stay
 * `img-src 'self'`. The URL format is Zulip's, so a camo server (go-camo) sharing the key could
 * serve the same rendered messages.
 *
 * Only URLs the renderer signed are fetched; the fetch goes through safe_fetch (public addresses
 * only, after DNS and on every redirect), and the body is streamed to the reader, never held.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import type { Readable } from "node:stream";
import type { AppContext } from "../context.js";
import type { Config } from "../config.js";
import type { CamoConfig } from "../markdown/camo.js";
import { AddressPolicy } from "../outbound/address_policy.js";
import { DisallowedAddress, RequestTimeout, safeFetchStream, type SafeStreamResponse } from "../outbound/safe_fetch.js";

/** Where the renderer points external media when no other camo is configured. */
export const OWN_CAMO_PATH = "/external_content/";
/** Redirects followed, as go-camo's default. */
const MAX_REDIRECTS = 4;
/** Fetches in flight in one process; past this a reader is asked to come back (503). */
export const MAX_CONCURRENT_FETCHES = 64;
/** Served when the site says nothing about caching. */
const DEFAULT_CACHE_CONTROL = "public, max-age=86400";
/** What a proxied answer may do if a browser opens it as a page: nothing. */
const PROXIED_CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'";
/** Headers of the reader's request passed on: revalidation and ranges (video seeking), nothing identifying. */
const FORWARDED_REQUEST_HEADERS = ["if-none-match", "if-modified-since", "range"];
const PASSED_RESPONSE_HEADERS = ["cache-control", "etag", "expires", "last-modified", "content-range", "accept-ranges"];

/**
 * The key that signs proxied URLs: the configured one (Zulip's CAMO_KEY), or one derived from
 * the server's upload-signing secret, which every process of a deployment already shares.
 */
export function camoKey(app: AppContext): string {
  if (app.config.camoKey) return app.config.camoKey;
  let key = derivedKeys.get(app.uploadTokenKey);
  if (!key) derivedKeys.set(app.uploadTokenKey, (key = createHmac("sha256", app.uploadTokenKey).update("confab external content").digest("hex")));
  return key;
}
const derivedKeys = new WeakMap<Buffer, string>();

/**
 * The camo the renderer uses: a configured one (URL and key both set), else Confab's own
 * proxy, addressed by a path so every client resolves it against the organization's URL.
 */
export function renderCamo(app: AppContext): CamoConfig {
  const { camoUrl, camoKey: configuredKey } = app.config;
  if (camoUrl && configuredKey) return { url: camoUrl, key: configuredKey };
  return { url: OWN_CAMO_PATH, key: camoKey(app) };
}

const HEX = /^(?:[0-9a-fA-F]{2})+$/;
/** Longer URLs are not signed for; browsers and servers cut URLs near this length anyway. */
const MAX_URL_HEX_LENGTH = 16_384;

/** The URL a proxy path names, if the path is well formed and signed with `key`. */
export function verifiedUrl(key: string, digest: string, hexUrl: string): { url: string } | "malformed" | "bad_signature" {
  if (hexUrl.length > MAX_URL_HEX_LENGTH || !HEX.test(hexUrl) || !/^[0-9a-fA-F]{40}$/.test(digest)) return "malformed";
  const url = Buffer.from(hexUrl, "hex").toString("utf8");
  const expected = createHmac("sha1", key).update(url).digest();
  if (!timingSafeEqual(expected, Buffer.from(digest, "hex"))) return "bad_signature";
  return { url };
}

/** Media types served: what the renderer previews. SVG can carry script, so it is never passed on. */
export function servableType(contentType: string | undefined): string | undefined {
  const type = (contentType ?? "").split(";")[0].trim().toLowerCase();
  if (!/^(image|video|audio)\/[a-z0-9.+-]+$/.test(type)) return undefined;
  if (type.startsWith("image/svg")) return undefined;
  return type;
}

export type ProxyOutcome =
  | { kind: "ok"; status: number; headers: Record<string, string>; body: Readable | null }
  | { kind: "refused"; status: number; text: string };

const refused = (status: number, text: string): ProxyOutcome => ({ kind: "refused", status, text });

const policies = new WeakMap<Config, AddressPolicy>();
function policyFor(config: Config): AddressPolicy {
  let policy = policies.get(config);
  if (!policy) policies.set(config, (policy = new AddressPolicy(config.outboundAllowedNetworks)));
  return policy;
}

let inFlight = 0;

/** Fetches `url` for a reader; the body streams, and the fetch's slot is released when it ends. */
export async function proxyMedia(app: AppContext, url: string, requestHeaders: Record<string, string | string[] | undefined>): Promise<ProxyOutcome> {
  if (inFlight >= MAX_CONCURRENT_FETCHES) return refused(503, "Too many requests in progress");
  inFlight++;
  let released = false;
  const release = () => {
    if (!released) {
      released = true;
      inFlight--;
    }
  };
  const headers: Record<string, string> = {
    "user-agent": "Confab-Camo",
    accept: "image/*, video/*, audio/*;q=0.9",
  };
  for (const name of FORWARDED_REQUEST_HEADERS) {
    const value = requestHeaders[name];
    if (typeof value === "string") headers[name] = value;
  }
  let res: SafeStreamResponse;
  try {
    res = await safeFetchStream(policyFor(app.config), {
      url,
      headers,
      timeoutMs: app.config.externalContentTimeoutMs,
      maxBytes: app.config.externalContentMaxBytes,
      maxRedirects: MAX_REDIRECTS,
    });
  } catch (err) {
    release();
    if (err instanceof RequestTimeout) return refused(504, "The image's server did not answer in time");
    // A refused address is reported like an unreachable one: the proxy is no probe of networks.
    if (!(err instanceof DisallowedAddress)) app.log.debug({ err }, "external content fetch failed");
    return refused(404, "Not found");
  }
  res.body.once("close", release);
  const passThrough: Record<string, string> = {};
  for (const name of PASSED_RESPONSE_HEADERS) {
    const value = res.headers[name];
    if (typeof value === "string") passThrough[name] = value;
  }
  if (res.status === 304) {
    res.body.destroy();
    return { kind: "ok", status: 304, headers: passThrough, body: null };
  }
  if (res.status !== 200 && res.status !== 206) {
    res.body.destroy();
    return refused(404, "Not found");
  }
  const type = servableType(res.headers["content-type"]);
  if (!type) {
    res.body.destroy();
    return refused(415, "Not an image");
  }
  const declared = Number(res.headers["content-length"]);
  if (Number.isFinite(declared) && declared > app.config.externalContentMaxBytes) {
    res.body.destroy();
    return refused(413, "The image is too large");
  }
  return {
    kind: "ok",
    status: res.status,
    headers: {
      "cache-control": DEFAULT_CACHE_CONTROL,
      ...passThrough,
      "content-type": type,
      ...(Number.isFinite(declared) && res.headers["content-length"] ? { "content-length": String(declared) } : {}),
      "x-content-type-options": "nosniff",
      "content-security-policy": PROXIED_CSP,
      "x-frame-options": "DENY",
    },
    body: res.body,
  };
}

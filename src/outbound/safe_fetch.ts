/**
 * HTTP requests to URLs that users chose (outgoing webhooks; meant for the image proxy and link
 * previews as well). The address is checked after DNS resolution, at the moment of connecting,
 * so a name that resolves to a private address — or starts to, between a check and the
 * connection — is refused; redirects are followed only when asked for, each hop checked the same
 * way. Every request has a deadline covering connecting, sending and reading, and a cap on the
 * body read back.
 */
import http from "node:http";
import https from "node:https";
import dns from "node:dns";
import { isIP, type LookupFunction } from "node:net";
import { Transform, pipeline, type Readable } from "node:stream";
import type { AddressPolicy } from "./address_policy.js";

export interface SafeRequest {
  url: string;
  method?: "GET" | "POST";
  headers?: Record<string, string>;
  body?: string;
  timeoutMs: number;
  /** The most bytes of body read back; a longer body fails with ResponseTooLarge. */
  maxBytes: number;
  /** Redirects followed (GET only); 0 returns a redirect as the answer. */
  maxRedirects?: number;
}

export interface SafeResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  /** Where the answer came from, after any redirects. */
  url: string;
}

/** The URL's host is, or resolves to, an address the policy refuses; or the URL is not http(s). */
export class DisallowedAddress extends Error {
  override name = "DisallowedAddress";
}
/** No complete answer before the deadline. */
export class RequestTimeout extends Error {
  override name = "Timeout";
}
/** The server could not be reached: no such name, refused, reset, TLS failure. */
export class ConnectionFailure extends Error {
  override name = "ConnectionError";
}
export class ResponseTooLarge extends Error {
  override name = "ResponseTooLarge";
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

export async function safeFetch(policy: AddressPolicy, req: SafeRequest): Promise<SafeResponse> {
  const deadline = Date.now() + req.timeoutMs;
  let url = req.url;
  for (let hops = 0; ; hops++) {
    const res = await requestOnce(policy, { ...req, url }, deadline);
    const location = res.headers.location;
    if (!REDIRECTS.has(res.status) || !location || (req.method ?? "GET") !== "GET" || hops >= (req.maxRedirects ?? 0)) return res;
    url = new URL(location, url).toString();
  }
}

export interface SafeStreamResponse extends Omit<SafeResponse, "body"> {
  /**
   * The body as it arrives: it fails with ResponseTooLarge once past `maxBytes` and with
   * RequestTimeout at the deadline, and must be read or destroyed.
   */
  body: Readable;
}

/** As safeFetch, but the answer comes back once its headers have, its body still streaming. */
export async function safeFetchStream(policy: AddressPolicy, req: SafeRequest): Promise<SafeStreamResponse> {
  const deadline = Date.now() + req.timeoutMs;
  let url = req.url;
  for (let hops = 0; ; hops++) {
    const res = await streamOnce(policy, { ...req, url }, deadline);
    const location = res.headers.location;
    if (!REDIRECTS.has(res.status) || !location || (req.method ?? "GET") !== "GET" || hops >= (req.maxRedirects ?? 0)) return res;
    res.body.destroy();
    url = new URL(location, url).toString();
  }
}

/** Resolves like dns.lookup, and fails the connection if any address the name has is refused. */
function checkedLookup(policy: AddressPolicy): LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { all: true, family: options.family, hints: options.hints }, (err, addresses) => {
      if (err) return callback(err, "", 0);
      const refused = addresses.find((a) => !policy.allows(a.address));
      if (refused) return callback(new DisallowedAddress(`${hostname} resolves to ${refused.address}, which is not allowed`), "", 0);
      if (options.all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, addresses);
      callback(null, addresses[0].address, addresses[0].family);
    });
  };
}

/** The request to `req.url`, not yet sent, after checking its scheme and any literal address. */
function openRequest(policy: AddressPolicy, req: SafeRequest): http.ClientRequest {
  let target: URL;
  try {
    target = new URL(req.url);
  } catch {
    throw new DisallowedAddress(`not a URL: ${req.url}`);
  }
  if (target.protocol !== "http:" && target.protocol !== "https:") throw new DisallowedAddress(`not an http(s) URL: ${req.url}`);
  // Node does not look up a literal address, so it is checked here.
  const literal = target.hostname.replace(/^\[(.*)\]$/, "$1");
  if (isIP(literal) && !policy.allows(literal)) throw new DisallowedAddress(`${literal} is not allowed`);
  const body = req.body === undefined ? undefined : Buffer.from(req.body);
  return (target.protocol === "https:" ? https : http).request(target, {
    method: req.method ?? "GET",
    headers: { ...req.headers, ...(body ? { "content-length": String(body.length) } : {}) },
    lookup: checkedLookup(policy),
    // A fresh connection per request: a pooled one would skip the address check.
    agent: false,
  });
}

function streamOnce(policy: AddressPolicy, req: SafeRequest, deadline: number): Promise<SafeStreamResponse> {
  return new Promise((resolve, reject) => {
    const remaining = deadline - Date.now();
    if (remaining <= 0) return reject(new RequestTimeout(`no answer within the deadline`));
    let request: http.ClientRequest;
    try {
      request = openRequest(policy, req);
    } catch (err) {
      return reject(err as Error);
    }
    let size = 0;
    const limited = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        size += chunk.length;
        if (size > req.maxBytes) return callback(new ResponseTooLarge(`the answer is longer than ${req.maxBytes} bytes`));
        callback(null, chunk);
      },
    });
    let answered = false;
    let failed = false;
    const fail = (err: Error) => {
      if (failed) return;
      failed = true;
      clearTimeout(timer);
      request.destroy();
      if (answered) limited.destroy(err);
      else reject(err);
    };
    const timer = setTimeout(() => fail(new RequestTimeout(`no answer within ${req.timeoutMs} ms`)), remaining);
    limited.on("close", () => {
      clearTimeout(timer);
      request.destroy();
    });
    request.on("error", (err) => fail(err instanceof DisallowedAddress ? err : new ConnectionFailure(err.message)));
    request.on("response", (res) => {
      answered = true;
      pipeline(res, limited, () => {});
      resolve({ status: res.statusCode ?? 0, headers: res.headers, body: limited, url: req.url });
    });
    request.end(req.body === undefined ? undefined : Buffer.from(req.body));
  });
}

function requestOnce(policy: AddressPolicy, req: SafeRequest, deadline: number): Promise<SafeResponse> {
  return new Promise((resolve, reject) => {
    const remaining = deadline - Date.now();
    if (remaining <= 0) return reject(new RequestTimeout(`no answer within the deadline`));
    let request: http.ClientRequest;
    try {
      request = openRequest(policy, req);
    } catch (err) {
      return reject(err as Error);
    }
    const body = req.body === undefined ? undefined : Buffer.from(req.body);
    let settled = false;
    const fail = (err: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request.destroy();
      reject(err);
    };
    const timer = setTimeout(() => fail(new RequestTimeout(`no answer within ${req.timeoutMs} ms`)), remaining);
    request.on("error", (err) => fail(err instanceof DisallowedAddress ? err : new ConnectionFailure(err.message)));
    request.on("response", (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on("data", (chunk: Buffer) => {
        size += chunk.length;
        if (size > req.maxBytes) return fail(new ResponseTooLarge(`the answer is longer than ${req.maxBytes} bytes`));
        chunks.push(chunk);
      });
      res.on("error", (err) => fail(new ConnectionFailure(err.message)));
      res.on("end", () => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks), url: req.url });
      });
    });
    request.end(body);
  });
}

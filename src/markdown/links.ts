/**
 * URLs in messages: which text is auto-linked, which link targets are allowed, and how links to
 * the organization's own server are made relative.
 */
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const TLD_LIST: string[] = require("tlds");

/** Schemes a link may use; anything else (javascript:, data:, …) is left as plain text. */
const ALLOWED_SCHEMES = new Set([
  "http",
  "https",
  "ftp",
  "file",
  // The WHATWG "safelisted" schemes.
  "bitcoin",
  "geo",
  "im",
  "irc",
  "ircs",
  "magnet",
  "mailto",
  "matrix",
  "mms",
  "news",
  "nntp",
  "openpgp4fpr",
  "sip",
  "sms",
  "smsto",
  "ssh",
  "tel",
  "urn",
  "webcal",
  "wtai",
  "xmpp",
  // Desktop applications and message ids Zulip links to.
  "mid",
  "asanadesktop",
  "hansoft",
  "obsidian",
  "zotero",
]);

/** Schemes recognised in bare text as the start of a URL. */
const AUTOLINK_SCHEMES = ["https?", "asanadesktop", "hansoft", "obsidian", "zotero"];

/** File extensions that look like TLDs but are almost always file names. */
const NOT_TLDS = new Set(["java", "md", "mov", "py", "zip"]);

const W = String.raw`\p{L}\p{N}_`;

function buildWebLinkRegex(): RegExp {
  const tlds = TLD_LIST.filter((t) => /^[a-z0-9-]+$/.test(t) && !NOT_TLDS.has(t))
    .sort((a, b) => b.length - a.length || (a < b ? -1 : 1))
    .join("|");
  // Up to six levels of balanced parentheses inside a path.
  const inner = String.raw`[^\s()"]*`;
  const group = String.raw`[^\s()"]*?(?:\(%s\)[^\s()"]*?)*`;
  let nested = group;
  for (let i = 0; i < 6; i++) nested = nested.replace("%s", group);
  nested = nested.replace("%s", inner);
  const schemes = AUTOLINK_SCHEMES.join("|");
  const before = String.raw`(?:(?<![^\s'"(,:<])|(?<=[^\x00-\x7F])(?=(?:${schemes})://))`;
  const domain = String.raw`(?:(?:${schemes})://[${W}.:@-]+?|(?:[${W}-]+\.)+(?:${tlds}))`;
  const url = String.raw`(?:${domain}(?:/${nested}|[?#](?=[^\s()"])${nested})?|[${W}.-]+@[${W}.-]+\.[${W}]+|bitcoin:[13][a-km-zA-HJ-NP-Z1-9]{25,34})`;
  return new RegExp(String.raw`${before}(?<url>${url})(?=[!:;?),.'">]*(?:$|\s))`, "gsu");
}

export const WEB_LINK_RE = buildWebLinkRegex();

interface SplitUrl {
  scheme: string;
  netloc: string;
  path: string;
  query: string;
  fragment: string;
}

const SCHEME_CHARS = /^[A-Za-z][A-Za-z0-9+\-.]*$/;

/** Splits a URL into its five parts the way Python's urlsplit does. */
export function splitUrl(url: string): SplitUrl {
  let scheme = "";
  let rest = url;
  const colon = url.indexOf(":");
  if (colon > 0 && SCHEME_CHARS.test(url.slice(0, colon))) {
    scheme = url.slice(0, colon).toLowerCase();
    rest = url.slice(colon + 1);
  }
  let netloc = "";
  if (rest.startsWith("//")) {
    const m = /[/?#]/.exec(rest.slice(2));
    const end = m ? m.index + 2 : rest.length;
    netloc = rest.slice(2, end);
    rest = rest.slice(end);
  }
  let fragment = "";
  const hash = rest.indexOf("#");
  if (hash >= 0) {
    fragment = rest.slice(hash + 1);
    rest = rest.slice(0, hash);
  }
  let query = "";
  const q = rest.indexOf("?");
  if (q >= 0) {
    query = rest.slice(q + 1);
    rest = rest.slice(0, q);
  }
  return { scheme, netloc, path: rest, query, fragment };
}

const USES_NETLOC = new Set(["", "ftp", "http", "gopher", "nntp", "telnet", "imap", "wais", "file", "mms", "https", "shttp", "snews", "prospero", "rtsp", "rtspu", "rsync", "svn", "svn+ssh", "sftp", "nfs", "git", "git+ssh", "ws", "wss"]);

export function joinUrl({ scheme, netloc, path, query, fragment }: SplitUrl): string {
  let url = path;
  if (netloc || (scheme && USES_NETLOC.has(scheme) && !url.startsWith("//"))) {
    if (url && !url.startsWith("/")) url = "/" + url;
    url = "//" + netloc + url;
  }
  if (scheme) url = `${scheme}:${url}`;
  if (query) url += `?${query}`;
  if (fragment) url += `#${fragment}`;
  return url;
}

/**
 * The href a link may have, or null when it must stay plain text. A missing scheme means http
 * (or mailto for addresses); relative paths and fragments are kept.
 */
export function sanitizeUrl(url: string): string | null {
  const parts = splitUrl(url.replace(/ /g, "%20"));
  if (!parts.scheme && !parts.netloc && parts.path.includes("@")) {
    parts.scheme = "mailto";
  } else if (!parts.scheme && !parts.netloc && parts.path.startsWith("/")) {
    return joinUrl({ ...parts, scheme: "", netloc: "" });
  } else if (!parts.scheme && !parts.netloc && !parts.path && !parts.query && parts.fragment) {
    return joinUrl({ scheme: "", netloc: "", path: "", query: "", fragment: parts.fragment });
  }
  if (!parts.scheme) return sanitizeUrl("http://" + url);
  if (!ALLOWED_SCHEMES.has(parts.scheme)) return null;
  return joinUrl(parts);
}

/** Links into the organization's own web app or uploads become relative. */
export function relativeToRealm(realmUrl: string | undefined, href: string): string {
  if (!realmUrl) return href;
  const prefix = realmUrl.replace(/\/+$/, "") + "/";
  if (href.startsWith(prefix + "#") || href.startsWith(prefix + "user_uploads/")) return href.slice(prefix.length);
  return href;
}

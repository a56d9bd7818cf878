/**
 * Link previews (the organization's `inline_url_embed_preview`), as Zulip's embed_links worker
 * makes them: sending or editing a message whose links get no other preview queues an outbox
 * job; the job reads each page (through safe_fetch, at most PAGE_MAX_BYTES of HTML, within a
 * deadline), takes its oEmbed, OpenGraph or plain HTML title, description and image, keeps them
 * per URL, adds a `message_embed` block to the message for each link with an image, and tells
 * the message's readers with a `rendering_only` update_message event.
 *
 * A page that fails to answer, answers too much, or redirects where the server may not go
 * gives no preview; the job ends normally either way, so it is never retried for a bad page.
 */
import { createHash } from "node:crypto";
import type { AppContext } from "../context.js";
import type { Config } from "../config.js";
import { runAction, type PendingEvents, type Tx } from "../actions/run.js";
import type { Realm } from "../store/realms.js";
import type { UserRow } from "../store/users.js";
import type { Rendered } from "../markdown/render.js";
import { escapeHtml } from "../markdown/render.js";
import { proxied } from "../markdown/patterns.js";
import { queueOutboxJob } from "../outbound/outbox.js";
import { AddressPolicy } from "../outbound/address_policy.js";
import { safeFetchStream } from "../outbound/safe_fetch.js";
import { storeRerenderedMessage } from "../actions/rendering_updates.js";
import { renderCamo } from "./image_proxy.js";
import { parsePageMetadata } from "./html_metadata.js";

export interface LinkPreviewJob {
  realmId: number;
  messageId: number;
  /** The content the links came from; an edit since makes the job moot (the edit queued its own). */
  content: string;
  urls: string[];
}

/** What a preview shows of a page. */
export interface EmbedData {
  title?: string;
  description?: string;
  image?: string;
}

/** The most of a page read: its head, where the metadata is, comes first. */
export const PAGE_MAX_BYTES = 1024 * 1024;
const OEMBED_MAX_BYTES = 64 * 1024;
const MAX_REDIRECTS = 5;
/** Pages fetched side by side for one message. */
const FETCH_CONCURRENCY = 4;
/** How long a page's data is reused before it is read again. */
const CACHE_SECONDS = 7 * 24 * 3600;
/** Kept of the job's time for writing the message once pages are read. */
const WRITE_MARGIN_MS = 5000;

/** Queues the previews of a message just sent or edited, when the organization and server want them. */
export async function queueLinkPreviews(
  app: AppContext,
  tx: Tx,
  events: PendingEvents,
  realm: Realm,
  sender: UserRow,
  messageId: number,
  content: string,
  rendered: Rendered,
): Promise<void> {
  const urls = rendered.linksForPreview;
  if (!urls?.length || !app.config.inlineUrlEmbedPreview || realm.props.inline_url_embed_preview !== true) return;
  // Zulip previews no links bots send.
  if (sender.is_bot === 1) return;
  await queueOutboxJob(app, tx, events, "link_preview", { realmId: realm.id, messageId, content, urls });
}

const policies = new WeakMap<Config, AddressPolicy>();
function policyFor(config: Config): AddressPolicy {
  let policy = policies.get(config);
  if (!policy) policies.set(config, (policy = new AddressPolicy(config.outboundAllowedNetworks)));
  return policy;
}

const urlHash = (url: string) => createHash("sha256").update(url).digest("hex");

interface Page {
  status: number;
  contentType: string;
  body: Buffer;
  url: string;
}

/** GETs `url`, reading at most `maxBytes` of its body; throws what safe_fetch throws. */
async function readPage(app: AppContext, url: string, accept: string, maxBytes: number, timeoutMs: number): Promise<Page> {
  // The stream's own cap is a little higher, so a longer page is cut here rather than failed.
  const res = await safeFetchStream(policyFor(app.config), {
    url,
    headers: { "user-agent": "Mozilla/5.0 (compatible; ConfabURLPreview; +https://zulip.com/)", accept },
    timeoutMs,
    maxBytes: maxBytes + 1,
    maxRedirects: MAX_REDIRECTS,
  });
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of res.body) {
      chunks.push(chunk as Buffer);
      size += (chunk as Buffer).length;
      if (size >= maxBytes) break;
    }
  } finally {
    res.body.destroy();
  }
  const contentType = typeof res.headers["content-type"] === "string" ? res.headers["content-type"] : "";
  return { status: res.status, contentType, body: Buffer.concat(chunks).subarray(0, maxBytes), url: res.url };
}

function decodeBody(body: Buffer, contentType: string): string {
  const charset = /charset\s*=\s*"?([A-Za-z0-9_.:-]{1,40})/i.exec(contentType)?.[1];
  try {
    return new TextDecoder(charset ?? "utf-8").decode(body);
  } catch {
    return new TextDecoder("utf-8").decode(body);
  }
}

const httpUrl = (candidate: string | undefined, base: string): string | undefined => {
  if (!candidate) return undefined;
  try {
    const url = new URL(candidate, base);
    return url.protocol === "http:" || url.protocol === "https:" ? url.toString() : undefined;
  } catch {
    return undefined;
  }
};

/** A page's share of the job's time: its own timeout, or what is left. */
const pageTimeout = (app: AppContext, deadline: number) => Math.max(1, Math.min(app.config.linkPreviewTimeoutMs, deadline - Date.now()));

/** The page's oEmbed answer, as preview data; nothing if it cannot be had. */
async function oembedData(app: AppContext, oembedUrl: string, deadline: number): Promise<EmbedData> {
  try {
    const page = await readPage(app, oembedUrl, "application/json", OEMBED_MAX_BYTES, pageTimeout(app, deadline));
    if (page.status < 200 || page.status > 299) return {};
    const data = JSON.parse(page.body.toString("utf8")) as Record<string, unknown>;
    const text = (v: unknown) => (typeof v === "string" && v.trim() ? v.trim().slice(0, 1000) : undefined);
    const image = data.type === "photo" ? text(data.url) : text(data.thumbnail_url);
    return { title: text(data.title), description: text(data.description), image: httpUrl(image, oembedUrl) };
  } catch {
    return {};
  }
}

/**
 * What a preview of `url` shows; null when the page is not one to preview (not HTML, an error
 * status). Network failures throw, so they are not kept as the page's answer.
 */
export async function fetchEmbedData(app: AppContext, url: string, deadline: number): Promise<EmbedData | null> {
  const page = await readPage(app, url, "text/html,application/xhtml+xml;q=0.9,*/*;q=0.1", PAGE_MAX_BYTES, pageTimeout(app, deadline));
  if (page.status < 200 || page.status > 299) return null;
  const type = page.contentType.split(";")[0].trim().toLowerCase();
  // Like Zulip, a page without a type is taken for HTML if it looks like it.
  if (type ? type !== "text/html" && type !== "application/xhtml+xml" : !/^\s*</.test(page.body.subarray(0, 512).toString("latin1"))) return null;
  const meta = parsePageMetadata(decodeBody(page.body, page.contentType));
  const oembedUrl = httpUrl(meta.oembedUrl, page.url);
  const oembed = oembedUrl ? await oembedData(app, oembedUrl, deadline) : {};
  return {
    title: oembed.title ?? meta.title,
    description: oembed.description ?? meta.description,
    image: oembed.image ?? httpUrl(meta.image, page.url),
  };
}

/** Each URL's data: kept data when fresh, otherwise read now (a failed read is null, and not kept). */
async function embedDataFor(app: AppContext, urls: string[], deadline: number): Promise<Map<string, EmbedData | null>> {
  // Whole seconds: fetched_at is a bigint column, which PostgreSQL won't compare with a fraction.
  const now = Math.floor(app.clock.now());
  const hashes = new Map(urls.map((u) => [urlHash(u), u]));
  const rows = await app.db
    .selectFrom("link_previews")
    .select(["url_hash", "url", "data"])
    .where("url_hash", "in", [...hashes.keys()])
    .where("fetched_at", ">", now - CACHE_SECONDS)
    .execute();
  const found = new Map<string, EmbedData | null>();
  for (const row of rows) if (row.url === hashes.get(row.url_hash)) found.set(row.url, row.data === null ? null : (JSON.parse(row.data) as EmbedData));
  const missing = urls.filter((u) => !found.has(u));
  let next = 0;
  const worker = async () => {
    while (next < missing.length) {
      const url = missing[next++];
      let data: EmbedData | null;
      try {
        data = await fetchEmbedData(app, url, deadline);
      } catch (err) {
        app.log.info({ err, url }, "link preview: page not read");
        found.set(url, null);
        continue;
      }
      found.set(url, data);
      const values = { url, data: data === null ? null : JSON.stringify(data), fetched_at: Math.floor(app.clock.now()) };
      await app.db
        .insertInto("link_previews")
        .values({ url_hash: urlHash(url), ...values })
        .onConflict((oc) => oc.column("url_hash").doUpdateSet(values))
        .execute();
    }
  };
  await Promise.all(Array.from({ length: Math.min(FETCH_CONCURRENCY, missing.length) }, worker));
  return found;
}

/** A url() for a style attribute, escaped as CSS wants it; the HTML escaping comes after. */
const cssUrl = (url: string) => `url("${url.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\a ")}")`;

/** Zulip's `message_embed` block; none for a page without an image, as in Zulip. */
export function embedHtml(app: AppContext, link: string, data: EmbedData): string | undefined {
  if (!data.image) return undefined;
  const image = proxied(renderCamo(app), app.config.externalUrl.replace(/\/+$/, ""), data.image);
  let html = `<div class="message_embed"><a class="message_embed_image" href="${escapeHtml(link)}" style="${escapeHtml(`background-image: ${cssUrl(image)}`)}"></a>`;
  html += `<div class="data-container">`;
  if (data.title) html += `<div class="message_embed_title"><a href="${escapeHtml(link)}" title="${escapeHtml(data.title)}">${escapeHtml(data.title)}</a></div>`;
  if (data.description) html += `<div class="message_embed_description">${escapeHtml(data.description)}</div>`;
  return html + `</div></div>`;
}

/** The outbox's performer for `link_preview` jobs. */
export async function makeLinkPreviews(app: AppContext, job: LinkPreviewJob): Promise<void> {
  const deadline = Date.now() + Math.max(1000, app.config.outboxJobTimeoutMs - WRITE_MARGIN_MS);
  const data = await embedDataFor(app, job.urls, deadline);
  const embeds = job.urls.map((url) => (data.get(url) ? embedHtml(app, url, data.get(url)!) : undefined)).filter((h) => h !== undefined);
  if (!embeds.length) return;
  await runAction(app, async (tx, events) => {
    const message = await tx.selectFrom("messages").select(["id", "realm_id", "content", "rendered_content"]).where("id", "=", job.messageId).executeTakeFirst();
    if (!message || message.realm_id !== job.realmId || message.content !== job.content) return;
    // Already added, by an attempt whose lease ran out before it was recorded.
    if (message.rendered_content.includes('<div class="message_embed">')) return;
    await storeRerenderedMessage(app, tx, events, job.realmId, message, `${message.rendered_content}\n${embeds.join("\n")}`);
  });
}

/**
 * `npm run bench -- web [--recent=1000] [--inbox=5000] [--topics=300] [--many=10000] [--runs=5]`:
 * the web client's budgets.
 *   1. First-load JavaScript: the scripts index.html loads (not chunks fetched later), as the
 *      server sends them compressed (brotli and gzip). Budget: 150 KB.
 *   2. Time from `GET /` to a usable combined feed (messages shown, nothing loading) in headless
 *      Chromium on loopback, signed in, with `--recent` unread recent messages. Budget: 500 ms.
 *   3. The Inbox with `--inbox` unread messages in `--topics` topics: from asking for it to its
 *      rows painted. Budget: 200 ms.
 *   4. With `--many` messages loaded into the combined feed (scrolled up page by page): how many
 *      messages are in the page, and frame times while scrolling through them. Budget: p95 16.7 ms.
 * The server runs in this process on a throwaway SQLite database with Zulip's development
 * organization; Chromium is Debian's /usr/bin/chromium.
 */
import fs from "node:fs";
import path from "node:path";
import { brotliCompressSync, gzipSync } from "node:zlib";
import { fileURLToPath } from "node:url";
import type { Page } from "playwright-core";
import { ensureClientBuilt, findChromium, launch, signedIn } from "../../test/helpers/browser.js";
import { startTestServer, type TestServer } from "../../test/helpers/server.js";
import { DEV_PASSWORD, seedDevOrganization } from "../../src/dev/seed.js";
import { percentile } from "./lib.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const KB = 1000;

function option(args: string[], name: string, fallback: number): number {
  const found = args.find((a) => a.startsWith(`--${name}=`));
  return found ? Number(found.split("=")[1]) : fallback;
}

function firstLoadScripts(): { files: string[]; raw: number; gzip: number; brotli: number } {
  const dist = path.join(ROOT, "dist/web");
  const html = fs.readFileSync(path.join(dist, "index.html"), "utf8");
  const files = [...html.matchAll(/<(?:script[^>]*src|link[^>]*rel="modulepreload"[^>]*href)="\/static\/web\/([^"]+\.js)"/g)].map((m) => m[1]);
  let raw = 0;
  let gzip = 0;
  let brotli = 0;
  for (const f of files) {
    const bytes = fs.readFileSync(path.join(dist, f));
    raw += bytes.length;
    gzip += gzipSync(bytes, { level: 9 }).length;
    brotli += brotliCompressSync(bytes).length;
  }
  return { files, raw, gzip, brotli };
}

async function authOf(srv: TestServer, email: string): Promise<string> {
  const key = await fetch(`${srv.url}/api/v1/fetch_api_key`, { method: "POST", body: new URLSearchParams({ username: email, password: DEV_PASSWORD }) });
  const { api_key } = (await key.json()) as { api_key: string };
  return "Basic " + Buffer.from(`${email}:${api_key}`).toString("base64");
}

async function postMessages(srv: TestServer, count: number, channel: string, topicCount: number, firstTopic = 0): Promise<void> {
  const auth = await authOf(srv, "iago@zulip.com");
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      const body = new URLSearchParams({ type: "stream", to: channel, topic: `topic ${firstTopic + (i % topicCount)}`, content: `Message **${i}** with \`code\` and a [link](https://example.com/${i})` });
      const r = await fetch(`${srv.url}/api/v1/messages`, { method: "POST", headers: { authorization: auth }, body });
      if (r.status !== 200) throw new Error(`sending failed: ${await r.text()}`);
    }
  };
  await Promise.all([worker(), worker(), worker(), worker()]);
}

/** Milliseconds from a (re)load of the combined feed's URL to its messages shown and nothing loading. */
async function timeToFeed(page: Page): Promise<number> {
  if (!page.url().endsWith("#feed")) await page.goto("/#feed");
  const start = Date.now();
  await page.reload({ waitUntil: "commit" });
  await page.waitForSelector(".feed .message");
  await page.waitForSelector(".feed[aria-busy=false]");
  return Date.now() - start;
}

/**
 * Milliseconds from asking for the Inbox (from another view) to its rows painted: measured in
 * the page, from the hash change to the second animation frame after `rows` topic rows exist.
 */
async function timeToInbox(page: Page, rows: number): Promise<number> {
  await page.goto("/#narrow/is/starred");
  await page.waitForSelector(".feed[aria-busy=false]");
  return page.evaluate(`new Promise((resolve) => {
    const start = performance.now();
    window.location.hash = "#inbox";
    const check = () => {
      if (document.querySelectorAll(".inbox-topic").length >= ${rows}) requestAnimationFrame(() => requestAnimationFrame(() => resolve(performance.now() - start)));
      else requestAnimationFrame(check);
    };
    check();
  })`);
}

async function markAllRead(srv: TestServer, email: string): Promise<void> {
  const r = await fetch(`${srv.url}/api/v1/mark_all_as_read`, { method: "POST", headers: { authorization: await authOf(srv, email) } });
  if (r.status !== 200) throw new Error(`mark_all_as_read failed: ${await r.text()}`);
}

async function loadEverything(page: Page, expected: number): Promise<number> {
  for (let i = 0; i < expected / 50; i++) {
    const done = await page.evaluate(() => !!document.querySelector(".history-start"));
    if (done) break;
    await page.evaluate(() => {
      const feed = document.querySelector(".feed")!;
      feed.scrollTop = 0;
      feed.dispatchEvent(new Event("scroll"));
    });
    await page.waitForSelector(".feed[aria-busy=false]");
    await page.waitForTimeout(20);
  }
  return page.evaluate(() => document.querySelectorAll(".feed .message").length);
}

/**
 * Scrolls the feed down for `ms` and returns every frame's duration. Given as source text: tsx
 * would wrap a named inner function in a helper the page does not have.
 */
async function scrollFrames(page: Page, ms: number): Promise<number[]> {
  return page.evaluate(`new Promise((resolve) => {
    const feed = document.querySelector(".feed");
    const frames = [];
    let last = performance.now();
    const end = last + ${ms};
    const step = (now) => {
      frames.push(now - last);
      last = now;
      feed.scrollTop += 120;
      if (feed.scrollTop + feed.clientHeight >= feed.scrollHeight - 1) feed.scrollTop = 0;
      feed.dispatchEvent(new Event("scroll"));
      if (now < end) requestAnimationFrame(step);
      else resolve(frames);
    };
    requestAnimationFrame(step);
  })`);
}

export async function run(args: string[]): Promise<void> {
  const recent = option(args, "recent", 1000);
  const inbox = option(args, "inbox", 5000);
  const topics = option(args, "topics", 300);
  const many = option(args, "many", 10_000);
  const runs = option(args, "runs", 5);
  ensureClientBuilt();

  const js = firstLoadScripts();
  console.log(`first-load JavaScript (${js.files.join(", ")}): ${(js.raw / KB).toFixed(1)} KB raw, ${(js.gzip / KB).toFixed(1)} KB gzip, ${(js.brotli / KB).toFixed(1)} KB brotli (budget 150 KB compressed)`);

  const chromium = await findChromium();
  if ("reason" in chromium) {
    console.log(`browser budgets skipped: ${chromium.reason}`);
    return;
  }
  const srv = await startTestServer({ development: true });
  const browser = await launch(chromium.path);
  try {
    await seedDevOrganization(srv.app);
    await markAllRead(srv, "hamlet@zulip.com");
    await postMessages(srv, recent, "Verona", 20);
    const { context, page } = await signedIn(browser, srv.url, "hamlet@zulip.com", DEV_PASSWORD);
    const times: number[] = [];
    for (let i = 0; i < runs + 1; i++) times.push(await timeToFeed(page));
    times.shift(); // The first run also fills Chromium's caches.
    times.sort((a, b) => a - b);
    console.log(`GET / to a usable feed with ${recent} unread recent messages: median ${percentile(times, 50)} ms, max ${times.at(-1)} ms over ${runs} loads (budget 500 ms)`);

    // The Inbox: `inbox` unread in `topics` topics (the recent ones above count towards both).
    await postMessages(srv, Math.max(0, inbox - recent), "Denmark", Math.max(1, topics - 20), 20);
    await page.goto("/#inbox");
    await page.reload();
    await page.waitForSelector(".inbox-topic");
    const unread = await page.evaluate(() => document.title);
    const inboxTimes: number[] = [];
    for (let i = 0; i < runs + 1; i++) inboxTimes.push(await timeToInbox(page, topics));
    inboxTimes.shift();
    inboxTimes.sort((a, b) => a - b);
    console.log(`Inbox with ${topics} topics (${unread.match(/\((\d+)\)/)?.[1] ?? "?"} unread): median ${percentile(inboxTimes, 50).toFixed(1)} ms, max ${inboxTimes.at(-1)!.toFixed(1)} ms over ${runs} (budget 200 ms)`);

    // Scrolling: everything read, so the combined feed opens at the newest and pages back.
    await markAllRead(srv, "hamlet@zulip.com");
    await postMessages(srv, Math.max(0, many - inbox), "Denmark", 50);
    await markAllRead(srv, "hamlet@zulip.com");
    await page.goto("/#feed");
    await page.reload();
    await page.waitForSelector(".feed .message");
    const started = Date.now();
    const inPage = await loadEverything(page, many);
    const loadedSecs = (Date.now() - started) / 1000;
    const loaded = await page.evaluate(() => Number(document.querySelector(".feed")?.getAttribute("data-loaded") ?? 0));
    const frames = (await scrollFrames(page, 3000)).sort((a, b) => a - b);
    const long = frames.filter((f) => f > 50).length;
    console.log(
      `${loaded} messages loaded in the combined feed (${loadedSecs.toFixed(1)} s of paging): ${inPage} in the page; ` +
        `scrolling ${frames.length} frames: p50 ${percentile(frames, 50).toFixed(1)} ms, p95 ${percentile(frames, 95).toFixed(1)} ms (budget 16.7 ms), ` +
        `max ${frames.at(-1)!.toFixed(1)} ms, ${long} over 50 ms`,
    );
    await context.close();
  } finally {
    await browser.close();
    await srv.close();
  }
}

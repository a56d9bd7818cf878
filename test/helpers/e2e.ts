/**
 * The web client's end-to-end harness: each test file gets one real Confab with Zulip's
 * development organization and one headless Chromium, set up and torn down as the file's
 * `before`/`after` hooks. Scenarios are skipped, with the reason, where Chromium cannot be had.
 */
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import type { Browser } from "playwright-core";
import { startTestServer, type TestServer } from "./server.js";
import { seedDevOrganization, DEV_PASSWORD } from "../../src/dev/seed.js";
import { ensureClientBuilt, findChromium, launch } from "./browser.js";

/**
 * Polls `read` until it gives `want` (compared as JSON) or ten seconds pass, then asserts: for
 * counts and states a page reaches after a fetch or an event, which CI's slower machine may not
 * have reached the moment a title or a first row shows.
 */
export async function eventually<T>(what: string, read: () => Promise<T>, want: T) {
  const deadline = Date.now() + 10_000;
  let seen = await read();
  while (JSON.stringify(seen) !== JSON.stringify(want) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    seen = await read();
  }
  assert.deepEqual(seen, want, what);
}

/** A development user by email, or someone else (a new sign-up) with their password. */
export type Who = string | { email: string; password?: string };
type Params = Record<string, string | number | boolean>;

/** `setup` runs once the server and browser are up, for data every scenario of the file shares. */
export function devOrganizationInChromium(setup?: () => Promise<void>) {
  let srv: TestServer | undefined;
  let browser: Browser | undefined;
  let skipReason = "";
  const keys = new Map<string, string>();

  before(async () => {
    const found = await findChromium();
    if ("reason" in found) {
      skipReason = found.reason;
      return;
    }
    ensureClientBuilt();
    srv = await startTestServer({ development: true });
    await seedDevOrganization(srv.app);
    browser = await launch(found.path);
    await setup?.();
  });

  after(async () => {
    await browser?.close();
    await srv?.close();
  });

  const harness = {
    get srv(): TestServer {
      return srv!;
    },
    get browser(): Browser {
      return browser!;
    },

    scenario(name: string, body: () => Promise<void>) {
      test(name, async (ctx) => {
        if (skipReason) {
          console.log(`skipping: ${skipReason}`);
          ctx.skip(skipReason);
          return;
        }
        try {
          await body();
        } finally {
          // A scenario that fails leaves its pages open; their event queues would reach into the next one.
          await Promise.all(browser!.contexts().map((c) => c.close()));
        }
      });
    },

    async apiKey(who: Who): Promise<string> {
      const { email, password = DEV_PASSWORD } = typeof who === "string" ? { email: who } : who;
      const cacheKey = `${email}\n${password}`;
      if (!keys.has(cacheKey)) {
        const r = await fetch(`${srv!.url}/api/v1/fetch_api_key`, { method: "POST", body: new URLSearchParams({ username: email, password }) });
        keys.set(cacheKey, ((await r.json()) as { api_key: string }).api_key);
      }
      return keys.get(cacheKey)!;
    },

    /** An API call that must succeed (asserted), through the user's API key. */
    async call<T = Record<string, any>>(who: Who, method: string, urlPath: string, params: Params = {}): Promise<T> {
      const email = typeof who === "string" ? who : who.email;
      const auth = "Basic " + Buffer.from(`${email}:${await harness.apiKey(who)}`).toString("base64");
      const body = new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)]));
      const get = method === "GET";
      const r = await fetch(`${srv!.url}/api/v1${urlPath}${get ? `?${body}` : ""}`, { method, headers: { authorization: auth }, body: get ? undefined : body });
      const json = (await r.json()) as Record<string, unknown>;
      assert.equal(json.result, "success", JSON.stringify(json));
      return json as T;
    },

    send: (email: string, channel: string, topic: string, content: string) =>
      harness.call<{ id: number }>(email, "POST", "/messages", { type: "stream", to: channel, topic, content }).then((r) => r.id),

    streamIdOf: async (name: string, as = "iago@zulip.com") => (await harness.call<{ stream_id: number }>(as, "GET", "/get_stream_id", { stream: name })).stream_id,
  };
  return harness;
}

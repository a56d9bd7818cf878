/**
 * Link previews through real HTTP both ways: a local web server plays the linked sites (reached
 * through CONFAB_OUTBOUND_ALLOWED_NETWORKS), messages are sent and edited through the API, and
 * the previews arrive as rendering_only update_message events on GET /events.
 */
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { Api } from "../helpers/client.js";
import { createTestRealm, type TestRealm } from "../helpers/realm.js";
import { makeChannel, ok, type MadeChannel } from "../helpers/channels.js";
import { expectError } from "../helpers/expect.js";

const GiB = 1024 * 1024 * 1024;

class Site {
  readonly requested: string[] = [];
  hugeWritten = 0;
  private readonly held = new Set<http.ServerResponse>();
  private constructor(private readonly server: http.Server) {}

  static async start(): Promise<Site> {
    const site: Site = new Site(http.createServer((req, res) => site.handle(req, res)));
    await new Promise<void>((resolve) => site.server.listen(0, "127.0.0.1", resolve));
    return site;
  }

  get base(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const path = req.url!;
    this.requested.push(path);
    const html = (body: string) => {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end(body);
    };
    if (path.startsWith("/article")) {
      return html(
        `<!doctype html><html><head><title>Ignored &amp; plain title</title>
        <meta property="og:title" content="The &quot;Rock&quot; &amp; friends">
        <meta property="og:description" content="A description <with> markup">
        <meta property="og:image" content="/images/rock.jpg">
        </head><body><p>Body</p></body></html>`,
      );
    }
    if (path === "/plain") {
      return html(
        `<html><head><TITLE>Plain page</TITLE><meta name="description" content="Meta description"></head>
        <body><!-- <h1>not this</h1> --><script>var s = "<h1>nor this</h1>";</script><h1>Heading</h1><img src="pic.png"><p>First paragraph</p></body></html>`,
      );
    }
    if (path === "/no-image") return html(`<html><head><title>No image here</title></head><body></body></html>`);
    if (path === "/not-html") {
      res.writeHead(200, { "content-type": "application/pdf" });
      return void res.end("%PDF-1.4");
    }
    if (path === "/hang") {
      this.held.add(res);
      return;
    }
    if (path === "/huge") {
      res.writeHead(200, { "content-type": "text/html" });
      const chunk = Buffer.alloc(64 * 1024, "<p>x");
      this.hugeWritten = 0;
      const pump = () => {
        while (this.hugeWritten < GiB && !res.destroyed) {
          this.hugeWritten += chunk.length;
          if (!res.write(chunk)) return void res.once("drain", pump);
        }
        res.end();
      };
      return pump();
    }
    if (path === "/to-loopback") {
      res.writeHead(302, { location: `http://127.0.0.2:${(this.server.address() as AddressInfo).port}/article` });
      return void res.end();
    }
    res.writeHead(404);
    res.end();
  }

  async stop(): Promise<void> {
    for (const res of this.held) res.destroy();
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

let site: Site;
let srv: TestServer;
let t: TestRealm;
let channel: MadeChannel;
const as = (u: { email: string; apiKey: string }) => new Api(srv.url, u);

before(async () => {
  site = await Site.start();
  srv = await startTestServer({ outboundAllowedNetworks: ["127.0.0.1/32"], linkPreviewTimeoutMs: 500 });
  t = await createTestRealm(srv.app);
  channel = await makeChannel(srv, t, { subscribers: [t.member, t.member2] });
});
after(async () => {
  await srv.close();
  await site.stop();
});

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  for (let i = 0; i < 1500; i++) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`gave up waiting for ${what}`);
}

const previewJobs = async () =>
  (await srv.app.db.selectFrom("outbox_jobs").select("id").where("kind", "=", "link_preview").execute()).length;
const outboxDrained = () => waitFor("the link previews to be made", async () => ((await previewJobs()) === 0 ? true : undefined));

async function setPreviews(on: boolean) {
  await ok(as(t.admin).patch("/realm", { inline_url_embed_preview: on }));
}

async function send(content: string): Promise<number> {
  return (await ok(as(t.member).post("/messages", { type: "stream", to: channel.name, topic: "links", content }))).id;
}

const renderedOf = async (id: number): Promise<string> => (await ok(as(t.member2).get(`/messages/${id}`))).message.content;

/** The rendering_only update for `id` that member2's queue receives. */
async function renderingUpdate(queueId: string, id: number): Promise<Record<string, any>> {
  let last = -1;
  // Bounded, so a preview that never comes fails the test instead of polling heartbeats forever.
  for (let polls = 0; polls < 3; polls++) {
    const { events } = await ok(as(t.member2).get("/events", { queue_id: queueId, last_event_id: last }));
    for (const event of events) {
      last = Math.max(last, event.id);
      if (event.type === "update_message" && event.message_id === id) return event;
    }
  }
  throw new Error(`no rendering update for message ${id}`);
}

describe("link previews", () => {
  test("the organization setting is off by default; administrators turn it on, with a realm update event", async () => {
    const { queue_id, realm_inline_url_embed_preview, server_inline_url_embed_preview } = await ok(
      as(t.member2).post("/register", { event_types: JSON.stringify(["realm"]), fetch_event_types: JSON.stringify(["realm"]) }),
    );
    assert.equal(realm_inline_url_embed_preview, false);
    assert.equal(server_inline_url_embed_preview, true);
    for (const u of [t.moderator, t.member, t.guest, t.bot]) {
      expectError(await as(u).patch("/realm", { inline_url_embed_preview: true }), "Must be an organization administrator", "UNAUTHORIZED_PRINCIPAL");
    }
    await setPreviews(true);
    const { events } = await ok(as(t.member2).get("/events", { queue_id, last_event_id: -1 }));
    const update = events.find((e: any) => e.type === "realm" && e.op === "update");
    assert.deepEqual({ ...update, id: undefined }, { type: "realm", op: "update", property: "inline_url_embed_preview", value: true, id: undefined });
  });

  test("a page's OpenGraph data becomes a message_embed, announced as a rendering-only update", async () => {
    await setPreviews(true);
    const { queue_id } = await ok(as(t.member2).post("/register", { event_types: JSON.stringify(["update_message"]) }));
    const url = `${site.base}/article`;
    const id = await send(`look: ${url}`);
    const event = await renderingUpdate(queue_id, id);
    assert.equal(event.rendering_only, true);
    assert.equal(event.user_id, null);
    assert.deepEqual(event.message_ids, [id]);
    assert.equal(event.content, `look: ${url}`);
    assert.deepEqual(event.flags, []);
    const image = `${site.base}/images/rock.jpg`;
    const m = /^<p>look: <a href="([^"]+)">[^<]+<\/a><\/p>\n<div class="message_embed"><a class="message_embed_image" href="([^"]+)" style="background-image: url\(&quot;(\/external_content\/[0-9a-f]{40}\/([0-9a-f]+))&quot;\)"><\/a><div class="data-container"><div class="message_embed_title"><a href="[^"]+" title="The &quot;Rock&quot; &amp; friends">The &quot;Rock&quot; &amp; friends<\/a><\/div><div class="message_embed_description">A description &lt;with&gt; markup<\/div><\/div><\/div>$/.exec(event.rendered_content);
    assert.ok(m, event.rendered_content);
    assert.equal(m[1], url);
    assert.equal(m[2], url);
    assert.equal(Buffer.from(m[4], "hex").toString(), image, "the image is the page's, made absolute, through the proxy");
    assert.equal(await renderedOf(id), event.rendered_content, "the stored rendering has the embed");
  });

  test("a page without OpenGraph gives its title, description and the image after its heading; a page without an image gives none", async () => {
    await setPreviews(true);
    const id = await send(`${site.base}/plain and ${site.base}/no-image`);
    await outboxDrained();
    const html = await renderedOf(id);
    assert.equal((html.match(/class="message_embed"/g) ?? []).length, 1, html);
    assert.match(html, /title="Plain page">Plain page<\/a><\/div><div class="message_embed_description">Meta description<\/div>/);
    const hex = /url\(&quot;\/external_content\/[0-9a-f]{40}\/([0-9a-f]+)&quot;\)/.exec(html)![1];
    assert.equal(Buffer.from(hex, "hex").toString(), `${site.base}/pic.png`);
  });

  test("an edit previews the new links, from the kept data without fetching again", async () => {
    await setPreviews(true);
    const id = await send("no links yet");
    const before = site.requested.filter((p) => p === "/article?edit").length;
    const url = `${site.base}/article?edit`;
    await ok(as(t.member).patch(`/messages/${id}`, { content: `now ${url}` }));
    await outboxDrained();
    assert.match(await renderedOf(id), /<div class="message_embed">/);
    await ok(as(t.member).patch(`/messages/${id}`, { content: `again ${url}` }));
    await outboxDrained();
    assert.match(await renderedOf(id), /^<p>again .*<div class="message_embed">/s);
    assert.equal(site.requested.filter((p) => p === "/article?edit").length, before + 1, "the second edit used the kept data");
  });

  test("with the setting off nothing is queued or fetched", async () => {
    await setPreviews(false);
    const requests = site.requested.length;
    const id = await send(`${site.base}/article?off`);
    assert.equal(await previewJobs(), 0);
    assert.equal(await renderedOf(id), `<p><a href="${site.base}/article?off">${site.base}/article?off</a></p>`);
    assert.equal(site.requested.length, requests);
  });

  test("links in quotes, image links, bots' messages and links to this server are not previewed", async () => {
    await setPreviews(true);
    await send(`> ${site.base}/article?quoted`);
    await send(`${site.base}/photo.png`);
    await send(`${srv.app.config.externalUrl}/#narrow/channel/1-x`);
    await ok(as(t.bot).post("/messages", { type: "stream", to: channel.name, topic: "links", content: `${site.base}/article?bot` }));
    assert.equal(await previewJobs(), 0);
  });

  test("a page that never answers, a gigabyte page, a redirect to loopback and a PDF give no preview; the worker goes on", async () => {
    await setPreviews(true);
    const bad = ["/hang", "/huge", "/to-loopback", "/not-html"].map((p) => `${site.base}${p}`);
    const id = await send(bad.join("\n\n"));
    await outboxDrained();
    assert.doesNotMatch(await renderedOf(id), /message_embed/);
    assert.ok(site.hugeWritten < 64 * 1024 * 1024, `the gigabyte page was cut off early (${site.hugeWritten} bytes written)`);
    const next = await send(`${site.base}/article?after`);
    await outboxDrained();
    assert.match(await renderedOf(next), /<div class="message_embed">/);
  });
});

/**
 * The image proxy at /external_content/: a local HTTP server plays the remote site (reachable
 * through CONFAB_OUTBOUND_ALLOWED_NETWORKS), and the proxied URLs come from rendered messages
 * or are signed here with the configured key.
 */
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import { createHmac } from "node:crypto";
import type { AddressInfo } from "node:net";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { Api } from "../helpers/client.js";
import { createTestRealm, type TestRealm } from "../helpers/realm.js";
import { makeChannel, ok } from "../helpers/channels.js";

const PNG = Buffer.from(
  "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082",
  "hex",
);
const GiB = 1024 * 1024 * 1024;

/** The remote site: each path answers as its handler says; `written` counts the bytes of /huge. */
class Site {
  written = 0;
  hugeClosed: Promise<void> = Promise.resolve();
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
    const path = req.url!.split("?")[0];
    switch (path) {
      case "/cat.png":
        if (req.headers["if-none-match"] === '"v1"') return void res.writeHead(304, { etag: '"v1"' }).end();
        res.writeHead(200, { "content-type": "image/png", "content-length": PNG.length, etag: '"v1"' });
        return void res.end(PNG);
      case "/page.html":
        res.writeHead(200, { "content-type": "text/html" });
        return void res.end("<html><body>not an image</body></html>");
      case "/evil.svg":
        res.writeHead(200, { "content-type": "image/svg+xml" });
        return void res.end('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');
      case "/declared-huge.png":
        res.writeHead(200, { "content-type": "image/png", "content-length": GiB });
        return void res.write(PNG);
      case "/huge.png": {
        // A gigabyte, streamed as fast as the reader takes it, with no length announced.
        res.writeHead(200, { "content-type": "image/png" });
        const chunk = Buffer.alloc(64 * 1024, 7);
        this.written = 0;
        this.hugeClosed = new Promise((resolve) => res.on("close", resolve));
        const pump = () => {
          while (this.written < GiB && !res.destroyed) {
            this.written += chunk.length;
            if (!res.write(chunk)) return void res.once("drain", pump);
          }
          res.end();
        };
        return pump();
      }
      case "/to-other-loopback":
        res.writeHead(302, { location: `http://127.0.0.2:${(this.server.address() as AddressInfo).port}/cat.png` });
        return void res.end();
      case "/to-cat":
        res.writeHead(302, { location: "/cat.png" });
        return void res.end();
      case "/silent.png":
        this.held.add(res);
        return;
      default:
        res.writeHead(404, { "content-type": "text/plain" });
        return void res.end("no");
    }
  }

  async stop(): Promise<void> {
    for (const res of this.held) res.destroy();
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

const KEY = "test camo key";
const sign = (url: string, key = KEY) =>
  `/external_content/${createHmac("sha1", key).update(url).digest("hex")}/${Buffer.from(url).toString("hex")}`;

let site: Site;
let srv: TestServer;
let t: TestRealm;

before(async () => {
  site = await Site.start();
  srv = await startTestServer({ camoKey: KEY, outboundAllowedNetworks: ["127.0.0.1/32"], externalContentTimeoutMs: 500 });
  t = await createTestRealm(srv.app);
});
after(async () => {
  await srv.close();
  await site.stop();
});

const get = (path: string, headers: Record<string, string> = {}) => fetch(srv.url + path, { headers });

describe("GET /external_content/", () => {
  test("a rendered message's image goes through the proxy, which serves it with caching headers", async () => {
    const channel = await makeChannel(srv, t, { subscribers: [t.member] });
    const url = `${site.base}/cat.png`;
    const { id } = await ok(new Api(srv.url, t.member).post("/messages", { type: "stream", to: channel.name, topic: "t", content: url }));
    const { message } = await ok(new Api(srv.url, t.member).get(`/messages/${id}`));
    const src = /<img [^>]*src="([^"]+)"/.exec(message.content)![1];
    assert.equal(src, sign(url));
    const res = await get(src);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "image/png");
    assert.equal(res.headers.get("etag"), '"v1"');
    assert.match(res.headers.get("cache-control")!, /max-age=/);
    assert.equal(res.headers.get("x-content-type-options"), "nosniff");
    assert.match(res.headers.get("content-security-policy")!, /default-src 'none'/);
    assert.deepEqual(Buffer.from(await res.arrayBuffer()), PNG);
  });

  test("without a configured key the server makes and keeps its own, and serves what it signed", async () => {
    const own = await startTestServer({ outboundAllowedNetworks: ["127.0.0.1/32"] });
    try {
      const ot = await createTestRealm(own.app);
      const url = `${site.base}/cat.png`;
      const { id } = await ok(new Api(own.url, ot.member).post("/messages", { type: "direct", to: JSON.stringify([ot.member2.id]), content: url }));
      const { message } = await ok(new Api(own.url, ot.member).get(`/messages/${id}`));
      const src = /<img [^>]*src="([^"]+)"/.exec(message.content)![1];
      assert.match(src, /^\/external_content\/[0-9a-f]{40}\/[0-9a-f]+$/);
      assert.notEqual(src, sign(url), "not the other server's key");
      assert.equal((await get(src)).status, 403, "another server's signature is refused");
      const res = await fetch(own.url + src);
      assert.equal(res.status, 200);
      assert.deepEqual(Buffer.from(await res.arrayBuffer()), PNG);
    } finally {
      await own.close();
    }
  });

  test("a wrong signature is refused with 403, a malformed path with 404, and nothing is fetched", async () => {
    const url = `${site.base}/cat.png`;
    const wrongKey = await get(sign(url, "another key"));
    assert.equal(wrongKey.status, 403);
    const hex = Buffer.from(url).toString("hex");
    assert.equal((await get(`/external_content/${"0".repeat(40)}/${hex}`)).status, 403);
    // Signed for one URL, used for another.
    const otherHex = Buffer.from(`${site.base}/page.html`).toString("hex");
    assert.equal((await get(`${sign(url).split("/").slice(0, 3).join("/")}/${otherHex}`)).status, 403);
    assert.equal((await get(`/external_content/xyz/${hex}`)).status, 404);
    assert.equal((await get(`/external_content/${"0".repeat(40)}/abc`)).status, 404);
  });

  test("URLs longer than a path parameter may be are served", async () => {
    const url = `${site.base}/cat.png?${"q".repeat(1500)}`;
    const res = await get(sign(url));
    assert.equal(res.status, 200);
    await res.arrayBuffer();
  });

  test("answers that are not images are refused, SVG included", async () => {
    for (const path of ["/page.html", "/evil.svg"]) {
      const res = await get(sign(`${site.base}${path}`));
      assert.equal(res.status, 415, path);
      assert.equal(await res.text(), "Not an image");
    }
    assert.equal((await get(sign(`${site.base}/missing.png`))).status, 404);
    assert.equal((await get(sign(`ftp://127.0.0.1/x.png`))).status, 404);
  });

  test("an image announced larger than the cap is refused before its body is read", async () => {
    const res = await get(sign(`${site.base}/declared-huge.png`));
    assert.equal(res.status, 413);
  });

  test("a gigabyte streamed without a length is cut at the cap, never held whole", async () => {
    const res = await get(sign(`${site.base}/huge.png`));
    assert.equal(res.status, 200);
    let received = 0;
    await assert.rejects(async () => {
      for await (const chunk of res.body!) received += (chunk as Uint8Array).length;
    });
    await site.hugeClosed;
    const cap = srv.app.config.externalContentMaxBytes;
    assert.ok(received <= cap, `received ${received} bytes, cap ${cap}`);
    // The proxy read about the cap and hung up: far from the gigabyte the site would have sent.
    assert.ok(site.written < cap + 16 * 1024 * 1024, `the site wrote ${site.written} bytes`);
  });

  test("redirects are followed, but not to an address that is not allowed", async () => {
    const ok = await get(sign(`${site.base}/to-cat`));
    assert.equal(ok.status, 200);
    assert.deepEqual(Buffer.from(await ok.arrayBuffer()), PNG);
    assert.equal((await get(sign(`${site.base}/to-other-loopback`))).status, 404);
    assert.equal((await get(sign("http://169.254.169.254/latest/meta-data/x.png"))).status, 404);
    assert.equal((await get(sign("http://[::1]/x.png"))).status, 404);
  });

  test("loopback is refused when no network is allowed", async () => {
    const closed = await startTestServer({ camoKey: KEY });
    try {
      const res = await fetch(closed.url + sign(`${site.base}/cat.png`));
      assert.equal(res.status, 404);
    } finally {
      await closed.close();
    }
  });

  test("a site that never answers ends in 504, and the proxy goes on serving", async () => {
    const res = await get(sign(`${site.base}/silent.png`));
    assert.equal(res.status, 504);
    assert.equal((await get(sign(`${site.base}/cat.png`))).status, 200);
  });

  test("revalidation headers reach the site, and its 304 comes back", async () => {
    const res = await get(sign(`${site.base}/cat.png`), { "if-none-match": '"v1"' });
    assert.equal(res.status, 304);
    assert.equal(res.headers.get("etag"), '"v1"');
  });
});

/**
 * Thumbnails of uploaded images: an image upload is probed and queued on the outbox; the worker
 * writes Zulip's formats beside the upload, served with the upload's own access rules, and
 * re-renders the messages showing the image (an `update_message` event with rendering_only).
 * Uploads that are not images, or that fail to decode, keep working as plain files.
 */
import { test, before, after, describe } from "node:test";
import assert from "node:assert/strict";
import sharp from "sharp";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { Api, basicAuth } from "../helpers/client.js";
import { createTestRealm, type TestRealm, type TestUser } from "../helpers/realm.js";
import { makeChannel, ok, setRealmProps, type MadeChannel } from "../helpers/channels.js";
import { multipart } from "../helpers/multipart.js";
import { systemTimers } from "../../src/context.js";
import { OutboxWorker } from "../../src/workers/outbox.js";
import { startTestS3 } from "../helpers/s3rver.js";
import { animatedGif, jpegImage, notAnImage, pixelBombPng, pngImage, truncatedPng, webpImage } from "../helpers/images.js";

let srv: TestServer;
let t: TestRealm;
let o: TestRealm;
let worker: OutboxWorker;
const api = (u: TestUser) => new Api(srv.url, u);

before(async () => {
  srv = await startTestServer();
  // Passes are run by hand, so a test sees the state before the thumbnails as well as after.
  await srv.outbox.close();
  worker = new OutboxWorker(srv.app, systemTimers);
  t = await createTestRealm(srv.app);
  o = await createTestRealm(srv.app, "other");
});
after(() => srv.close());

async function upload(u: TestUser, fileName: string, data: Buffer, type: string): Promise<string> {
  const { body, type: contentType } = multipart([{ fileName, data, type }]);
  const res = await fetch(`${srv.url}/api/v1/user_uploads`, { method: "POST", headers: { "content-type": contentType, authorization: basicAuth(u) }, body });
  const json = await res.json();
  assert.equal(res.status, 200, JSON.stringify(json));
  return json.url as string;
}

const pathOf = (url: string) => url.slice("/user_uploads/".length);
const fetchAs = (url: string, u?: TestUser) => fetch(srv.url + url, { headers: u ? { authorization: basicAuth(u) } : {}, redirect: "manual" });
const imageRow = async (url: string) =>
  srv.app.db
    .selectFrom("image_attachments as i")
    .innerJoin("attachments as a", "a.id", "i.attachment_id")
    .select(["i.original_width_px", "i.original_height_px", "i.frames", "i.thumbnail_metadata"])
    .where("a.path_id", "=", pathOf(url))
    .executeTakeFirst();
const thumbnailJobs = () => srv.app.db.selectFrom("outbox_jobs").select(["kind", "payload"]).where("kind", "=", "thumbnail").execute();

async function send(u: TestUser, c: MadeChannel, content: string): Promise<number> {
  return (await ok(api(u).post("/messages", { type: "stream", to: c.id, topic: "pictures", content }))).id as number;
}
const renderedOf = async (id: number) =>
  (await srv.app.db.selectFrom("messages").select("rendered_content").where("id", "=", id).executeTakeFirstOrThrow()).rendered_content;

async function register(u: TestUser): Promise<string> {
  return (await ok(api(u).post("/register", { event_types: JSON.stringify(["update_message"]) }))).queue_id;
}
async function eventsOf(u: TestUser, queueId: string): Promise<Record<string, any>[]> {
  return (await ok(api(u).get("/events", { queue_id: queueId, last_event_id: -1, dont_block: true }))).events.filter(
    (e: Record<string, unknown>) => e.type !== "heartbeat",
  );
}

const flagsOf = async (u: TestUser, id: number) => (await ok(api(u).get(`/messages/${id}`))).message.flags as string[];

const placeholder = (url: string, title: string, w: number, h: number, type: string) =>
  `<div class="message_inline_image"><a href="${url}" title="${title}"><img class="image-loading-placeholder" data-original-content-type="${type}" data-original-dimensions="${w}x${h}" src="/static/images/loading/loader-black.svg"></a></div>`;
const thumbnailed = (url: string, title: string, w: number, h: number, type: string, animated = false) =>
  `<div class="message_inline_image"><a href="${url}" title="${title}"><img src="/user_uploads/thumbnail/${pathOf(url)}/840x560${animated ? "-anim" : ""}.webp" data-original-dimensions="${w}x${h}" data-original-content-type="${type}"${animated ? ' data-animated="true"' : ""}></a></div>`;

describe("server_thumbnail_formats", () => {
  test("register lists Zulip's two formats, animated first", async () => {
    const state = await ok(api(t.member).post("/register", { fetch_event_types: JSON.stringify(["realm"]) }));
    assert.deepEqual(state.server_thumbnail_formats, [
      { name: "840x560-anim.webp", max_width: 840, max_height: 560, format: "webp", animated: true },
      { name: "840x560.webp", max_width: 840, max_height: 560, format: "webp", animated: false },
    ]);
  });
});

describe("thumbnailing uploads", () => {
  test("PNG, JPEG, WebP and an animated GIF get their dimensions recorded and thumbnails made off the request", async () => {
    const cases = [
      { name: "photo.png", data: await pngImage(1680, 560), type: "image/png", w: 1680, h: 560, frames: 1, thumb: [840, 280] },
      { name: "photo.jpg", data: await jpegImage(300, 200), type: "image/jpeg", w: 300, h: 200, frames: 1, thumb: [300, 200] },
      { name: "photo.webp", data: await webpImage(600, 1200), type: "image/webp", w: 600, h: 1200, frames: 1, thumb: [280, 560] },
      { name: "dance.gif", data: await animatedGif(120, 80), type: "image/gif", w: 120, h: 80, frames: 3, thumb: [120, 80] },
    ];
    for (const c of cases) {
      const url = await upload(t.member, c.name, c.data, c.type);
      const row = await imageRow(url);
      assert.deepEqual(row, { original_width_px: c.w, original_height_px: c.h, frames: c.frames, thumbnail_metadata: "[]" }, c.name);
      assert.equal((await thumbnailJobs()).length, 1);
      // Not made yet: the thumbnail URL does not exist until the worker has run.
      assert.equal((await fetchAs(`/user_uploads/thumbnail/${pathOf(url)}/840x560.webp`, t.member)).status, 404);

      await worker.runPass();
      assert.deepEqual(await thumbnailJobs(), []);
      const made = JSON.parse((await imageRow(url))!.thumbnail_metadata) as Record<string, unknown>[];
      const formats = c.frames > 1 ? ["840x560-anim.webp", "840x560.webp"] : ["840x560.webp"];
      assert.deepEqual(
        made.map((m) => `${m.max_width}x${m.max_height}${m.animated ? "-anim" : ""}.${m.extension}`),
        formats,
        c.name,
      );
      for (const format of formats) {
        const res = await fetchAs(`/user_uploads/thumbnail/${pathOf(url)}/${format}`, t.member);
        assert.equal(res.status, 200, `${c.name} ${format}`);
        assert.equal(res.headers.get("content-type"), "image/webp");
        const body = Buffer.from(await res.arrayBuffer());
        const meta = await sharp(body, { pages: -1 }).metadata();
        assert.equal(meta.format, "webp");
        assert.deepEqual([meta.width, meta.pageHeight ?? meta.height], c.thumb, `${c.name} ${format}`);
        assert.equal(meta.pages ?? 1, format.includes("-anim") ? 3 : 1, `${c.name} ${format}`);
        const stored = made.find((m) => `${m.max_width}x${m.max_height}${m.animated ? "-anim" : ""}.webp` === format)!;
        assert.deepEqual(stored, {
          extension: "webp",
          content_type: "image/webp",
          max_width: 840,
          max_height: 560,
          animated: format.includes("-anim"),
          width: c.thumb[0],
          height: c.thumb[1],
          byte_size: body.length,
        });
      }
      // A still image has no animated format.
      if (c.frames === 1) assert.equal((await fetchAs(`/user_uploads/thumbnail/${pathOf(url)}/840x560-anim.webp`, t.member)).status, 404);
    }
  });

  test("files that are not images we can thumbnail are stored and served as files, and never stop the worker", async () => {
    const c = await makeChannel(srv, t, { subscribers: [t.member] });
    const queue = await register(t.member);
    const text = await upload(t.member, "fake.png", notAnImage(), "image/png");
    const bomb = await upload(t.member, "bomb.png", pixelBombPng(), "image/png");
    const truncated = await upload(t.member, "cut.png", await truncatedPng(), "image/png");
    const good = await upload(t.member, "good.png", await pngImage(30, 20), "image/png");
    // Neither text nor a bomb parses within the limits; the truncated one's header does.
    assert.equal(await imageRow(text), undefined);
    assert.equal(await imageRow(bomb), undefined);
    assert.deepEqual(await imageRow(truncated), { original_width_px: 200, original_height_px: 200, frames: 1, thumbnail_metadata: "[]" });
    for (const url of [text, bomb]) assert.equal((await fetchAs(url, t.member)).status, 200);

    const id = await send(t.member, c, `[fake.png](${text}) [cut.png](${truncated}) [good.png](${good})`);
    const link = (url: string, name: string) => `<a href="${url}">${name}</a>`;
    const paragraph = `<p>${link(text, "fake.png")} ${link(truncated, "cut.png")} ${link(good, "good.png")}</p>`;
    assert.equal(
      await renderedOf(id),
      paragraph + "\n" + placeholder(truncated, "cut.png", 200, 200, "image/png") + placeholder(good, "good.png", 30, 20, "image/png"),
    );

    await worker.runPass();
    // Both jobs are done: the truncated image's is given up at once, not retried.
    assert.deepEqual(await thumbnailJobs(), []);
    assert.equal(await imageRow(truncated), undefined);
    assert.equal((await fetchAs(truncated, t.member)).status, 200);
    const final = paragraph + "\n" + thumbnailed(good, "good.png", 30, 20, "image/png");
    assert.equal(await renderedOf(id), final);
    const events = await eventsOf(t.member, queue);
    assert.equal(events.length, 2);
    for (const e of events) {
      assert.equal(e.type, "update_message");
      assert.equal(e.rendering_only, true);
      assert.equal(e.user_id, null);
      assert.equal(e.message_id, id);
      assert.deepEqual(e.message_ids, [id]);
    }
    assert.equal(events.at(-1)!.rendered_content, final);
    assert.deepEqual(events.at(-1)!.flags, await flagsOf(t.member, id));
  });
});

describe("previews in messages", () => {
  test("a message sent before the thumbnail shows the placeholder; the worker swaps in the thumbnail and tells each recipient", async () => {
    const c = await makeChannel(srv, t, { subscribers: [t.member, t.member2] });
    const url = await upload(t.member, "cat.jpg", await jpegImage(1200, 900), "image/jpeg");
    const queues = { sender: await register(t.member), other: await register(t.member2), outsider: await register(t.guest) };
    const id = await send(t.member, c, `[cat.jpg](${url})`);
    // The link stays (its text is not the URL), the preview follows it.
    const link = `<p><a href="${url}">cat.jpg</a></p>\n`;
    assert.equal(await renderedOf(id), link + placeholder(url, "cat.jpg", 1200, 900, "image/jpeg"));

    await worker.runPass();
    const html = link + thumbnailed(url, "cat.jpg", 1200, 900, "image/jpeg");
    assert.equal(await renderedOf(id), html);
    for (const [who, queue] of [
      [t.member, queues.sender],
      [t.member2, queues.other],
    ] as const) {
      const flags = await flagsOf(who, id);
      const [event, ...rest] = await eventsOf(who, queue);
      assert.deepEqual(rest, []);
      assert.deepEqual(
        { ...event, edit_timestamp: typeof event.edit_timestamp },
        {
          type: "update_message",
          id: event.id,
          user_id: null,
          edit_timestamp: "number",
          message_id: id,
          message_ids: [id],
          content: `[cat.jpg](${url})`,
          rendered_content: html,
          rendering_only: true,
          flags,
        },
      );
    }
    assert.deepEqual(await eventsOf(t.guest, queues.outsider), []);
    // Fetching the message gives the same HTML.
    assert.equal((await ok(api(t.member2).get(`/messages/${id}`))).message.content, html);
  });

  test("once thumbnailed, new messages and previews render the thumbnail at once; an animated image its animated format", async () => {
    const c = await makeChannel(srv, t, { subscribers: [t.member] });
    const still = await upload(t.member, "still.png", await pngImage(50, 40), "image/png");
    const anim = await upload(t.member, "anim.gif", await animatedGif(60, 30), "image/gif");
    await worker.runPass();
    const content = `Look: [still.png](${still})\n\n[anim.gif](${anim})`;
    const id = await send(t.member, c, content);
    const expected =
      `<p>Look: <a href="${still}">still.png</a></p>\n` +
      thumbnailed(still, "still.png", 50, 40, "image/png") +
      `<p><a href="${anim}">anim.gif</a></p>\n` +
      thumbnailed(anim, "anim.gif", 60, 30, "image/gif", true);
    assert.equal(await renderedOf(id), expected);
    assert.equal((await ok(api(t.member).post("/messages/render", { content }))).rendered, expected);
    // Editing keeps the thumbnail.
    await ok(api(t.member).patch(`/messages/${id}`, { content: `[still.png](${still})` }));
    assert.equal(await renderedOf(id), `<p><a href="${still}">still.png</a></p>\n` + thumbnailed(still, "still.png", 50, 40, "image/png"));
  });

  test("the organization's inline_image_preview off: a plain link", async () => {
    const c = await makeChannel(srv, o, { subscribers: [o.member] });
    await setRealmProps(srv.app, o.realm.id, { inline_image_preview: false });
    const url = await upload(o.member, "p.png", await pngImage(10, 10), "image/png");
    const id = await send(o.member, c, `[p.png](${url})`);
    assert.equal(await renderedOf(id), `<p><a href="${url}">p.png</a></p>`);
    await setRealmProps(srv.app, o.realm.id, { inline_image_preview: true });
  });
});

describe("serving thumbnails", () => {
  test("the same people as the upload may read a thumbnail: the owner, the channel's subscribers, no one else", async () => {
    const c = await makeChannel(srv, t, { private: true, subscribers: [t.member, t.admin] });
    const url = await upload(t.member, "secret.png", await pngImage(64, 64), "image/png");
    await worker.runPass();
    const thumb = `/user_uploads/thumbnail/${pathOf(url)}/840x560.webp`;
    // Before any message links it, only its owner may read it.
    assert.equal((await fetchAs(thumb, t.member)).status, 200);
    assert.equal((await fetchAs(thumb, t.admin)).status, 403);
    await send(t.member, c, `[secret.png](${url})`);
    for (const [u, status] of [
      [t.member, 200],
      [t.admin, 200],
      [t.owner, 200], // made the channel, so is subscribed
      [t.moderator, 403],
      [t.member2, 403],
      [t.guest, 403],
      [t.bot, 403],
      [o.owner, 403],
      [o.member, 403],
    ] as const) {
      const res = await fetchAs(thumb, u);
      assert.equal(res.status, status, u.email);
      if (status === 403) assert.match(await res.text(), /You are not authorized to view this file/);
      // The original answers alike.
      assert.equal((await fetchAs(url, u)).status, status, u.email);
    }
    const anonymous = await fetchAs(thumb);
    assert.equal(anonymous.status, 302);
    assert.match(anonymous.headers.get("location")!, /^\/login\/\?next=/);
  });

  test("unknown formats, paths and uploads are not found; deleting the upload removes its thumbnails", async () => {
    const url = await upload(t.member, "gone.png", await pngImage(20, 20), "image/png");
    await worker.runPass();
    const base = `/user_uploads/thumbnail/${pathOf(url)}`;
    for (const bad of [`${base}/100x100.png`, `${base}/840x560.webp.png`, `${base}/..`, `/user_uploads/thumbnail/840x560.webp`, `/user_uploads/thumbnail/${t.realm.id}/no/such/file.png/840x560.webp`]) {
      assert.equal((await fetchAs(bad, t.member)).status, 404, bad);
    }
    const row = await srv.app.db.selectFrom("attachments").select("id").where("path_id", "=", pathOf(url)).executeTakeFirstOrThrow();
    await ok(api(t.member).delete(`/attachments/${row.id}`));
    assert.equal(await imageRow(url), undefined);
    assert.equal((await fetchAs(`${base}/840x560.webp`, t.member)).status, 404);
    assert.equal(await srv.app.files.get(`thumbnails/${pathOf(url)}/840x560.webp`), null);
  });
});

describe("thumbnails in an S3 bucket", () => {
  test("are objects beside the upload, served and deleted with it", async () => {
    const s3 = await startTestS3({ keyPrefix: "confab" });
    const bucketSrv = await startTestServer({ s3: s3.config });
    try {
      const r = await createTestRealm(bucketSrv.app);
      const { body, type } = multipart([{ fileName: "sky.webp", data: await webpImage(900, 300), type: "image/webp" }]);
      const res = await fetch(`${bucketSrv.url}/api/v1/user_uploads`, { method: "POST", headers: { "content-type": type, authorization: basicAuth(r.member) }, body });
      const url = ((await res.json()) as { url: string }).url;
      await bucketSrv.outbox.settled();
      const key = `confab/thumbnails/${pathOf(url)}/840x560.webp`;
      assert.ok((await s3.keys()).includes(key), JSON.stringify(await s3.keys()));
      const thumb = await fetch(`${bucketSrv.url}/user_uploads/thumbnail/${pathOf(url)}/840x560.webp`, { headers: { authorization: basicAuth(r.member) } });
      assert.equal(thumb.status, 200);
      assert.deepEqual([(await sharp(Buffer.from(await thumb.arrayBuffer())).metadata()).width], [840]);
      const { id } = await bucketSrv.app.db.selectFrom("attachments").select("id").where("path_id", "=", pathOf(url)).executeTakeFirstOrThrow();
      await ok(new Api(bucketSrv.url, r.member).delete(`/attachments/${id}`));
      assert.ok(!(await s3.keys()).includes(key));
    } finally {
      await bucketSrv.close();
      await s3.close();
    }
  });
});

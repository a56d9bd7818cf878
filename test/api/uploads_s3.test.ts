import { test, before, after, describe } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { Api, basicAuth } from "../helpers/client.js";
import { createTestRealm, type TestRealm } from "../helpers/realm.js";
import { multipart } from "../helpers/multipart.js";
import { startTestS3, type TestS3 } from "../helpers/s3rver.js";

const PREFIX = "confab";
const PNG = Buffer.concat([Buffer.from("89504e470d0a1a0a0000000d49484452", "hex"), Buffer.alloc(32, 7)]);
const NOT_FOUND = "<p>This file does not exist or has been deleted.</p>";

let s3: TestS3;
let srv: TestServer;
let t: TestRealm;

async function post(route: string, fileName: string, data: Buffer | string, type: string): Promise<Record<string, any>> {
  const { body, type: contentType } = multipart([{ fileName, data, type }]);
  const res = await fetch(`${srv.url}/api/v1${route}`, {
    method: "POST",
    headers: { authorization: basicAuth(t.member), "content-type": contentType },
    body,
  });
  const json = await res.json();
  assert.equal(res.status, 200, JSON.stringify(json));
  return json;
}

const uploaded = async (fileName: string, data: string, type = "text/plain") => (await post("/user_uploads", fileName, data, type)).url as string;
const objectKey = (url: string) => `${PREFIX}/files/${url.slice("/user_uploads/".length)}`;
const download = (url: string, headers: Record<string, string> = {}) =>
  fetch(srv.url + url, { headers: { authorization: basicAuth(t.member), ...headers } });
const attachmentId = async (url: string) =>
  (await srv.app.db.selectFrom("attachments").select("id").where("path_id", "=", url.slice("/user_uploads/".length)).executeTakeFirstOrThrow()).id;

before(async () => {
  s3 = await startTestS3({ keyPrefix: PREFIX });
  srv = await startTestServer({ s3: s3.config });
  t = await createTestRealm(srv.app);
});
after(async () => {
  await srv.close();
  await s3.close();
});

describe("uploads in an S3 bucket", () => {
  test("an uploaded file is an object in the bucket, not a file in the data directory, and downloads whole", async () => {
    const url = await uploaded("notes.txt", "kept in the bucket");
    assert.ok((await s3.keys()).includes(objectKey(url)));
    assert.equal(fs.existsSync(path.join(srv.dataDir, "uploads")), false);
    const res = await download(url);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "text/plain");
    assert.equal(res.headers.get("content-length"), "18");
    assert.equal(res.headers.get("accept-ranges"), "bytes");
    assert.equal(await res.text(), "kept in the bucket");
  });

  test("byte ranges are read from the bucket", async () => {
    const url = await uploaded("clip.mp4", "0123456789", "video/mp4");
    for (const [range, body, contentRange] of [
      ["bytes=2-5", "2345", "bytes 2-5/10"],
      ["bytes=-3", "789", "bytes 7-9/10"],
      ["bytes=8-100", "89", "bytes 8-9/10"],
    ]) {
      const res = await download(url, { range });
      assert.equal(res.status, 206, range);
      assert.equal(res.headers.get("content-range"), contentRange, range);
      assert.equal(res.headers.get("content-length"), String(body.length), range);
      assert.equal(await res.text(), body, range);
    }
    const outside = await download(url, { range: "bytes=10-" });
    assert.equal(outside.status, 416);
    assert.equal(outside.headers.get("content-range"), "bytes */10");
  });

  test("a temporary URL serves the object too", async () => {
    const url = await uploaded("temp.txt", "for a minute");
    const r = await new Api(srv.url, t.member).get(`/user_uploads/${url.slice("/user_uploads/".length)}`);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const res = await fetch(srv.url + r.body.url);
    assert.equal(res.status, 200);
    assert.equal(await res.text(), "for a minute");
  });

  test("deleting the attachment removes the object", async () => {
    const url = await uploaded("gone.txt", "soon gone");
    const key = objectKey(url);
    assert.ok((await s3.keys()).includes(key));
    const r = await new Api(srv.url, t.member).delete(`/attachments/${await attachmentId(url)}`);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal((await s3.keys()).includes(key), false);
    const res = await download(url);
    assert.equal(res.status, 404);
    assert.equal(await res.text(), NOT_FOUND);
  });

  test("an object missing from the bucket is the same 404 as a file missing from disk", async () => {
    const url = await uploaded("lost.txt", "lost");
    await s3.remove(objectKey(url));
    for (const headers of [{}, { range: "bytes=0-1" }] as Record<string, string>[]) {
      const res = await download(url, headers);
      assert.equal(res.status, 404);
      assert.equal(res.headers.get("content-type"), "text/html; charset=utf-8");
      assert.equal(await res.text(), NOT_FOUND);
    }
    const unknown = await download(`/user_uploads/${t.realm.id}/00/nothing/here.txt`);
    assert.equal(unknown.status, 404);
    assert.equal(await unknown.text(), NOT_FOUND);
  });

  test("a custom emoji's image is stored in the bucket and served from it", async () => {
    await post("/realm/emoji/bucket_party", "party.png", PNG, "image/png");
    const emoji = Object.values((await new Api(srv.url, t.member).get("/realm/emoji")).body.emoji as Record<string, any>).find(
      (e) => e.name === "bucket_party",
    );
    const fileName = emoji.source_url.split("/").pop();
    assert.ok((await s3.keys()).includes(`${PREFIX}/avatars/${t.realm.id}/emoji/images/${fileName}`));
    const image = await fetch(srv.url + emoji.source_url);
    assert.equal(image.status, 200);
    assert.equal(image.headers.get("content-type"), "image/png");
    assert.deepEqual(Buffer.from(await image.arrayBuffer()), PNG);
    const missing = await fetch(`${srv.url}/user_avatars/${t.realm.id}/emoji/images/00000000.png`);
    assert.equal(missing.status, 404);
  });
});

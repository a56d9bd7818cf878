import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import { Readable } from "node:stream";
import { S3FileStorage } from "../../src/files/s3_storage.js";
import type { ByteRange } from "../../src/files/storage.js";
import { loadConfig } from "../../src/config.js";
import { startTestS3, type TestS3 } from "../helpers/s3rver.js";
import { readStored, refusesUnsafeKeys, roundTrip } from "../helpers/file_storage.js";

let s3: TestS3;
let storage: S3FileStorage;

const read = (key: string, range?: ByteRange) => readStored(storage, key, range);

before(async () => {
  s3 = await startTestS3({ keyPrefix: "site-a/" });
  storage = new S3FileStorage(s3.config);
});
after(async () => {
  storage.close();
  await s3.close();
});

describe("S3FileStorage", () => {
  test("puts buffers and streams under the key prefix, reads them back, replaces and deletes", async () => {
    await roundTrip(storage, "files/1/ab/x");
    assert.deepEqual(await s3.keys(), ["site-a/files/1/ab/x/b.txt"]);
  });

  test("reads a byte range, reporting the whole object's size", async () => {
    await storage.put("files/2/cd/y/clip.bin", Buffer.from("0123456789"));
    assert.deepEqual(await read("files/2/cd/y/clip.bin", { start: 2, end: 5 }), { size: 10, text: "2345" });
    assert.deepEqual(await read("files/2/cd/y/clip.bin", { start: 9, end: 9 }), { size: 10, text: "9" });
    assert.equal(await read("files/2/cd/y/none.bin", { start: 0, end: 1 }), null);
  });

  test("keys with letters of any script survive the round trip", async () => {
    await storage.put("files/3/ef/z/café-menu.txt", Buffer.from("menu"));
    assert.deepEqual(await read("files/3/ef/z/café-menu.txt"), { size: 4, text: "menu" });
  });

  test("a stream that fails stores nothing", async () => {
    const failing = new Readable({
      read() {
        this.destroy(new Error("client went away"));
      },
    });
    await assert.rejects(storage.put("files/4/gh/w/c.txt", failing), /client went away/);
    assert.equal(await read("files/4/gh/w/c.txt"), null);
  });

  test("refuses the keys local storage refuses", () => refusesUnsafeKeys(storage));

  test("a bucket that is not there is an error, not a missing file", async () => {
    const wrong = new S3FileStorage({ ...s3.config, bucket: "no-such-bucket" });
    try {
      await assert.rejects(wrong.get("files/1/ab/x/b.txt"), /bucket/i);
    } finally {
      wrong.close();
    }
  });
});

describe("S3 settings", () => {
  test("come from CONFAB_S3_* variables; the bucket turns them on", () => {
    assert.equal(loadConfig({}).s3, undefined);
    assert.deepEqual(loadConfig({ CONFAB_S3_BUCKET: "b" }).s3, {
      bucket: "b",
      endpoint: undefined,
      region: "us-east-1",
      credentials: undefined,
      forcePathStyle: false,
      keyPrefix: undefined,
    });
    const env = {
      CONFAB_S3_BUCKET: "b",
      CONFAB_S3_ENDPOINT: "http://minio:9000",
      CONFAB_S3_REGION: "eu-west-3",
      CONFAB_S3_ACCESS_KEY_ID: "id",
      CONFAB_S3_SECRET_ACCESS_KEY: "secret",
      CONFAB_S3_KEY_PREFIX: "confab",
    };
    assert.deepEqual(loadConfig(env).s3, {
      bucket: "b",
      endpoint: "http://minio:9000",
      region: "eu-west-3",
      credentials: { accessKeyId: "id", secretAccessKey: "secret" },
      forcePathStyle: true,
      keyPrefix: "confab",
    });
    assert.equal(loadConfig({ ...env, CONFAB_S3_FORCE_PATH_STYLE: "0" }).s3?.forcePathStyle, false);
    assert.throws(() => loadConfig({ CONFAB_S3_BUCKET: "b", CONFAB_S3_ACCESS_KEY_ID: "id" }), /set together/);
  });
});

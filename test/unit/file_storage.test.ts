import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { LocalFileStorage, loadOrCreateKey } from "../../src/files/storage.js";
import { refusesUnsafeKeys, roundTrip } from "../helpers/file_storage.js";

let dir: string;
let storage: LocalFileStorage;

before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "confab-storage-"));
  storage = new LocalFileStorage(path.join(dir, "uploads"));
});
after(() => fs.rmSync(dir, { recursive: true, force: true }));

describe("LocalFileStorage", () => {
  test("puts buffers and streams, reads them back, replaces and deletes", async () => {
    await roundTrip(storage, "files/1/ab/x");
    assert.deepEqual(fs.readdirSync(path.join(dir, "uploads/files/1/ab/x")), ["b.txt"]);
  });

  test("refuses keys that could leave its directory", () => refusesUnsafeKeys(storage));

  test("a failed write leaves nothing behind", async () => {
    const failing = new Readable({
      read() {
        this.destroy(new Error("client went away"));
      },
    });
    await assert.rejects(storage.put("files/2/cd/y/c.txt", failing), /client went away/);
    assert.deepEqual(fs.readdirSync(path.join(dir, "uploads/files/2/cd/y")), []);
  });
});

describe("loadOrCreateKey", () => {
  test("creates a key once and reads the same one later", () => {
    const file = path.join(dir, "keys", "k.key");
    const first = loadOrCreateKey(file);
    assert.equal(first.length, 32);
    assert.deepEqual(loadOrCreateKey(file), first);
  });
});

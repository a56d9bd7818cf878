import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { LocalFileStorage, loadOrCreateKey } from "../../src/files/storage.js";

let dir: string;
let storage: LocalFileStorage;

const read = async (key: string) => {
  const got = await storage.get(key);
  if (!got) return null;
  const chunks: Buffer[] = [];
  for await (const c of got.stream) chunks.push(c as Buffer);
  return { size: got.size, text: Buffer.concat(chunks).toString() };
};

before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "confab-storage-"));
  storage = new LocalFileStorage(path.join(dir, "uploads"));
});
after(() => fs.rmSync(dir, { recursive: true, force: true }));

describe("LocalFileStorage", () => {
  test("puts buffers and streams, reads them back, replaces and deletes", async () => {
    await storage.put("files/1/ab/x/a.txt", Buffer.from("buffer"));
    await storage.put("files/1/ab/x/b.txt", Readable.from([Buffer.from("str"), Buffer.from("eam")]));
    assert.deepEqual(await read("files/1/ab/x/a.txt"), { size: 6, text: "buffer" });
    assert.deepEqual(await read("files/1/ab/x/b.txt"), { size: 6, text: "stream" });
    await storage.put("files/1/ab/x/a.txt", Buffer.from("new"));
    assert.deepEqual(await read("files/1/ab/x/a.txt"), { size: 3, text: "new" });
    await storage.delete("files/1/ab/x/a.txt");
    await storage.delete("files/1/ab/x/a.txt");
    assert.equal(await read("files/1/ab/x/a.txt"), null);
    assert.deepEqual(fs.readdirSync(path.join(dir, "uploads/files/1/ab/x")), ["b.txt"]);
  });

  test("refuses keys that could leave its directory", async () => {
    for (const key of ["../escape", "a/../../b", "/abs", "a//b", "a\\b", "", "a/./b"]) {
      await assert.rejects(storage.put(key, Buffer.from("x")), /invalid storage key/, key);
      await assert.rejects(storage.get(key), /invalid storage key/, key);
    }
  });

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

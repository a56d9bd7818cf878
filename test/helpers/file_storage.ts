/** What every FileStorage backend must do alike, for the tests of each. */
import assert from "node:assert/strict";
import { Readable } from "node:stream";
import type { ByteRange, FileStorage } from "../../src/files/storage.js";

export async function readStored(storage: FileStorage, key: string, range?: ByteRange) {
  const got = await storage.get(key, range);
  if (!got) return null;
  const chunks: Buffer[] = [];
  for await (const c of got.stream) chunks.push(c as Buffer);
  return { size: got.size, text: Buffer.concat(chunks).toString() };
}

/** Puts a buffer (`<dir>/a.txt`, deleted again) and a stream (`<dir>/b.txt`, kept), replacing the first on the way. */
export async function roundTrip(storage: FileStorage, dir: string): Promise<void> {
  await storage.put(`${dir}/a.txt`, Buffer.from("buffer"));
  await storage.put(`${dir}/b.txt`, Readable.from([Buffer.from("str"), Buffer.from("eam")]));
  assert.deepEqual(await readStored(storage, `${dir}/a.txt`), { size: 6, text: "buffer" });
  assert.deepEqual(await readStored(storage, `${dir}/b.txt`), { size: 6, text: "stream" });
  await storage.put(`${dir}/a.txt`, Buffer.from("new"));
  assert.deepEqual(await readStored(storage, `${dir}/a.txt`), { size: 3, text: "new" });
  await storage.delete(`${dir}/a.txt`);
  await storage.delete(`${dir}/a.txt`);
  assert.equal(await readStored(storage, `${dir}/a.txt`), null);
}

export async function refusesUnsafeKeys(storage: FileStorage): Promise<void> {
  for (const key of ["../escape", "a/../../b", "/abs", "a//b", "a\\b", "", "a/./b"]) {
    await assert.rejects(storage.put(key, Buffer.from("x")), /invalid storage key/, key);
    await assert.rejects(storage.get(key), /invalid storage key/, key);
  }
}

import { test, describe, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { openDatabase } from "../../src/store/db.js";
import { ReadCache } from "../../src/store/read_cache.js";
import { TableVersions } from "../../src/store/table_versions.js";

describe("table versions follow writes through the database", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "confab-read-cache-"));
  const { db, versions, close } = await openDatabase({ dataDir: dir });
  after(async () => {
    await close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test("updates, inserts and deletes of a cached table move its version; reads and other tables do not", async () => {
    const start = versions.of("realms");
    await db.selectFrom("realms").selectAll().execute();
    await db.insertInto("recipients").values({ type: 1, type_id: 12345 }).execute();
    assert.equal(versions.of("realms"), start);

    const props = { string_id: "cache", name: "Cache", description: "", date_created: 0, deactivated: 0 as const, props: "{}", group_settings: "{}" };
    const { id } = await db.insertInto("realms").values(props).returning("id").executeTakeFirstOrThrow();
    assert.equal(versions.of("realms"), start + 1);
    await db.updateTable("realms as r").set({ name: "Renamed" }).where("r.id", "=", id).execute();
    assert.equal(versions.of("realms"), start + 2, "an aliased table is still the table");
    await db.deleteFrom("realms").where("id", "=", id).execute();
    assert.equal(versions.of("realms"), start + 3);
    assert.equal(versions.of("users"), 0);
  });

  test("a write inside a transaction counts once it has run, even if the transaction fails", async () => {
    const start = versions.of("realms");
    await assert.rejects(
      db.transaction().execute(async (tx) => {
        await tx.updateTable("realms").set({ name: "x" }).where("id", "=", -1).execute();
        throw new Error("rolled back");
      }),
    );
    assert.equal(versions.of("realms"), start + 1, "a spurious reread is harmless; a missed one is not");
  });
});

describe("ReadCache", () => {
  const outside = { isTransaction: false };
  // A transaction the write tracking does not know: as if it had written every table.
  const inTransaction = { isTransaction: true };
  const versions = new TableVersions(new Set(["users", "realms"]));

  test("serves a value until a table it was read from is written", async () => {
    const cache = new ReadCache<{ n: number }>(versions, ["users"], 10);
    let loads = 0;
    const load = async () => ({ n: ++loads });
    assert.deepEqual(await cache.get("k", outside, load), { n: 1 });
    assert.deepEqual(await cache.get("k", outside, load), { n: 1 });
    versions.bump(["realms"]);
    assert.deepEqual(await cache.get("k", outside, load), { n: 1 }, "a table it does not depend on");
    versions.bump(["users"]);
    assert.deepEqual(await cache.get("k", outside, load), { n: 2 });
  });

  test("a value read while its table was written is returned but not kept", async () => {
    const cache = new ReadCache<{ n: number }>(versions, ["users"], 10);
    const racing = await cache.get("k", outside, async () => {
      versions.bump(["users"]);
      return { n: 1 };
    });
    assert.deepEqual(racing, { n: 1 });
    assert.deepEqual(await cache.get("k", outside, async () => ({ n: 2 })), { n: 2 });
    assert.deepEqual(await cache.get("k", outside, async () => ({ n: 3 })), { n: 2 });
  });

  test("getMany loads only the keys without a current value, in one call, and keeps them", async () => {
    const cache = new ReadCache<{ key: string; n: number }>(versions, ["users"], 10);
    const calls: string[][] = [];
    let n = 0;
    const load = async (missing: string[]) => {
      calls.push(missing);
      n++;
      // "none" finds nothing.
      return new Map(missing.filter((k) => k !== "none").map((key) => [key, { key, n }]));
    };
    await cache.get("a", outside, async () => ({ key: "a", n: 0 }));
    const first = await cache.getMany(["a", "b", "c", "none"], outside, load);
    assert.deepEqual([...first.keys()].sort(), ["a", "b", "c"]);
    assert.deepEqual(first.get("a"), { key: "a", n: 0 });
    assert.deepEqual(first.get("b"), { key: "b", n: 1 });
    assert.deepEqual((await cache.getMany(["b", "c", "none"], outside, load)).get("c"), { key: "c", n: 1 });
    assert.deepEqual(calls, [["b", "c", "none"], ["none"]]);
    versions.bump(["users"]);
    assert.deepEqual((await cache.getMany(["a", "b"], outside, load)).get("a"), { key: "a", n: 3 });
    assert.deepEqual(calls.at(-1), ["a", "b"]);
  });

  test("getMany keeps nothing read while a table was written, nor what a transaction read", async () => {
    const cache = new ReadCache<{ n: number }>(versions, ["users"], 10);
    let n = 0;
    const racing = async (missing: string[]) => {
      versions.bump(["users"]);
      return new Map(missing.map((k) => [k, { n: ++n }]));
    };
    const plain = async (missing: string[]) => new Map(missing.map((k) => [k, { n: ++n }]));
    assert.deepEqual((await cache.getMany(["k"], outside, racing)).get("k"), { n: 1 });
    assert.deepEqual((await cache.getMany(["k"], inTransaction, plain)).get("k"), { n: 2 });
    assert.deepEqual((await cache.getMany(["k"], outside, plain)).get("k"), { n: 3 });
    assert.deepEqual((await cache.getMany(["k"], outside, plain)).get("k"), { n: 3 });
  });

  test("nothing is kept for a key that finds nothing", async () => {
    const cache = new ReadCache<{ n: number }>(versions, ["users"], 10);
    let loads = 0;
    const missing = async () => {
      loads++;
      return undefined;
    };
    assert.equal(await cache.get("nobody", outside, missing), undefined);
    assert.equal(await cache.get("nobody", outside, missing), undefined);
    assert.equal(loads, 2);
  });

  test("bounded: the least recently used entry goes first", async () => {
    const cache = new ReadCache<{ key: string }>(versions, ["users"], 2);
    const loaded: string[] = [];
    const get = (key: string) =>
      cache.get(key, outside, async () => {
        loaded.push(key);
        return { key };
      });
    await get("a");
    await get("b");
    await get("a");
    await get("c");
    await get("a");
    await get("b");
    assert.deepEqual(loaded, ["a", "b", "c", "b"]);
  });

  test("callers asking while a load is under way share it, unless a write came in between", async () => {
    const cache = new ReadCache<{ n: number }>(versions, ["users"], 10);
    let loads = 0;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const slow = async () => {
      const n = ++loads;
      await gate;
      return { n };
    };
    const first = cache.get("k", outside, slow);
    const second = cache.get("k", outside, slow);
    versions.bump(["users"]);
    const third = cache.get("k", outside, slow);
    release();
    assert.deepEqual(await Promise.all([first, second, third]), [{ n: 1 }, { n: 1 }, { n: 2 }]);
    assert.equal(loads, 2);
  });

  test("a transaction's read that must not be kept is neither kept nor shared", async () => {
    const cache = new ReadCache<{ n: number }>(versions, ["users"], 10);
    let loads = 0;
    const load = async () => ({ n: ++loads });
    const [inTx, out] = await Promise.all([cache.get("k", inTransaction, load), cache.get("k", outside, load)]);
    assert.deepEqual([inTx, out], [{ n: 1 }, { n: 2 }]);
    assert.deepEqual(await cache.get("k", outside, load), { n: 2 });
  });

  test("a transaction never waits for a load outside it", async () => {
    const cache = new ReadCache<{ n: number }>(versions, ["users"], 10);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const slow = cache.get("k", outside, async () => {
      await gate;
      return { n: 1 };
    });
    assert.deepEqual(await cache.get("k", inTransaction, async () => ({ n: 2 })), { n: 2 });
    release();
    assert.deepEqual(await slow, { n: 1 });
  });

  test("only watched tables can be depended on", () => {
    assert.throws(() => new ReadCache(versions, ["messages"], 1), /not watched/);
  });
});

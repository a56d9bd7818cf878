import { test, describe, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { openDatabase, type DatabaseHandle } from "../../src/store/db.js";
import { idList, preparedRead } from "../../src/store/prepared.js";
import { ZulipError } from "../../src/http/errors.js";
import { freshPgDatabase } from "../helpers/pg_database.js";

const recipientsOfType = preparedRead((db, type: number, minTypeId: number) =>
  db.selectFrom("recipients").select(["type_id"]).where("type", "=", type).where("type_id", ">=", minTypeId).orderBy("type_id"),
);
const recipientsWithTypeIds = preparedRead((db, typeIds: readonly number[]) =>
  db.selectFrom("recipients").select("type_id").where("type_id", "in", idList(db, typeIds)).orderBy("type_id"),
);
const recipientsPage = preparedRead((db, type: number, limit: number, offset: number) =>
  db.selectFrom("recipients").select("type_id").where("type", "=", type).orderBy("type_id").limit(limit).offset(offset),
);
const realmsNamed = preparedRead((db, name: string) => db.selectFrom("realms").select("id").where("name", "=", name));

async function open(): Promise<{ handle: DatabaseHandle; drop: () => Promise<void> }> {
  const pgAdmin = process.env.CONFAB_TEST_PG_URL;
  if (pgAdmin) {
    const pg = await freshPgDatabase(pgAdmin, "confab_prepared");
    const handle = await openDatabase({ databaseUrl: pg.url, dataDir: "" });
    return { handle, drop: async () => (await handle.close(), await pg.drop()) };
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "confab-prepared-"));
  const handle = await openDatabase({ dataDir: dir });
  return { handle, drop: async () => (await handle.close(), fs.rmSync(dir, { recursive: true, force: true })) };
}

describe("preparedRead", async () => {
  const { handle, drop } = await open();
  const { db } = handle;
  after(drop);
  await db
    .insertInto("recipients")
    .values([1, 2, 3, 4].map((n) => ({ type: 7, type_id: 9000 + n })))
    .execute();

  test("runs the one compiled query with each call's values", async () => {
    assert.deepEqual((await recipientsOfType(db, 7, 9003)).map((r) => r.type_id), [9003, 9004]);
    assert.deepEqual((await recipientsOfType(db, 7, 9001)).map((r) => r.type_id), [9001, 9002, 9003, 9004]);
    assert.deepEqual(await recipientsOfType(db, 8, 0), []);
  });

  test("runs inside a transaction and sees its uncommitted rows", async () => {
    await db.transaction().execute(async (tx) => {
      await tx.insertInto("recipients").values({ type: 7, type_id: 9005 }).execute();
      assert.deepEqual((await recipientsOfType(tx, 7, 9004)).map((r) => r.type_id), [9004, 9005]);
      await tx.deleteFrom("recipients").where("type_id", "=", 9005).execute();
    });
    assert.deepEqual((await recipientsOfType(db, 7, 9004)).map((r) => r.type_id), [9004]);
  });

  test("outside a transaction, never sees another transaction's uncommitted rows", async () => {
    let commit!: () => void;
    const mayCommit = new Promise<void>((resolve) => (commit = resolve));
    let inserted!: () => void;
    const hasInserted = new Promise<void>((resolve) => (inserted = resolve));
    const writing = db.transaction().execute(async (tx) => {
      await tx.insertInto("recipients").values({ type: 7, type_id: 9006 }).execute();
      inserted();
      await mayCommit;
    });
    await hasInserted;
    let seen: number[] | undefined;
    const reading = recipientsOfType(db, 7, 9004).then((rows) => (seen = rows.map((r) => r.type_id)));
    if (handle.dialect === "sqlite") {
      // The one connection is the writer's: the read must wait for the commit, however long it takes.
      await new Promise((resolve) => setTimeout(resolve, 20));
      assert.equal(seen, undefined);
      commit();
      await writing;
      await reading;
      assert.deepEqual(seen, [9004, 9006]);
    } else {
      // Another pooled connection answers with the committed state while the writer still waits.
      await reading;
      assert.deepEqual(seen, [9004]);
      commit();
      await writing;
    }
    await db.deleteFrom("recipients").where("type_id", "=", 9006).execute();
    assert.deepEqual((await recipientsOfType(db, 7, 9004)).map((r) => r.type_id), [9004]);
  });

  test("binds a list of any length as one parameter", async () => {
    assert.deepEqual((await recipientsWithTypeIds(db, [9004, 9002, 1])).map((r) => r.type_id), [9002, 9004]);
    assert.deepEqual(await recipientsWithTypeIds(db, []), []);
    const many = Array.from({ length: 40_000 }, (_, i) => 9000 + i);
    assert.deepEqual((await recipientsWithTypeIds(db, many)).map((r) => r.type_id), [9001, 9002, 9003, 9004]);
  });

  test("takes a limit and an offset as arguments, each call with its own", async () => {
    const page = async (limit: number, offset: number) => (await recipientsPage(db, 7, limit, offset)).map((r) => r.type_id);
    // More counts than the forms kept per read, and each of them again after the others.
    for (let round = 0; round < 2; round++) {
      for (let limit = 0; limit < 20; limit++) assert.deepEqual(await page(limit, 1), [9002, 9003, 9004].slice(0, limit));
    }
    assert.deepEqual(await page(2, 0), [9001, 9002]);
    assert.deepEqual(await page(2, 3), [9004]);
  });

  test("idList outside a prepared read is a programming error", () => {
    assert.throws(() => idList(db, [1, 2]), /prepared read/);
  });

  test("refuses a NUL character as every query does", async () => {
    await assert.rejects(realmsNamed(db, "a\u0000b"), (e: unknown) => e instanceof ZulipError && e.status === 400);
    assert.deepEqual(await realmsNamed(db, "no such realm"), []);
  });

  test("a query that does not bind an argument is a programming error, found on first use", async () => {
    const unbound = preparedRead((d, _unused: number) => d.selectFrom("realms").select("id"));
    await assert.rejects(unbound(db, 1), /does not bind argument 0/);
  });
});

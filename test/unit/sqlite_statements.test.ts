import { test, describe, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { sqliteStatements } from "../../src/store/sqlite_statements.js";

describe("SQLite statements", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "confab-statements-"));
  const file = new Database(path.join(dir, "db.sqlite3"));
  const connection = sqliteStatements(file);
  after(() => {
    connection.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  file.exec("create table t (id integer primary key, n integer, r double precision, s text); create table b (data blob)");
  const values: [number, number | null, number | null, string | null][] = [
    [1, 2 ** 53 + 1, 0.1 + 0.2, "plain"],
    [2, -(2 ** 62), 1_732_650_000.123456, 'quotes " and \\ and \n new lines'],
    [3, null, 1e-7, "naïve 🙂 \u0000 nul"],
    [4, 0, null, null],
    [5, 7, 5e300, ""],
  ];
  const insert = connection.prepare("insert into t (id, n, r, s) values (?, ?, ?, ?)");
  for (const row of values) insert.run(row);

  /** The rows better-sqlite3 builds itself for the same statement. */
  const direct = (sql: string, parameters: unknown[] = []) => file.prepare(sql).all(parameters);

  const selects: [string, unknown[]][] = [
    ["select id, n, r, s from t order by id", []],
    ["select * from t order by id desc", []],
    ["select id, s from t where id > ? order by id desc limit 2", [1]],
    ["select count(*), max(r), 1 as a, 2 as a from t", []],
    ["select n as x, id as x from t order by n is null, n", []],
    ["select id from t where id in (select value from json_each(?)) order by id", ["[5,1,9]"]],
    ["select id from t where id < 0", []],
    ["select id from t order by id -- the newest last", []],
    ["select id from t order by id;", []],
  ];
  for (const [sql, parameters] of selects) {
    test(`gives the rows better-sqlite3 gives: ${sql}`, () => {
      const rows = connection.prepare(sql).all(parameters);
      assert.deepEqual(rows, direct(sql, parameters));
    });
  }

  test("keeps a blob column's bytes", () => {
    connection.prepare("insert into b (data) values (?)").run([Buffer.from([0, 1, 255])]);
    assert.deepEqual(connection.prepare("select data from b").all([]), [{ data: Buffer.from([0, 1, 255]) }]);
  });

  test("returns the rows of a write's RETURNING and runs writes", () => {
    const returned = connection.prepare("insert into t (id, s) values (?, ?) returning id, s").all([6, "six"]);
    assert.deepEqual(returned, [{ id: 6, s: "six" }]);
    assert.equal(connection.prepare("delete from t where id = ?").run([6]).changes, 1);
  });

  test("tells whether a transaction is open", () => {
    assert.equal(connection.inTransaction, false);
    connection.prepare("begin").run([]);
    assert.equal(connection.inTransaction, true);
    connection.prepare("rollback").run([]);
    assert.equal(connection.inTransaction, false);
  });
});

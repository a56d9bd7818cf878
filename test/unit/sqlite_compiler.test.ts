import { test, describe } from "node:test";
import assert from "node:assert/strict";
import Database from "better-sqlite3";
import { Kysely, sql } from "kysely";
import { ConfabSqliteDialect } from "../../src/store/sqlite_compiler.js";

interface Tables {
  users: { id: number; realm_id: number; is_active: number; is_bot: number; full_name: string };
}

const file = new Database(":memory:");
const db = new Kysely<Tables>({ dialect: new ConfabSqliteDialect({ database: file }) });
const users = db.selectFrom("users").select("id");

describe("the SQLite compiler", () => {
  test("writes a limit and an offset into the text", () => {
    const { sql: text, parameters } = users.where("realm_id", "=", 7).limit(20).offset(40).compile();
    assert.match(text, / limit 20 offset 40$/);
    assert.deepEqual(parameters, [7]);
  });

  test("binds a limit that is not a plain number", () => {
    const { sql: text, parameters } = users.limit(sql<number>`${5} + 1`).compile();
    assert.match(text, / limit \? \+ 1$/);
    assert.deepEqual(parameters, [5]);
  });

  test("writes a flag that a column is compared with into the text, and binds other values", () => {
    const { sql: text, parameters } = users
      .where("is_active", "=", 1)
      .where("is_bot", "<>", 0)
      .where("realm_id", "=", 2)
      .where("id", ">", 1)
      .where("full_name", "=", "1")
      .compile();
    assert.match(text, /"is_active" = 1 and "is_bot" <> 0 and "realm_id" = \? and "id" > \? and "full_name" = \?/);
    assert.deepEqual(parameters, [2, 1, "1"]);
  });

  test("the statements it writes read what the bound ones read", async () => {
    file.exec("create table users (id integer primary key, realm_id integer, is_active integer, is_bot integer, full_name text)");
    file.exec("create index users_deactivated on users (realm_id, id) where is_active = 0");
    const insert = file.prepare("insert into users (realm_id, is_active, is_bot, full_name) values (?, ?, ?, ?)");
    for (let i = 0; i < 10; i++) insert.run(1, i % 3 ? 1 : 0, 0, `u${i}`);
    const active = await users.where("realm_id", "=", 1).where("is_active", "=", 1).orderBy("id").limit(3).offset(1).execute();
    const expected = file.prepare("select id from users where realm_id = ? and is_active = ? order by id limit ? offset ?").all(1, 1, 3, 1);
    assert.deepEqual(active, expected);
    assert.equal(active.length, 3);
  });
});

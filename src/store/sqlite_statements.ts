/**
 * The statements of Confab's one SQLite connection: compiled once per text, and reads answered
 * as one JSON text.
 *
 * better-sqlite3 builds each row of a result as a JavaScript object, one property at a time
 * through V8's C++ API: about 1 µs for a row of three integers, more than SQLite takes to find
 * the row. A SELECT is run instead as `json_group_array` of its rows, each a `json_array`; one
 * `JSON.parse` and a loop in JavaScript build the same rows in half the time or less (20 rows of
 * three integers: 20 µs as objects, 10 µs through JSON). The values come back the same: SQLite
 * writes a real with the digits that read back as the same double, and an integer JSON.parse reads
 * as the double better-sqlite3 would have made of it. A column declared BLOB, which JSON cannot
 * hold, keeps better-sqlite3's rows.
 */
import type Database from "better-sqlite3";

/** Statements SQLite keeps compiled; a request's statements are the same few texts each time. */
const PREPARED_STATEMENTS = 500;

/** What Kysely's SQLite driver, and our direct writes, ask of a statement. */
export interface SqliteStatement {
  readonly reader: boolean;
  all(parameters: readonly unknown[]): unknown[];
  run(parameters: readonly unknown[]): Database.RunResult;
  iterate(parameters: readonly unknown[]): IterableIterator<unknown>;
}

/** A SELECT run as one JSON text of its rows, built back into rows as better-sqlite3 builds them. */
class JsonRowsStatement implements SqliteStatement {
  readonly reader = true;

  constructor(
    private readonly select: Database.Statement,
    private readonly asJson: Database.Statement,
    private readonly names: readonly string[],
  ) {}

  all(parameters: readonly unknown[]): unknown[] {
    const arrays = JSON.parse(this.asJson.get(parameters) as string) as unknown[][];
    const names = this.names;
    const rows: Record<string, unknown>[] = new Array(arrays.length);
    for (let r = 0; r < arrays.length; r++) {
      const values = arrays[r];
      const row: Record<string, unknown> = {};
      for (let c = 0; c < names.length; c++) row[names[c]] = values[c];
      rows[r] = row;
    }
    return rows;
  }

  run(parameters: readonly unknown[]): Database.RunResult {
    return this.select.run(parameters);
  }

  iterate(parameters: readonly unknown[]): IterableIterator<unknown> {
    return this.select.iterate(parameters);
  }
}

/** The statement to run for `sql`: a SELECT through JSON where its columns allow it. */
function compile(file: Database.Database, sql: string): SqliteStatement {
  const statement = file.prepare(sql);
  // Only a SELECT: a write's RETURNING, a PRAGMA or an EXPLAIN reads too, but cannot be nested.
  if (!/^select\s/i.test(sql)) return statement;
  const columns = statement.columns();
  if (columns.some((c) => /blob/i.test(c.type ?? ""))) return statement;
  // Positional names for the columns, which may repeat or be expressions; the subquery keeps its
  // ORDER BY, as SQLite runs it as a co-routine feeding the aggregate in order.
  const slots = columns.map((_, i) => `c${i}`).join(", ");
  let asJson: Database.Statement;
  try {
    asJson = file.prepare(`with q(${slots}) as (${sql}) select json_group_array(json_array(${slots})) from q`).pluck();
  } catch {
    // A text that compiles alone but not inside another (one ending in a `--` comment or a `;`).
    return statement;
  }
  return new JsonRowsStatement(statement, asJson, columns.map((c) => c.name));
}

/**
 * The connection's statements, compiled once per text: better-sqlite3 compiles on each prepare(),
 * and Kysely prepares every query it runs. Kysely runs one statement at a time on its single
 * SQLite connection, so a statement is never in use twice.
 */
export function sqliteStatements(file: Database.Database) {
  const statements = new Map<string, SqliteStatement>();
  return {
    close: () => file.close(),
    /** True between a BEGIN and its COMMIT or ROLLBACK, whoever issued them. */
    get inTransaction(): boolean {
      return file.inTransaction;
    },
    prepare(sql: string): SqliteStatement {
      let statement = statements.get(sql);
      if (statement) {
        statements.delete(sql);
      } else {
        statement = compile(file, sql);
        if (statements.size >= PREPARED_STATEMENTS) statements.delete(statements.keys().next().value!);
      }
      statements.set(sql, statement);
      return statement;
    },
  };
}

export type SqliteConnection = ReturnType<typeof sqliteStatements>;

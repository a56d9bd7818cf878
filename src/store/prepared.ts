/**
 * Reads whose shape never changes, built and compiled by Kysely once per database and then run
 * with new values. On the hot path Kysely spent more time building and compiling a simple query
 * (immutable nodes copied on every call, then walked) than SQLite spent running it.
 *
 * Only for reads: a write must be compiled each time, so that the plugins that watch writes
 * (WriteWatchPlugin) see it. The query guard's checks still hold: values are checked here as it
 * would check them, and a list argument is bound as one parameter (`idList`), as the guard binds
 * long lists, so no list length changes the statement.
 */
import { createQueryId, sql, type CompiledQuery, type Compilable, type RawBuilder } from "kysely";
import type { Executor } from "./schema.js";
import { dialectOf, type Dialect } from "./db.js";
import { boundListSql, boundListValue, checkValue } from "./query_guard.js";

/** Stands for an argument while the query is compiled; its place in the parameters is remembered. */
class Slot {
  /** Set when the argument is a list bound as one parameter, for the dialect it is bound in. */
  listIn: Dialect | undefined;
  constructor(readonly index: number) {}
}


/** `column in idList(db, ids)` in a prepared read: any number of ids, one statement. */
export function idList(db: Executor, ids: readonly number[]): RawBuilder<number> {
  if (!(ids instanceof Slot)) throw new Error("idList is for arguments of a prepared read");
  const slot = ids as Slot;
  slot.listIn = dialectOf(db);
  const [before, after] = boundListSql(slot.listIn, "bigint");
  return sql<number>`${sql.raw(before)}${slot}${sql.raw(after)}`;
}

type Compiled = Pick<CompiledQuery, "sql" | "parameters" | "query">;

function bind(slot: Slot, value: unknown): unknown {
  if (!slot.listIn) {
    checkValue(value);
    return value;
  }
  const values = value as readonly unknown[];
  values.forEach(checkValue);
  return boundListValue(slot.listIn, values);
}

export function preparedRead<Args extends unknown[], Row>(build: (db: Executor, ...args: Args) => Compilable<Row>) {
  // One compiled form per dialect: a database's adapter object is shared by its transactions.
  const compiledFor = new WeakMap<object, Compiled>();
  const compile = (db: Executor, arity: number): Compiled => {
    const slots = Array.from({ length: arity }, (_, i) => new Slot(i));
    const compiled = build(db, ...(slots as unknown as Args)).compile();
    for (const slot of slots) {
      if (!compiled.parameters.includes(slot)) throw new Error(`prepared query does not bind argument ${slot.index}: ${compiled.sql}`);
    }
    return compiled;
  };
  return async (db: Executor, ...args: Args): Promise<Row[]> => {
    const adapter = db.getExecutor().adapter;
    let compiled = compiledFor.get(adapter);
    if (!compiled) {
      compiled = compile(db, args.length);
      compiledFor.set(adapter, compiled);
    }
    const parameters = compiled.parameters.map((p) => (p instanceof Slot ? bind(p, args[p.index]) : p));
    const result = await db.executeQuery<Row>({ sql: compiled.sql, parameters, query: compiled.query, queryId: createQueryId() });
    return result.rows;
  };
}

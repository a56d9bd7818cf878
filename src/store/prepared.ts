/**
 * Reads whose shape never changes, built and compiled by Kysely once per database and then run
 * with new values. On the hot path Kysely spent more time building and compiling a simple query
 * (immutable nodes copied on every call, then walked) than SQLite spent running it.
 *
 * Only for reads: a write must be compiled each time, so that the plugins that watch writes
 * (WriteWatchPlugin) see it. The query guard's checks still hold: values are checked here as it
 * would check them, and a prepared query has no list to rewrite, since every argument binds
 * one value.
 */
import { createQueryId, type CompiledQuery, type Compilable } from "kysely";
import type { Executor } from "./schema.js";
import { checkValue } from "./query_guard.js";

/** Stands for an argument while the query is compiled; its place in the parameters is remembered. */
class Slot {
  constructor(readonly index: number) {}
}

type Compiled = Pick<CompiledQuery, "sql" | "parameters" | "query">;

export function preparedRead<Args extends unknown[], Row>(build: (db: Executor, ...args: Args) => Compilable<Row>) {
  // One compiled form per dialect: a database's adapter object is shared by its transactions.
  const compiledFor = new WeakMap<object, Compiled>();
  const compile = (db: Executor, arity: number): Compiled => {
    const slots = Array.from({ length: arity }, (_, i) => new Slot(i));
    const compiled = build(db, ...(slots as Args)).compile();
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
    const parameters = compiled.parameters.map((p) => {
      if (!(p instanceof Slot)) return p;
      checkValue(args[p.index]);
      return args[p.index];
    });
    const result = await db.executeQuery<Row>({ sql: compiled.sql, parameters, query: compiled.query, queryId: createQueryId() });
    return result.rows;
  };
}

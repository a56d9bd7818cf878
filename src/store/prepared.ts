/**
 * Reads whose shape never changes, built and compiled by Kysely once per database and then run
 * with new values (with `preparedReadWith`, once per shape of the conditions they are given). On
 * the hot path Kysely spent more time building and compiling a simple query (immutable nodes
 * copied on every call, then walked) than SQLite spent running it.
 *
 * Only for reads: a write must be compiled each time, so that the plugins that watch writes
 * (WriteWatchPlugin) see it. The query guard's checks still hold: values are checked here as it
 * would check them, and a list argument is bound as one parameter (`idList`), as the guard binds
 * long lists, so no list length changes the statement.
 */
import {
  createQueryId,
  LimitNode,
  OffsetNode,
  sql,
  ValueNode,
  type Compilable,
  type CompiledQuery,
  type Expression,
  type OperationNode,
  type RawBuilder,
  type SqlBool,
} from "kysely";
import type { Executor } from "./schema.js";
import { dialectOf, idleSqliteConnection, type Dialect } from "./db.js";
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

/** Compiles the query with a slot for each argument, and checks that every one is bound. */
function compileWithSlots(slots: readonly Slot[], compile: () => Compiled): Compiled {
  const compiled = compile();
  for (const slot of slots) {
    if (!compiled.parameters.includes(slot)) throw new Error(`prepared query does not bind argument ${slot.index}: ${compiled.sql}`);
  }
  return compiled;
}

/** The arguments (by index) that a query compiled with slots takes as a LIMIT or OFFSET. */
function countArguments(node: unknown, found: Set<number> = new Set()): Set<number> {
  if (Array.isArray(node)) {
    for (const item of node) countArguments(item, found);
    return found;
  }
  if (!node || typeof node !== "object") return found;
  const count = LimitNode.is(node as OperationNode) ? (node as LimitNode).limit : OffsetNode.is(node as OperationNode) ? (node as OffsetNode).offset : undefined;
  if (count && ValueNode.is(count) && count.value instanceof Slot) found.add(count.value.index);
  for (const key in node) if (key !== "kind") countArguments((node as Record<string, unknown>)[key], found);
  return found;
}

/** Forms compiled per read for the counts it is given; clients ask for a handful of counts. */
const COUNT_FORMS = 16;

/**
 * A read compiled once with a slot for each argument and, on SQLite, also once per value of the
 * arguments it takes as a LIMIT or OFFSET, which SQLite wants written into the text (see
 * sqlite_compiler.ts).
 */
class CompiledRead {
  private readonly general: Compiled;
  private readonly counts: readonly number[];
  private readonly byCounts = new Map<string, Compiled>();

  /** `compile` builds the query from the arguments given: slots, or counts in place of some. */
  constructor(
    dialect: Dialect,
    private readonly slots: readonly Slot[],
    private readonly argumentCount: number,
    private readonly compile: (args: readonly unknown[]) => Compiled,
  ) {
    this.general = compileWithSlots(slots, () => compile(slots.slice(0, argumentCount)));
    this.counts = dialect === "sqlite" ? [...countArguments(this.general.query)] : [];
  }

  for(args: readonly unknown[]): Compiled {
    const counts = this.counts.map((i) => args[i]);
    if (!counts.length || !counts.every(Number.isSafeInteger)) return this.general;
    const key = counts.join(",");
    let compiled = this.byCounts.get(key);
    if (compiled) this.byCounts.delete(key);
    else {
      const given = this.slots.slice(0, this.argumentCount).map((slot, i) => (this.counts.includes(i) ? args[i] : slot));
      compiled = compileWithSlots(
        this.slots.filter((slot) => !this.counts.includes(slot.index)),
        () => this.compile(given),
      );
      if (this.byCounts.size >= COUNT_FORMS) this.byCounts.delete(this.byCounts.keys().next().value!);
    }
    this.byCounts.set(key, compiled);
    return compiled;
  }
}

async function run<Row>(db: Executor, compiled: Compiled, values: readonly unknown[]): Promise<Row[]> {
  const parameters = compiled.parameters.map((p) => (p instanceof Slot ? bind(p, values[p.index]) : p));
  // Kysely's path (a mutex, a connection provider, its plugins, a promise at each step) costs
  // more than a short read on SQLite; when the connection is free the read runs on it directly.
  const idle = idleSqliteConnection(db);
  if (idle) return idle.prepare(compiled.sql).all(parameters) as Row[];
  const result = await db.executeQuery<Row>({ sql: compiled.sql, parameters, query: compiled.query, queryId: createQueryId() });
  return result.rows;
}

const slotsFor = (count: number) => Array.from({ length: count }, (_, i) => new Slot(i));

export function preparedRead<Args extends unknown[], Row>(build: (db: Executor, ...args: Args) => Compilable<Row>) {
  // One compiled read per dialect: a database's adapter object is shared by its transactions.
  const compiledFor = new WeakMap<object, CompiledRead>();
  return async (db: Executor, ...args: Args): Promise<Row[]> => {
    const adapter = db.getExecutor().adapter;
    let read = compiledFor.get(adapter);
    if (!read) {
      read = new CompiledRead(dialectOf(db), slotsFor(args.length), args.length, (given) => build(db, ...(given as Args)).compile());
      compiledFor.set(adapter, read);
    }
    return run(db, read.for(args), args);
  };
}

/**
 * The shape of an expression's tree, with each bound value taken out (into `values`, in the
 * order `withSlots` meets them). Literals and everything else that is part of the SQL text stay
 * in the shape, so two trees of one shape compile to the same statement.
 */
function shapeOf(node: unknown, values: unknown[]): string {
  if (Array.isArray(node)) return `[${node.map((n) => shapeOf(n, values)).join(",")}]`;
  if (node === null || typeof node !== "object") return JSON.stringify(node) ?? "undefined";
  if (ValueNode.is(node as OperationNode) && !(node as ValueNode).immediate) {
    values.push((node as ValueNode).value);
    return "?";
  }
  let shape = "{";
  for (const key in node) shape += `${key}:${shapeOf((node as Record<string, unknown>)[key], values)};`;
  return `${shape}}`;
}

/** A copy of the tree with a new slot (added to `slots`) for each bound value, walked as `shapeOf` walks it. */
function withSlots(node: unknown, slots: Slot[]): unknown {
  if (Array.isArray(node)) return Object.freeze(node.map((n) => withSlots(n, slots)));
  if (node === null || typeof node !== "object") return node;
  if (ValueNode.is(node as OperationNode) && !(node as ValueNode).immediate) {
    const slot = new Slot(slots.length);
    slots.push(slot);
    return ValueNode.create(slot);
  }
  const copy: Record<string, unknown> = {};
  for (const key in node) copy[key] = withSlots((node as Record<string, unknown>)[key], slots);
  return Object.freeze(copy);
}

/** Shapes kept per prepared read and dialect; a narrow's shape is one of a few dozen in practice. */
const SHAPES = 256;
/**
 * A longer shape (a search of hundreds of words, say) is compiled for its call alone: kept, 256
 * of them could hold megabytes.
 */
const MAX_SHAPE_CHARS = 8_000;

/** Lists of conditions, each list put to its own use by the query that is given them. */
export type Conditions = readonly (readonly Expression<SqlBool>[])[];

/**
 * A read built around conditions made anew on each call (a narrow's), compiled once per shape of
 * those conditions (`shapeOf`) and then run with their values and the arguments bound as a
 * prepared read's arguments are.
 */
export function preparedReadWith<Args extends unknown[], Row>(build: (db: Executor, conditions: Conditions, ...args: Args) => Compilable<Row>) {
  const compiledFor = new WeakMap<object, Map<string, CompiledRead>>();
  return async (db: Executor, conditions: Conditions, ...args: Args): Promise<Row[]> => {
    const adapter = db.getExecutor().adapter;
    let shapes = compiledFor.get(adapter);
    if (!shapes) compiledFor.set(adapter, (shapes = new Map()));
    const nodes = conditions.map((list) => list.map((c) => c.toOperationNode()));
    const values: unknown[] = [];
    const shape = shapeOf(nodes, values);
    if (shape.length > MAX_SHAPE_CHARS) return (await db.executeQuery<Row>(build(db, conditions, ...args).compile())).rows;
    let read = shapes.get(shape);
    if (read) shapes.delete(shape);
    else {
      const slots = slotsFor(args.length);
      const slotted = nodes.map((list) =>
        list.map((n) => {
          const node = withSlots(n, slots) as OperationNode;
          return { expressionType: undefined, toOperationNode: () => node } as Expression<SqlBool>;
        }),
      );
      read = new CompiledRead(dialectOf(db), slots, args.length, (given) => build(db, slotted, ...(given as Args)).compile());
      if (shapes.size >= SHAPES) shapes.delete(shapes.keys().next().value!);
    }
    shapes.set(shape, read);
    const all = [...args, ...values];
    return run(db, read.for(all), all);
  };
}

/**
 * Versions of the tables whose rows the server keeps in memory (see ReadCache): every write to
 * such a table moves its version on, and an entry read at an older version is read again.
 *
 * A write is counted once it has run (which is already its commit outside a transaction) and
 * again when its transaction commits: on PostgreSQL another connection may read the old row in
 * between and must not keep it.
 */
import {
  AliasNode,
  DeleteQueryNode,
  InsertQueryNode,
  TableNode,
  UpdateQueryNode,
  type KyselyPlugin,
  type OperationNode,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryId,
  type QueryResult,
  type RootOperationNode,
  type UnknownRow,
} from "kysely";

export class TableVersions {
  private readonly versions = new Map<string, number>();

  constructor(readonly tables: ReadonlySet<string>) {}

  of(table: string): number {
    return this.versions.get(table) ?? 0;
  }

  /** Told of this process's writes, to pass them on to other processes. */
  private listener: ((tables: string[]) => void) | undefined;

  onBump(listener: (tables: string[]) => void): void {
    this.listener = listener;
  }

  /** This process wrote the tables. */
  bump(tables: Iterable<string>): void {
    const moved = this.advance(tables);
    if (moved.length) this.listener?.(moved);
  }

  /** Another process sharing the database wrote them. */
  bumpElsewhere(tables: Iterable<string>): void {
    this.advance(tables);
  }

  private advance(tables: Iterable<string>): string[] {
    const moved: string[] = [];
    for (const table of tables) {
      if (!this.tables.has(table)) continue;
      this.versions.set(table, this.of(table) + 1);
      moved.push(table);
    }
    return moved;
  }
}

function tableName(node: OperationNode | undefined): string | undefined {
  if (node && AliasNode.is(node)) return tableName(node.node);
  return node && TableNode.is(node) ? node.table.identifier.name : undefined;
}

/** The watched tables a statement writes to; reads and other tables are ignored. */
function writtenTables(node: RootOperationNode, watched: ReadonlySet<string>): string[] {
  let targets: readonly (OperationNode | undefined)[] = [];
  if (InsertQueryNode.is(node)) targets = [node.into];
  else if (UpdateQueryNode.is(node)) targets = [node.table];
  else if (DeleteQueryNode.is(node)) targets = node.from.froms;
  return targets.map(tableName).filter((t): t is string => t !== undefined && watched.has(t));
}

/** Records the watched tables each statement writes, and hands them on once it has run. */
export class WriteWatchPlugin implements KyselyPlugin {
  private readonly pending = new WeakMap<QueryId, string[]>();

  constructor(
    private readonly watched: ReadonlySet<string>,
    private readonly onWritten: (tables: string[]) => void,
  ) {}

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    const tables = writtenTables(args.node, this.watched);
    if (tables.length) this.pending.set(args.queryId, tables);
    return args.node;
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    const tables = this.pending.get(args.queryId);
    if (tables) this.onWritten(tables);
    return args.result;
  }
}

/** The watched tables each running action's transaction has written so far (see runAction). */
const transactionWrites = new WeakMap<object, ReadonlySet<string>>();

export function trackTransactionWrites(tx: object, written: ReadonlySet<string>): void {
  transactionWrites.set(tx, written);
}

/**
 * Whether what `executor` reads from `tables` is what everyone else reads: true outside a
 * transaction, and inside one that has not written them.
 */
export function readsCommittedState(executor: { isTransaction: boolean }, tables: readonly string[]): boolean {
  if (!executor.isTransaction) return true;
  const written = transactionWrites.get(executor);
  return written !== undefined && tables.every((t) => !written.has(t));
}

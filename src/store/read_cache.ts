/**
 * Rows that nearly every request reads and few change (an API key's user, an organization),
 * kept in memory. An entry is good while none of the tables it was read from has been written
 * since (TableVersions); otherwise it is read again. Bounded, least recently used out first;
 * nothing is kept for a key that finds nothing, so made-up keys cannot push real ones out.
 */
import { readsCommittedState, type TableVersions } from "./table_versions.js";

interface Entry<T> {
  value: T;
  versions: number[];
}

export class ReadCache<T extends object> {
  private readonly entries = new Map<string, Entry<T>>();
  /** Loads outside transactions under way: callers at the same versions wait for the same one. */
  private readonly loading = new Map<string, { versions: number[]; value: Promise<T | undefined> }>();

  constructor(
    private readonly versions: TableVersions,
    private readonly tables: readonly string[],
    private readonly maxEntries: number,
  ) {
    for (const table of tables) {
      if (!versions.tables.has(table)) throw new Error(`table ${table} is not watched for writes`);
    }
  }

  /**
   * The value for `key`, loaded through `db` when there is none at the current versions. What a
   * transaction reads is kept only if it has not written the tables (readsCommittedState), and
   * a transaction never waits for a load outside it: on SQLite's single connection that load
   * would wait for the transaction.
   */
  async get(key: string, db: { isTransaction: boolean }, load: () => Promise<T | undefined>): Promise<T | undefined> {
    const current = this.tables.map((t) => this.versions.of(t));
    const entry = this.entries.get(key);
    this.entries.delete(key);
    if (entry && sameVersions(entry.versions, current)) {
      this.entries.set(key, entry);
      return entry.value;
    }
    if (db.isTransaction) {
      const loaded = await load();
      if (readsCommittedState(db, this.tables)) this.keep(key, loaded, current);
      return loaded;
    }
    const under = this.loading.get(key);
    if (under && sameVersions(under.versions, current)) return under.value;
    const value = load();
    this.loading.set(key, { versions: current, value });
    try {
      const loaded = await value;
      this.keep(key, loaded, current);
      return loaded;
    } finally {
      if (this.loading.get(key)?.value === value) this.loading.delete(key);
    }
  }

  /**
   * The values for several keys, those with none at the current versions loaded together by one
   * call of `load` (which may leave out keys that have no value). Kept as `get` keeps them.
   */
  async getMany(keys: readonly string[], db: { isTransaction: boolean }, load: (missing: string[]) => Promise<Map<string, T>>): Promise<Map<string, T>> {
    const current = this.tables.map((t) => this.versions.of(t));
    const out = new Map<string, T>();
    const missing: string[] = [];
    for (const key of keys) {
      const entry = this.entries.get(key);
      if (entry && sameVersions(entry.versions, current)) {
        this.entries.delete(key);
        this.entries.set(key, entry);
        out.set(key, entry.value);
      } else missing.push(key);
    }
    if (!missing.length) return out;
    const loaded = await load(missing);
    const keep = !db.isTransaction || readsCommittedState(db, this.tables);
    for (const [key, value] of loaded) {
      out.set(key, value);
      if (keep) this.keep(key, value, current);
    }
    return out;
  }

  /** A write while loading may have made the value stale: it is kept only if nothing moved. */
  private keep(key: string, value: T | undefined, versions: number[]): void {
    if (value === undefined || !sameVersions(versions, this.tables.map((t) => this.versions.of(t)))) return;
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, { value, versions });
  }
}

function sameVersions(a: readonly number[], b: readonly number[]): boolean {
  return a.every((v, i) => v === b[i]);
}

const indexes = new WeakMap<readonly object[], ReadonlyMap<number, object>>();

/**
 * A cached list of rows by id, built once per list: a ReadCache hands back the same frozen
 * array until its tables are written, and a new one after.
 */
export function indexById<T extends { id: number }>(rows: readonly T[]): ReadonlyMap<number, T> {
  let index = indexes.get(rows) as ReadonlyMap<number, T> | undefined;
  if (!index) indexes.set(rows, (index = new Map(rows.map((r) => [r.id, r]))));
  return index;
}

/**
 * Rows that nearly every request reads and few change (an API key's user, an organization),
 * kept in memory. An entry is good while none of the tables it was read from has been written
 * since (TableVersions); otherwise it is read again. Bounded, least recently used out first;
 * nothing is kept for a key that finds nothing, so made-up keys cannot push real ones out.
 */
import type { TableVersions } from "./table_versions.js";

interface Entry<T> {
  value: T;
  versions: number[];
}

export class ReadCache<T extends object> {
  private readonly entries = new Map<string, Entry<T>>();

  constructor(
    private readonly versions: TableVersions,
    private readonly tables: readonly string[],
    private readonly maxEntries: number,
  ) {
    for (const table of tables) {
      if (!versions.tables.has(table)) throw new Error(`table ${table} is not watched for writes`);
    }
  }

  /** `keep: false` for a value read where others must not see it (inside a transaction). */
  async get(key: string, load: () => Promise<T | undefined>, { keep = true } = {}): Promise<T | undefined> {
    const current = this.tables.map((t) => this.versions.of(t));
    const entry = this.entries.get(key);
    this.entries.delete(key);
    if (entry && entry.versions.every((v, i) => v === current[i])) {
      this.entries.set(key, entry);
      return entry.value;
    }
    const value = await load();
    // A write while loading may have made the value stale: keep it only if nothing moved.
    if (keep && value !== undefined && this.tables.every((t, i) => this.versions.of(t) === current[i])) {
      if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
      this.entries.set(key, { value, versions: current });
    }
    return value;
  }
}

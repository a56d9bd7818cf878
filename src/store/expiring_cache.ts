/**
 * Figures that may be somewhat old by design, as Zulip's own are (channel traffic comes from
 * statistics its analytics job fills in hourly): computed once, kept for `ttlSeconds`, then
 * computed again on the next request. Callers asking while a computation is under way share it,
 * so a slow one runs once however many requests wait for it. Bounded, oldest entry out first.
 */
import type { Clock } from "../context.js";

interface Entry<T> {
  at: number;
  value: Promise<T>;
  settled: boolean;
}

export class ExpiringCache<T> {
  private readonly entries = new Map<string, Entry<T>>();

  constructor(
    private readonly clock: Clock,
    private readonly ttlSeconds: number,
    private readonly maxEntries: number,
  ) {}

  /**
   * The value for `key`, computed through `db` when there is none young enough. A transaction
   * never waits for a computation outside it (on SQLite's single connection that would wait for
   * the transaction): it takes a finished value or computes its own, which is not kept.
   */
  get(key: string, db: { isTransaction: boolean }, compute: () => Promise<T>): Promise<T> {
    const now = this.clock.now();
    const entry = this.entries.get(key);
    // A clock that went back (tests move it freely) makes the entry's age meaningless.
    const fresh = entry && entry.at <= now && now - entry.at < this.ttlSeconds ? entry : undefined;
    if (db.isTransaction) return fresh?.settled ? fresh.value : compute();
    if (fresh) return fresh.value;
    this.entries.delete(key);
    const value = compute();
    const created: Entry<T> = { at: now, value, settled: false };
    value.then(
      () => (created.settled = true),
      // A failed computation is not kept: the next request tries again.
      () => {
        if (this.entries.get(key) === created) this.entries.delete(key);
      },
    );
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, created);
    return value;
  }
}

/**
 * Time tests move by hand: a clock and timers that fire when the clock passes their due time,
 * so heartbeats and queue expiry are tested without waiting.
 */
import type { Clock, TimerHandle, Timers } from "../../src/context.js";

interface Pending {
  due: number;
  seq: number;
  callback: () => void;
}

export class ManualTime implements Clock, Timers {
  private pending = new Map<number, Pending>();
  private seq = 0;

  constructor(public current = Date.now() / 1000) {}

  now(): number {
    return this.current;
  }

  setTimeout(callback: () => void, ms: number): TimerHandle {
    const id = ++this.seq;
    this.pending.set(id, { due: this.current + ms / 1000, seq: id, callback });
    return id;
  }

  clearTimeout(handle: TimerHandle): void {
    this.pending.delete(handle as number);
  }

  /** Moves time forward, firing every timer that falls due on the way, in order. */
  advance(seconds: number): void {
    const end = this.current + seconds;
    for (;;) {
      const next = [...this.pending.values()]
        .filter((p) => p.due <= end)
        .sort((a, b) => a.due - b.due || a.seq - b.seq)[0];
      if (!next) break;
      this.pending.delete(next.seq);
      this.current = Math.max(this.current, next.due);
      next.callback();
    }
    this.current = end;
  }

  /** Timers waiting to fire (heartbeats, the collection sweep). */
  pendingCount(): number {
    return this.pending.size;
  }
}

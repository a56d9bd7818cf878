/**
 * The one way state changes are announced. Actions publish after their transaction
 * commits; event queues (in memory, or in Redis across processes) consume.
 */
export interface Notice {
  realmId: number;
  event: Record<string, unknown>;
  /** Exactly the users who receive the event. */
  userIds: number[];
  /** Fields that differ per recipient (a message's flags), merged into that user's copy. */
  perUser?: Map<number, Record<string, unknown>>;
}

/** A listener that returns a promise is awaited by `publish` (queues in Redis take a round trip). */
export type NoticeListener = (notice: Notice) => unknown;

export class EventBus {
  private listeners: NoticeListener[] = [];

  /**
   * `onFailure` hears of a listener that could not take a notice (Redis unreachable). Publishing
   * still resolves: the change is committed, and its response must say so.
   */
  constructor(private readonly onFailure: (err: unknown, notice: Notice) => void = () => {}) {}

  subscribe(listener: NoticeListener): () => void {
    this.listeners.push(listener);
    return () => {
      this.listeners = this.listeners.filter((l) => l !== listener);
    };
  }

  /** Resolves once every listener has taken the notice: its events are then in their queues. */
  async publish(notice: Notice): Promise<void> {
    const pending: Promise<unknown>[] = [];
    for (const l of this.listeners) {
      const done = l(notice);
      if (done instanceof Promise) pending.push(done.catch((err: unknown) => this.onFailure(err, notice)));
    }
    if (pending.length) await Promise.all(pending);
  }
}

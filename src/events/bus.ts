/**
 * The one way state changes are announced. Actions publish after their transaction
 * commits; event queues (and, across processes, a pub/sub backend) consume.
 */
export interface Notice {
  realmId: number;
  event: Record<string, unknown>;
  /** Exactly the users who receive the event. */
  userIds: number[];
  /** Fields that differ per recipient (a message's flags), merged into that user's copy. */
  perUser?: Map<number, Record<string, unknown>>;
}

export type NoticeListener = (notice: Notice) => void;

export class EventBus {
  private listeners: NoticeListener[] = [];

  subscribe(listener: NoticeListener): () => void {
    this.listeners.push(listener);
    return () => {
      this.listeners = this.listeners.filter((l) => l !== listener);
    };
  }

  publish(notice: Notice): void {
    for (const l of this.listeners) l(notice);
  }
}

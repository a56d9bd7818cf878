/**
 * What the server needs of its event queues, wherever they live: in this process's memory
 * (EventQueues), or in Redis so that any process serves any queue (RedisEventQueues).
 */
import type { EventBus } from "./bus.js";
import type { Event } from "./shaping.js";
import type { FetchRequest, FetchResult, QueueSpec } from "./queues.js";

export interface QueueInfo {
  userId: number;
  spec: QueueSpec;
  /** Whether a GET /events of this process is waiting on the queue. */
  waiting: boolean;
}

/** Called whenever a GET /events starts waiting in this process (metrics, tests, benchmarks). */
export type LongPollListener = (queue: { queueId: string; userId: number }) => void;

export interface EventQueueService {
  /** Starts consuming the bus and the periodic removal of idle queues. */
  start(bus: EventBus): void;
  /** Stops timers and answers every waiting GET, so the server can shut down. */
  close(): Promise<void>;
  /** A new queue's id. */
  create(spec: QueueSpec): Promise<string>;
  /** What waits in the caller's queue (POST /register folds it into the state it returns). */
  pending(userId: number, queueId: string): Promise<Event[]>;
  /** GET /events: answers at once when something is queued (or with dont_block), else waits. */
  fetch(req: FetchRequest): Promise<FetchResult>;
  /** The caller's queue goes; anyone else's, or a missing one, is BAD_EVENT_QUEUE_ID. */
  remove(userId: number, queueId: string): Promise<void>;
  onLongPoll(listener: LongPollListener): () => void;
  inspect(queueId: string): Promise<QueueInfo | undefined>;
  queueIdsOf(userId: number): Promise<string[]>;
  stats(): Promise<{ queues: number; waiting: number }>;
}

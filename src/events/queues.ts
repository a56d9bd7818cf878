/**
 * Event queues, as Zulip's Tornado process keeps them: one in-memory queue per registered client,
 * fed from the event bus, drained by long-polling GET /events.
 *
 * - Event ids are per queue, start at 0 and increase (not always by one: some flag updates are
 *   merged while they wait). An event stays queued until a later GET acknowledges it with
 *   `last_event_id`, so a client that reconnects with the last id it saw loses nothing.
 * - A GET on an empty queue waits. It is answered as soon as an event arrives, when the client
 *   polls again on the same queue, or with a heartbeat event after 45–55 s.
 * - A queue that nobody has polled for its lifespan (600 s unless `queue_lifespan_secs`) is
 *   removed by a periodic sweep.
 */
import { randomUUID } from "node:crypto";
import type { Clock, Timers, TimerHandle } from "../context.js";
import type { EventQueueTimings } from "../config.js";
import type { EventBus, Notice } from "./bus.js";
import { badEventQueueId, badRequest } from "../http/errors.js";
import type { NarrowTerm } from "../domain/event_narrow.js";
import { isGuest } from "../domain/roles.js";
import { shapeForQueue, type ClientCapabilities, type Event, type QueueProfile, type ShapeCache } from "./shaping.js";

export interface QueueSpec {
  userId: number;
  realmId: number;
  clientName: string;
  /** null: every event type. */
  eventTypes: readonly string[] | null;
  narrow: readonly NarrowTerm[];
  applyMarkdown: boolean;
  clientGravatar: boolean;
  slimPresence: boolean;
  allPublicStreams: boolean;
  /** Whether the user is a guest, who may read only the public channels that are web-public. */
  guest: boolean;
  capabilities: ClientCapabilities;
  /** Idle seconds before the queue is removed; 0 means the server default. */
  lifespanSecs: number;
}

export interface FetchResult {
  events: Event[];
  queue_id?: string;
}

interface Waiter {
  finish(result: FetchResult): void;
  heartbeat: TimerHandle;
}

/** Types of flag updates merged while they wait, keyed like Zulip's "virtual events". */
function mergeKey(event: Event): string | undefined {
  if (event.type !== "update_message_flags" || event.all) return undefined;
  const key = `flags/${String(event.op ?? event.operation)}/${String(event.flag)}`;
  // Marking as unread carries per-message details that cannot be merged.
  return key.startsWith("flags/remove/read") ? undefined : key;
}

export class EventQueue implements QueueProfile {
  readonly queueId = randomUUID();
  readonly eventTypes: ReadonlySet<string> | null;
  private queued: Event[] = [];
  private merged = new Map<string, Event>();
  private nextEventId = 0;
  newestPrunedId = -1;
  lastConnection: number;
  waiter: Waiter | undefined;

  constructor(
    readonly spec: QueueSpec,
    readonly lifespanSecs: number,
    now: number,
  ) {
    this.eventTypes = spec.eventTypes ? new Set(spec.eventTypes) : null;
    this.lastConnection = now;
  }

  get userId() {
    return this.spec.userId;
  }
  get narrow() {
    return this.spec.narrow;
  }
  get applyMarkdown() {
    return this.spec.applyMarkdown;
  }
  get clientGravatar() {
    return this.spec.clientGravatar;
  }
  get slimPresence() {
    return this.spec.slimPresence;
  }
  get capabilities() {
    return this.spec.capabilities;
  }
  /** Queues that also get public channel messages of channels their user is not subscribed to. */
  get watchesAllPublicStreams() {
    return this.spec.allPublicStreams || this.spec.narrow.length > 0;
  }

  /** Appends an event (the same object may go to many queues; each gets its own copy and id). */
  push(event: Event): void {
    const queued: Event = { ...event, id: this.nextEventId++ };
    const key = mergeKey(queued);
    const existing = key && this.merged.get(key);
    if (existing) {
      existing.id = queued.id;
      existing.messages = [...(existing.messages as unknown[]), ...(queued.messages as unknown[])];
      if ("timestamp" in queued) existing.timestamp = queued.timestamp;
    } else if (key) {
      this.merged.set(key, { ...queued, messages: [...((queued.messages as unknown[]) ?? [])] });
    } else {
      this.queued.push(queued);
    }
  }

  isEmpty(): boolean {
    return this.queued.length === 0 && this.merged.size === 0;
  }

  /** Everything waiting, in id order. */
  contents(): Event[] {
    if (this.merged.size) {
      this.queued = [...this.queued, ...this.merged.values()].sort((a, b) => (a.id as number) - (b.id as number));
      this.merged.clear();
    }
    return [...this.queued];
  }

  /** Drops the acknowledged events, those with ids up to `throughId`. */
  prune(throughId: number): void {
    this.contents();
    let drop = 0;
    while (drop < this.queued.length && (this.queued[drop].id as number) <= throughId) {
      this.newestPrunedId = this.queued[drop].id as number;
      drop++;
    }
    if (drop) this.queued = this.queued.slice(drop);
  }
}

export interface FetchRequest {
  userId: number;
  queueId?: string;
  lastEventId?: number;
  dontBlock: boolean;
  /** How to create a queue when none is named (GET /events with dont_block and no queue_id). */
  newQueue: QueueSpec;
  /** Aborted when the client goes away; the queue stays, with its events. */
  signal?: AbortSignal;
}

export type LongPollListener = (queue: EventQueue) => void;

export interface EventQueuesOptions {
  clock: Clock;
  timers: Timers;
  timings: EventQueueTimings;
  random?: () => number;
  /** Past this many queues for one user, the one idle longest is removed (none by default). */
  maxQueuesPerUser?: number;
}

export class EventQueues {
  private byId = new Map<string, EventQueue>();
  private byUser = new Map<number, Set<EventQueue>>();
  private allStreamsByRealm = new Map<number, Set<EventQueue>>();
  private longPollListeners = new Set<LongPollListener>();
  private gcTimer: TimerHandle | undefined;
  private unsubscribe: (() => void) | undefined;

  constructor(private readonly opts: EventQueuesOptions) {}

  get timings(): EventQueueTimings {
    return this.opts.timings;
  }

  /** Starts consuming the bus and the periodic garbage collection. */
  start(bus: EventBus): void {
    this.unsubscribe = bus.subscribe((notice) => this.deliver(notice));
    this.scheduleGc();
  }

  /** Stops timers and answers every waiting GET, so the server can shut down. */
  close(): void {
    this.unsubscribe?.();
    if (this.gcTimer !== undefined) this.opts.timers.clearTimeout(this.gcTimer);
    this.gcTimer = undefined;
    for (const queue of this.byId.values()) this.finishWaiter(queue);
  }

  private scheduleGc(): void {
    this.gcTimer = this.opts.timers.setTimeout(() => {
      this.gc();
      this.scheduleGc();
    }, this.opts.timings.gcIntervalSecs * 1000);
  }

  allocate(spec: QueueSpec): EventQueue {
    this.makeRoomFor(spec.userId);
    const requested = spec.lifespanSecs > 0 ? spec.lifespanSecs : this.opts.timings.idleTimeoutSecs;
    const queue = new EventQueue(spec, Math.min(requested, this.opts.timings.maxLifespanSecs), this.opts.clock.now());
    this.byId.set(queue.queueId, queue);
    addTo(this.byUser, spec.userId, queue);
    if (queue.watchesAllPublicStreams) addTo(this.allStreamsByRealm, spec.realmId, queue);
    return queue;
  }

  /** A client whose queue was removed re-registers when it next polls, as after garbage collection. */
  private makeRoomFor(userId: number): void {
    const max = this.opts.maxQueuesPerUser;
    const queues = this.byUser.get(userId);
    if (max === undefined || !queues || queues.size < max) return;
    let idlest: EventQueue | undefined;
    for (const q of queues) {
      const idler = !idlest || (!q.waiter && (idlest.waiter !== undefined || q.lastConnection < idlest.lastConnection));
      if (idler) idlest = q;
    }
    this.remove(idlest!);
  }

  /** The caller's queue; anyone else's, or a missing one, is BAD_EVENT_QUEUE_ID. */
  access(userId: number, queueId: string): EventQueue {
    const queue = this.byId.get(queueId);
    if (!queue || queue.userId !== userId) throw badEventQueueId(queueId);
    return queue;
  }

  delete(userId: number, queueId: string): void {
    this.remove(this.access(userId, queueId));
  }

  private remove(queue: EventQueue): void {
    this.finishWaiter(queue);
    this.byId.delete(queue.queueId);
    removeFrom(this.byUser, queue.userId, queue);
    removeFrom(this.allStreamsByRealm, queue.spec.realmId, queue);
  }

  /** Removes every queue idle for longer than its lifespan; returns how many. */
  gc(): number {
    const now = this.opts.clock.now();
    let removed = 0;
    for (const queue of [...this.byId.values()]) {
      if (!queue.waiter && now - queue.lastConnection >= queue.lifespanSecs) {
        this.remove(queue);
        removed++;
      }
    }
    return removed;
  }

  /** GET /events: answers at once when something is queued (or with dont_block), else waits. */
  async fetch(req: FetchRequest): Promise<FetchResult> {
    let queue: EventQueue;
    if (req.queueId === undefined) {
      if (!req.dontBlock) throw badRequest("Missing 'queue_id' argument");
      queue = this.allocate(req.newQueue);
    } else {
      if (req.lastEventId === undefined) throw badRequest("Missing 'last_event_id' argument");
      queue = this.access(req.userId, req.queueId);
      if (req.lastEventId < queue.newestPrunedId) {
        throw badRequest(`An event newer than ${req.lastEventId} has already been pruned!`);
      }
      queue.prune(req.lastEventId);
      if (queue.newestPrunedId !== req.lastEventId) {
        throw badRequest(`Event ${req.lastEventId} was not in this queue`);
      }
      // A client polling again supersedes its earlier request.
      this.finishWaiter(queue);
    }
    queue.lastConnection = this.opts.clock.now();
    if (!queue.isEmpty() || req.dontBlock) {
      const result: FetchResult = { events: queue.contents() };
      if (req.queueId === undefined) result.queue_id = queue.queueId;
      return result;
    }
    return this.wait(queue, req.signal);
  }

  private wait(queue: EventQueue, signal: AbortSignal | undefined): Promise<FetchResult> {
    return new Promise<FetchResult>((resolve) => {
      const { heartbeatMinSecs, heartbeatJitterSecs } = this.opts.timings;
      const jitter = Math.floor((this.opts.random ?? Math.random)() * (heartbeatJitterSecs + 1));
      const waiter: Waiter = {
        finish: resolve,
        heartbeat: this.opts.timers.setTimeout(() => {
          // Every queue gets heartbeats, whatever event types it asked for.
          queue.push({ type: "heartbeat" });
          this.finishWaiter(queue);
        }, (heartbeatMinSecs + jitter) * 1000),
      };
      queue.waiter = waiter;
      signal?.addEventListener("abort", () => {
        if (queue.waiter !== waiter) return;
        this.opts.timers.clearTimeout(waiter.heartbeat);
        queue.waiter = undefined;
        resolve({ events: [], queue_id: queue.queueId });
      });
      for (const listener of this.longPollListeners) listener(queue);
    });
  }

  private finishWaiter(queue: EventQueue): void {
    const waiter = queue.waiter;
    if (!waiter) return;
    queue.waiter = undefined;
    this.opts.timers.clearTimeout(waiter.heartbeat);
    waiter.finish({ events: queue.contents(), queue_id: queue.queueId });
  }

  /** Puts a published event on the queues of exactly the users it names. */
  deliver(notice: Notice): void {
    const targets = new Map<EventQueue, Event | undefined>();
    for (const userId of notice.userIds) {
      for (const queue of this.byUser.get(userId) ?? []) targets.set(queue, notice.perUser?.get(userId));
    }
    const event = notice.event;
    this.followRoleChange(event);
    if (event.type === "message" && event.invite_only === false) {
      for (const queue of this.allStreamsByRealm.get(notice.realmId) ?? []) {
        if (targets.has(queue) || (queue.spec.guest && event.web_public !== true)) continue;
        targets.set(queue, { flags: [] });
      }
    }
    const cache: ShapeCache = new Map();
    for (const [queue, extra] of targets) {
      const shaped = shapeForQueue(event, extra, queue, cache);
      if (!shaped.length) continue;
      for (const e of shaped) queue.push(e);
      this.finishWaiter(queue);
    }
  }

  /** A queue outlives role changes; what it may read of unsubscribed channels follows the role. */
  private followRoleChange(event: Event): void {
    if (event.type !== "realm_user" || event.op !== "update") return;
    const person = event.person as { user_id?: number; role?: number } | undefined;
    if (person?.role === undefined || person.user_id === undefined) return;
    for (const queue of this.byUser.get(person.user_id) ?? []) queue.spec.guest = isGuest(person.role);
  }

  /** Called whenever a GET /events starts waiting (metrics, tests, benchmarks). */
  onLongPoll(listener: LongPollListener): () => void {
    this.longPollListeners.add(listener);
    return () => this.longPollListeners.delete(listener);
  }

  queuesOf(userId: number): EventQueue[] {
    return [...(this.byUser.get(userId) ?? [])];
  }

  stats(): { queues: number; waiting: number } {
    let waiting = 0;
    for (const queue of this.byId.values()) if (queue.waiter) waiting++;
    return { queues: this.byId.size, waiting };
  }
}

function addTo<K, V>(index: Map<K, Set<V>>, key: K, value: V): void {
  const set = index.get(key);
  if (set) set.add(value);
  else index.set(key, new Set([value]));
}

function removeFrom<K, V>(index: Map<K, Set<V>>, key: K, value: V): void {
  const set = index.get(key);
  if (!set) return;
  set.delete(value);
  if (!set.size) index.delete(key);
}

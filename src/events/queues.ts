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
import type { EventQueueService, LongPollListener, QueueInfo } from "./queue_service.js";
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
export function mergeKey(event: Event): string | undefined {
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

/** What `idle_queue_timeout: "mobile"` asks for: a phone's app may sleep for hours between polls. */
export const MOBILE_IDLE_QUEUE_TIMEOUT_SECS = 12 * 3600;

/** Seconds a queue lives unpolled: what its client asked for, within the server's bounds. */
export function queueLifespan(spec: QueueSpec, timings: EventQueueTimings): number {
  const requested = spec.lifespanSecs > 0 ? spec.lifespanSecs : timings.idleTimeoutSecs;
  return Math.min(requested, timings.maxLifespanSecs);
}

/** When a waiting GET /events gets its heartbeat; the jitter spreads reconnections out. */
export function heartbeatDelayMs(timings: EventQueueTimings, random: () => number = Math.random): number {
  const jitter = Math.floor(random() * (timings.heartbeatJitterSecs + 1));
  return (timings.heartbeatMinSecs + jitter) * 1000;
}

/** The arguments a GET /events needs: an existing queue comes with the last event id its client saw. */
export function checkFetchRequest(req: FetchRequest): number | undefined {
  if (req.queueId === undefined) {
    if (!req.dontBlock) throw badRequest("Missing 'queue_id' argument");
    return undefined;
  }
  if (req.lastEventId === undefined) throw badRequest("Missing 'last_event_id' argument");
  return req.lastEventId;
}

export const alreadyPruned = (lastEventId: number) => badRequest(`An event newer than ${lastEventId} has already been pruned!`);
export const notInQueue = (lastEventId: number) => badRequest(`Event ${lastEventId} was not in this queue`);

/**
 * The queues a notice goes to, each with what differs for its user: those of the users it names,
 * and for a public channel's message, the queues that watch every public channel (a guest's only
 * when the channel is web-public).
 */
export function deliveryTargets<Q>(
  notice: Notice,
  queuesOfUser: (userId: number) => Iterable<Q>,
  watchers: readonly { queue: Q; guest: boolean }[],
): Map<Q, Event | undefined> {
  const targets = new Map<Q, Event | undefined>();
  for (const userId of notice.userIds) {
    for (const queue of queuesOfUser(userId)) targets.set(queue, notice.perUser?.get(userId));
  }
  const event = notice.event;
  if (event.type === "message" && event.invite_only === false) {
    for (const { queue, guest } of watchers) {
      if (targets.has(queue) || (guest && event.web_public !== true)) continue;
      targets.set(queue, { flags: [] });
    }
  }
  return targets;
}

/** The role a realm_user update gives its user, if it changes one. */
export function changedRole(event: Event): { userId: number; role: number } | undefined {
  if (event.type !== "realm_user" || event.op !== "update") return undefined;
  const person = event.person as { user_id?: number; role?: number } | undefined;
  if (person?.role === undefined || person.user_id === undefined) return undefined;
  return { userId: person.user_id, role: person.role };
}

/** Feeds the bus's notices to `deliver`, and runs `sweep` every gcIntervalSecs, until stopped. */
export function consumeAndSweep(
  bus: EventBus,
  opts: { timers: Timers; timings: EventQueueTimings },
  deliver: (notice: Notice) => unknown,
  sweep: () => unknown,
): () => void {
  const unsubscribe = bus.subscribe(deliver);
  let timer: TimerHandle | undefined;
  const schedule = () => {
    timer = opts.timers.setTimeout(() => {
      sweep();
      schedule();
    }, opts.timings.gcIntervalSecs * 1000);
  };
  schedule();
  return () => {
    unsubscribe();
    if (timer !== undefined) opts.timers.clearTimeout(timer);
    timer = undefined;
  };
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

export interface EventQueuesOptions {
  clock: Clock;
  timers: Timers;
  timings: EventQueueTimings;
  random?: () => number;
  /** Past this many queues for one user, the one idle longest is removed (none by default). */
  maxQueuesPerUser?: number;
}

export class EventQueues implements EventQueueService {
  private byId = new Map<string, EventQueue>();
  private byUser = new Map<number, Set<EventQueue>>();
  private allStreamsByRealm = new Map<number, Set<EventQueue>>();
  private longPollListeners = new Set<LongPollListener>();
  private stopConsuming: (() => void) | undefined;

  constructor(private readonly opts: EventQueuesOptions) {}

  get timings(): EventQueueTimings {
    return this.opts.timings;
  }

  start(bus: EventBus): void {
    this.stopConsuming = consumeAndSweep(bus, this.opts, (notice) => this.deliver(notice), () => this.gc());
  }

  async close(): Promise<void> {
    this.stopConsuming?.();
    for (const queue of this.byId.values()) this.finishWaiter(queue);
  }

  async create(spec: QueueSpec): Promise<string> {
    return this.allocate(spec).queueId;
  }

  async pending(userId: number, queueId: string): Promise<Event[]> {
    return this.access(userId, queueId).contents();
  }

  allocate(spec: QueueSpec): EventQueue {
    this.makeRoomFor(spec.userId);
    const queue = new EventQueue(spec, queueLifespan(spec, this.opts.timings), this.opts.clock.now());
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
    this.drop(idlest!);
  }

  /** The caller's queue; anyone else's, or a missing one, is BAD_EVENT_QUEUE_ID. */
  access(userId: number, queueId: string): EventQueue {
    const queue = this.byId.get(queueId);
    if (!queue || queue.userId !== userId) throw badEventQueueId(queueId);
    return queue;
  }

  async remove(userId: number, queueId: string): Promise<void> {
    this.drop(this.access(userId, queueId));
  }

  private drop(queue: EventQueue): void {
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
        this.drop(queue);
        removed++;
      }
    }
    return removed;
  }

  async fetch(req: FetchRequest): Promise<FetchResult> {
    let queue: EventQueue;
    const lastEventId = checkFetchRequest(req);
    if (req.queueId === undefined) {
      queue = this.allocate(req.newQueue);
    } else {
      queue = this.access(req.userId, req.queueId);
      if (lastEventId! < queue.newestPrunedId) throw alreadyPruned(lastEventId!);
      queue.prune(lastEventId!);
      if (queue.newestPrunedId !== lastEventId) throw notInQueue(lastEventId!);
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
      const waiter: Waiter = {
        finish: resolve,
        heartbeat: this.opts.timers.setTimeout(() => {
          // Every queue gets heartbeats, whatever event types it asked for.
          queue.push({ type: "heartbeat" });
          this.finishWaiter(queue);
        }, heartbeatDelayMs(this.opts.timings, this.opts.random)),
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
    this.followRoleChange(notice.event);
    const targets = deliveryTargets(
      notice,
      (userId) => this.byUser.get(userId) ?? [],
      [...(this.allStreamsByRealm.get(notice.realmId) ?? [])].map((queue) => ({ queue, guest: queue.spec.guest })),
    );
    const event = notice.event;
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
    const change = changedRole(event);
    if (!change) return;
    for (const queue of this.byUser.get(change.userId) ?? []) queue.spec.guest = isGuest(change.role);
  }

  onLongPoll(listener: LongPollListener): () => void {
    this.longPollListeners.add(listener);
    return () => this.longPollListeners.delete(listener);
  }

  queuesOf(userId: number): EventQueue[] {
    return [...(this.byUser.get(userId) ?? [])];
  }

  async inspect(queueId: string): Promise<QueueInfo | undefined> {
    const queue = this.byId.get(queueId);
    return queue && { userId: queue.userId, spec: queue.spec, waiting: queue.waiter !== undefined };
  }

  async queueIdsOf(userId: number): Promise<string[]> {
    return this.queuesOf(userId).map((q) => q.queueId);
  }

  async stats(): Promise<{ queues: number; waiting: number }> {
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

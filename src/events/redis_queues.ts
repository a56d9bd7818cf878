/**
 * Event queues kept in Redis, so that a client may register on one process and poll any other,
 * and its queue outlives the process that created it.
 *
 * Per queue: a hash of its owner, options and counters, and a sorted set of its events scored by
 * event id. Per user, and per organization for queues that watch every public channel, a set of
 * queue ids. One sorted set holds every queue's expiry time. Each change is one Lua script, so a
 * queue is never seen half-updated.
 *
 * A waiting GET /events is held only by the process it reached. Whenever events land in a queue
 * (or it is removed, or polled again elsewhere), its id is published on one wake channel; the
 * process holding a wait for it reads the queue and answers. Waits cost no Redis connection.
 *
 */
import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import type { Clock, TimerHandle, Timers } from "../context.js";
import type { EventQueueTimings } from "../config.js";
import type { EventBus, Notice } from "./bus.js";
import type { EventQueueService, LongPollListener, QueueInfo } from "./queue_service.js";
import {
  alreadyPruned,
  changedRole,
  checkFetchRequest,
  consumeAndSweep,
  deliveryTargets,
  heartbeatDelayMs,
  mergeKey,
  notInQueue,
  queueLifespan,
  type FetchRequest,
  type FetchResult,
  type QueueSpec,
} from "./queues.js";
import { shapeForQueue, type Event, type QueueProfile, type ShapeCache } from "./shaping.js";
import { badEventQueueId } from "../http/errors.js";
import { isGuest } from "../domain/roles.js";
import { LuaScript, type RedisLink } from "../cluster/redis_link.js";

/** Lua helpers every script may use; ARGV[1] is always the key prefix. */
const PRELUDE = `
local p = ARGV[1]
local function qkey(id) return p .. ':q:' .. id end
local function drop(id)
  local q = qkey(id)
  local h = redis.call('HMGET', q, 'user', 'realm')
  if not h[1] then return 0 end
  redis.call('DEL', q, q .. ':e')
  redis.call('SREM', p .. ':u:' .. h[1], id)
  redis.call('SREM', p .. ':a:' .. h[2], id)
  redis.call('ZREM', p .. ':exp', id)
  redis.call('PUBLISH', p .. ':wake', id)
  return 1
end
local function withEvents(head, q)
  for _, e in ipairs(redis.call('ZRANGE', q .. ':e', 0, -1)) do head[#head + 1] = e end
  return head
end
`;

const script = (body: string) => new LuaScript(PRELUDE + body);

/** ARGV: prefix, id, user, realm, spec, guest, watches all public channels, lifespan, now, most queues per user. */
const CREATE = script(`
local id, user, realm, life, now = ARGV[2], ARGV[3], ARGV[4], tonumber(ARGV[8]), tonumber(ARGV[9])
local most = tonumber(ARGV[10])
local ukey = p .. ':u:' .. user
if most > 0 and redis.call('SCARD', ukey) >= most then
  local idlest, idlestLast, idlestHeld
  for _, other in ipairs(redis.call('SMEMBERS', ukey)) do
    local h = redis.call('HMGET', qkey(other), 'held', 'last')
    local held, last = h[1] == '1', tonumber(h[2] or '0')
    if idlest == nil or (idlestHeld and not held) or (held == idlestHeld and last < idlestLast) then
      idlest, idlestLast, idlestHeld = other, last, held
    end
  end
  drop(idlest)
end
redis.call('HSET', qkey(id), 'user', user, 'realm', realm, 'spec', ARGV[5], 'guest', ARGV[6], 'life', life,
  'next', 0, 'pruned', -1, 'gen', 0, 'held', 0, 'last', now)
redis.call('SADD', ukey, id)
if ARGV[7] == '1' then redis.call('SADD', p .. ':a:' .. realm, id) end
redis.call('ZADD', p .. ':exp', now + life, id)
return 1
`);

/**
 * ARGV: prefix, number of bodies, the bodies (JSON objects without id), then triples of queue id,
 * body index and merge key. An event with a merge key still waiting in the queue under the same
 * key absorbs the new one's messages and takes its id, as the in-memory queues do.
 */
const PUSH = script(`
local n = tonumber(ARGV[2])
local woken = {}
for i = 3 + n, #ARGV, 3 do
  local id, body, merge = ARGV[i], ARGV[2 + tonumber(ARGV[i + 1])], ARGV[i + 2]
  local q = qkey(id)
  if redis.call('EXISTS', q) == 1 then
    local eid = redis.call('HINCRBY', q, 'next', 1) - 1
    local merged = false
    if merge ~= '' then
      local field = 'm:' .. merge
      local previous = redis.call('HGET', q, field)
      local old = previous and redis.call('ZRANGEBYSCORE', q .. ':e', previous, previous) or {}
      if #old == 1 then
        local event, added = cjson.decode(old[1]), cjson.decode(body)
        for _, m in ipairs(added.messages) do table.insert(event.messages, m) end
        if added.timestamp ~= nil then event.timestamp = added.timestamp end
        event.id = eid
        redis.call('ZREM', q .. ':e', old[1])
        redis.call('ZADD', q .. ':e', eid, cjson.encode(event))
        merged = true
      end
      redis.call('HSET', q, field, eid)
    end
    if not merged then redis.call('ZADD', q .. ':e', eid, '{"id":' .. eid .. ',' .. string.sub(body, 2)) end
    woken[#woken + 1] = id
  end
end
if #woken > 0 then redis.call('PUBLISH', p .. ':wake', table.concat(woken, ',')) end
return #woken
`);

/**
 * A GET /events. ARGV: prefix, id, user, last event id ('' for a queue just created), dont_block,
 * now, extra seconds a waiting queue is kept (its wait ends with a heartbeat before then).
 */
const POLL = script(`
local id, now = ARGV[2], tonumber(ARGV[6])
local q = qkey(id)
local h = redis.call('HMGET', q, 'user', 'pruned', 'held', 'life')
if h[1] ~= ARGV[3] then return {'bad'} end
if ARGV[4] ~= '' then
  local last, pruned = tonumber(ARGV[4]), tonumber(h[2])
  if last < pruned then return {'pruned'} end
  local acked = redis.call('ZRANGEBYSCORE', q .. ':e', '-inf', last, 'WITHSCORES')
  if #acked > 0 then
    pruned = tonumber(acked[#acked])
    redis.call('ZREMRANGEBYSCORE', q .. ':e', '-inf', last)
    redis.call('HSET', q, 'pruned', pruned)
  end
  if pruned ~= last then return {'notin'} end
end
local gen = redis.call('HINCRBY', q, 'gen', 1)
-- A poll supersedes the one before it, wherever that one waits.
if h[3] == '1' then redis.call('PUBLISH', p .. ':wake', id) end
local result = withEvents({'ok', gen}, q)
local waits = #result == 2 and ARGV[5] == '0'
redis.call('HSET', q, 'held', waits and 1 or 0, 'last', now)
redis.call('ZADD', p .. ':exp', now + tonumber(h[4]) + (waits and tonumber(ARGV[7]) or 0), id)
return result
`);

/**
 * Waiting polls' look at their queues after a wake. ARGV: prefix, now, then pairs of queue id and
 * the poll's generation. Returns, per pair: {'gone'}, {'wait'}, or {'done', events...}.
 */
const RECHECK = script(`
local now = tonumber(ARGV[2])
local replies = {}
for i = 3, #ARGV, 2 do
  local id = ARGV[i]
  local q = qkey(id)
  local h = redis.call('HMGET', q, 'gen', 'life')
  if not h[1] then
    replies[#replies + 1] = {'gone'}
  else
    local result = withEvents({'done'}, q)
    local current = h[1] == ARGV[i + 1]
    if #result == 1 and current then
      result = {'wait'}
    elseif current then
      redis.call('HSET', q, 'held', 0)
      redis.call('ZADD', p .. ':exp', now + tonumber(h[2]), id)
    end
    replies[#replies + 1] = result
  end
end
return replies
`);

/** ARGV: prefix, id, user. */
const PEEK = script(`
local q = qkey(ARGV[2])
if redis.call('HGET', q, 'user') ~= ARGV[3] then return {'bad'} end
return withEvents({'ok'}, q)
`);

/** ARGV: prefix, id, user. */
const REMOVE = script(`
if redis.call('HGET', qkey(ARGV[2]), 'user') ~= ARGV[3] then return 0 end
return drop(ARGV[2])
`);

/** ARGV: prefix, now, most to remove. */
const COLLECT = script(`
local expired = redis.call('ZRANGEBYSCORE', p .. ':exp', '-inf', ARGV[2], 'LIMIT', 0, tonumber(ARGV[3]))
for _, id in ipairs(expired) do drop(id) end
return #expired
`);

/**
 * Queues a notice may reach. ARGV: prefix, realm, whether it is a public channel's message, user ids.
 * Returns triples: queue id, user id ('' for a queue watching every public channel), guest flag.
 */
const TARGETS = script(`
local result = {}
for i = 4, #ARGV do
  for _, id in ipairs(redis.call('SMEMBERS', p .. ':u:' .. ARGV[i])) do
    result[#result + 1] = id; result[#result + 1] = ARGV[i]; result[#result + 1] = ''
  end
end
if ARGV[3] == '1' then
  for _, id in ipairs(redis.call('SMEMBERS', p .. ':a:' .. ARGV[2])) do
    result[#result + 1] = id; result[#result + 1] = ''; result[#result + 1] = redis.call('HGET', qkey(id), 'guest') or '0'
  end
end
return result
`);

/** ARGV: prefix, user, guest flag. */
const SET_GUEST = script(`
for _, id in ipairs(redis.call('SMEMBERS', p .. ':u:' .. ARGV[2])) do redis.call('HSET', qkey(id), 'guest', ARGV[3]) end
return 1
`);

/** Scripts get this many users or queue entries at a time, so that none holds Redis for long. */
const BATCH = 1000;
/** Queue options kept in memory for shaping; they never change once a queue exists. */
const MAX_CACHED_PROFILES = 100_000;
/** Expired queues removed per sweep; the rest go in the next. */
const COLLECT_LIMIT = 1000;

interface Wait {
  userId: number;
  /** The poll's generation, once its script has answered. */
  gen: number | undefined;
  /** Woken before its generation was known: look again as soon as it is. */
  woken: boolean;
  heartbeat: TimerHandle | undefined;
  finish(result: FetchResult): void;
}

export interface RedisEventQueuesOptions {
  link: RedisLink;
  clock: Clock;
  timers: Timers;
  timings: EventQueueTimings;
  random?: () => number;
  maxQueuesPerUser?: number;
  log?: Logger;
}

export class RedisEventQueues implements EventQueueService {
  private readonly link: RedisLink;
  private readonly waits = new Map<string, Wait>();
  private readonly profiles = new Map<string, QueueProfile>();
  private readonly longPollListeners = new Set<LongPollListener>();
  /** Deliveries run one after another, so each queue gets a process's events in publication order. */
  private delivering: Promise<void> = Promise.resolve();
  private stopConsuming: (() => void) | undefined;

  constructor(private readonly opts: RedisEventQueuesOptions) {
    this.link = opts.link;
  }

  /** Subscribes to wake-ups; resolves once they are heard. */
  async listen(): Promise<void> {
    await this.link.listen("wake", (message) => {
      void this.recheck(message.split(","));
    });
  }

  start(bus: EventBus): void {
    this.stopConsuming = consumeAndSweep(
      bus,
      this.opts,
      (notice) => this.deliver(notice),
      () => this.gc().catch((err: unknown) => this.opts.log?.error({ err }, "removing expired event queues failed")),
    );
  }

  async close(): Promise<void> {
    this.stopConsuming?.();
    for (const queueId of [...this.waits.keys()]) this.finish(queueId, []);
    await this.delivering;
  }

  private run(lua: LuaScript, args: (string | number)[]): Promise<unknown> {
    return lua.run(this.link.commands, [this.link.prefix, ...args]);
  }

  private now(): number {
    return Math.floor(this.opts.clock.now());
  }

  /** Removes queues idle past their lifespan (in every process's name: any may sweep); returns how many. */
  async gc(): Promise<number> {
    return Number(await this.run(COLLECT, [this.now(), COLLECT_LIMIT]));
  }

  async create(spec: QueueSpec): Promise<string> {
    const queueId = randomUUID();
    const watchesAll = spec.allPublicStreams || spec.narrow.length > 0;
    await this.run(CREATE, [
      queueId,
      spec.userId,
      spec.realmId,
      JSON.stringify(spec),
      spec.guest ? 1 : 0,
      watchesAll ? 1 : 0,
      queueLifespan(spec, this.opts.timings),
      this.now(),
      this.opts.maxQueuesPerUser ?? 0,
    ]);
    this.rememberProfile(queueId, spec);
    return queueId;
  }

  async pending(userId: number, queueId: string): Promise<Event[]> {
    const [status, ...events] = (await this.run(PEEK, [queueId, userId])) as string[];
    if (status !== "ok") throw badEventQueueId(queueId);
    return events.map(parseEvent);
  }

  async remove(userId: number, queueId: string): Promise<void> {
    if (!Number(await this.run(REMOVE, [queueId, userId]))) throw badEventQueueId(queueId);
  }

  async fetch(req: FetchRequest): Promise<FetchResult> {
    const lastEventId = checkFetchRequest(req);
    const queueId = req.queueId ?? (await this.create(req.newQueue));
    // Registered before the poll runs, so that a wake-up arriving first is not missed.
    const previous = this.waits.get(queueId);
    let wait: Wait | undefined;
    let answer!: Promise<FetchResult>;
    if (!req.dontBlock) {
      answer = new Promise<FetchResult>((resolve) => {
        wait = { userId: req.userId, gen: undefined, woken: false, heartbeat: undefined, finish: resolve };
      });
      this.waits.set(queueId, wait!);
    }
    const giveBack = () => {
      if (wait && this.waits.get(queueId) === wait) {
        if (previous) this.waits.set(queueId, previous);
        else this.waits.delete(queueId);
      }
    };
    let reply: unknown[];
    try {
      reply = (await this.run(POLL, [
        queueId,
        req.userId,
        lastEventId ?? "",
        req.dontBlock ? 1 : 0,
        this.now(),
        this.opts.timings.heartbeatMinSecs + this.opts.timings.heartbeatJitterSecs + 5,
      ])) as unknown[];
    } catch (err) {
      giveBack();
      throw err;
    }
    const [status, gen, ...events] = reply as [string, number, ...string[]];
    if (status !== "ok") {
      giveBack();
      if (status === "pruned") throw alreadyPruned(lastEventId!);
      if (status === "notin") throw notInQueue(lastEventId!);
      throw badEventQueueId(queueId);
    }
    // This poll supersedes the one this process held on the queue.
    if (previous && previous !== wait) settle(previous, this.opts.timers, { events: [], queue_id: queueId });
    if (events.length || !wait || this.waits.get(queueId) !== wait) {
      if (previous && this.waits.get(queueId) === previous) this.waits.delete(queueId);
      this.forget(queueId, wait);
      const result: FetchResult = { events: events.map(parseEvent) };
      if (req.queueId === undefined) result.queue_id = queueId;
      return result;
    }
    wait.gen = gen;
    wait.heartbeat = this.opts.timers.setTimeout(() => void this.heartbeat(queueId, wait!), heartbeatDelayMs(this.opts.timings, this.opts.random));
    const hangUp = () => {
      if (this.waits.get(queueId) === wait) this.finish(queueId, []);
    };
    // The client may have gone while the poll's script ran.
    if (req.signal?.aborted) hangUp();
    else req.signal?.addEventListener("abort", hangUp);
    for (const listener of this.longPollListeners) listener({ queueId, userId: req.userId });
    if (wait.woken) void this.recheck([queueId]);
    return answer;
  }

  private forget(queueId: string, wait: Wait | undefined): void {
    if (wait && this.waits.get(queueId) === wait) this.waits.delete(queueId);
  }

  /** Answers this process's wait on the queue, if any. */
  private finish(queueId: string, events: Event[]): void {
    const wait = this.waits.get(queueId);
    if (!wait) return;
    this.waits.delete(queueId);
    settle(wait, this.opts.timers, { events, queue_id: queueId });
  }

  private async heartbeat(queueId: string, wait: Wait): Promise<void> {
    wait.heartbeat = undefined;
    // Every queue gets heartbeats, whatever event types it asked for; the wake-up answers the wait.
    const pushed = await this.push([[queueId, { type: "heartbeat" }]]).catch(() => 0);
    if (!pushed && this.waits.get(queueId) === wait) this.finish(queueId, []);
  }

  /** Reads the queues this process holds waits on, in one script, and answers those with news. */
  private async recheck(queueIds: string[]): Promise<void> {
    const checks: [string, Wait][] = [];
    for (const queueId of queueIds) {
      const wait = this.waits.get(queueId);
      if (!wait) continue;
      if (wait.gen === undefined) wait.woken = true;
      else checks.push([queueId, wait]);
    }
    if (!checks.length) return;
    let replies: string[][];
    try {
      replies = (await this.run(RECHECK, [this.now(), ...checks.flatMap(([queueId, wait]) => [queueId, wait.gen!])])) as string[][];
    } catch (err) {
      this.opts.log?.error({ err }, "could not read event queues after a wake-up");
      return;
    }
    checks.forEach(([queueId, wait], i) => {
      if (this.waits.get(queueId) !== wait) return;
      const [status, ...events] = replies[i];
      if (status === "gone") {
        this.profiles.delete(queueId);
        this.finish(queueId, []);
      } else if (status === "done") {
        this.finish(queueId, events.map(parseEvent));
      }
    });
  }

  /** Appends events to queues; returns how many queues still existed. */
  private async push(entries: [string, Event][]): Promise<number> {
    let pushed = 0;
    for (let start = 0; start < entries.length; start += BATCH) {
      const bodies = new Map<string, number>();
      const triples: (string | number)[] = [];
      for (const [queueId, event] of entries.slice(start, start + BATCH)) {
        const body = JSON.stringify(event);
        let index = bodies.get(body);
        if (index === undefined) bodies.set(body, (index = bodies.size + 1));
        triples.push(queueId, index, mergeKey(event) ?? "");
      }
      pushed += Number(await this.run(PUSH, [bodies.size, ...bodies.keys(), ...triples]));
    }
    return pushed;
  }

  deliver(notice: Notice): Promise<void> {
    const done = this.delivering.then(() => this.deliverNow(notice));
    this.delivering = done.catch(() => undefined);
    return done;
  }

  private async deliverNow(notice: Notice): Promise<void> {
    const event = notice.event;
    const change = changedRole(event);
    if (change) await this.run(SET_GUEST, [change.userId, isGuest(change.role) ? 1 : 0]);
    const rows: string[] = [];
    if (event.type === "message" && event.invite_only === false) {
      rows.push(...((await this.run(TARGETS, [notice.realmId, 1])) as string[]));
    }
    for (let start = 0; start < notice.userIds.length; start += BATCH) {
      rows.push(...((await this.run(TARGETS, [notice.realmId, 0, ...notice.userIds.slice(start, start + BATCH)])) as string[]));
    }
    const byUser = new Map<number, string[]>();
    const watchers: { queue: string; guest: boolean }[] = [];
    for (let i = 0; i < rows.length; i += 3) {
      const [queueId, user, guest] = [rows[i], rows[i + 1], rows[i + 2]];
      if (user === "") watchers.push({ queue: queueId, guest: guest === "1" });
      else byUser.set(Number(user), [...(byUser.get(Number(user)) ?? []), queueId]);
    }
    const targets = deliveryTargets(notice, (userId) => byUser.get(userId) ?? [], watchers);
    if (!targets.size) return;
    const profiles = await this.profilesOf([...targets.keys()]);
    const cache: ShapeCache = new Map();
    const entries: [string, Event][] = [];
    for (const [queueId, extra] of targets) {
      const profile = profiles.get(queueId);
      if (!profile) continue;
      for (const shaped of shapeForQueue(event, extra, profile, cache)) entries.push([queueId, shaped]);
    }
    if (entries.length) await this.push(entries);
  }

  private async profilesOf(queueIds: string[]): Promise<Map<string, QueueProfile>> {
    const found = new Map<string, QueueProfile>();
    const missing: string[] = [];
    for (const id of queueIds) {
      const profile = this.profiles.get(id);
      if (profile) found.set(id, profile);
      else missing.push(id);
    }
    for (let start = 0; start < missing.length; start += BATCH) {
      const batch = missing.slice(start, start + BATCH);
      const pipeline = this.link.commands.pipeline();
      for (const id of batch) pipeline.hget(this.link.key(`q:${id}`), "spec");
      const specs = (await pipeline.exec()) ?? [];
      batch.forEach((id, i) => {
        const json = specs[i]?.[1];
        if (typeof json !== "string") return;
        found.set(id, this.rememberProfile(id, JSON.parse(json) as QueueSpec));
      });
    }
    return found;
  }

  private rememberProfile(queueId: string, spec: QueueSpec): QueueProfile {
    const profile = profileOf(queueId, spec);
    if (this.profiles.size >= MAX_CACHED_PROFILES) this.profiles.delete(this.profiles.keys().next().value!);
    this.profiles.set(queueId, profile);
    return profile;
  }

  onLongPoll(listener: LongPollListener): () => void {
    this.longPollListeners.add(listener);
    return () => this.longPollListeners.delete(listener);
  }

  async inspect(queueId: string): Promise<QueueInfo | undefined> {
    const [user, spec] = await this.link.commands.hmget(this.link.key(`q:${queueId}`), "user", "spec");
    if (user === null || spec === null) return undefined;
    return { userId: Number(user), spec: JSON.parse(spec) as QueueSpec, waiting: this.waits.has(queueId) };
  }

  async queueIdsOf(userId: number): Promise<string[]> {
    return this.link.commands.smembers(this.link.key(`u:${userId}`));
  }

  async stats(): Promise<{ queues: number; waiting: number }> {
    return { queues: await this.link.commands.zcard(this.link.key("exp")), waiting: this.waits.size };
  }
}

function settle(wait: Wait, timers: Timers, result: FetchResult): void {
  if (wait.heartbeat !== undefined) timers.clearTimeout(wait.heartbeat);
  wait.heartbeat = undefined;
  wait.finish(result);
}

function parseEvent(json: string): Event {
  return JSON.parse(json) as Event;
}

function profileOf(queueId: string, spec: QueueSpec): QueueProfile {
  return {
    queueId,
    eventTypes: spec.eventTypes ? new Set(spec.eventTypes) : null,
    narrow: spec.narrow,
    applyMarkdown: spec.applyMarkdown,
    clientGravatar: spec.clientGravatar,
    slimPresence: spec.slimPresence,
    capabilities: spec.capabilities,
  };
}

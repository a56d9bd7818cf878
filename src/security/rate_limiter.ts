/**
 * Rate-limit counters. They live in this process's memory; several processes will share them
 * through Redis, behind the same asynchronous interface.
 */
import {
  decide,
  largestMax,
  longestWindow,
  type RateLimitDecision,
  type RateLimitDomain,
  type RateLimitRules,
  type Rule,
} from "../domain/rate_limits.js";
import type { Clock } from "../context.js";

export interface RateLimitStore {
  /** Decides on one more request at `now`; records it only when it is allowed and `record` is set. */
  attempt(key: string, rules: readonly Rule[], now: number, record: boolean): Promise<RateLimitDecision>;
  /** Records a request whatever the rules say (a failed login, counted after the fact). */
  record(key: string, rules: readonly Rule[], now: number): Promise<void>;
}

/** Keys are chosen by clients (addresses, usernames): past this many, the least recent go first. */
const MAX_KEYS = 100_000;

export class MemoryRateLimitStore implements RateLimitStore {
  /** Per key, recent request times (oldest first), in the order keys were last used. */
  private readonly times = new Map<string, number[]>();

  async attempt(key: string, rules: readonly Rule[], now: number, record: boolean): Promise<RateLimitDecision> {
    const times = this.recent(key, rules, now);
    const decision = decide(times, rules, now);
    if (record && !decision.limited) this.add(key, times, rules, now);
    return decision;
  }

  async record(key: string, rules: readonly Rule[], now: number): Promise<void> {
    this.add(key, this.recent(key, rules, now), rules, now);
  }

  size(): number {
    return this.times.size;
  }

  /** The key's request times still inside a window, oldest first. */
  private recent(key: string, rules: readonly Rule[], now: number): number[] {
    const times = this.times.get(key);
    if (!times) return [];
    const horizon = now - longestWindow(rules);
    while (times.length && times[0] <= horizon) times.shift();
    if (!times.length) this.times.delete(key);
    return times;
  }

  private add(key: string, times: number[], rules: readonly Rule[], now: number): void {
    this.times.delete(key);
    times.push(now);
    if (times.length > largestMax(rules)) times.shift();
    this.times.set(key, times);
    if (this.times.size > MAX_KEYS) this.times.delete(this.times.keys().next().value!);
  }
}

export class RateLimiter {
  constructor(
    readonly enabled: boolean,
    private readonly rules: RateLimitRules,
    private readonly store: RateLimitStore,
    private readonly clock: Clock,
  ) {}

  /** Counts a request of `entity` in `domain`; null when rate limiting is off. */
  async hit(domain: RateLimitDomain, entity: string | number): Promise<RateLimitDecision | null> {
    if (!this.enabled) return null;
    return this.store.attempt(`${domain}:${entity}`, this.rules[domain], this.clock.now(), true);
  }

  /** Whether `entity` is limited in `domain` now, without counting anything. */
  async check(domain: RateLimitDomain, entity: string | number): Promise<RateLimitDecision | null> {
    if (!this.enabled) return null;
    return this.store.attempt(`${domain}:${entity}`, this.rules[domain], this.clock.now(), false);
  }

  /** Counts an attempt that already happened (a failed login). */
  async record(domain: RateLimitDomain, entity: string | number): Promise<void> {
    if (this.enabled) await this.store.record(`${domain}:${entity}`, this.rules[domain], this.clock.now());
  }
}

/**
 * Zulip's rate limits: each domain has rules (a window in seconds and the most requests allowed
 * in it); an entity (a user, an IP address, a username) is limited while any rule is exhausted.
 * Zulip's limiter keeps, per entity, the times of its latest requests; so does this one.
 */

export type Rule = readonly [windowSecs: number, maxRequests: number];

/** Zulip's DEFAULT_RATE_LIMITING_RULES, for the domains Confab uses. */
export const DEFAULT_RATE_LIMIT_RULES = {
  api_by_user: [[60, 200]],
  api_by_ip: [[60, 100]],
  authenticate_by_username: [[1800, 5]],
  email_change_by_user: [
    [3600, 2],
    [86400, 5],
  ],
  sends_email_by_ip: [[86400, 5]],
} satisfies Record<string, Rule[]>;

export type RateLimitDomain = keyof typeof DEFAULT_RATE_LIMIT_RULES;
export type RateLimitRules = Record<RateLimitDomain, readonly Rule[]>;

export const RATE_LIMIT_DOMAINS = Object.keys(DEFAULT_RATE_LIMIT_RULES) as RateLimitDomain[];

export interface RateLimitDecision {
  limited: boolean;
  /** Seconds until one more request would be allowed (0 when it is allowed now). */
  retryAfter: number;
  /** For the X-RateLimit-* headers: the smallest limit, the fewest requests left, and when all windows are clear. */
  limit: number;
  remaining: number;
  resetAt: number;
}

/** Longest window among the rules: older request times no longer matter. */
export const longestWindow = (rules: readonly Rule[]): number => Math.max(...rules.map(([w]) => w));

/** Most requests any rule allows: more request times than this never need keeping. */
export const largestMax = (rules: readonly Rule[]): number => Math.max(...rules.map(([, n]) => n));

/**
 * Whether one more request at `now` is allowed, given the times of earlier ones (oldest first),
 * counting this request in `remaining` when it is allowed.
 */
export function decide(times: readonly number[], rules: readonly Rule[], now: number): RateLimitDecision {
  // Index of each window's first request: times are sorted, so a binary search finds it.
  const starts = rules.map(([windowSecs]) => firstAfter(times, now - windowSecs));
  const limited = rules.some(([, max], i) => times.length - starts[i] >= max);
  let retryAfter = 0;
  let remaining = Infinity;
  let resetAt = now;
  rules.forEach(([windowSecs, max], i) => {
    const inWindow = times.length - starts[i];
    // The request whose expiry frees a slot is the max-th most recent one.
    if (inWindow >= max) retryAfter = Math.max(retryAfter, times[times.length - max] + windowSecs - now);
    remaining = Math.min(remaining, Math.max(0, max - inWindow - (limited ? 0 : 1)));
    // An allowed request is counted too, so an empty window then runs from now.
    const oldest = inWindow ? times[starts[i]] : limited ? undefined : now;
    if (oldest !== undefined) resetAt = Math.max(resetAt, oldest + windowSecs);
  });
  return { limited, retryAfter, limit: Math.min(...rules.map(([, n]) => n)), remaining, resetAt };
}

/** The index of the first time later than `t` in ascending `times` (its length if none). */
function firstAfter(times: readonly number[], t: number): number {
  let low = 0;
  let high = times.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (times[mid] > t) high = mid;
    else low = mid + 1;
  }
  return low;
}

export function parseRuleOverrides(json: string): Partial<RateLimitRules> {
  const parsed: unknown = JSON.parse(json);
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) throw new Error("rate limit rules must be a JSON object");
  const out: Partial<RateLimitRules> = {};
  for (const [domain, rules] of Object.entries(parsed)) {
    if (!(RATE_LIMIT_DOMAINS as string[]).includes(domain)) throw new Error(`unknown rate limit domain ${domain}`);
    const valid =
      Array.isArray(rules) &&
      rules.length > 0 &&
      rules.every((r) => Array.isArray(r) && r.length === 2 && r.every((n) => Number.isInteger(n) && n > 0));
    if (!valid) throw new Error(`rate limit rules of ${domain} must be [[seconds, requests], ...] with positive integers`);
    out[domain as RateLimitDomain] = rules as Rule[];
  }
  return out;
}

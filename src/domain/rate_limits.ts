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
  /** Zulip's RATE_LIMITING_MIRROR_REALM_RULES: mails to an organization's channel addresses. */
  email_mirror_by_realm: [
    [60, 50],
    [300, 120],
    [3600, 600],
  ],
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
export function longestWindow(rules: readonly Rule[]): number {
  let longest = -Infinity;
  for (const [windowSecs] of rules) longest = Math.max(longest, windowSecs);
  return longest;
}

/** Most requests any rule allows: more request times than this never need keeping. */
export function largestMax(rules: readonly Rule[]): number {
  let largest = -Infinity;
  for (const [, max] of rules) largest = Math.max(largest, max);
  return largest;
}

/**
 * Whether one more request at `now` is allowed, given the times of earlier ones (oldest first),
 * counting this request in `remaining` when it is allowed.
 */
export function decide(times: readonly number[], rules: readonly Rule[], now: number): RateLimitDecision {
  // Every API request passes here, so no arrays or closures are made per call.
  let limited = false;
  for (const [windowSecs, max] of rules) {
    if (times.length - firstAfter(times, now - windowSecs) >= max) limited = true;
  }
  let retryAfter = 0;
  let remaining = Infinity;
  let resetAt = now;
  let limit = Infinity;
  for (const [windowSecs, max] of rules) {
    // Times are sorted, so a binary search finds the window's first request.
    const start = firstAfter(times, now - windowSecs);
    const inWindow = times.length - start;
    // The request whose expiry frees a slot is the max-th most recent one.
    if (inWindow >= max) retryAfter = Math.max(retryAfter, times[times.length - max] + windowSecs - now);
    remaining = Math.min(remaining, Math.max(0, max - inWindow - (limited ? 0 : 1)));
    // An allowed request is counted too, so an empty window then runs from now.
    const oldest = inWindow ? times[start] : limited ? undefined : now;
    if (oldest !== undefined) resetAt = Math.max(resetAt, oldest + windowSecs);
    limit = Math.min(limit, max);
  }
  return { limited, retryAfter, limit, remaining, resetAt };
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

/**
 * Rate-limit counters shared by every process through Redis: per key, a sorted set of request
 * times. Deciding and recording are one script, so two processes cannot both take the last slot.
 */
import { randomBytes } from "node:crypto";
import { decide, largestMax, longestWindow, type RateLimitDecision, type Rule } from "../domain/rate_limits.js";
import { LuaScript, type RedisLink } from "../cluster/redis_link.js";
import type { RateLimitStore } from "./rate_limiter.js";

/**
 * ARGV: key, now, longest window, most times kept, record (1/0, 2 = whatever the rules say),
 * a unique member name, then pairs of window seconds and most requests. Returns the recent times
 * before this request, oldest first, as member/score pairs.
 */
const ATTEMPT = new LuaScript(`
local key, now = ARGV[1], tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - tonumber(ARGV[3]))
local limited = false
for i = 7, #ARGV, 2 do
  if redis.call('ZCOUNT', key, '(' .. (now - tonumber(ARGV[i])), '+inf') >= tonumber(ARGV[i + 1]) then limited = true end
end
local times = redis.call('ZRANGE', key, -tonumber(ARGV[4]), -1, 'WITHSCORES')
if ARGV[5] == '2' or (ARGV[5] == '1' and not limited) then
  redis.call('ZADD', key, ARGV[2], ARGV[6])
  redis.call('ZREMRANGEBYRANK', key, 0, -tonumber(ARGV[4]) - 1)
  redis.call('EXPIRE', key, math.ceil(tonumber(ARGV[3])) + 1)
end
return times
`);

export class RedisRateLimitStore implements RateLimitStore {
  constructor(private readonly link: RedisLink) {}

  private async run(key: string, rules: readonly Rule[], now: number, mode: 0 | 1 | 2): Promise<number[]> {
    const reply = (await ATTEMPT.run(this.link.commands, [
      this.link.key(`rl:${key}`),
      String(now),
      longestWindow(rules),
      largestMax(rules),
      mode,
      `${now}:${randomBytes(6).toString("hex")}`,
      ...rules.flat(),
    ])) as string[];
    const times: number[] = [];
    for (let i = 1; i < reply.length; i += 2) times.push(Number(reply[i]));
    return times;
  }

  async attempt(key: string, rules: readonly Rule[], now: number, record: boolean): Promise<RateLimitDecision> {
    return decide(await this.run(key, rules, now, record ? 1 : 0), rules, now);
  }

  async record(key: string, rules: readonly Rule[], now: number): Promise<void> {
    await this.run(key, rules, now, 2);
  }
}

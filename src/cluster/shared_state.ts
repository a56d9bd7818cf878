/**
 * What processes sharing one Redis keep there instead of in memory: event queues, rate-limit
 * counters, the key that signs temporary file URLs, and news of writes to cached tables. Loaded
 * only when CONFAB_REDIS_URL is set: a single process does without the Redis client (about 10 MB).
 */
import type { Logger } from "pino";
import type { Config } from "../config.js";
import type { Clock, Timers } from "../context.js";
import type { EventQueueService } from "../events/queue_service.js";
import type { RateLimitStore } from "../security/rate_limiter.js";
import type { TableVersions } from "../store/table_versions.js";
import { RedisEventQueues } from "../events/redis_queues.js";
import { RedisRateLimitStore } from "../security/redis_rate_limit_store.js";
import { RedisLink } from "./redis_link.js";
import { shareTableVersions } from "./shared_table_versions.js";

export interface SharedState {
  eventQueues: EventQueueService;
  rateLimits: RateLimitStore;
  uploadTokenKey: Buffer;
  close(): Promise<void>;
}

export async function openSharedState(
  config: Config & { redisUrl: string },
  versions: TableVersions,
  deps: { clock: Clock; timers: Timers; log: Logger },
): Promise<SharedState> {
  const link = await RedisLink.connect(config.redisUrl, config.redisKeyPrefix);
  await shareTableVersions(link, versions, deps.log);
  const eventQueues = new RedisEventQueues({ link, ...deps, timings: config.eventQueue, maxQueuesPerUser: config.maxQueuesPerUser });
  await eventQueues.listen();
  return {
    eventQueues,
    rateLimits: new RedisRateLimitStore(link),
    uploadTokenKey: await link.sharedSecret("upload_token_key"),
    close: () => link.close(),
  };
}

import path from "node:path";
import { MemoryRateLimitStore, RateLimiter } from "./security/rate_limiter.js";
import type { FastifyInstance } from "fastify";
import type { Config } from "./config.js";
import { systemClock, systemTimers, type AppContext, type Clock, type Timers } from "./context.js";
import { openDatabase } from "./store/db.js";
import { ReadCache } from "./store/read_cache.js";
import { ExpiringCache } from "./store/expiring_cache.js";
import { SUBSCRIBER_COUNT_TABLES } from "./store/streams.js";
import { USER_GROUP_TABLES } from "./store/user_groups.js";
import { createRenderDataCaches } from "./markdown/context.js";
import { EventBus } from "./events/bus.js";
import { EventQueues } from "./events/queues.js";
import { buildServer, createLogger } from "./app.js";
import { ScheduledMessageWorker } from "./workers/scheduled_messages.js";
import { OutboxWorker } from "./workers/outbox.js";
import { MessageEmailWorker } from "./workers/message_emails.js";
import { DigestWorker } from "./workers/digests.js";
import { createEmailSender } from "./outbound/email.js";
import { loadOrCreateKey } from "./files/storage.js";
import { MessageCache } from "./store/message_cache.js";
import { openFileStorage } from "./files/open_storage.js";
import { emailGatewayOptions, startEmailGateway, type EmailGateway } from "./email_gateway/server.js";

/** Users whose credentials and profile stay in memory: more than the active users of a large organization. */
const CACHED_USERS = 50_000;
/** Users whose subscribed channels are kept: a few KB each, so fewer than CACHED_USERS. */
const CACHED_SUBSCRIBERS = 10_000;
/** Organizations whose render data and channel figures stay in memory. */
const CACHED_ORGANIZATIONS = 100;
/** Channels whose subscriber lists are kept: the busiest of a large organization. */
const CACHED_CHANNELS = 2000;
/** Groups whose descriptions are kept: the role groups and anonymous groups that settings point at. */
const CACHED_GROUPS = 20_000;
/** How long channel traffic is kept: Zulip's comes from statistics filled in hourly. */
const CHANNEL_ACTIVITY_SECONDS = 3600;
/** Characters of messages kept for GET /messages (UTF-16, so about twice as many bytes). */
const CACHED_MESSAGE_CHARS = 16_000_000;
/** Host names whose organization stays in memory; any client may send any Host header. */
const CACHED_HOSTS = 1_000;

export interface Running {
  app: AppContext;
  server: FastifyInstance;
  /** Base URL the server listens on, e.g. http://127.0.0.1:9991 */
  url: string;
  /** Sends scheduled messages when they fall due. */
  scheduledMessages: ScheduledMessageWorker;
  /** Sends the emails and push notifications queued in the database. */
  outbox: OutboxWorker;
  /** The email gateway's SMTP listener, when a port is configured for it. */
  emailGateway?: EmailGateway;
  /** Sends message notification emails when each user's batch is due. */
  messageEmails: MessageEmailWorker;
  /** Sends weekly digests on each organization's digest day. */
  digests: DigestWorker;
  close(): Promise<void>;
}

export interface StartOptions {
  clock?: Clock;
  /** Timers for heartbeats, queue garbage collection and scheduled message delivery. */
  timers?: Timers;
  /** Runs once the database is ready, before the server accepts requests. */
  beforeListen?: (app: AppContext) => Promise<void>;
}

/** Opens the database (applying migrations) and everything actions need, without serving. */
export async function openAppContext(
  config: Config,
  opts: Pick<StartOptions, "clock" | "timers"> = {},
): Promise<{ app: AppContext; close(): Promise<void> }> {
  const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  const clock = opts.clock ?? systemClock;
  const timers = opts.timers ?? systemTimers;
  const log = createLogger(config.logLevel);
  const bus = new EventBus((err, notice) =>
    log.error({ err, event_type: notice.event.type, users: notice.userIds.length }, "an event of a committed change could not be queued"),
  );
  // With Redis, whatever one process keeps must be seen by the others: queues, limits, cache versions.
  const shared = config.redisUrl
    ? await (await import("./cluster/shared_state.js")).openSharedState({ ...config, redisUrl: config.redisUrl }, database.versions, { clock, timers, log })
    : undefined;
  const eventQueues = shared?.eventQueues ?? new EventQueues({ clock, timers, timings: config.eventQueue, maxQueuesPerUser: config.maxQueuesPerUser });
  eventQueues.start(bus);
  const storage = await openFileStorage(config);
  const app: AppContext = {
    db: database.db,
    dialect: database.dialect,
    config,
    bus,
    log,
    clock,
    eventQueues,
    mailer: createEmailSender(config, log),
    files: storage.files,
    uploadTokenKey: shared?.uploadTokenKey ?? loadOrCreateKey(path.join(config.dataDir, "upload_token.key")),
    rateLimiter: new RateLimiter(config.rateLimiting, config.rateLimitRules, shared?.rateLimits ?? new MemoryRateLimitStore(), clock),
    versions: database.versions,
    caches: {
      credentials: new ReadCache(database.versions, ["users", "realms"], CACHED_USERS),
      hostRealms: new ReadCache(database.versions, ["realms"], CACHED_HOSTS),
      profileData: new ReadCache(database.versions, ["custom_profile_fields", "custom_profile_values"], CACHED_USERS),
      renderData: createRenderDataCaches(database.versions, CACHED_ORGANIZATIONS),
      realmUsers: new ReadCache(database.versions, ["users"], CACHED_ORGANIZATIONS),
      // A few roles and two avatar styles per organization.
      serializedUsers: new ReadCache(database.versions, ["users", "custom_profile_fields", "custom_profile_values"], CACHED_ORGANIZATIONS * 4),
      realmStreams: new ReadCache(database.versions, ["streams"], CACHED_ORGANIZATIONS),
      userGroups: new ReadCache(database.versions, USER_GROUP_TABLES, CACHED_ORGANIZATIONS),
      subscriberCounts: new ReadCache(database.versions, SUBSCRIBER_COUNT_TABLES, CACHED_ORGANIZATIONS),
      channelSubscribers: new ReadCache(database.versions, SUBSCRIBER_COUNT_TABLES, CACHED_CHANNELS),
      groupDescriptions: new ReadCache(database.versions, USER_GROUP_TABLES, CACHED_GROUPS),
      groupsOfUser: new ReadCache(database.versions, USER_GROUP_TABLES, CACHED_USERS),
      subscribedChannels: new ReadCache(database.versions, ["subscriptions"], CACHED_SUBSCRIBERS),
      alertWordMatchers: new ReadCache(database.versions, ["alert_words"], CACHED_ORGANIZATIONS),
      mutingUsers: new ReadCache(database.versions, ["muted_users"], CACHED_USERS),
      channelActivity: new ExpiringCache(clock, CHANNEL_ACTIVITY_SECONDS, CACHED_ORGANIZATIONS),
      messages: new MessageCache(CACHED_MESSAGE_CHARS),
    },
  };
  return {
    app,
    async close() {
      await eventQueues.close();
      await shared?.close();
      storage.close();
      await database.close();
    },
  };
}

/** Opens the database (applying migrations), builds the server and starts listening. */
export async function startConfab(config: Config, opts: StartOptions = {}): Promise<Running> {
  const { app, close: closeContext } = await openAppContext(config, opts);
  await opts.beforeListen?.(app);
  const server = await buildServer(app);
  await server.listen({ port: config.port, host: config.host });
  const address = server.server.address();
  const port = typeof address === "object" && address ? address.port : config.port;
  const gatewayOptions = emailGatewayOptions(config);
  const emailGateway = gatewayOptions ? await startEmailGateway(app, gatewayOptions) : undefined;
  const scheduledMessages = new ScheduledMessageWorker(app, opts.timers ?? systemTimers);
  scheduledMessages.start();
  const outbox = new OutboxWorker(app, opts.timers ?? systemTimers);
  outbox.start();
  const messageEmails = new MessageEmailWorker(app, opts.timers ?? systemTimers);
  messageEmails.start();
  const digests = new DigestWorker(app, opts.timers ?? systemTimers);
  digests.start();
  return {
    app,
    server,
    url: `http://${config.host}:${port}`,
    scheduledMessages,
    outbox,
    emailGateway,
    messageEmails,
    digests,
    async close() {
      await emailGateway?.close();
      // Waiting long-polls are answered first so the HTTP server can close.
      await app.eventQueues.close();
      await server.close();
      await scheduledMessages.close();
      await messageEmails.close();
      await digests.close();
      await outbox.close();
      await closeContext();
    },
  };
}

import path from "node:path";
import { DEFAULT_RATE_LIMIT_RULES, parseRuleOverrides, type RateLimitRules } from "./domain/rate_limits.js";

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  /** postgres://... to use PostgreSQL; unset for the embedded SQLite database. */
  databaseUrl?: string;
  /** redis://... to share event queues and cache invalidations among several processes; unset: one process. */
  redisUrl?: string;
  /** Prepended to every Redis key and channel, so that several deployments (or tests) can share one Redis. */
  redisKeyPrefix: string;
  /** Development mode: dev-only endpoints, the development organization. */
  development: boolean;
  /** The URL users reach the server at (realm_url). */
  externalUrl: string;
  /** Domain of the placeholder addresses shown when real emails are hidden. */
  fakeEmailDomain: string;
  /** Zulip's WEB_PUBLIC_STREAMS_ENABLED server setting. */
  webPublicStreamsEnabled: boolean;
  logLevel: string;
  /** Camo proxy for images and videos from other sites (Zulip's CAMO_URI and CAMO_KEY). */
  camoUrl?: string;
  camoKey?: string;
  /** Zulip's CAN_ACCESS_ALL_USERS_GROUP_LIMITS_PRESENCE: presence only of users the viewer can access. */
  presenceLimitedToAccessibleUsers: boolean;
  eventQueue: EventQueueTimings;
  /** The mobile push notification service (Zulip's bouncer protocol); used only when all three are set. */
  pushBouncerUrl?: string;
  pushBouncerUuid?: string;
  pushBouncerKey?: string;
  /** Bounds every request to the push bouncer, connecting and reading included. */
  pushBouncerTimeoutMs: number;
  /** Bounds one attempt at an outbox job (an email, a push bouncer call); a job taking longer is tried again later. */
  outboxJobTimeoutMs: number;
  /** smtp://user:pass@host:port to send email; unset writes each email to <dataDir>/outbox instead. */
  smtpUrl?: string;
  /** Sender address of automated email (invitations). */
  emailFrom: string;
  /** Most invitation emails one organization may send in 24 hours (Zulip's max_invites). */
  invitesDailyLimit: number;
  /** A BigBlueButton server (its base URL ending in /bigbluebutton/) and its shared secret. */
  bigBlueButtonUrl?: string;
  bigBlueButtonSecret?: string;
  /** Bounds every request to the BigBlueButton server. */
  bigBlueButtonTimeoutMs: number;
  /** Deleting a topic: messages per transaction, and how long one request keeps deleting batches. */
  deleteTopic: { batchSize: number; timeLimitSecs: number };
  /** Zulip's MAX_FILE_UPLOAD_SIZE: the largest file POST /user_uploads accepts, in MiB. */
  maxFileUploadSizeMib: number;
  /** Zulip's MAX_EMOJI_FILE_SIZE_MIB. */
  maxEmojiFileSizeMib: number;
  /** Zulip's EMAIL_GATEWAY_PATTERN (`%s@host`) for channel email addresses; unset = no gateway. */
  emailGatewayPattern?: string;
  /** The email gateway's SMTP listener (Zulip's email_server); off unless a port is set. */
  emailGatewayPort?: number;
  emailGatewayHost: string;
  /** PEM files offered through STARTTLS by the gateway; without them it offers no TLS. */
  emailGatewayTlsKeyFile?: string;
  emailGatewayTlsCertFile?: string;
  /** The largest mail the gateway takes, attachments included. */
  emailGatewayMaxMessageBytes: number;
  /** Zulip's RATE_LIMITING: on, except in development unless asked for. */
  rateLimiting: boolean;
  /** Zulip's DEFAULT_RATE_LIMITING_RULES, with the server's overrides merged in. */
  rateLimitRules: RateLimitRules;
  /** Event queues one user may hold; registering another removes the one idle longest. */
  maxQueuesPerUser: number;
  /**
   * Reverse proxies whose X-Forwarded-For names the client (addresses or CIDR ranges); rate limits
   * by IP address would otherwise count every client behind the proxy as one.
   */
  trustedProxies: string[];
  /** Uploads and custom emoji in an S3 bucket; unset keeps them under `<dataDir>/uploads`. */
  s3?: S3Config;
  /**
   * Networks (CIDR ranges or addresses) that URLs users choose may reach although they are not
   * public: loopback, private, link-local. Empty by default; see src/outbound/address_policy.ts.
   */
  outboundAllowedNetworks: string[];
  /** Zulip's OUTGOING_WEBHOOK_TIMEOUT_SECONDS: how long a bot's server has to answer. */
  outgoingWebhookTimeoutMs: number;
  /** The image proxy (/external_content/): how long a site has to send an image, and its largest size. */
  externalContentTimeoutMs: number;
  externalContentMaxBytes: number;
  /** How long a page has to answer a link preview's fetch (Zulip's preview session allows 15 seconds). */
  linkPreviewTimeoutMs: number;
  /** Zulip's INLINE_URL_EMBED_PREVIEW: link previews may be turned on by organizations. */
  inlineUrlEmbedPreview: boolean;
}

export interface S3Config {
  bucket: string;
  /** An S3-compatible server (MinIO, …); unset is AWS. */
  endpoint?: string;
  region: string;
  /** Unset uses the SDK's default chain (AWS_* variables, shared config, instance roles). */
  credentials?: { accessKeyId: string; secretAccessKey: string };
  /** `<endpoint>/<bucket>/<key>` instead of `<bucket>.<endpoint>/<key>`, as most self-hosted servers want. */
  forcePathStyle: boolean;
  /** Put before every key, so that one bucket can hold several servers' files. */
  keyPrefix?: string;
}

/** Zulip's RETENTION_STREAM_MESSAGE_BATCH_SIZE and delete_in_topic's time budget. */
export const ZULIP_DELETE_TOPIC = { batchSize: 100, timeLimitSecs: 50 };

/** Event queue timings; Zulip's values by default, shorter ones for tests. */
export interface EventQueueTimings {
  /** A waiting GET /events gets a heartbeat after this many seconds plus a random jitter. */
  heartbeatMinSecs: number;
  heartbeatJitterSecs: number;
  /** A queue nobody polls for this long is removed (unless registered with queue_lifespan_secs). */
  idleTimeoutSecs: number;
  /** The longest queue_lifespan_secs a client may ask for. */
  maxLifespanSecs: number;
  gcIntervalSecs: number;
  /** Reported to clients as event_queue_longpoll_timeout_seconds: their HTTP timeout for GET /events. */
  longpollTimeoutSecs: number;
}

export const ZULIP_EVENT_QUEUE_TIMINGS: EventQueueTimings = {
  heartbeatMinSecs: 45,
  heartbeatJitterSecs: 10,
  idleTimeoutSecs: 600,
  maxLifespanSecs: 7 * 24 * 3600,
  gcIntervalSecs: 60,
  longpollTimeoutSecs: 90,
};

function timingsFromEnv(env: NodeJS.ProcessEnv): EventQueueTimings {
  const read = (name: string, fallback: number) => {
    const raw = env[name];
    const value = raw === undefined || raw === "" ? NaN : Number(raw);
    return Number.isFinite(value) && value >= 0 ? value : fallback;
  };
  const z = ZULIP_EVENT_QUEUE_TIMINGS;
  return {
    heartbeatMinSecs: read("CONFAB_EVENT_HEARTBEAT_SECS", z.heartbeatMinSecs),
    heartbeatJitterSecs: read("CONFAB_EVENT_HEARTBEAT_JITTER_SECS", z.heartbeatJitterSecs),
    idleTimeoutSecs: read("CONFAB_EVENT_QUEUE_IDLE_SECS", z.idleTimeoutSecs),
    maxLifespanSecs: read("CONFAB_EVENT_QUEUE_MAX_LIFESPAN_SECS", z.maxLifespanSecs),
    gcIntervalSecs: read("CONFAB_EVENT_QUEUE_GC_SECS", z.gcIntervalSecs),
    longpollTimeoutSecs: read("CONFAB_EVENT_LONGPOLL_TIMEOUT_SECS", z.longpollTimeoutSecs),
  };
}

function positiveNumber(raw: string | undefined, fallback: number): number {
  const value = raw === undefined || raw === "" ? NaN : Number(raw);
  return Number.isFinite(value) && value > 0 ? value : fallback;
}

/** Zulip sets no such limit; a person's devices and tabs rarely need more than a few. */
export const DEFAULT_MAX_QUEUES_PER_USER = 100;

/** Zulip's INVITES_DEFAULT_REALM_DAILY_MAX. */
export const INVITES_DEFAULT_DAILY_LIMIT = 100;

function nonNegativeInt(raw: string | undefined, fallback: number): number {
  const value = raw === undefined || raw.trim() === "" ? NaN : Number(raw);
  return Number.isInteger(value) && value >= 0 ? value : fallback;
}

function emailDomain(url: string): string {
  try {
    return new URL(url).hostname || "localhost";
  } catch {
    return "localhost";
  }
}

function s3FromEnv(env: NodeJS.ProcessEnv): S3Config | undefined {
  const bucket = env.CONFAB_S3_BUCKET;
  if (!bucket) return undefined;
  const endpoint = env.CONFAB_S3_ENDPOINT || undefined;
  const accessKeyId = env.CONFAB_S3_ACCESS_KEY_ID || undefined;
  const secretAccessKey = env.CONFAB_S3_SECRET_ACCESS_KEY || undefined;
  if (!accessKeyId !== !secretAccessKey) {
    throw new Error("CONFAB_S3_ACCESS_KEY_ID and CONFAB_S3_SECRET_ACCESS_KEY are set together or not at all");
  }
  return {
    bucket,
    endpoint,
    region: env.CONFAB_S3_REGION || "us-east-1",
    credentials: accessKeyId && secretAccessKey ? { accessKeyId, secretAccessKey } : undefined,
    forcePathStyle: (env.CONFAB_S3_FORCE_PATH_STYLE ?? (endpoint ? "1" : "0")) === "1",
    keyPrefix: env.CONFAB_S3_KEY_PREFIX || undefined,
  };
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Config> = {}): Config {
  const development = overrides.development ?? env.CONFAB_DEV === "1";
  const port = overrides.port ?? Number(env.PORT ?? 9991);
  return {
    port,
    host: env.HOST ?? "127.0.0.1",
    dataDir: path.resolve(env.CONFAB_DATA_DIR ?? "var"),
    databaseUrl: env.DATABASE_URL || undefined,
    redisUrl: env.CONFAB_REDIS_URL || undefined,
    redisKeyPrefix: env.CONFAB_REDIS_KEY_PREFIX || "confab",
    development,
    externalUrl: env.CONFAB_EXTERNAL_URL ?? `http://localhost:${port}`,
    fakeEmailDomain: env.CONFAB_FAKE_EMAIL_DOMAIN ?? (development ? "zulipdev.com" : "confab.invalid"),
    webPublicStreamsEnabled: (env.CONFAB_WEB_PUBLIC_STREAMS_ENABLED ?? "1") === "1",
    logLevel: env.LOG_LEVEL ?? "info",
    camoUrl: env.CONFAB_CAMO_URL || undefined,
    camoKey: env.CONFAB_CAMO_KEY || undefined,
    presenceLimitedToAccessibleUsers: env.CONFAB_PRESENCE_LIMITED_TO_ACCESSIBLE_USERS === "1",
    eventQueue: timingsFromEnv(env),
    pushBouncerUrl: env.CONFAB_PUSH_BOUNCER_URL || undefined,
    pushBouncerUuid: env.CONFAB_PUSH_BOUNCER_UUID || undefined,
    pushBouncerKey: env.CONFAB_PUSH_BOUNCER_KEY || undefined,
    // Zulip gives the bouncer 15 seconds.
    pushBouncerTimeoutMs: 1000 * positiveNumber(env.CONFAB_PUSH_BOUNCER_TIMEOUT_SECS, 15),
    outboxJobTimeoutMs: 1000 * positiveNumber(env.CONFAB_OUTBOX_JOB_TIMEOUT_SECS, 60),
    smtpUrl: env.CONFAB_SMTP_URL || undefined,
    emailFrom: env.CONFAB_EMAIL_FROM || `noreply@${emailDomain(env.CONFAB_EXTERNAL_URL ?? "http://localhost")}`,
    invitesDailyLimit: nonNegativeInt(env.CONFAB_INVITES_DAILY_LIMIT, INVITES_DEFAULT_DAILY_LIMIT),
    bigBlueButtonUrl: env.CONFAB_BIGBLUEBUTTON_URL || undefined,
    bigBlueButtonSecret: env.CONFAB_BIGBLUEBUTTON_SECRET || undefined,
    bigBlueButtonTimeoutMs: 1000 * positiveNumber(env.CONFAB_BIGBLUEBUTTON_TIMEOUT_SECS, 15),
    deleteTopic: ZULIP_DELETE_TOPIC,
    maxFileUploadSizeMib: positiveNumber(env.CONFAB_MAX_FILE_UPLOAD_SIZE_MIB, 100),
    maxEmojiFileSizeMib: positiveNumber(env.CONFAB_MAX_EMOJI_FILE_SIZE_MIB, 5),
    emailGatewayPattern: env.CONFAB_EMAIL_GATEWAY_PATTERN?.includes("%s") ? env.CONFAB_EMAIL_GATEWAY_PATTERN : undefined,
    emailGatewayPort: env.CONFAB_EMAIL_GATEWAY_PORT ? nonNegativeInt(env.CONFAB_EMAIL_GATEWAY_PORT, 25) : undefined,
    emailGatewayHost: env.CONFAB_EMAIL_GATEWAY_HOST ?? "127.0.0.1",
    emailGatewayTlsKeyFile: env.CONFAB_EMAIL_GATEWAY_TLS_KEY_FILE || undefined,
    emailGatewayTlsCertFile: env.CONFAB_EMAIL_GATEWAY_TLS_CERT_FILE || undefined,
    // aiosmtpd's limit, which Zulip's email server keeps.
    emailGatewayMaxMessageBytes: 1024 * 1024 * positiveNumber(env.CONFAB_EMAIL_GATEWAY_MAX_SIZE_MIB, 32),
    rateLimiting: (env.CONFAB_RATE_LIMITING ?? (development ? "0" : "1")) === "1",
    rateLimitRules: { ...DEFAULT_RATE_LIMIT_RULES, ...(env.CONFAB_RATE_LIMIT_RULES ? parseRuleOverrides(env.CONFAB_RATE_LIMIT_RULES) : {}) },
    maxQueuesPerUser: positiveNumber(env.CONFAB_MAX_QUEUES_PER_USER, DEFAULT_MAX_QUEUES_PER_USER),
    trustedProxies: (env.CONFAB_TRUSTED_PROXIES ?? "").split(",").map((s) => s.trim()).filter(Boolean),
    s3: s3FromEnv(env),
    outboundAllowedNetworks: (env.CONFAB_OUTBOUND_ALLOWED_NETWORKS ?? "").split(",").map((s) => s.trim()).filter(Boolean),
    outgoingWebhookTimeoutMs: 1000 * positiveNumber(env.CONFAB_OUTGOING_WEBHOOK_TIMEOUT_SECS, 10),
    externalContentTimeoutMs: 1000 * positiveNumber(env.CONFAB_EXTERNAL_CONTENT_TIMEOUT_SECS, 10),
    externalContentMaxBytes: 1024 * 1024 * positiveNumber(env.CONFAB_EXTERNAL_CONTENT_MAX_SIZE_MIB, 25),
    linkPreviewTimeoutMs: 1000 * positiveNumber(env.CONFAB_LINK_PREVIEW_TIMEOUT_SECS, 15),
    inlineUrlEmbedPreview: (env.CONFAB_INLINE_URL_EMBED_PREVIEW ?? "1") === "1",
    ...overrides,
  };
}

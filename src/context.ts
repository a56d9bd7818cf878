import type { Logger } from "pino";
import type { Config } from "./config.js";
import type { DB, Db } from "./store/schema.js";
import type { Dialect } from "./store/db.js";
import type { EventBus } from "./events/bus.js";
import type { EventQueueService } from "./events/queue_service.js";
import type { EmailSender } from "./outbound/email.js";
import type { FileStorage } from "./files/storage.js";
import type { RateLimiter } from "./security/rate_limiter.js";
import type { TableVersions } from "./store/table_versions.js";
import type { ReadCache } from "./store/read_cache.js";
import type { ExpiringCache } from "./store/expiring_cache.js";
import type { MessageCache } from "./store/message_cache.js";
import type { ChannelActivity } from "./store/streams.js";
import type { UserRow } from "./store/users.js";
import type { StreamRow } from "./store/streams.js";
import type { Realm } from "./store/realms.js";
import type { ProfileData } from "./store/custom_profile_fields.js";
import type { RenderDataCaches } from "./markdown/context.js";
import type { AlertWordMatcher } from "./domain/alert_words.js";
import type { SerializedUsers } from "./events/sections/realm_user.js";
import type { GroupDescription } from "./format/group_setting.js";

/** A source of the current time in UNIX seconds; injectable so tests control time. */
export interface Clock {
  now(): number;
}
export const systemClock: Clock = { now: () => Date.now() / 1000 };

export type TimerHandle = unknown;
/** Deferred callbacks; injectable so tests fire heartbeats and garbage collection by moving time. */
export interface Timers {
  setTimeout(callback: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}
export const systemTimers: Timers = {
  setTimeout: (callback, ms) => {
    const handle = setTimeout(callback, ms);
    // A pending heartbeat or collection must not keep the process alive.
    handle.unref();
    return handle;
  },
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/** Everything an action needs from the running server. */
export interface AppContext {
  db: Db;
  dialect: Dialect;
  config: Config;
  bus: EventBus;
  log: Logger;
  clock: Clock;
  /** The event queues (POST /register, GET /events): this process's own, or shared through Redis. */
  eventQueues: EventQueueService;
  /** Outgoing email; the outbox worker sends the emails actions queue through this, never through a mail library. */
  mailer: EmailSender;
  /** Uploaded files and custom emoji images. */
  files: FileStorage;
  /** Signs temporary URLs of uploaded files. */
  uploadTokenKey: Buffer;
  rateLimiter: RateLimiter;
  /** Versions of the tables cached in memory; actions move them on as they commit. */
  versions: TableVersions;
  caches: Caches;
}

/** Rows read on nearly every request, kept in memory until their tables are written. */
export interface Caches {
  /** An API key's user and organization, as authentication reads them. */
  credentials: ReadCache<Credentials>;
  /** The organization a host name addresses, for requests without credentials. */
  hostRealms: ReadCache<{ realm: Realm | undefined }>;
  /** One user's custom profile field values, by "realm id:user id". */
  profileData: ReadCache<ProfileData>;
  /** An organization's users, groups, channels, emoji and linkifiers as rendering needs them, by realm id. */
  renderData: RenderDataCaches;
  /** An organization's named groups as the API shows them, by "realm id:with deactivated". */
  userGroups: ReadCache<readonly Record<string, unknown>[]>;
  /** Every channel of an organization, by realm id. */
  realmStreams: ReadCache<readonly StreamRow[]>;
  /** Every account of an organization, by realm id. */
  realmUsers: ReadCache<readonly UserRow[]>;
  /** An organization's user list as POST /register gives it, by "realm id:viewer role:client gravatar". */
  serializedUsers: ReadCache<SerializedUsers>;
  /** How many active users each of an organization's channels has, by realm id. */
  subscriberCounts: ReadCache<Map<number, number>>;
  /** A channel's active subscribers (user ids, ascending), by channel id: whom a message goes to. */
  channelSubscribers: ReadCache<readonly number[]>;
  /** A group's name, active direct members and direct subgroups, by group id: what settings show. */
  groupDescriptions: ReadCache<GroupDescription>;
  /** The groups a user is in, directly or through subgroups, by "realm id:user id". */
  groupsOfUser: ReadCache<ReadonlySet<number>>;
  /** Who among an organization's users has an alert word in a message, by realm id. */
  alertWordMatchers: ReadCache<AlertWordMatcher>;
  /** The users who muted a user, by user id: their copies of its new messages start out read. */
  mutingUsers: ReadCache<readonly number[]>;
  /** The channels a user is actively subscribed to, by user id. */
  subscribedChannels: ReadCache<ReadonlySet<number>>;
  /** An organization's channel traffic (stale by up to an hour, as Zulip's), by realm id. */
  channelActivity: ExpiringCache<Map<number, ChannelActivity>>;
  /** Messages and their reactions as GET /messages shows them, while their version stays. */
  messages: MessageCache;
}

export interface Credentials {
  user: UserRow;
  realm: Realm;
}
export type { DB };

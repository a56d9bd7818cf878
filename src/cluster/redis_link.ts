/**
 * The connections a process keeps to Redis when several processes share the work: one for
 * commands and scripts, one subscribed to the channels other processes publish on. However many
 * clients wait on this process, these two are all it opens.
 */
import { createHash, randomBytes, randomUUID } from "node:crypto";
import { Redis } from "ioredis";

export type ChannelHandler = (message: string) => void;

/** A Lua script run by its hash, sent in full only the first time a Redis server sees it. */
export class LuaScript {
  readonly sha: string;
  constructor(readonly source: string) {
    this.sha = createHash("sha1").update(source).digest("hex");
  }

  async run(redis: Redis, args: (string | number)[]): Promise<unknown> {
    try {
      return await redis.evalsha(this.sha, 0, ...args);
    } catch (err) {
      if (!(err instanceof Error) || !err.message.startsWith("NOSCRIPT")) throw err;
      return redis.eval(this.source, 0, ...args);
    }
  }
}

export class RedisLink {
  /** Tells this process's own publications from others'. */
  readonly processId = randomUUID();
  private readonly handlers = new Map<string, ChannelHandler>();
  /** Publications under way, which closing waits for. */
  private readonly publishing = new Set<Promise<unknown>>();

  private constructor(
    readonly commands: Redis,
    private readonly subscriber: Redis,
    /** Prepended to every key and channel, so that several deployments (or tests) share one server. */
    readonly prefix: string,
  ) {
    subscriber.on("message", (channel: string, message: string) => this.handlers.get(channel)?.(message));
  }

  static async connect(url: string, prefix: string): Promise<RedisLink> {
    // Commands issued in the same tick go out as one pipeline.
    const commands = new Redis(url, { enableAutoPipelining: true, lazyConnect: true });
    const subscriber = new Redis(url, { lazyConnect: true });
    await Promise.all([commands.connect(), subscriber.connect()]);
    return new RedisLink(commands, subscriber, prefix);
  }

  key(name: string): string {
    return `${this.prefix}:${name}`;
  }

  async listen(channel: string, handler: ChannelHandler): Promise<void> {
    const name = this.key(channel);
    this.handlers.set(name, handler);
    await this.subscriber.subscribe(name);
  }

  async publish(channel: string, message: string): Promise<void> {
    await this.commands.publish(this.key(channel), message);
  }

  /** A random key every process gets the same of: the first to ask makes it. */
  async sharedSecret(name: string): Promise<Buffer> {
    const key = this.key(`secret:${name}`);
    await this.commands.set(key, randomBytes(32).toString("hex"), "NX");
    return Buffer.from((await this.commands.get(key))!, "hex");
  }

  async close(): Promise<void> {
    await Promise.allSettled([this.subscriber.quit(), this.commands.quit()]);
  }
}

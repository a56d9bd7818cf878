/**
 * A push bouncer for tests: a real HTTP server on a loopback port that records what Confab sends
 * to `/api/v1/remotes/...` and answers like Zulip's bouncer, or as a test tells it to.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface BouncerRequest {
  path: string;
  headers: http.IncomingHttpHeaders;
  /** The raw body text. */
  raw: string;
  /** Form or JSON body, decoded. */
  body: Record<string, any>;
}

/** `hang` never answers; the other forms answer with a status and a JSON or raw body. */
export type BouncerReply = "hang" | { status: number; json?: unknown; raw?: string };

export class FakeBouncer {
  readonly requests: BouncerRequest[] = [];
  private readonly overrides = new Map<string, BouncerReply>();
  private nextDeviceId = 1000;
  private readonly hanging = new Set<http.ServerResponse>();

  private constructor(
    private readonly server: http.Server,
    readonly url: string,
  ) {}

  static async start(): Promise<FakeBouncer> {
    let fake!: FakeBouncer;
    const server = http.createServer((req, res) => void fake.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    fake = new FakeBouncer(server, `http://127.0.0.1:${port}`);
    return fake;
  }

  /** How the bouncer answers requests to `endpoint` (e.g. "push/e2ee/notify") until `reset`. */
  answer(endpoint: string, reply: BouncerReply): void {
    this.overrides.set(`/api/v1/remotes/${endpoint}`, reply);
  }

  reset(): void {
    this.requests.length = 0;
    this.overrides.clear();
    for (const res of this.hanging) res.destroy();
    this.hanging.clear();
  }

  to(endpoint: string): BouncerRequest[] {
    return this.requests.filter((r) => r.path === `/api/v1/remotes/${endpoint}`);
  }

  async close(): Promise<void> {
    this.reset();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    let raw = "";
    for await (const chunk of req) raw += chunk;
    const isJson = (req.headers["content-type"] ?? "").startsWith("application/json");
    const body = isJson ? JSON.parse(raw) : Object.fromEntries(new URLSearchParams(raw));
    const path = req.url ?? "";
    this.requests.push({ path, headers: req.headers, raw, body });
    const reply = this.overrides.get(path) ?? this.defaultReply(path, body);
    if (reply === "hang") {
      this.hanging.add(res);
      return;
    }
    res.writeHead(reply.status, { "content-type": "application/json" });
    res.end(reply.raw ?? JSON.stringify(reply.json));
  }

  /** What Zulip's bouncer answers a valid request with. */
  private defaultReply(path: string, body: Record<string, any>): BouncerReply {
    const ok = { result: "success", msg: "" };
    if (path === "/api/v1/remotes/push/e2ee/register") return { status: 200, json: { ...ok, device_id: this.nextDeviceId++ } };
    if (path === "/api/v1/remotes/push/e2ee/notify") {
      const sent = Object.keys(body.device_id_to_encrypted_data ?? {}).length;
      return {
        status: 200,
        json: { ...ok, android_successfully_sent_count: sent, apple_successfully_sent_count: 0, delete_device_ids: [] },
      };
    }
    return { status: 200, json: ok };
  }
}

/** A loopback URL nothing listens on: connections to it are refused. */
export async function refusedUrl(): Promise<string> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

/**
 * Several Confab processes on one PostgreSQL and one Redis, as separate operating-system processes
 * (so one can be killed), behind a small round-robin proxy with no stickiness.
 */
import http from "node:http";
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import type { AddressInfo } from "node:net";

const MAIN = fileURLToPath(new URL("../../src/main.ts", import.meta.url));

export interface ConfabProcess {
  port: number;
  child: ChildProcess;
  /** Resolves when the process has exited. */
  exited: Promise<void>;
}

/** Starts `src/main.ts` on `port` with `env`; resolves once it serves. */
export async function startConfabProcess(port: number, env: Record<string, string>): Promise<ConfabProcess> {
  const child = spawn(process.execPath, ["--import", "tsx", MAIN], {
    env: { ...process.env, LOG_LEVEL: "warn", CONFAB_RATE_LIMITING: "0", HOST: "127.0.0.1", ...env, PORT: String(port) },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const exited = once(child, "exit").then(() => undefined);
  const lines = createInterface({ input: child.stdout! });
  await new Promise<void>((resolve, reject) => {
    lines.on("line", (line) => {
      if (line.startsWith("Confab is serving")) resolve();
    });
    void exited.then(() => reject(new Error(`Confab on port ${port} exited before serving`)));
  });
  return { port, child, exited };
}

/** A free loopback port. */
export async function freePort(): Promise<number> {
  const server = http.createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  server.close();
  return port;
}

export interface Proxy {
  url: string;
  close(): Promise<void>;
}

/**
 * Round-robin over `ports`, as a load balancer without sessions would. A backend that refuses the
 * connection is skipped (the request is tried on the next); one that fails mid-request gives 502.
 */
export async function startRoundRobinProxy(ports: readonly number[]): Promise<Proxy> {
  let next = 0;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1000 });
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const attempt = (tries: number) => {
      const port = ports[next++ % ports.length];
      const upstream = http.request({ host: "127.0.0.1", port, method: req.method, path: req.url, headers: req.headers, agent }, (reply) => {
        res.writeHead(reply.statusCode ?? 502, reply.headers);
        reply.pipe(res);
        reply.on("error", () => res.destroy());
      });
      upstream.on("error", (err: NodeJS.ErrnoException) => {
        if (err.code === "ECONNREFUSED" && tries < ports.length) return attempt(tries + 1);
        if (res.headersSent) return res.destroy();
        res.writeHead(502, { "content-type": "application/json" }).end(JSON.stringify({ result: "error", msg: "Bad gateway" }));
      });
      res.on("close", () => {
        if (!res.writableFinished) upstream.destroy();
      });
      upstream.end(body);
    };
    attempt(1);
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      server.closeAllConnections();
      agent.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

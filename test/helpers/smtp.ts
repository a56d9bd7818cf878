/**
 * An SMTP server for tests: a real one (smtp-server) on a loopback port that keeps every message
 * it accepts, and can be told to hold its answer to a message, or be stopped and started again
 * on the same port to play a mail server that is down.
 */
import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";

export class TestSmtpServer {
  /** Raw RFC 822 messages, in the order they were accepted. */
  readonly received: string[] = [];
  private server: SMTPServer | undefined;
  private held: Promise<void> | undefined;
  private release: (() => void) | undefined;
  port = 0;

  static async start(): Promise<TestSmtpServer> {
    const smtp = new TestSmtpServer();
    await smtp.listen();
    return smtp;
  }

  get url(): string {
    return `smtp://127.0.0.1:${this.port}`;
  }

  /** Listens again, on the port it had (a random one the first time). */
  async listen(): Promise<void> {
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ["AUTH", "STARTTLS"],
      logger: false,
      onData: (stream, _session, callback) => {
        const chunks: Buffer[] = [];
        stream.on("data", (c: Buffer) => chunks.push(c));
        stream.on("end", () => {
          void (this.held ?? Promise.resolve()).then(() => {
            this.received.push(Buffer.concat(chunks).toString("utf8"));
            callback();
          });
        });
      },
    });
    await new Promise<void>((resolve) => server.listen(this.port, "127.0.0.1", resolve));
    this.port = (server.server.address() as AddressInfo).port;
    this.server = server;
  }

  /** Stops accepting connections: senders are refused until `listen`. */
  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise<void>((resolve) => server.close(resolve));
  }

  /** Messages are read but not answered until `answer`. */
  hold(): void {
    this.held = new Promise((resolve) => (this.release = resolve));
  }

  answer(): void {
    this.release?.();
    this.held = undefined;
  }
}

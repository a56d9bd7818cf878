/**
 * The email gateway's SMTP listener (Zulip's email_server): the host an MX record points at.
 * Recipients are checked at RCPT, so mail for an address the gateway does not know is refused
 * before its content is sent and the sender's server bounces it; a mail is posted during DATA,
 * and its answer says whether it was.
 */
import fs from "node:fs";
import type { AddressInfo } from "node:net";
import { SMTPServer, type SMTPServerDataStream, type SMTPServerSession } from "smtp-server";
import { simpleParser } from "mailparser";
import type { AppContext } from "../context.js";
import { checkAttachmentSizes, checkRecipient, deliverMail, GatewayRefusal } from "./deliver.js";

/** Connections served at once: each may hold a mail of the largest size in memory. */
const MAX_CLIENTS = 20;
/** Recipients of one mail; each is posted separately. */
const MAX_RECIPIENTS = 20;

export interface EmailGatewayOptions {
  port: number;
  host: string;
  maxMessageBytes: number;
  /** PEM key and certificate offered through STARTTLS. */
  tls?: { key: Buffer; cert: Buffer };
}

export interface EmailGateway {
  port: number;
  close(): Promise<void>;
}

/** The options from the configuration, reading the TLS files once at start. */
export function emailGatewayOptions(config: AppContext["config"]): EmailGatewayOptions | undefined {
  if (config.emailGatewayPort === undefined) return undefined;
  const { emailGatewayTlsKeyFile: keyFile, emailGatewayTlsCertFile: certFile } = config;
  return {
    port: config.emailGatewayPort,
    host: config.emailGatewayHost,
    maxMessageBytes: config.emailGatewayMaxMessageBytes,
    tls: keyFile && certFile ? { key: fs.readFileSync(keyFile), cert: fs.readFileSync(certFile) } : undefined,
  };
}

/** An SMTP error reply: smtp-server sends `responseCode message`. */
function smtpError(responseCode: number, message: string): Error {
  return Object.assign(new Error(message), { responseCode });
}

function asSmtpError(app: AppContext, err: unknown): Error {
  if (err instanceof GatewayRefusal) return smtpError(err.responseCode, err.message);
  app.log.error({ err }, "email gateway: a mail could not be processed");
  // A failure of ours: the sender's server keeps the mail and tries again.
  return smtpError(451, "4.3.0 Server error, try again later");
}

export async function startEmailGateway(app: AppContext, options: EmailGatewayOptions): Promise<EmailGateway> {
  const server = new SMTPServer({
    banner: "Confab email gateway",
    size: options.maxMessageBytes,
    authOptional: true,
    disabledCommands: options.tls ? ["AUTH"] : ["AUTH", "STARTTLS"],
    ...(options.tls ?? {}),
    maxClients: MAX_CLIENTS,
    closeTimeout: 5000,
    logger: false,
    onRcptTo(address, session, callback) {
      if (session.envelope.rcptTo.length >= MAX_RECIPIENTS) return callback(smtpError(452, "4.5.3 Too many recipients"));
      checkRecipient(app, address.address).then(
        () => callback(),
        (err: unknown) => callback(asSmtpError(app, err)),
      );
    },
    onData(stream, session, callback) {
      readMail(stream, options.maxMessageBytes).then(
        (raw) => {
          if (raw === undefined) return callback(smtpError(552, `5.3.4 Message is larger than the limit of ${options.maxMessageBytes} bytes`));
          deliver(app, raw, session).then(
            (reply) => callback(null, reply),
            (err: unknown) => callback(asSmtpError(app, err)),
          );
        },
        (err: unknown) => callback(asSmtpError(app, err)),
      );
    },
  });
  server.on("error", (err) => app.log.warn({ err }, "email gateway: connection error"));
  await new Promise<void>((resolve, reject) => {
    server.server.once("error", reject);
    server.listen(options.port, options.host, () => {
      server.server.off("error", reject);
      resolve();
    });
  });
  return {
    port: (server.server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The mail's bytes, or undefined once it is past the limit (the rest is read and dropped). */
function readMail(stream: SMTPServerDataStream, maxBytes: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    stream.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxBytes) chunks.push(chunk);
    });
    stream.on("error", reject);
    stream.on("end", () => resolve(stream.sizeExceeded || size > maxBytes ? undefined : Buffer.concat(chunks)));
  });
}

/**
 * Posts the mail for each accepted recipient. The mail is accepted when any of them took it;
 * when none did, the first refusal is the answer.
 */
async function deliver(app: AppContext, raw: Buffer, session: SMTPServerSession): Promise<string> {
  const mail = await simpleParser(raw, { skipHtmlToText: true, skipTextToHtml: true, skipImageLinks: true, skipTextLinks: true });
  // Nothing is stored for a mail that cannot be taken whole.
  checkAttachmentSizes(app, mail);
  let refusal: unknown;
  let delivered = 0;
  for (const { address } of session.envelope.rcptTo) {
    try {
      const dropped = await deliverMail(app, address, mail);
      if (dropped) app.log.info({ reason: dropped }, "email gateway: a mail was taken and dropped");
      delivered++;
    } catch (err) {
      refusal ??= err;
    }
  }
  if (!delivered && refusal !== undefined) throw refusal;
  if (refusal !== undefined && !(refusal instanceof GatewayRefusal)) asSmtpError(app, refusal);
  return "2.0.0 OK: message delivered";
}

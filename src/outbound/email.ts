/**
 * Outgoing email. Actions queue emails in the outbox (src/outbound/outbox.ts), whose worker sees
 * only `EmailSender`; the one implementation here uses nodemailer, over SMTP when the server has
 * an SMTP URL and otherwise into an outbox folder of `.eml` files under the data directory, which
 * any mail program (or a person with a text editor) can read.
 */
import fs from "node:fs/promises";
import path from "node:path";
import { randomBytes } from "node:crypto";
import type { Transporter } from "nodemailer";
import type { Logger } from "pino";
import type { Config } from "../config.js";

export interface OutgoingEmail {
  to: string;
  subject: string;
  text: string;
  /** An HTML alternative to the text. */
  html?: string;
  /** Shown as the sender's name, beside the server's address. */
  fromName?: string;
  replyTo?: string;
  /** Further headers (List-Unsubscribe, ...). */
  headers?: Record<string, string>;
}

/** What nodemailer is given for an email: the server's address as sender, under the email's name if it has one. */
const mailOptions = (emailFrom: string, { fromName, ...email }: OutgoingEmail) => ({
  from: fromName ? { name: fromName, address: emailFrom } : emailFrom,
  ...email,
});

export interface EmailSender {
  /** Delivers the message or throws; callers decide whether a failure matters. */
  send(email: OutgoingEmail): Promise<void>;
}

export const outboxDir = (dataDir: string) => path.join(dataDir, "outbox");

/** nodemailer is loaded when the first email goes out: most of a server's life sends none. */
function lazyTransport(options: string | Record<string, unknown>): () => Promise<Transporter> {
  let transport: Promise<Transporter> | undefined;
  return () => (transport ??= import("nodemailer").then(({ default: nodemailer }) => nodemailer.createTransport(options)));
}

export function createEmailSender(config: Pick<Config, "smtpUrl" | "emailFrom" | "dataDir">, log: Logger): EmailSender {
  if (config.smtpUrl) {
    const transport = lazyTransport(config.smtpUrl);
    return {
      async send(email) {
        await (await transport()).sendMail(mailOptions(config.emailFrom, email));
      },
    };
  }
  const transport = lazyTransport({ streamTransport: true, buffer: true, newline: "unix" });
  const dir = outboxDir(config.dataDir);
  let sequence = 0;
  return {
    async send(email) {
      // Names sort in the order send was called, even when several are under way at once (the
      // outbox sends a batch side by side); the random part keeps two servers sharing a folder apart.
      sequence += 1;
      const file = path.join(dir, `${Date.now()}-${String(sequence).padStart(6, "0")}-${randomBytes(4).toString("hex")}.eml`);
      const info = await (await transport()).sendMail(mailOptions(config.emailFrom, email));
      await fs.mkdir(dir, { recursive: true });
      await fs.writeFile(file, info.message as Buffer);
      log.info({ to: email.to, file }, "email written to outbox");
    },
  };
}

/** Reading the emails Confab sent: raw RFC 822 messages from its outbox folder or an SMTP server. */
import fs from "node:fs";
import path from "node:path";
import { outboxDir } from "../../src/outbound/email.js";
import { backgroundSettled } from "../../src/outbound/background.js";
import type { AppContext } from "../../src/context.js";

export interface Mail {
  headers: Map<string, string>;
  to: string;
  subject: string;
  /** The decoded body. */
  text: string;
}

function decodeBody(body: string, encoding: string | undefined): string {
  if (encoding === "base64") return Buffer.from(body.replace(/\s+/g, ""), "base64").toString("utf8");
  if (encoding === "quoted-printable") {
    const bytes = body.replace(/=\r?\n/g, "").replace(/=([0-9A-F]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    return Buffer.from(bytes, "latin1").toString("utf8");
  }
  return body;
}

/** Parses a single-part message, which is what Confab sends. */
export function parseMail(raw: string): Mail {
  const split = /\r?\n\r?\n/.exec(raw)!;
  const head = raw.slice(0, split.index).replace(/\r?\n[ \t]+/g, " ");
  const headers = new Map<string, string>();
  for (const line of head.split(/\r?\n/)) {
    const colon = line.indexOf(":");
    headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  const text = decodeBody(raw.slice(split.index + split[0].length), headers.get("content-transfer-encoding")?.toLowerCase());
  return { headers, to: headers.get("to") ?? "", subject: headers.get("subject") ?? "", text: text.replace(/\r\n/g, "\n") };
}

/** Every message in the server's outbox folder, oldest first, once the emails it queued are sent. */
export async function readOutbox(srv: { app: AppContext; dataDir: string }): Promise<Mail[]> {
  await backgroundSettled(srv.app);
  const dir = outboxDir(srv.dataDir);
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .sort()
    .map((f) => parseMail(fs.readFileSync(path.join(dir, f), "utf8")));
}

/** Empties the outbox folder once the emails queued so far are sent, so none lands there later. */
export async function clearOutbox(srv: { app: AppContext; dataDir: string }): Promise<void> {
  await backgroundSettled(srv.app);
  fs.rmSync(outboxDir(srv.dataDir), { recursive: true, force: true });
}

/** The path of the sign-up link in a message, e.g. /join/abc.../ */
export function joinPath(mail: Mail): string {
  const match = /https?:\/\/\S+?(\/join\/[a-z0-9]+\/)/.exec(mail.text);
  if (!match) throw new Error(`no sign-up link in: ${mail.text}`);
  return match[1];
}

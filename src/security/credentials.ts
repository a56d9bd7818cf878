import { randomBytes, randomInt, scrypt, timingSafeEqual } from "node:crypto";
import { promisify } from "node:util";

const scryptAsync = promisify(scrypt) as (pw: string, salt: Buffer, len: number, opts: object) => Promise<Buffer>;
const ALPHANUMERIC = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const SCRYPT = { N: 16384, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };

/** 32 random alphanumeric characters: the shape of a Zulip API key. */
export function generateApiKey(): string {
  let key = "";
  for (let i = 0; i < 32; i++) key += ALPHANUMERIC[randomInt(ALPHANUMERIC.length)];
  return key;
}

const LOWER_ALPHANUMERIC = "abcdefghijklmnopqrstuvwxyz0123456789";

/** A key for a confirmation link (an invitation), shaped like Zulip's: 24 lowercase letters and digits. */
export function generateConfirmationKey(): string {
  let key = "";
  for (let i = 0; i < 24; i++) key += LOWER_ALPHANUMERIC[randomInt(LOWER_ALPHANUMERIC.length)];
  return key;
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scryptAsync(password, salt, 32, SCRYPT);
  return `scrypt$${salt.toString("base64")}$${hash.toString("base64")}`;
}

const NO_SALT = Buffer.alloc(16);

/** Without a usable stored hash the check still costs one hash, so its timing reveals nothing. */
export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  const [scheme, saltB64, hashB64] = (stored ?? "").split("$");
  if (scheme !== "scrypt" || !saltB64 || !hashB64) {
    await scryptAsync(password, NO_SALT, 32, SCRYPT);
    return false;
  }
  const expected = Buffer.from(hashB64, "base64");
  const actual = await scryptAsync(password, Buffer.from(saltB64, "base64"), expected.length, SCRYPT);
  return timingSafeEqual(actual, expected);
}

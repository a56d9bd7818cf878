import { badRequest } from "../http/errors.js";
import { LIMITS } from "./limits.js";

/** Characters Zulip refuses in names because they break mention syntax or email headers. */
const NAME_INVALID_CHARS = ["*", "`", "\\", ">", '"', "@"];

/** Zulip's check_full_name without the uniqueness rule: returns the stripped name. */
export function validateFullName(raw: string): string {
  const name = raw.trim();
  const length = [...name].length;
  if (length > LIMITS.maxFullNameLength) throw badRequest("Name too long!");
  if (length < LIMITS.minFullNameLength) throw badRequest("Name too short!");
  if (/\p{C}/u.test(name) || NAME_INVALID_CHARS.some((c) => name.includes(c))) {
    throw badRequest("Invalid characters in name!");
  }
  // A trailing "|15" would read as the user-id disambiguation of a mention.
  if (/\|\p{Nd}+\n?$/u.test(raw)) throw badRequest("Invalid format!");
  return name;
}

/** How Zulip compares names when an organization requires them to be unique. */
export function nameKey(name: string): string {
  return name.normalize("NFKC").toLowerCase();
}

const EMAIL_LOCAL = /^(?:[-!#$%&'*+/=?^_`{}|~0-9a-z]+(?:\.[-!#$%&'*+/=?^_`{}|~0-9a-z]+)*|"(?:[\x01-\x08\x0b\x0c\x0e-\x1f!#-[\]-\x7f]|\\[\x01-\x09\x0b\x0c\x0e-\x7f])*")$/i;
const EMAIL_DOMAIN = /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9-]{2,63}$/i;

/** The shape Django's EmailValidator accepts (without internationalized domains or IP literals). */
export function isValidEmail(email: string): boolean {
  if (!email || email.length > 320) return false;
  const at = email.lastIndexOf("@");
  if (at < 1) return false;
  const domain = email.slice(at + 1);
  return EMAIL_LOCAL.test(email.slice(0, at)) && (domain === "localhost" || (EMAIL_DOMAIN.test(domain) && !domain.endsWith("-")));
}

/** Zulip's default PASSWORD_MIN_LENGTH. */
export const PASSWORD_MIN_LENGTH = 6;

export function passwordStrongEnough(password: string): boolean {
  return [...password].length >= PASSWORD_MIN_LENGTH;
}

/**
 * Rules of mobile push: which device tokens and keys are acceptable, what a device's registration
 * status is, what notifications carry, and how push bouncer failures read to API clients.
 */
import {
  adminActionRequired,
  badRequest,
  failedToConnectBouncer,
  internalServerErrorOnBouncer,
  invalidRemotePushDeviceToken,
  ZulipError,
} from "../http/errors.js";
import { TOKEN_KIND_APNS, type BouncerFailure, type LegacyTokenKind } from "../outbound/push_bouncer.js";

export const MAX_PUSH_TOKEN_LENGTH = 4096;

/** Zulip's ApnsAppId: reverse-DNS style identifiers only. */
export const APNS_APP_ID_PATTERN = /^[.a-zA-Z0-9-]+$/;

/**
 * Zulip's validate_token. APNs tokens must be hex the way Python's bytes.fromhex reads it:
 * pairs of digits, with whitespace allowed between pairs.
 */
export function validatePushToken(token: string, kind: LegacyTokenKind): void {
  if (token === "" || [...token].length > MAX_PUSH_TOKEN_LENGTH) throw badRequest("Empty or invalid length token");
  if (kind === TOKEN_KIND_APNS && !/^\s*(?:[0-9a-fA-F]{2}\s*)*$/.test(token)) throw badRequest("Invalid APNS token");
}

/** A device's public key is an X25519 key, which a sealed box (security/sealed_box.ts) encrypts to. */
const SEALED_BOX_PUBLIC_KEY_BYTES = 32;

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/**
 * A JSON integer parameter that may use all 64 bits (push account ids are random 64-bit numbers):
 * returned as canonical decimal text instead of a lossy JavaScript number.
 */
export function decodeInt64(raw: string, name: string): string {
  const text = raw.trim();
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw badRequest(`${name} is not valid JSON`);
  }
  if (typeof value !== "number" || !/^-?\d+$/.test(text)) throw badRequest(`${name} is not an integer`);
  const n = BigInt(text);
  if (n > INT64_MAX) throw badRequest(`${name} is too large`);
  if (n < INT64_MIN) throw badRequest(`${name} is too small`);
  return n.toString();
}

/** A device's NaCl public key: standard base64 of 32 bytes. */
export function decodePushPublicKey(value: string): Uint8Array {
  const valid = /^[A-Za-z0-9+/]*={0,2}$/.test(value) && value.length % 4 === 0;
  const bytes = valid ? Buffer.from(value, "base64") : Buffer.alloc(0);
  if (bytes.length !== SEALED_BOX_PUBLIC_KEY_BYTES) throw badRequest("Invalid `push_public_key`");
  return new Uint8Array(bytes);
}

export type PushDeviceStatus = "active" | "pending" | "failed";

export function pushDeviceStatus(device: { bouncer_device_id: string | null; error_code: string | null }): PushDeviceStatus {
  if (device.error_code !== null) return "failed";
  return device.bouncer_device_id === null ? "pending" : "active";
}

/** What the bouncer may answer a registration with that the client can act on (Zulip's PushDevice.ErrorCode). */
const REGISTRATION_ERROR_CODES = new Set(["INVALID_BOUNCER_PUBLIC_KEY", "INVALID_ENCRYPTED_PUSH_REGISTRATION", "REQUEST_EXPIRED"]);

/** The error code a failed registration is recorded with. */
export function registrationErrorCode(failure: BouncerFailure): string {
  switch (failure.kind) {
    case "network":
      return "FAILED_TO_CONNECT_BOUNCER";
    case "server":
      return "INTERNAL_SERVER_ERROR_ON_BOUNCER";
    case "rejected":
      return failure.code !== null && REGISTRATION_ERROR_CODES.has(failure.code) ? failure.code : "ADMIN_ACTION_REQUIRED";
    case "unexpected":
      return "ADMIN_ACTION_REQUIRED";
  }
}

/** Whether trying again later may succeed: the bouncer was unreachable or failed, rather than refused. */
export function isTransientBouncerFailure(failure: BouncerFailure): boolean {
  return failure.kind === "network" || failure.kind === "server";
}

/** How the E2EE endpoints report a bouncer failure (Zulip's test_e2ee_push_notifications). */
export function e2eeBouncerError(failure: BouncerFailure): ZulipError {
  switch (failure.kind) {
    case "network":
      return failedToConnectBouncer();
    case "server":
      return internalServerErrorOnBouncer();
    case "rejected":
    case "unexpected":
      return adminActionRequired();
  }
}

/** Bouncer refusals that mean this server's credentials, plan or registration need an administrator. */
const SERVER_SETUP_CODES = new Set(["INVALID_ZULIP_SERVER", "PUSH_NOTIFICATIONS_DISALLOWED", "MISSING_REMOTE_REALM"]);

/**
 * How the legacy token endpoints report a bouncer failure: Zulip's send_to_push_bouncer passes the
 * bouncer's own message on for client errors, and answers 502 when the bouncer cannot be used now.
 */
export function legacyBouncerError(failure: BouncerFailure, endpoint: "register" | "unregister" | "test"): ZulipError {
  switch (failure.kind) {
    case "network":
      return new ZulipError(`${failure.detail} while trying to connect to push notification bouncer`, "BAD_REQUEST", 502);
    case "server":
      return new ZulipError(`Received ${failure.status} from push notification bouncer`, "BAD_REQUEST", 502);
    case "rejected":
      if (failure.code !== null && SERVER_SETUP_CODES.has(failure.code)) return adminActionRequired();
      if (endpoint === "test" && failure.code === "INVALID_REMOTE_PUSH_DEVICE_TOKEN") return invalidRemotePushDeviceToken();
      return badRequest(failure.msg);
    case "unexpected":
      return adminActionRequired();
  }
}

export interface PushRealmFacts {
  id: number;
  name: string;
  url: string;
  host: string;
}

/** Zulip's get_base_payload: what every legacy notification says about where it comes from. */
export function basePushPayload(realm: PushRealmFacts, userId: number): Record<string, unknown> {
  return {
    server: realm.host,
    realm_id: realm.id,
    realm_name: realm.name,
    realm_uri: realm.url,
    realm_url: realm.url,
    user_id: userId,
  };
}

/**
 * What a legacy test notification starts from. The bouncer builds the notification itself and
 * marks it `event: "test"`; the event is included so the payload says so on its own too.
 */
export function legacyTestPayload(realm: PushRealmFacts, userId: number): Record<string, unknown> {
  return { ...basePushPayload(realm, userId), event: "test" };
}

/** The plaintext of an end-to-end encrypted test notification (api_docs/mobile-notifications.md). */
export function e2eeTestPayload(realm: PushRealmFacts, userId: number, now: number): Record<string, unknown> {
  return { realm_name: realm.name, realm_url: realm.url, time: Math.floor(now), type: "test", user_id: userId };
}

/** The part of a `message` event a push notification is made from. */
export interface PushedMessage {
  id: number;
  sender_id: number;
  sender_full_name: string;
  sender_email: string;
  avatar_url: string | null;
  type: "stream" | "private";
  stream_id?: number;
  display_recipient: string | { id: number }[];
  subject: string;
  content: string;
  timestamp: number;
}

/**
 * Whether a new message is pushed to a recipient's phones: direct messages and personal or group
 * mentions, unless it is the recipient's own or already read.
 */
export function pushesMessageTo(message: Pick<PushedMessage, "sender_id" | "type">, userId: number, flags: readonly string[]): boolean {
  if (userId === message.sender_id || flags.includes("read")) return false;
  return message.type === "private" || flags.includes("mentioned");
}

/** Zulip shows at most 200 characters of a message in a notification. */
export const PUSH_CONTENT_LIMIT = 200;

function pushContent(content: string): { content: string; truncated: boolean } {
  const chars = [...content];
  if (chars.length <= PUSH_CONTENT_LIMIT) return { content, truncated: false };
  return { content: chars.slice(0, PUSH_CONTENT_LIMIT - 1).join("") + "…", truncated: true };
}

function absoluteUrl(realm: PushRealmFacts, url: string | null): string | null {
  return url === null ? null : new URL(url, realm.url).toString();
}

/** A group direct message lists every participant, sorted; a one-on-one one does not. */
function groupDmUsers(message: PushedMessage): string | undefined {
  if (message.type !== "private" || typeof message.display_recipient === "string") return undefined;
  const ids = message.display_recipient.map((u) => u.id).sort((a, b) => a - b);
  return ids.length > 2 ? ids.join(",") : undefined;
}

/** The plaintext of an end-to-end encrypted message notification (api_docs/mobile-notifications.md). */
export function e2eeMessagePayload(realm: PushRealmFacts, userId: number, message: PushedMessage): Record<string, unknown> {
  const pmUsers = groupDmUsers(message);
  const where =
    message.type === "stream"
      ? { channel_id: message.stream_id, channel_name: message.display_recipient, topic: message.subject, recipient_type: "channel" }
      : { ...(pmUsers === undefined ? {} : { pm_users: pmUsers }), recipient_type: "direct" };
  return {
    ...where,
    content: pushContent(message.content).content,
    message_id: message.id,
    realm_name: realm.name,
    realm_url: realm.url,
    sender_avatar_url: absoluteUrl(realm, message.avatar_url),
    sender_full_name: message.sender_full_name,
    sender_id: message.sender_id,
    time: message.timestamp,
    type: "message",
    user_id: userId,
  };
}

/** Legacy (unencrypted) notification payloads for APNs and FCM, as Zulip's bouncer expects them. */
export function legacyMessagePayloads(
  realm: PushRealmFacts,
  userId: number,
  message: PushedMessage,
): { apns: Record<string, unknown>; gcm: Record<string, unknown> } {
  const pmUsers = groupDmUsers(message);
  const where =
    message.type === "stream"
      ? { recipient_type: "stream", stream: message.display_recipient, stream_id: message.stream_id, topic: message.subject }
      : { recipient_type: "private", ...(pmUsers === undefined ? {} : { pm_users: pmUsers }) };
  const common = {
    ...basePushPayload(realm, userId),
    sender_id: message.sender_id,
    sender_email: message.sender_email,
    time: message.timestamp,
    ...where,
  };
  const { content, truncated } = pushContent(message.content);
  const title =
    message.type === "stream" ? `#${String(message.display_recipient)} > ${message.subject}` : message.sender_full_name;
  const subtitle = message.type === "stream" || pmUsers !== undefined ? `${message.sender_full_name}:` : "";
  return {
    apns: {
      alert: { title, subtitle, body: content },
      sound: "default",
      badge: 0,
      custom: { zulip: { ...common, message_ids: [message.id] } },
    },
    gcm: {
      ...common,
      event: "message",
      zulip_message_id: message.id,
      content,
      content_truncated: truncated,
      sender_full_name: message.sender_full_name,
      sender_avatar_url: absoluteUrl(realm, message.avatar_url),
    },
  };
}

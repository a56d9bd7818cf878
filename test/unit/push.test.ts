import { test, describe } from "node:test";
import assert from "node:assert/strict";
import nacl from "tweetnacl";
import { blake2b } from "@noble/hashes/blake2b";
import {
  basePushPayload,
  decodeInt64,
  decodePushPublicKey,
  e2eeBouncerError,
  e2eeTestPayload,
  legacyBouncerError,
  legacyMessagePayloads,
  legacyTestPayload,
  pushDeviceStatus,
  pushesMessageTo,
  e2eeMessagePayload,
  type PushedMessage,
  registrationErrorCode,
  validatePushToken,
} from "../../src/domain/push.js";
import { TOKEN_KIND_APNS, TOKEN_KIND_FCM, type BouncerFailure } from "../../src/outbound/push_bouncer.js";
import { openSealed, seal } from "../../src/security/sealed_box.js";
import { ZulipError } from "../../src/http/errors.js";

function failsWith(fn: () => unknown, msg: string) {
  assert.throws(fn, (e: unknown) => e instanceof ZulipError && e.msg === msg && e.code === "BAD_REQUEST" && e.status === 400);
}

const summary = (e: ZulipError) => [e.status, e.code, e.msg];

describe("validatePushToken", () => {
  test("empty or longer than 4096 characters (not bytes) is refused for both kinds", () => {
    for (const kind of [TOKEN_KIND_APNS, TOKEN_KIND_FCM] as const) {
      failsWith(() => validatePushToken("", kind), "Empty or invalid length token");
      failsWith(() => validatePushToken("ab".repeat(2048) + "c", kind), "Empty or invalid length token");
    }
    validatePushToken("ab".repeat(2048), TOKEN_KIND_APNS);
    validatePushToken("🔔".repeat(4096), TOKEN_KIND_FCM);
    failsWith(() => validatePushToken("🔔".repeat(4097), TOKEN_KIND_FCM), "Empty or invalid length token");
  });

  test("APNs tokens read as hex byte pairs with whitespace between pairs", () => {
    for (const ok of ["00", "c0ffee", "C0FFEE", "c0 ff ee", " c0ff\tee\n", "   "]) validatePushToken(ok, TOKEN_KIND_APNS);
    for (const bad of ["c", "c0f", "c 0", "0g", "0x00", "c0-ff", "c0ffee!"]) {
      failsWith(() => validatePushToken(bad, TOKEN_KIND_APNS), "Invalid APNS token");
    }
    validatePushToken("anything goes", TOKEN_KIND_FCM);
  });
});

describe("decodeInt64", () => {
  test("JSON integers of up to 64 bits, kept exactly as canonical decimal text", () => {
    assert.equal(decodeInt64("2408", "x"), "2408");
    assert.equal(decodeInt64(" 17 ", "x"), "17");
    assert.equal(decodeInt64("-0", "x"), "0");
    assert.equal(decodeInt64("9223372036854775807", "x"), "9223372036854775807");
    assert.equal(decodeInt64("-9223372036854775808", "x"), "-9223372036854775808");
    assert.equal(decodeInt64("9007199254740993", "x"), "9007199254740993");
  });

  test("anything else is refused with Zulip's texts", () => {
    failsWith(() => decodeInt64("", "x"), "x is not valid JSON");
    failsWith(() => decodeInt64("0x10", "x"), "x is not valid JSON");
    failsWith(() => decodeInt64("007", "x"), "x is not valid JSON");
    for (const notInt of ["1.0", "1e2", '"1"', "true", "null", "[1]", "{}"]) failsWith(() => decodeInt64(notInt, "x"), "x is not an integer");
    failsWith(() => decodeInt64("9223372036854775808", "x"), "x is too large");
    failsWith(() => decodeInt64("-9223372036854775809", "x"), "x is too small");
  });
});

describe("decodePushPublicKey", () => {
  test("standard base64 of exactly 32 bytes", () => {
    const key = nacl.box.keyPair().publicKey;
    assert.deepEqual(decodePushPublicKey(Buffer.from(key).toString("base64")), key);
    for (const bad of ["", "abcd", Buffer.alloc(32).toString("base64url") + "-_", Buffer.alloc(32).toString("base64").slice(0, -1), "!".repeat(44)]) {
      failsWith(() => decodePushPublicKey(bad), "Invalid `push_public_key`");
    }
  });
});

describe("push device status", () => {
  test("failed if an error is recorded, active once the bouncer knows it, pending before", () => {
    assert.equal(pushDeviceStatus({ bouncer_device_id: null, error_code: null }), "pending");
    assert.equal(pushDeviceStatus({ bouncer_device_id: "5", error_code: null }), "active");
    assert.equal(pushDeviceStatus({ bouncer_device_id: null, error_code: "REQUEST_EXPIRED" }), "failed");
  });
});

const rejected = (code: string | null, status = 400): BouncerFailure => ({ kind: "rejected", status, code, msg: `msg ${code}` });

describe("bouncer failures", () => {
  test("registration keeps the codes clients act on and names the rest by whose problem it is", () => {
    for (const code of ["INVALID_BOUNCER_PUBLIC_KEY", "INVALID_ENCRYPTED_PUSH_REGISTRATION", "REQUEST_EXPIRED"]) {
      assert.equal(registrationErrorCode(rejected(code)), code);
    }
    assert.equal(registrationErrorCode(rejected("MISSING_REMOTE_REALM")), "ADMIN_ACTION_REQUIRED");
    assert.equal(registrationErrorCode(rejected(null)), "ADMIN_ACTION_REQUIRED");
    assert.equal(registrationErrorCode({ kind: "unexpected", status: 302 }), "ADMIN_ACTION_REQUIRED");
    assert.equal(registrationErrorCode({ kind: "network", detail: "Timeout" }), "FAILED_TO_CONNECT_BOUNCER");
    assert.equal(registrationErrorCode({ kind: "server", status: 500 }), "INTERNAL_SERVER_ERROR_ON_BOUNCER");
  });

  test("the E2EE test endpoint's errors", () => {
    const admin = [403, "ADMIN_ACTION_REQUIRED", "Push notification configuration issue on server, contact the server administrator or retry later."];
    assert.deepEqual(summary(e2eeBouncerError({ kind: "network", detail: "ConnectionError" })), [
      502,
      "FAILED_TO_CONNECT_BOUNCER",
      "Network error while connecting to Zulip push notification service.",
    ]);
    assert.deepEqual(summary(e2eeBouncerError({ kind: "server", status: 504 })), [
      502,
      "INTERNAL_SERVER_ERROR_ON_BOUNCER",
      "Internal server error on Zulip push notification service, retry later.",
    ]);
    assert.deepEqual(summary(e2eeBouncerError(rejected("MISSING_REMOTE_REALM"))), admin);
    assert.deepEqual(summary(e2eeBouncerError(rejected("INVALID_ZULIP_SERVER", 401))), admin);
    assert.deepEqual(summary(e2eeBouncerError({ kind: "unexpected", status: 201 })), admin);
  });

  test("the legacy endpoints' errors", () => {
    assert.deepEqual(summary(legacyBouncerError({ kind: "network", detail: "Timeout" }, "register")), [
      502,
      "BAD_REQUEST",
      "Timeout while trying to connect to push notification bouncer",
    ]);
    assert.deepEqual(summary(legacyBouncerError({ kind: "server", status: 500 }, "test")), [502, "BAD_REQUEST", "Received 500 from push notification bouncer"]);
    assert.deepEqual(summary(legacyBouncerError(rejected("INVALID_REMOTE_PUSH_DEVICE_TOKEN"), "test")), [
      400,
      "INVALID_REMOTE_PUSH_DEVICE_TOKEN",
      "Device not recognized by the push bouncer",
    ]);
    // Only the test endpoint turns that code into its own error.
    assert.deepEqual(summary(legacyBouncerError(rejected("INVALID_REMOTE_PUSH_DEVICE_TOKEN"), "register")), [
      400,
      "BAD_REQUEST",
      "msg INVALID_REMOTE_PUSH_DEVICE_TOKEN",
    ]);
    assert.deepEqual(summary(legacyBouncerError(rejected("BAD_REQUEST"), "unregister")), [400, "BAD_REQUEST", "msg BAD_REQUEST"]);
    for (const code of ["INVALID_ZULIP_SERVER", "PUSH_NOTIFICATIONS_DISALLOWED", "MISSING_REMOTE_REALM"]) {
      assert.equal(legacyBouncerError(rejected(code), "register").code, "ADMIN_ACTION_REQUIRED");
    }
    assert.equal(legacyBouncerError({ kind: "unexpected", status: 404 }, "register").code, "ADMIN_ACTION_REQUIRED");
  });
});

describe("payloads", () => {
  const realm = { id: 3, name: "Zulip Dev", url: "https://chat.example.com", host: "chat.example.com" };

  test("every legacy payload says where it comes from, the realm's name included; tests say they are tests", () => {
    const base = {
      server: "chat.example.com",
      realm_id: 3,
      realm_name: "Zulip Dev",
      realm_uri: "https://chat.example.com",
      realm_url: "https://chat.example.com",
      user_id: 9,
    };
    assert.deepEqual(basePushPayload(realm, 9), base);
    assert.deepEqual(legacyTestPayload(realm, 9), { ...base, event: "test" });
  });

  test("the E2EE test plaintext", () => {
    assert.deepEqual(e2eeTestPayload(realm, 9, 1700000000.7), {
      realm_name: "Zulip Dev",
      realm_url: "https://chat.example.com",
      time: 1700000000,
      type: "test",
      user_id: 9,
    });
  });
});

describe("sealed boxes", () => {
  test("only the recipient opens them; each sealing differs; tampering is detected", () => {
    const recipient = nacl.box.keyPair();
    const stranger = nacl.box.keyPair();
    const message = new TextEncoder().encode('{"type":"test"}');
    const a = seal(message, recipient.publicKey);
    const b = seal(message, recipient.publicKey);
    assert.equal(a.length, message.length + 48);
    assert.notDeepEqual(a, b);
    assert.deepEqual(openSealed(a, recipient.publicKey, recipient.secretKey), message);
    assert.equal(openSealed(a, stranger.publicKey, stranger.secretKey), null);
    const tampered = Uint8Array.from(a);
    tampered[tampered.length - 1] ^= 1;
    assert.equal(openSealed(tampered, recipient.publicKey, recipient.secretKey), null);
  });

  test("matches libsodium's crypto_box_seal layout: a box from the ephemeral key with the BLAKE2b nonce", () => {
    const recipient = nacl.box.keyPair();
    const sealed = seal(new Uint8Array([1, 2, 3]), recipient.publicKey);
    const epk = sealed.subarray(0, 32);
    // Opening by hand with the nonce rule proves the layout, not just the round trip.
    const nonce = blake2b(Uint8Array.from([...epk, ...recipient.publicKey]), { dkLen: 24 });
    assert.deepEqual(nacl.box.open(sealed.subarray(32), nonce, epk, recipient.secretKey), new Uint8Array([1, 2, 3]));
  });
});

describe("message notifications", () => {
  const realm = { id: 3, name: "Zulip Dev", url: "https://chat.example.com", host: "chat.example.com" };
  const dm: PushedMessage = {
    id: 45,
    sender_id: 6,
    sender_full_name: "Aaron",
    sender_email: "aaron@example.com",
    avatar_url: "/avatar/6",
    type: "private",
    display_recipient: [{ id: 10 }, { id: 6 }],
    subject: "",
    content: "hi",
    timestamp: 1754385290,
  };
  const channel: PushedMessage = { ...dm, type: "stream", stream_id: 10, display_recipient: "Denmark", subject: "test" };

  test("direct messages and mentions are pushed, unless read or one's own", () => {
    assert.equal(pushesMessageTo(dm, 10, []), true);
    assert.equal(pushesMessageTo(dm, 10, ["read"]), false);
    assert.equal(pushesMessageTo(dm, 6, []), false);
    assert.equal(pushesMessageTo(channel, 10, []), false);
    assert.equal(pushesMessageTo(channel, 10, ["has_alert_word"]), false);
    assert.equal(pushesMessageTo(channel, 10, ["stream_wildcard_mentioned", "wildcard_mentioned"]), false);
    assert.equal(pushesMessageTo(channel, 10, ["mentioned"]), true);
    assert.equal(pushesMessageTo(channel, 10, ["mentioned", "read"]), false);
  });

  test("the E2EE plaintext follows Zulip's documented shapes", () => {
    assert.deepEqual(e2eeMessagePayload(realm, 10, dm), {
      content: "hi",
      message_id: 45,
      realm_name: "Zulip Dev",
      realm_url: "https://chat.example.com",
      recipient_type: "direct",
      sender_avatar_url: "https://chat.example.com/avatar/6",
      sender_full_name: "Aaron",
      sender_id: 6,
      time: 1754385290,
      type: "message",
      user_id: 10,
    });
    const group = e2eeMessagePayload(realm, 10, { ...dm, display_recipient: [{ id: 15 }, { id: 6 }, { id: 12 }, { id: 10 }] });
    assert.equal(group.pm_users, "6,10,12,15");
    const inChannel = e2eeMessagePayload(realm, 10, channel);
    assert.deepEqual(
      [inChannel.channel_id, inChannel.channel_name, inChannel.topic, inChannel.recipient_type],
      [10, "Denmark", "test", "channel"],
    );
    assert.equal(e2eeMessagePayload(realm, 10, { ...dm, content: "é".repeat(201) }).content, "é".repeat(199) + "…");
  });

  test("legacy payloads carry the base payload and name the conversation", () => {
    const { apns, gcm } = legacyMessagePayloads(realm, 10, channel);
    assert.deepEqual(apns.alert, { title: "#Denmark > test", subtitle: "Aaron:", body: "hi" });
    assert.equal((apns.custom as any).zulip.realm_name, "Zulip Dev");
    assert.deepEqual((apns.custom as any).zulip.message_ids, [45]);
    assert.equal(gcm.event, "message");
    assert.equal(gcm.realm_name, "Zulip Dev");
    assert.deepEqual([gcm.recipient_type, gcm.stream, gcm.stream_id, gcm.topic], ["stream", "Denmark", 10, "test"]);
    assert.equal(gcm.content_truncated, false);
    assert.deepEqual(legacyMessagePayloads(realm, 10, dm).apns.alert, { title: "Aaron", subtitle: "", body: "hi" });
  });
});

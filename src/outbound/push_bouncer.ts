/**
 * The client of the mobile push notification service ("push bouncer"), speaking Zulip's
 * `/api/v1/remotes/...` protocol: HTTP Basic auth with the server's UUID and key, form bodies for
 * token registration and JSON bodies for notifications. Actions depend on the narrow
 * `PushBouncer` interface only; every failure comes back as a `BouncerError` that says whose fault
 * it was, so each endpoint can translate it into its own Zulip error.
 */
import type { Config } from "../config.js";
import { ZULIP_VERSION } from "../domain/limits.js";

/** Zulip's numbering of legacy device token kinds, as the bouncer expects them. */
export const TOKEN_KIND_APNS = 1;
export const TOKEN_KIND_FCM = 2;
export type LegacyTokenKind = typeof TOKEN_KIND_APNS | typeof TOKEN_KIND_FCM;

/** Who a request is about; the bouncer keys registrations by these. */
export interface PushIdentity {
  realmUuid: string;
  userUuid: string;
  userId: number;
}

export interface LegacyDevice {
  token: string;
  kind: LegacyTokenKind;
}

export interface E2eeRegistration {
  /** A 64-bit integer in decimal; sent to the bouncer as a JSON number. */
  pushAccountId: string;
  bouncerPublicKey: string;
  encryptedPushRegistration: string;
}

export interface E2eeDelivery {
  /** Bouncer device ids the bouncer no longer knows or whose tokens expired: the server drops them. */
  deleteDeviceIds: string[];
}

export type BouncerFailure =
  /** Refused connection, DNS, TLS, or no complete answer within the timeout. */
  | { kind: "network"; detail: "ConnectionError" | "Timeout" }
  /** The bouncer failed: a 5xx, or a success whose body is not the expected JSON. */
  | { kind: "server"; status: number }
  /** The bouncer refused the request with a 4xx and Zulip's error JSON. */
  | { kind: "rejected"; status: number; code: string | null; msg: string }
  /** Any other answer (another status, a 4xx without error JSON): a setup problem on our side. */
  | { kind: "unexpected"; status: number };

export class BouncerError extends Error {
  constructor(readonly failure: BouncerFailure) {
    super(`push bouncer: ${JSON.stringify(failure)}`);
  }
}

export interface PushBouncer {
  registerToken(who: PushIdentity, device: LegacyDevice, iosAppId: string | null): Promise<void>;
  unregisterToken(who: PushIdentity, device: LegacyDevice): Promise<void>;
  /** The bouncer builds the test notification itself from the base payload. */
  sendTestNotification(who: PushIdentity, device: LegacyDevice, basePayload: Record<string, unknown>): Promise<void>;
  /** A legacy (unencrypted) notification to every device the bouncer holds for the user. */
  notify(who: PushIdentity, payloads: { apns: Record<string, unknown>; gcm: Record<string, unknown> }): Promise<void>;
  /** Returns the bouncer's id for the device. */
  registerE2eeDevice(realmUuid: string, registration: E2eeRegistration): Promise<{ deviceId: string }>;
  /** `encrypted` maps bouncer device ids to base64 ciphertexts. */
  notifyE2ee(realmUuid: string, encrypted: Record<string, string>): Promise<E2eeDelivery>;
}

type Body = { type: "form"; data: URLSearchParams } | { type: "json"; data: string };

const form = (fields: Record<string, string | number | null>): Body => {
  const data = new URLSearchParams();
  for (const [k, v] of Object.entries(fields)) if (v !== null) data.set(k, String(v));
  return { type: "form", data };
};
const json = (value: unknown): Body => ({ type: "json", data: JSON.stringify(value) });

function identityFields(who: PushIdentity) {
  return { user_id: who.userId, user_uuid: who.userUuid, realm_uuid: who.realmUuid };
}

function parseJsonObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

export interface HttpBouncerOptions {
  url: string;
  uuid: string;
  key: string;
  timeoutMs: number;
  userAgent: string;
}

export class HttpPushBouncer implements PushBouncer {
  constructor(private readonly opts: HttpBouncerOptions) {}

  private async post(endpoint: string, body: Body): Promise<Record<string, unknown>> {
    const url = new URL(`/api/v1/remotes/${endpoint}`, this.opts.url);
    const headers: Record<string, string> = {
      authorization: "Basic " + Buffer.from(`${this.opts.uuid}:${this.opts.key}`).toString("base64"),
      "user-agent": this.opts.userAgent,
      "content-type": body.type === "json" ? "application/json" : "application/x-www-form-urlencoded",
    };
    let status: number;
    let text: string;
    try {
      // One signal bounds the whole exchange: connecting, waiting, and reading the body.
      const res = await fetch(url, { method: "POST", headers, body: body.data, signal: AbortSignal.timeout(this.opts.timeoutMs) });
      status = res.status;
      text = await res.text();
    } catch (err) {
      const timedOut = err instanceof Error && (err.name === "TimeoutError" || err.name === "AbortError");
      throw new BouncerError({ kind: "network", detail: timedOut ? "Timeout" : "ConnectionError" });
    }
    if (status >= 500) throw new BouncerError({ kind: "server", status });
    const parsed = parseJsonObject(text);
    if (status >= 400) {
      if (!parsed || typeof parsed.msg !== "string") throw new BouncerError({ kind: "unexpected", status });
      const code = typeof parsed.code === "string" ? parsed.code : null;
      throw new BouncerError({ kind: "rejected", status, code, msg: parsed.msg });
    }
    if (status !== 200) throw new BouncerError({ kind: "unexpected", status });
    if (!parsed) throw new BouncerError({ kind: "server", status });
    return parsed;
  }

  async registerToken(who: PushIdentity, device: LegacyDevice, iosAppId: string | null): Promise<void> {
    await this.post("push/register", form({ ...identityFields(who), token: device.token, token_kind: device.kind, ios_app_id: iosAppId }));
  }

  async unregisterToken(who: PushIdentity, device: LegacyDevice): Promise<void> {
    await this.post("push/unregister", form({ ...identityFields(who), token: device.token, token_kind: device.kind }));
  }

  async sendTestNotification(who: PushIdentity, device: LegacyDevice, basePayload: Record<string, unknown>): Promise<void> {
    await this.post(
      "push/test_notification",
      json({ ...identityFields(who), token: device.token, token_kind: device.kind, base_payload: basePayload }),
    );
  }

  async notify(who: PushIdentity, payloads: { apns: Record<string, unknown>; gcm: Record<string, unknown> }): Promise<void> {
    await this.post(
      "push/notify",
      json({ ...identityFields(who), apns_payload: payloads.apns, gcm_payload: payloads.gcm, gcm_options: { priority: "high" } }),
    );
  }

  async registerE2eeDevice(realmUuid: string, registration: E2eeRegistration): Promise<{ deviceId: string }> {
    const rest = JSON.stringify({
      realm_uuid: realmUuid,
      bouncer_public_key: registration.bouncerPublicKey,
      encrypted_push_registration: registration.encryptedPushRegistration,
    });
    // The id is a 64-bit integer: written as digits so no precision is lost on the way.
    const body = `{"push_account_id":${registration.pushAccountId},${rest.slice(1)}`;
    const result = await this.post("push/e2ee/register", { type: "json", data: body });
    const deviceId = result.device_id;
    if (typeof deviceId !== "number" && typeof deviceId !== "string") throw new BouncerError({ kind: "server", status: 200 });
    return { deviceId: String(deviceId) };
  }

  async notifyE2ee(realmUuid: string, encrypted: Record<string, string>): Promise<E2eeDelivery> {
    const result = await this.post("push/e2ee/notify", json({ realm_uuid: realmUuid, device_id_to_encrypted_data: encrypted }));
    const ids = result.delete_device_ids ?? [];
    if (!Array.isArray(ids)) throw new BouncerError({ kind: "server", status: 200 });
    return { deleteDeviceIds: ids.map((id) => String(id)) };
  }
}

/** The configured bouncer, or null when the server does not use one. Reads the config on each call. */
export function configuredPushBouncer(config: Config): PushBouncer | null {
  const { pushBouncerUrl: url, pushBouncerUuid: uuid, pushBouncerKey: key } = config;
  if (!url || !uuid || !key) return null;
  return new HttpPushBouncer({ url, uuid, key, timeoutMs: config.pushBouncerTimeoutMs, userAgent: `ZulipServer/${ZULIP_VERSION}` });
}

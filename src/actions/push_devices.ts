/**
 * Mobile push devices and test notifications. Legacy devices are APNs/FCM tokens the server
 * passes to the push bouncer; E2EE devices are registered with the bouncer through an encrypted
 * registration only the bouncer can read, and get notifications sealed with their own public key.
 */
import type { AppContext } from "../context.js";
import type { Caller } from "../http/auth.js";
import {
  adminActionRequired,
  badRequest,
  invalidPushDeviceToken,
  noActivePushDevice,
  pushServiceNotConfigured,
} from "../http/errors.js";
import {
  decodePushPublicKey,
  e2eeBouncerError,
  e2eeMessagePayload,
  e2eeTestPayload,
  isTransientBouncerFailure,
  legacyBouncerError,
  legacyMessagePayloads,
  legacyTestPayload,
  pushDeviceStatus,
  pushesMessageTo,
  registrationErrorCode,
  validatePushToken,
  type PushedMessage,
  type PushRealmFacts,
} from "../domain/push.js";
import {
  BouncerError,
  configuredPushBouncer,
  type LegacyTokenKind,
  type PushBouncer,
  type PushIdentity,
} from "../outbound/push_bouncer.js";
import { queueOutboxJob, type PushMessageJob, type PushRegisterJob } from "../outbound/outbox.js";
import type { Notice } from "../events/bus.js";
import {
  deletePushDevicesByBouncerId,
  deletePushToken,
  getPushDevice,
  insertPushToken,
  listPushDevices,
  listPushTokens,
  pushUuid,
  settlePendingPushDevice,
  upsertPendingPushDevice,
  type PushDeviceRow,
} from "../store/push_devices.js";
import type { Executor } from "../store/schema.js";
import { getRealm, type Realm } from "../store/realms.js";
import { runAction, type PendingEvents, type Tx } from "./run.js";

export function pushRealmFacts(app: AppContext, realm: Realm): PushRealmFacts {
  const url = app.config.externalUrl;
  return { id: realm.id, name: realm.name, url, host: new URL(url).host };
}

async function pushIdentity(db: Executor, realmId: number, userId: number): Promise<PushIdentity> {
  return { realmUuid: await pushUuid(db, "realm", realmId), userUuid: await pushUuid(db, "user", userId), userId };
}

/** Runs a bouncer call, turning its failures into the endpoint's Zulip errors. */
async function askBouncer<T>(call: () => Promise<T>, translate: (e: BouncerError) => Error): Promise<T> {
  try {
    return await call();
  } catch (err) {
    throw err instanceof BouncerError ? translate(err) : err;
  }
}

/** The bouncer hears of the token first, so a refusal there leaves nothing behind here. */
export async function doAddPushToken(
  app: AppContext,
  caller: Caller,
  kind: LegacyTokenKind,
  token: string,
  iosAppId: string | null,
): Promise<void> {
  validatePushToken(token, kind);
  const bouncer = configuredPushBouncer(app.config);
  if (bouncer) {
    const who = await pushIdentity(app.db, caller.realm.id, caller.user.id);
    await askBouncer(
      () => bouncer.registerToken(who, { token, kind }, iosAppId),
      (e) => legacyBouncerError(e.failure, "register"),
    );
  }
  await insertPushToken(app.db, {
    realm_id: caller.realm.id,
    user_id: caller.user.id,
    kind,
    token,
    ios_app_id: iosAppId,
    date_created: Math.floor(app.clock.now()),
  });
}

/**
 * With a bouncer, the bouncer decides whether the token exists (it may hold registrations this
 * server lost); without one, the local row must exist.
 */
export async function doRemovePushToken(app: AppContext, caller: Caller, kind: LegacyTokenKind, token: string): Promise<void> {
  validatePushToken(token, kind);
  const bouncer = configuredPushBouncer(app.config);
  if (bouncer) {
    const who = await pushIdentity(app.db, caller.realm.id, caller.user.id);
    await askBouncer(
      () => bouncer.unregisterToken(who, { token, kind }),
      (e) => legacyBouncerError(e.failure, "unregister"),
    );
    await deletePushToken(app.db, caller.user.id, kind, token);
    return;
  }
  if ((await deletePushToken(app.db, caller.user.id, kind, token)) === 0) {
    throw badRequest("Token does not exist");
  }
}

/** To one of the caller's tokens (any kind), or to all of them; one failure ends the attempt. */
export async function doSendLegacyTestNotification(app: AppContext, caller: Caller, token: string | undefined): Promise<void> {
  const all = await listPushTokens(app.db, caller.user.id);
  const devices = token === undefined ? all : all.filter((d) => d.token === token);
  if (token !== undefined && devices.length === 0) throw invalidPushDeviceToken();
  const bouncer = configuredPushBouncer(app.config);
  if (!bouncer) {
    if (devices.length) app.log.info({ user_id: caller.user.id }, "push: no push notification service configured; test notification dropped");
    return;
  }
  const who = await pushIdentity(app.db, caller.realm.id, caller.user.id);
  const payload = legacyTestPayload(pushRealmFacts(app, caller.realm), caller.user.id);
  for (const device of devices) {
    await askBouncer(
      () => bouncer.sendTestNotification(who, { token: device.token, kind: device.kind as LegacyTokenKind }, payload),
      (e) => legacyBouncerError(e.failure, "test"),
    );
  }
}

function sendPushDeviceEvent(events: PendingEvents, caller: { realmId: number; userId: number }, device: PushDeviceRow): void {
  const status = pushDeviceStatus(device);
  events.send({
    realmId: caller.realmId,
    event: {
      type: "push_device",
      push_account_id: device.push_account_id,
      status,
      ...(status === "pending" ? {} : { error_code: device.error_code }),
    },
    userIds: [caller.userId],
  });
}

export interface E2eeDeviceRegistration {
  tokenKind: "fcm" | "apns";
  pushAccountId: string;
  pushPublicKey: string;
  bouncerPublicKey: string;
  encryptedPushRegistration: string;
}

/**
 * Records the device as pending and answers at once; the bouncer is asked afterwards, through
 * the outbox, and its answer arrives as a `push_device` event. A device already pending or active
 * is left alone.
 */
export async function doRegisterE2eeDevice(app: AppContext, caller: Caller, reg: E2eeDeviceRegistration): Promise<void> {
  if (!configuredPushBouncer(app.config)) throw pushServiceNotConfigured();
  decodePushPublicKey(reg.pushPublicKey);
  const who = { realmId: caller.realm.id, userId: caller.user.id };
  await runAction(app, async (tx, events) => {
    const existing = await getPushDevice(tx, caller.user.id, reg.pushAccountId);
    if (existing && existing.error_code === null) return;
    await upsertPendingPushDevice(tx, {
      realm_id: caller.realm.id,
      user_id: caller.user.id,
      push_account_id: reg.pushAccountId,
      token_kind: reg.tokenKind,
      push_public_key: reg.pushPublicKey,
      date_created: Math.floor(app.clock.now()),
    });
    const device = (await getPushDevice(tx, caller.user.id, reg.pushAccountId))!;
    sendPushDeviceEvent(events, who, device);
    await queueOutboxJob(app, tx, events, "push_register", {
      ...who,
      pushAccountId: reg.pushAccountId,
      bouncerPublicKey: reg.bouncerPublicKey,
      encryptedPushRegistration: reg.encryptedPushRegistration,
    });
  });
}

/**
 * The outbox job of a registration: any answer of the bouncer, a failure to reach it included,
 * settles the device (the client registers again after a failure, as with Zulip). A device no
 * longer pending needs nothing.
 */
export async function forwardRegistration(app: AppContext, job: PushRegisterJob): Promise<void> {
  const bouncer = configuredPushBouncer(app.config);
  const device = await getPushDevice(app.db, job.userId, job.pushAccountId);
  if (!device || pushDeviceStatus(device) !== "pending") return;
  if (!bouncer) {
    app.log.warn({ user_id: job.userId }, "push: no push notification service configured; registration left pending");
    return;
  }
  const who = { realmId: job.realmId, userId: job.userId };
  let outcome: { bouncer_device_id: string | null; error_code: string | null };
  try {
    const { deviceId } = await bouncer.registerE2eeDevice(await pushUuid(app.db, "realm", job.realmId), job);
    outcome = { bouncer_device_id: deviceId, error_code: null };
  } catch (err) {
    if (!(err instanceof BouncerError)) throw err;
    app.log.warn({ failure: err.failure, user_id: who.userId }, "push: bouncer registration failed");
    outcome = { bouncer_device_id: null, error_code: registrationErrorCode(err.failure) };
  }
  await runAction(app, async (tx, events) => {
    if (await settlePendingPushDevice(tx, device.id, outcome)) sendPushDeviceEvent(events, who, { ...device, ...outcome });
  });
}

/**
 * Seals the test notification for each of the caller's active devices (or the one named) and
 * hands them to the bouncer. Devices the bouncer has forgotten are dropped; if that was all of
 * them, nothing reached a device.
 */
export async function doSendE2eeTestNotification(app: AppContext, caller: Caller, pushAccountId: string | undefined): Promise<void> {
  const devices = (await listPushDevices(app.db, caller.user.id)).filter(
    (d) => d.bouncer_device_id !== null && (pushAccountId === undefined || d.push_account_id === pushAccountId),
  );
  if (!devices.length) throw noActivePushDevice();
  const bouncer = configuredPushBouncer(app.config);
  if (!bouncer) throw adminActionRequired();
  const payload = e2eeTestPayload(pushRealmFacts(app, caller.realm), caller.user.id, app.clock.now());
  const gone = await askBouncer(
    () => sendSealed(app, bouncer, caller.realm.id, caller.user.id, devices, payload),
    (e) => e2eeBouncerError(e.failure),
  );
  if (devices.every((d) => gone.has(d.bouncer_device_id!))) throw noActivePushDevice();
}

/**
 * Seals the payload for each active device, hands them to the bouncer, and drops the devices the
 * bouncer no longer knows. Returns their bouncer ids.
 */
async function sendSealed(
  app: AppContext,
  bouncer: PushBouncer,
  realmId: number,
  userId: number,
  devices: readonly PushDeviceRow[],
  payload: Record<string, unknown>,
): Promise<Set<string>> {
  // The NaCl code is loaded by the first encrypted notification, not by every server start.
  const { seal } = await import("../security/sealed_box.js");
  const plaintext = new TextEncoder().encode(JSON.stringify(payload));
  const encrypted = Object.fromEntries(
    devices.map((d) => [d.bouncer_device_id!, Buffer.from(seal(plaintext, decodePushPublicKey(d.push_public_key))).toString("base64")]),
  );
  const { deleteDeviceIds } = await bouncer.notifyE2ee(await pushUuid(app.db, "realm", realmId), encrypted);
  await deletePushDevicesByBouncerId(app.db, userId, deleteDeviceIds);
  return new Set(deleteDeviceIds);
}

/**
 * Queues, with a new message, its push notifications to the recipients' phones: direct messages
 * and mentions, sealed for E2EE devices and as legacy payloads for legacy tokens, one job for
 * each recipient and kind so that a retry repeats nothing already delivered.
 */
export async function queueMessagePushNotifications(app: AppContext, tx: Tx, events: PendingEvents, notice: Notice): Promise<void> {
  if (!configuredPushBouncer(app.config)) return;
  const message = notice.event.message as PushedMessage;
  for (const userId of notice.userIds) {
    const flags = (notice.perUser?.get(userId)?.flags as string[] | undefined) ?? [];
    if (!pushesMessageTo(message, userId, flags)) continue;
    const job = { realmId: notice.realmId, userId, message: notice.event.message as Record<string, unknown> };
    if ((await listPushDevices(tx, userId)).some((d) => d.bouncer_device_id !== null)) {
      await queueOutboxJob(app, tx, events, "push_message", { ...job, via: "e2ee" });
    }
    if ((await listPushTokens(tx, userId)).length) await queueOutboxJob(app, tx, events, "push_message", { ...job, via: "legacy" });
  }
}

/**
 * The outbox job of a message notification, to the devices the user has now. The bouncer being
 * unreachable or failing is thrown, for the job to be retried; a refusal is logged and ends it.
 */
export async function pushMessageTo(app: AppContext, job: PushMessageJob): Promise<void> {
  const { realmId, userId } = job;
  const message = job.message as unknown as PushedMessage;
  const bouncer = configuredPushBouncer(app.config);
  const realm = await getRealm(app.db, realmId);
  if (!bouncer || !realm) return;
  const facts = pushRealmFacts(app, realm);
  try {
    if (job.via === "e2ee") {
      const devices = (await listPushDevices(app.db, userId)).filter((d) => d.bouncer_device_id !== null);
      if (devices.length) await sendSealed(app, bouncer, realmId, userId, devices, e2eeMessagePayload(facts, userId, message));
    } else if ((await listPushTokens(app.db, userId)).length) {
      await bouncer.notify(await pushIdentity(app.db, realmId, userId), legacyMessagePayloads(facts, userId, message));
    }
  } catch (err) {
    if (!(err instanceof BouncerError) || isTransientBouncerFailure(err.failure)) throw err;
    app.log.warn({ failure: err.failure, user_id: userId, message_id: message.id }, "push: message notification refused by the bouncer");
  }
}

/** The `push_devices` section of POST /register: each E2EE device by push account id. */
export async function pushDevicesRegisterState(
  db: Executor,
  userId: number,
): Promise<{ push_devices: Record<string, { status: string; error_code: string | null }> }> {
  const devices = await listPushDevices(db, userId);
  return {
    push_devices: Object.fromEntries(devices.map((d) => [d.push_account_id, { status: pushDeviceStatus(d), error_code: d.error_code }])),
  };
}

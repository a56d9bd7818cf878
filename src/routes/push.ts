import { endpoint } from "../http/endpoint.js";
import { P, Param } from "../http/params.js";
import { badRequest } from "../http/errors.js";
import { requireHuman } from "../http/guards.js";
import { APNS_APP_ID_PATTERN, decodeInt64 } from "../domain/push.js";
import { TOKEN_KIND_APNS, TOKEN_KIND_FCM } from "../outbound/push_bouncer.js";
import {
  doAddPushToken,
  doRegisterE2eeDevice,
  doRemovePushToken,
  doSendE2eeTestNotification,
  doSendLegacyTestNotification,
} from "../actions/push_devices.js";

/** A JSON integer of up to 64 bits, as decimal text; JSON `null` counts as not sent. */
const int64 = () => new Param<string>(decodeInt64, true, undefined, [], true);

const appId = () =>
  new Param<string>(
    (raw, name) => {
      if (!APNS_APP_ID_PATTERN.test(raw)) throw badRequest(`${name} has invalid format`);
      return raw;
    },
    true,
    undefined,
    [],
    false,
  );

export const pushRoutes = [
  endpoint({
    method: "POST",
    path: "/users/me/apns_device_token",
    guard: requireHuman,
    params: { token: P.string(), appid: appId() },
    handler: async ({ app, caller }, { token, appid }) => doAddPushToken(app, caller, TOKEN_KIND_APNS, token, appid),
  }),

  endpoint({
    method: "DELETE",
    path: "/users/me/apns_device_token",
    guard: requireHuman,
    params: { token: P.string() },
    handler: async ({ app, caller }, { token }) => doRemovePushToken(app, caller, TOKEN_KIND_APNS, token),
  }),

  endpoint({
    method: "POST",
    path: "/users/me/android_gcm_reg_id",
    guard: requireHuman,
    params: { token: P.string() },
    handler: async ({ app, caller }, { token }) => doAddPushToken(app, caller, TOKEN_KIND_FCM, token, null),
  }),

  endpoint({
    method: "DELETE",
    path: "/users/me/android_gcm_reg_id",
    guard: requireHuman,
    params: { token: P.string() },
    handler: async ({ app, caller }, { token }) => doRemovePushToken(app, caller, TOKEN_KIND_FCM, token),
  }),

  endpoint({
    method: "POST",
    path: "/mobile_push/test_notification",
    guard: requireHuman,
    params: { token: P.string().optional() },
    handler: async ({ app, caller }, { token }) => doSendLegacyTestNotification(app, caller, token),
  }),

  endpoint({
    method: "POST",
    path: "/mobile_push/register",
    guard: requireHuman,
    params: {
      token_kind: P.oneOf(["fcm", "apns"] as const),
      push_account_id: int64(),
      push_public_key: P.string(),
      bouncer_public_key: P.string(),
      encrypted_push_registration: P.string(),
    },
    handler: async ({ app, caller }, p) =>
      doRegisterE2eeDevice(app, caller, {
        tokenKind: p.token_kind,
        pushAccountId: p.push_account_id,
        pushPublicKey: p.push_public_key,
        bouncerPublicKey: p.bouncer_public_key,
        encryptedPushRegistration: p.encrypted_push_registration,
      }),
  }),

  endpoint({
    method: "POST",
    path: "/mobile_push/e2ee/test_notification",
    guard: requireHuman,
    params: { push_account_id: int64().optional() },
    handler: async ({ app, caller }, { push_account_id }) => doSendE2eeTestNotification(app, caller, push_account_id),
  }),
];

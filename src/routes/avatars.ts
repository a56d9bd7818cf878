import { endpoint } from "../http/endpoint.js";
import { P } from "../http/params.js";
import { requireRealmAdmin } from "../http/guards.js";
import { filesOf } from "../files/multipart.js";
import { doDeleteAvatar, doDeleteRealmImage, doSetAvatar, doUploadRealmImage } from "../actions/avatars.js";

export const avatarRoutes = [
  endpoint({
    method: "POST",
    path: "/users/me/avatar",
    params: {},
    handler: ({ app, caller, request }) => doSetAvatar(app, caller, filesOf(request)),
  }),

  endpoint({
    method: "DELETE",
    path: "/users/me/avatar",
    params: {},
    handler: ({ app, caller }) => doDeleteAvatar(app, caller),
  }),

  endpoint({
    method: "POST",
    path: "/realm/icon",
    guard: requireRealmAdmin,
    params: {},
    handler: ({ app, caller, request }) => doUploadRealmImage(app, caller, "icon", filesOf(request)),
  }),

  endpoint({
    method: "DELETE",
    path: "/realm/icon",
    guard: requireRealmAdmin,
    params: {},
    handler: ({ app, caller }) => doDeleteRealmImage(app, caller, "icon"),
  }),

  endpoint({
    method: "POST",
    path: "/realm/logo",
    guard: requireRealmAdmin,
    params: { night: P.bool().default(false) },
    handler: ({ app, caller, request }, p) => doUploadRealmImage(app, caller, p.night ? "night_logo" : "logo", filesOf(request)),
  }),

  endpoint({
    method: "DELETE",
    path: "/realm/logo",
    guard: requireRealmAdmin,
    params: { night: P.bool().default(false) },
    handler: ({ app, caller }, p) => doDeleteRealmImage(app, caller, p.night ? "night_logo" : "logo"),
  }),
];

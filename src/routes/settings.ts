import { endpoint } from "../http/endpoint.js";
import { P, type ParamSpecs } from "../http/params.js";
import { requireHuman, requireRealmAdmin } from "../http/guards.js";
import { doUpdateRealmUserDefaults, doUpdateSettings } from "../actions/user_settings.js";
import { REALM_DEFAULT_SETTING_NAMES, SETTING_NAMES, USER_SETTINGS } from "../domain/user_settings.js";

/** Each setting's parameter, typed as the catalog says. */
function settingParams(names: readonly string[]): ParamSpecs {
  const specs: ParamSpecs = {};
  for (const name of names) {
    const { type } = USER_SETTINGS[name].kind;
    specs[name] = type === "bool" ? P.bool().optional() : type === "int" ? P.int().optional() : P.string().optional();
  }
  return specs;
}

/** The settings a request gave, without the ones it left out. */
function given(params: Record<string, unknown>, names: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(names.filter((n) => params[n] !== undefined).map((n) => [n, params[n]]));
}

export const settingsRoutes = [
  endpoint({
    method: "PATCH",
    path: "/settings",
    guard: requireHuman,
    params: {
      ...settingParams(SETTING_NAMES),
      full_name: P.string().optional(),
      email: P.string().optional(),
      old_password: P.string().optional(),
      new_password: P.string().optional(),
      timezone: P.string().optional(),
    },
    handler: async ({ app, caller }, p) =>
      doUpdateSettings(app, caller, {
        fullName: p.full_name,
        email: p.email,
        oldPassword: p.old_password,
        newPassword: p.new_password,
        timezone: p.timezone,
        settings: given(p, SETTING_NAMES),
      }),
  }),

  endpoint({
    method: "PATCH",
    path: "/realm/user_settings_defaults",
    guard: requireRealmAdmin,
    params: settingParams(REALM_DEFAULT_SETTING_NAMES),
    handler: async ({ app, caller }, p) => {
      await doUpdateRealmUserDefaults(app, caller, given(p, REALM_DEFAULT_SETTING_NAMES));
    },
  }),
];

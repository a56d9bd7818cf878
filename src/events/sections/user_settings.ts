/**
 * The caller's personal settings: the modern `user_settings` object and, for clients without the
 * `user_settings_object` capability, the legacy flat keys; and the organization's defaults for
 * new users.
 */
import { registerStateSection, type StateContext } from "../state.js";
import { userProps } from "../../format/users.js";
import {
  EMOJISET_CHOICES,
  NOTIFICATION_SOUNDS,
  SETTING_NAMES,
  USER_SETTINGS,
  settingValues,
} from "../../domain/user_settings.js";
import { realmUserSettingsDefaults } from "../../actions/user_settings.js";

function currentSettings(ctx: StateContext, names: readonly string[]) {
  const values = settingValues(userProps(ctx.user), names);
  if ("presence_enabled" in values) values.presence_enabled = ctx.user.presence_enabled === 1;
  return values;
}

const namesOf = (legacy: "display" | "notification") => SETTING_NAMES.filter((n) => USER_SETTINGS[n].legacy === legacy);

registerStateSection({
  name: "user_settings",
  fetchTypes: ["user_settings"],
  eventTypes: ["user_settings"],
  async fetch(ctx) {
    return {
      user_settings: {
        ...currentSettings(ctx, SETTING_NAMES),
        emojiset_choices: EMOJISET_CHOICES,
        timezone: ctx.user.timezone,
        available_notification_sounds: NOTIFICATION_SOUNDS,
      },
    };
  },
  apply(state, event) {
    if (event.op === "update") (state.user_settings as Record<string, unknown>)[String(event.property)] = event.value;
  },
});

/**
 * The legacy flat keys, for clients without `user_settings_object`. Their own legacy events name
 * the setting in `nameKey` / `valueKey`; modern `user_settings` events update them too.
 */
function legacySettingsSection(type: string, names: readonly string[], extra: Record<string, unknown>, nameKey: string, valueKey: string) {
  registerStateSection({
    name: type,
    fetchTypes: [type],
    eventTypes: [type, "user_settings"],
    async fetch(ctx) {
      if (ctx.options.capabilities.user_settings_object) return {};
      return { ...currentSettings(ctx, names), ...extra, ...(type === "update_display_settings" ? { timezone: ctx.user.timezone } : {}) };
    },
    apply(state, event) {
      const [name, value] = event.type === "user_settings" ? [event.property, event.value] : [event[nameKey], event[valueKey]];
      if (String(name) in state) state[String(name)] = value;
    },
  });
}

legacySettingsSection("update_display_settings", namesOf("display"), { emojiset_choices: EMOJISET_CHOICES }, "setting_name", "setting");
legacySettingsSection(
  "update_global_notifications",
  namesOf("notification"),
  { available_notification_sounds: NOTIFICATION_SOUNDS },
  "notification_name",
  "setting",
);

registerStateSection({
  name: "realm_user_settings_defaults",
  fetchTypes: ["realm_user_settings_defaults"],
  eventTypes: ["realm_user_settings_defaults"],
  async fetch(ctx) {
    return {
      realm_user_settings_defaults: {
        ...realmUserSettingsDefaults(ctx.realm),
        emojiset_choices: EMOJISET_CHOICES,
        available_notification_sounds: NOTIFICATION_SOUNDS,
      },
    };
  },
  apply(state, event) {
    if (event.op === "update") (state.realm_user_settings_defaults as Record<string, unknown>)[String(event.property)] = event.value;
  },
});

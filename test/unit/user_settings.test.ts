import { test } from "node:test";
import assert from "node:assert/strict";
import {
  LANGUAGES,
  REALM_DEFAULT_SETTING_NAMES,
  SETTING_NAMES,
  USER_SETTINGS,
  isKnownTimezone,
  settingRefusal,
  settingValues,
} from "../../src/domain/user_settings.js";

test("every default is a value its setting allows", () => {
  for (const name of SETTING_NAMES) assert.equal(settingRefusal(name, USER_SETTINGS[name].default), null, name);
});

test("enumerated settings refuse other values with Zulip's texts", () => {
  assert.equal(settingRefusal("color_scheme", 4), "Invalid color_scheme");
  assert.equal(settingRefusal("web_channel_default_view", 3), "Invalid web_channel_default_view");
  assert.equal(settingRefusal("web_channel_default_view", 4), null);
  assert.equal(settingRefusal("email_address_visibility", 6), "Invalid email_address_visibility");
  assert.equal(settingRefusal("web_animate_image_previews", "sometimes"), "Invalid web_animate_image_previews");
  assert.equal(settingRefusal("emojiset", "google-blob"), null);
  assert.equal(settingRefusal("default_language", "pt-br"), null);
  assert.equal(settingRefusal("default_language", "klingon"), "Invalid default_language");
  assert.equal(settingRefusal("notification_sound", "none"), null);
  assert.equal(settingRefusal("notification_sound", "gong"), "Invalid notification sound 'gong'");
});

test("the batching period is more than nothing and at most a week", () => {
  assert.equal(settingRefusal("email_notifications_batching_period_seconds", 1), null);
  assert.equal(settingRefusal("email_notifications_batching_period_seconds", 604800), null);
  assert.equal(settingRefusal("email_notifications_batching_period_seconds", 604801), "Invalid email batching period: 604801 seconds");
  assert.equal(settingRefusal("email_notifications_batching_period_seconds", -5), "Invalid email batching period: -5 seconds");
});

test("stored values win over defaults; unknown stored keys are not settings", () => {
  const values = settingValues({ enter_sends: true, pending_email_change: { email: "x" } });
  assert.equal(values.enter_sends, true);
  assert.equal(values.color_scheme, 1);
  assert.ok(!("pending_email_change" in values));
  assert.deepEqual(Object.keys(settingValues({}, ["enter_sends"])), ["enter_sends"]);
});

test("organization defaults leave out what only the person decides", () => {
  for (const n of ["default_language", "allow_private_data_export", "enable_login_emails", "enable_marketing_emails"]) {
    assert.ok(!REALM_DEFAULT_SETTING_NAMES.includes(n), n);
  }
  assert.ok(REALM_DEFAULT_SETTING_NAMES.includes("email_address_visibility"));
  assert.equal(LANGUAGES.en, "English");
});

test("timezones: IANA names or none", () => {
  assert.equal(isKnownTimezone(""), true);
  assert.equal(isKnownTimezone("America/New_York"), true);
  assert.equal(isKnownTimezone("UTC"), true);
  assert.equal(isKnownTimezone("Mars/Olympus"), false);
  assert.equal(isKnownTimezone("America/Argentina/ComodRivadavia"), true);
  assert.equal(isKnownTimezone("Etc/GMT+5"), true);
  assert.equal(isKnownTimezone(" UTC"), false);
  assert.equal(isKnownTimezone("UTC\u0000"), false);
  assert.equal(isKnownTimezone("A".repeat(100_000)), false);
});

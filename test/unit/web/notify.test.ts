/** Which new messages notify on the desktop and by sound, by Zulip's rules. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { notificationsFor, type ChannelNotifySettings, type NotifyContext, type NotifyMessage, type NotifySettings } from "../../../web/src/state/notify.js";

const ME = 1;
const OTHER = 2;
const MUTED_USER = 3;
const CHANNEL = 10;

const DEFAULTS: NotifySettings = {
  enable_desktop_notifications: true,
  enable_sounds: true,
  enable_stream_desktop_notifications: false,
  enable_stream_audible_notifications: false,
  enable_followed_topic_desktop_notifications: true,
  enable_followed_topic_audible_notifications: true,
  enable_followed_topic_wildcard_mentions_notify: true,
  wildcard_mentions_notify: true,
  notification_sound: "zulip",
};

function context(settings: Partial<NotifySettings> = {}, channel: Partial<ChannelNotifySettings> = {}, policies: Record<string, number> = {}): NotifyContext {
  return {
    myId: ME,
    settings: { ...DEFAULTS, ...settings },
    channel: (id) => (id === CHANNEL ? { is_muted: false, desktop_notifications: null, audible_notifications: null, wildcard_mentions_notify: null, ...channel } : undefined),
    topicPolicy: (id, topic) => policies[`${id}:${topic}`],
    senderMuted: (id) => id === MUTED_USER,
  };
}

const inChannel = (flags: string[] = [], topic = "lunch", sender = OTHER): NotifyMessage => ({ type: "stream", stream_id: CHANNEL, subject: topic, sender_id: sender, flags });
const direct = (flags: string[] = [], sender = OTHER): NotifyMessage => ({ type: "private", subject: "", sender_id: sender, flags });
const both = { desktop: true, sound: true };
const neither = { desktop: false, sound: false };

test("direct messages, mentions and alert words notify by the general switches; plain channel messages do not", () => {
  assert.deepEqual(notificationsFor(direct(), context()), both);
  assert.deepEqual(notificationsFor(inChannel(["mentioned"]), context()), both);
  assert.deepEqual(notificationsFor(inChannel(["has_alert_word"]), context()), both);
  assert.deepEqual(notificationsFor(inChannel(), context()), neither);
  assert.deepEqual(notificationsFor(direct(), context({ enable_desktop_notifications: false })), { desktop: false, sound: true });
  assert.deepEqual(notificationsFor(direct(), context({ enable_sounds: false })), { desktop: true, sound: false });
});

test("one's own, already read and muted senders' messages never notify", () => {
  assert.deepEqual(notificationsFor(direct([], ME), context()), neither);
  assert.deepEqual(notificationsFor(direct(["read"]), context()), neither);
  assert.deepEqual(notificationsFor(direct([], MUTED_USER), context()), neither);
});

test("a channel's own setting covers all its messages; null falls back to the user's default for channels", () => {
  assert.deepEqual(notificationsFor(inChannel(), context({}, { desktop_notifications: true })), { desktop: true, sound: false });
  assert.deepEqual(notificationsFor(inChannel(), context({ enable_stream_audible_notifications: true })), { desktop: false, sound: true });
  assert.deepEqual(notificationsFor(inChannel(), context({ enable_stream_desktop_notifications: true }, { desktop_notifications: false })), neither);
  // The channel's setting applies even with the general switches off.
  assert.deepEqual(notificationsFor(inChannel(), context({ enable_desktop_notifications: false }, { desktop_notifications: true })), { desktop: true, sound: false });
});

test("muted channels and topics are quiet, except for direct mentions and followed or unmuted topics", () => {
  const mutedChannel = { is_muted: true, desktop_notifications: true };
  assert.deepEqual(notificationsFor(inChannel(), context({}, mutedChannel)), neither);
  assert.deepEqual(notificationsFor(inChannel(["has_alert_word"]), context({}, mutedChannel)), neither);
  assert.deepEqual(notificationsFor(inChannel(["mentioned"]), context({}, mutedChannel)), both);
  assert.deepEqual(notificationsFor(inChannel([], "lunch"), context({}, mutedChannel, { [`${CHANNEL}:lunch`]: 2 })), { desktop: true, sound: false });
  assert.deepEqual(notificationsFor(inChannel(["has_alert_word"]), context({}, {}, { [`${CHANNEL}:lunch`]: 1 })), neither);
  assert.deepEqual(notificationsFor(inChannel(["mentioned"]), context({}, {}, { [`${CHANNEL}:lunch`]: 1 })), both);
});

test("followed topics notify by their own switches, even in a muted channel", () => {
  const followed = { [`${CHANNEL}:lunch`]: 3 };
  assert.deepEqual(notificationsFor(inChannel(), context({}, { is_muted: true }, followed)), both);
  assert.deepEqual(notificationsFor(inChannel(), context({ enable_followed_topic_desktop_notifications: false }, {}, followed)), { desktop: false, sound: true });
  assert.deepEqual(notificationsFor(inChannel([], "other"), context({}, {}, followed)), neither);
});

test("wildcard mentions follow wildcard_mentions_notify, the channel's override, and the followed-topic switch", () => {
  for (const flag of ["stream_wildcard_mentioned", "topic_wildcard_mentioned"]) {
    assert.deepEqual(notificationsFor(inChannel([flag]), context()), both);
    assert.deepEqual(notificationsFor(inChannel([flag]), context({ wildcard_mentions_notify: false })), neither);
    assert.deepEqual(notificationsFor(inChannel([flag]), context({ wildcard_mentions_notify: false }, { wildcard_mentions_notify: true })), both);
    assert.deepEqual(notificationsFor(inChannel([flag]), context({}, { wildcard_mentions_notify: false })), neither);
    // Muting silences wildcard mentions, unlike direct ones.
    assert.deepEqual(notificationsFor(inChannel([flag]), context({}, { is_muted: true })), neither);
    assert.deepEqual(
      notificationsFor(inChannel([flag]), context({ wildcard_mentions_notify: false, enable_followed_topic_desktop_notifications: false, enable_followed_topic_audible_notifications: false }, {}, { [`${CHANNEL}:lunch`]: 3 })),
      both,
    );
  }
});

test("the sound \"none\" silences everything; desktop notifications are unaffected", () => {
  assert.deepEqual(notificationsFor(direct(), context({ notification_sound: "none" })), { desktop: true, sound: false });
  assert.deepEqual(notificationsFor(inChannel(), context({ notification_sound: "none", enable_stream_audible_notifications: true })), neither);
});

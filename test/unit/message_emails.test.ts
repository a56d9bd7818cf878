import { test, describe } from "node:test";
import assert from "node:assert/strict";
import {
  TOPIC_POLICY,
  allowsInChannel,
  batchDueAt,
  bucketsOf,
  emailTrigger,
  groupDmDisplayName,
  hotTopics,
  includeRealmName,
  isAway,
  notificationSubject,
  zulipWeekday,
  type EmailRecipientFacts,
} from "../../src/domain/message_emails.js";

const SETTINGS: EmailRecipientFacts["settings"] = {
  enable_offline_email_notifications: true,
  enable_stream_email_notifications: false,
  wildcard_mentions_notify: true,
  enable_followed_topic_email_notifications: true,
  enable_followed_topic_wildcard_mentions_notify: true,
};

type FactsOverride = Omit<Partial<EmailRecipientFacts>, "settings"> & { settings?: Partial<EmailRecipientFacts["settings"]> };
const facts = (over: FactsOverride = {}): EmailRecipientFacts => ({
  userId: 2,
  isBot: false,
  senderId: 1,
  senderMuted: false,
  directMessage: false,
  mentioned: false,
  streamWildcardMentioned: false,
  topicWildcardMentioned: false,
  ...over,
  settings: { ...SETTINGS, ...over.settings },
});

describe("who is emailed about a message, and why", () => {
  test("DMs and mentions follow enable_offline_email_notifications", () => {
    assert.equal(emailTrigger(facts({ directMessage: true })), "private_message");
    assert.equal(emailTrigger(facts({ directMessage: true, settings: { enable_offline_email_notifications: false } })), null);
    assert.equal(emailTrigger(facts({ mentioned: true })), "mentioned");
    assert.equal(emailTrigger(facts({ mentioned: true, settings: { enable_offline_email_notifications: false } })), null);
  });

  test("never the sender, a bot, or someone who muted the sender", () => {
    assert.equal(emailTrigger(facts({ directMessage: true, userId: 1 })), null);
    assert.equal(emailTrigger(facts({ directMessage: true, isBot: true })), null);
    assert.equal(emailTrigger(facts({ directMessage: true, senderMuted: true })), null);
  });

  test("a personal mention wins over muting; wildcards do not", () => {
    const muted = { subscription: { isMuted: true, emailNotifications: null, wildcardMentionsNotify: null } };
    assert.equal(emailTrigger(facts({ mentioned: true, ...muted })), "mentioned");
    assert.equal(emailTrigger(facts({ streamWildcardMentioned: true, ...muted })), null);
    assert.equal(emailTrigger(facts({ topicWildcardMentioned: true, topicPolicy: TOPIC_POLICY.muted })), null);
  });

  test("wildcards follow the channel's setting, then the personal one; followed topics have their own", () => {
    assert.equal(emailTrigger(facts({ streamWildcardMentioned: true })), "stream_wildcard_mentioned");
    assert.equal(emailTrigger(facts({ topicWildcardMentioned: true })), "topic_wildcard_mentioned");
    assert.equal(emailTrigger(facts({ streamWildcardMentioned: true, settings: { wildcard_mentions_notify: false } })), null);
    const channelOn = { subscription: { isMuted: false, emailNotifications: null, wildcardMentionsNotify: true } };
    assert.equal(emailTrigger(facts({ streamWildcardMentioned: true, ...channelOn, settings: { wildcard_mentions_notify: false } })), "stream_wildcard_mentioned");
    const followed = { topicPolicy: TOPIC_POLICY.followed, settings: { wildcard_mentions_notify: false } };
    assert.equal(emailTrigger(facts({ streamWildcardMentioned: true, ...followed })), "stream_wildcard_mentioned_in_followed_topic");
    assert.equal(emailTrigger(facts({ topicWildcardMentioned: true, ...followed })), "topic_wildcard_mentioned_in_followed_topic");
  });

  test("channel traffic: followed topics, then the channel's email setting over the personal one, muting first", () => {
    assert.equal(emailTrigger(facts()), null);
    assert.equal(emailTrigger(facts({ topicPolicy: TOPIC_POLICY.followed })), "followed_topic_email_notify");
    assert.equal(emailTrigger(facts({ topicPolicy: TOPIC_POLICY.followed, settings: { enable_followed_topic_email_notifications: false } })), null);
    assert.equal(emailTrigger(facts({ settings: { enable_stream_email_notifications: true } })), "stream_email_notify");
    const channelOff = { subscription: { isMuted: false, emailNotifications: false, wildcardMentionsNotify: null } };
    assert.equal(emailTrigger(facts({ ...channelOff, settings: { enable_stream_email_notifications: true } })), null);
    assert.equal(emailTrigger(facts({ topicPolicy: TOPIC_POLICY.muted, settings: { enable_stream_email_notifications: true } })), null);
    // An unmuted topic of a muted channel still notifies.
    assert.equal(allowsInChannel(true, TOPIC_POLICY.unmuted, null, true), true);
    assert.equal(allowsInChannel(true, TOPIC_POLICY.inherit, true, true), false);
  });

  test("the most salient trigger is chosen", () => {
    assert.equal(emailTrigger(facts({ mentioned: true, streamWildcardMentioned: true, settings: { enable_stream_email_notifications: true } })), "mentioned");
  });
});

describe("away, batches and subjects", () => {
  test("away: no queue receiving messages, or no activity within the threshold", () => {
    assert.equal(isAway(false, 1000, 1000, 200), true);
    assert.equal(isAway(true, 900, 1000, 200), false);
    assert.equal(isAway(true, 799, 1000, 200), true);
    assert.equal(isAway(true, null, 1000, 200), true);
  });

  test("a notification joins the batch already waiting", () => {
    assert.equal(batchDueAt(undefined, 1000, 120), 1120);
    assert.equal(batchDueAt(1050, 1000, 120), 1050);
  });

  test("one bucket per topic (any case), per one-on-one sender and per group DM, oldest conversation first", () => {
    const channel = (id: number, topic: string) => ({ id, senderId: 1, recipientId: 10, streamId: 5, topic, participantIds: null });
    const dm = (id: number, senderId: number) => ({ id, senderId, recipientId: 20, streamId: null, topic: "", participantIds: [senderId, 9] });
    const group = (id: number) => ({ id, senderId: 3, recipientId: 30, streamId: null, topic: "", participantIds: [3, 4, 9] });
    const buckets = bucketsOf([channel(5, "Lunch"), dm(2, 1), channel(1, "lunch"), group(3), dm(4, 7), channel(6, "other")]);
    assert.deepEqual(
      buckets.map((b) => b.map((m) => m.id)),
      [[2], [3], [4], [1, 5], [6]],
    );
  });

  test("subjects as Zulip words them", () => {
    assert.equal(notificationSubject({ kind: "channel", channelName: "design", topic: "logo" }, true, null), "#design > logo");
    assert.equal(notificationSubject({ kind: "channel", channelName: "design", topic: "✔ logo" }, true, null), "[resolved] #design > logo");
    assert.equal(notificationSubject({ kind: "dm", senderNames: ["Ann"] }, true, "Acme"), "DMs with Ann [Acme]");
    assert.equal(notificationSubject({ kind: "group", otherNames: ["Ann", "Bo"] }, true, null), "Group DMs with Ann and Bo");
    assert.equal(notificationSubject({ kind: "dm", senderNames: ["Ann"] }, false, null), "New messages");
    assert.equal(groupDmDisplayName(["A", "B", "C"]), "A, B, and C");
    assert.equal(groupDmDisplayName(["A", "B", "C", "D", "E"]), "A, B, and 3 others");
  });

  test("the organization's name: automatic shows it for addresses in several organizations", () => {
    assert.equal(includeRealmName(1, 1), false);
    assert.equal(includeRealmName(1, 2), true);
    assert.equal(includeRealmName(2, 1), true);
    assert.equal(includeRealmName(3, 5), false);
  });
});

describe("digests", () => {
  test("hot topics: the two with the most senders, then the longest, four at most", () => {
    const t = (firstMessageId: number, length: number, diversity: number) => ({ streamId: 1, topic: `t${firstMessageId}`, length, diversity, firstMessageId });
    const topics = [t(1, 50, 1), t(2, 3, 3), t(3, 4, 4), t(4, 10, 2), t(5, 20, 1), t(6, 1, 1)];
    assert.deepEqual(hotTopics(topics).map((x) => x.firstMessageId), [3, 2, 1, 5]);
    assert.deepEqual(hotTopics([t(1, 1, 1)]).map((x) => x.firstMessageId), [1]);
  });

  test("weekdays count from Monday, as the organization's digest_weekday does", () => {
    assert.equal(zulipWeekday(Date.UTC(2026, 10, 23) / 1000), 0); // a Monday
    assert.equal(zulipWeekday(Date.UTC(2026, 10, 29, 23) / 1000), 6);
  });
});

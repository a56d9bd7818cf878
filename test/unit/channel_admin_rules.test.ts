import { test, describe } from "node:test";
import assert from "node:assert/strict";
import {
  canEditTopic,
  canMoveMessagesOutOfChannel,
  canMoveMessagesWithinChannel,
  canResolveTopics,
  canSetTopicsPolicy,
  deleteMessageRefusal,
  holdsRealmPermission,
  type ChannelFacts,
  type UserFacts,
} from "../../src/domain/channel_access.js";
import { permissionPolicyName, proposeChannelPrivacy } from "../../src/domain/channels.js";
import { CHANNEL_SETTINGS_IN_MODEL_ORDER, channelSettingConfig, checkedRetentionDays, retentionPeriodText } from "../../src/domain/channel_settings.js";
import {
  checkEditPayload,
  describeTopicChange,
  moveDeadlineSeconds,
  moveTimeLimitExceeded,
  pastDeadline,
  requestedTopic,
  topicLinkSyntax,
  type EditPayload,
} from "../../src/domain/message_edit.js";
import { CHANNEL_GROUP_SETTINGS } from "../../src/store/schema.js";
import { Role } from "../../src/domain/roles.js";
import { ZulipError } from "../../src/http/errors.js";

// Group ids: 10 everyone, 11 members, 12 admins, 13 nobody, 14 moderators; 20+ other groups.
const [EVERYONE, MEMBERS, ADMINS, NOBODY, MODERATORS] = [10, 11, 12, 13, 14];

function user(role: number, extra: number[] = []): UserFacts {
  const groups = new Set<number>([EVERYONE, ...extra]);
  if (role !== Role.GUEST) groups.add(MEMBERS);
  if (role <= Role.MODERATOR) groups.add(MODERATORS);
  if (role <= Role.ADMINISTRATOR) groups.add(ADMINS);
  return { id: 1, role, isBot: false, groups };
}

function channel(groups: Partial<ChannelFacts["groups"]> = {}): ChannelFacts {
  return {
    inviteOnly: false,
    isWebPublic: false,
    historyPublicToSubscribers: true,
    isArchived: false,
    groups: {
      ...(Object.fromEntries(CHANNEL_GROUP_SETTINGS.map((s) => [s, NOBODY])) as ChannelFacts["groups"]),
      can_send_message_group: EVERYONE,
      ...groups,
    },
  };
}

const realm = {
  can_delete_any_message_group: ADMINS,
  can_delete_own_message_group: EVERYONE,
  can_move_messages_between_channels_group: MEMBERS,
  can_move_messages_between_topics_group: EVERYONE,
  can_resolve_topics_group: EVERYONE,
  can_set_topics_policy_group: MEMBERS,
};
const admin = user(Role.ADMINISTRATOR);
const moderator = user(Role.MODERATOR);
const member = user(Role.MEMBER);
const guest = user(Role.GUEST);

const msgOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    return (e as ZulipError).msg;
  }
  return null;
};

describe("organization permissions", () => {
  test("settings that refuse role:everyone never grant guests anything", () => {
    const everyoneEverywhere = { ...realm, can_delete_any_message_group: EVERYONE, can_move_messages_between_topics_group: EVERYONE };
    assert.equal(holdsRealmPermission(guest, everyoneEverywhere, "can_delete_any_message_group"), false);
    assert.equal(holdsRealmPermission(member, everyoneEverywhere, "can_delete_any_message_group"), true);
    assert.equal(holdsRealmPermission(guest, everyoneEverywhere, "can_move_messages_between_topics_group"), true);
  });

  test("administrators may always set the topics policy", () => {
    const nobody = { ...realm, can_set_topics_policy_group: NOBODY };
    assert.equal(canSetTopicsPolicy(admin, nobody), true);
    assert.equal(canSetTopicsPolicy(moderator, nobody), false);
    assert.equal(canSetTopicsPolicy(member, realm), true);
  });
});

describe("moving messages", () => {
  test("within a channel: administrators, channel administrators, or the channel's group", () => {
    const c = channel({ can_administer_channel_group: 20, can_move_messages_within_channel_group: 21 });
    assert.equal(canMoveMessagesWithinChannel(admin, c), true);
    assert.equal(canMoveMessagesWithinChannel(user(Role.MEMBER, [20]), c), true);
    assert.equal(canMoveMessagesWithinChannel(user(Role.GUEST, [21]), c), true, "this group accepts everyone");
    assert.equal(canMoveMessagesWithinChannel(moderator, c), false);
  });

  test("changing a topic: the organization's group, or either channel's", () => {
    const nobody = { ...realm, can_move_messages_between_topics_group: NOBODY };
    const origin = channel({ can_move_messages_within_channel_group: 20 });
    const target = channel({ can_move_messages_within_channel_group: 21 });
    assert.equal(canEditTopic(member, realm, channel(), channel()), true);
    assert.equal(canEditTopic(member, nobody, channel(), channel()), false);
    assert.equal(canEditTopic(user(Role.MEMBER, [20]), nobody, origin, channel()), true);
    assert.equal(canEditTopic(user(Role.MEMBER, [21]), nobody, channel(), target), true);
  });

  test("resolving: its own organization and channel groups", () => {
    const nobody = { ...realm, can_resolve_topics_group: NOBODY };
    assert.equal(canResolveTopics(member, nobody, channel(), channel()), false);
    assert.equal(canResolveTopics(member, nobody, channel({ can_resolve_topics_group: MEMBERS }), channel()), true);
    assert.equal(canResolveTopics(member, nobody, channel(), channel({ can_resolve_topics_group: MEMBERS })), true);
    assert.equal(canResolveTopics(admin, nobody, channel(), channel()), false, "no implicit administrator power");
  });

  test("out of a channel: administrators, the organization's movers, channel administrators, the channel's group", () => {
    const nobody = { ...realm, can_move_messages_between_channels_group: NOBODY };
    assert.equal(canMoveMessagesOutOfChannel(member, realm, channel()), true);
    assert.equal(canMoveMessagesOutOfChannel(guest, { ...realm, can_move_messages_between_channels_group: EVERYONE }, channel()), false);
    assert.equal(canMoveMessagesOutOfChannel(member, nobody, channel()), false);
    assert.equal(canMoveMessagesOutOfChannel(admin, nobody, channel()), true);
    assert.equal(canMoveMessagesOutOfChannel(user(Role.MEMBER, [20]), nobody, channel({ can_administer_channel_group: 20 })), true);
    assert.equal(canMoveMessagesOutOfChannel(member, nobody, channel({ can_move_messages_out_of_channel_group: MEMBERS })), true);
  });
});

describe("deleting messages", () => {
  const mine = { senderId: 1, senderBotOwnerId: null, ageSeconds: 10 };
  const theirs = { senderId: 2, senderBotOwnerId: null, ageSeconds: 10 };
  const myBots = { senderId: 3, senderBotOwnerId: 1, ageSeconds: 10 };

  test("delete-any permissions need nothing more", () => {
    assert.equal(deleteMessageRefusal(admin, realm, { ...theirs, ageSeconds: 1e9 }, channel(), 5), null);
    assert.equal(deleteMessageRefusal(moderator, realm, theirs, channel({ can_delete_any_message_group: MODERATORS }), null), null);
    assert.equal(deleteMessageRefusal(moderator, realm, theirs, null, null), "not_allowed");
  });

  test("own messages, and one's bots', within the time limit", () => {
    assert.equal(deleteMessageRefusal(member, realm, mine, channel(), null), null);
    assert.equal(deleteMessageRefusal(member, realm, myBots, channel(), null), null);
    assert.equal(deleteMessageRefusal(member, realm, theirs, channel(), null), "not_allowed");
    assert.equal(deleteMessageRefusal(member, realm, { ...mine, ageSeconds: 61 }, channel(), 60), "time_limit");
    assert.equal(deleteMessageRefusal(member, realm, { ...mine, ageSeconds: 60 }, channel(), 60), null);
  });

  test("own-deletion: the organization's group or the channel's", () => {
    const nobody = { ...realm, can_delete_own_message_group: NOBODY };
    assert.equal(deleteMessageRefusal(member, nobody, mine, channel(), null), "not_allowed");
    assert.equal(deleteMessageRefusal(member, nobody, mine, channel({ can_delete_own_message_group: MEMBERS }), null), null);
    assert.equal(deleteMessageRefusal(guest, realm, mine, null, null), null, "role:everyone includes guests");
  });
});

describe("channel privacy", () => {
  const pub = { inviteOnly: false, isWebPublic: false, historyPublicToSubscribers: true, isDefault: false };
  const priv = { inviteOnly: true, isWebPublic: false, historyPublicToSubscribers: false, isDefault: false };

  test("only Zulip's four policies", () => {
    assert.equal(msgOf(() => proposeChannelPrivacy(pub, { historyPublicToSubscribers: false })), "Invalid parameters");
    assert.equal(msgOf(() => proposeChannelPrivacy(pub, { isWebPublic: true, isPrivate: true })), "Invalid parameters");
    assert.equal(msgOf(() => proposeChannelPrivacy(pub, { isWebPublic: true, historyPublicToSubscribers: false })), "Invalid parameters");
    assert.equal(msgOf(() => proposeChannelPrivacy(priv, { isWebPublic: true })), "Invalid parameters");
    assert.deepEqual(proposeChannelPrivacy(pub, { isWebPublic: true }), { inviteOnly: false, isWebPublic: true, historyPublicToSubscribers: true });
  });

  test("history follows is_private unless given", () => {
    assert.deepEqual(proposeChannelPrivacy(pub, { isPrivate: true }), { inviteOnly: true, isWebPublic: false, historyPublicToSubscribers: false });
    assert.deepEqual(proposeChannelPrivacy(priv, { isPrivate: false }), { inviteOnly: false, isWebPublic: false, historyPublicToSubscribers: true });
    assert.deepEqual(proposeChannelPrivacy(pub, { isPrivate: true, historyPublicToSubscribers: true }).historyPublicToSubscribers, true);
    assert.deepEqual(proposeChannelPrivacy(priv, { historyPublicToSubscribers: true }), { inviteOnly: true, isWebPublic: false, historyPublicToSubscribers: true });
  });

  test("default channels stay public", () => {
    const def = { ...pub, isDefault: true };
    assert.equal(msgOf(() => proposeChannelPrivacy(def, { isPrivate: true })), "A default channel cannot be private.");
    assert.equal(proposeChannelPrivacy(def, { isPrivate: true, isDefault: false }).inviteOnly, true);
    assert.equal(msgOf(() => proposeChannelPrivacy(priv, { isDefault: true })), "A default channel cannot be private.");
  });

  test("policy names for notices", () => {
    assert.equal(permissionPolicyName({ inviteOnly: false, isWebPublic: true, historyPublicToSubscribers: true }), "Web-public");
    assert.equal(permissionPolicyName(pub), "Public");
    assert.equal(permissionPolicyName({ ...priv, historyPublicToSubscribers: true }), "Private, shared history");
    assert.equal(permissionPolicyName(priv), "Private, protected history");
  });
});

describe("channel settings", () => {
  test("retention days", () => {
    assert.equal(checkedRetentionDays("realm_default"), null);
    assert.equal(checkedRetentionDays("unlimited"), -1);
    assert.equal(checkedRetentionDays(7), 7);
    for (const bad of [0, -1, "seven", 1.5]) {
      assert.throws(() => checkedRetentionDays(bad), (e: ZulipError) => e.code === "REQUEST_VARIABLE_INVALID" && e.msg === `Bad value for 'message_retention_days': ${bad}`);
    }
    assert.equal(retentionPeriodText(-1), "Forever");
    assert.equal(retentionPeriodText(30), "30 days");
  });

  test("every setting is updated, in Zulip's model order, with its own config", () => {
    assert.deepEqual([...CHANNEL_SETTINGS_IN_MODEL_ORDER].sort(), [...CHANNEL_GROUP_SETTINGS].sort());
    assert.equal(channelSettingConfig("can_add_subscribers_group").allowEveryoneGroup, false);
    assert.equal(channelSettingConfig("can_send_message_group").allowEveryoneGroup, true);
    assert.equal(channelSettingConfig("can_send_message_group").allowInternetGroup, false);
  });
});

describe("message edit requests", () => {
  const base: EditPayload = { isChannelMessage: true, streamId: undefined, topic: null, propagateMode: "change_one", content: undefined };

  test("the requested topic: stripped, aliases read as the empty topic, unchanged means none", () => {
    assert.equal(requestedTopic(undefined, "a"), null);
    assert.equal(requestedTopic("  a  ", "a"), null);
    assert.equal(requestedTopic("(no topic)", "a"), "");
    assert.equal(requestedTopic("general chat", ""), null);
    assert.equal(requestedTopic(" b", "a"), "b");
  });

  test("payload errors, in Zulip's order", () => {
    assert.equal(msgOf(() => checkEditPayload(base)), "Nothing to change");
    assert.equal(msgOf(() => checkEditPayload({ ...base, isChannelMessage: false, streamId: 1, topic: "x" })), "Direct messages cannot be moved to channels.");
    assert.equal(msgOf(() => checkEditPayload({ ...base, isChannelMessage: false, topic: "x" })), "Direct messages cannot have topics.");
    assert.equal(msgOf(() => checkEditPayload({ ...base, content: "x", propagateMode: "change_later" })), "Invalid propagate_mode without topic edit");
    assert.equal(msgOf(() => checkEditPayload({ ...base, topic: "✔" })), "General chat cannot be marked as resolved");
    assert.equal(msgOf(() => checkEditPayload({ ...base, topic: "ok\u200f\u0007" })), "Invalid character in topic, at position 4!");
    assert.equal(msgOf(() => checkEditPayload({ ...base, streamId: 3, content: "x" })), "Cannot change message content while changing channel");
    assert.equal(msgOf(() => checkEditPayload({ ...base, streamId: 3, propagateMode: "change_all" })), null);
  });

  test("resolving and unresolving are recognised only as exactly that", () => {
    assert.deepEqual(describeTopicChange("bug", "✔ bug"), { target: "✔ bug", resolved: true, unresolved: false });
    assert.deepEqual(describeTopicChange("✔ bug", "bug"), { target: "bug", resolved: false, unresolved: true });
    assert.deepEqual(describeTopicChange("✔ ✔bug", "bug"), { target: "bug", resolved: false, unresolved: true });
    assert.deepEqual(describeTopicChange("bug", "✔ other"), { target: "✔ other", resolved: false, unresolved: false });
    assert.deepEqual(describeTopicChange("✔ bug", "other"), { target: "other", resolved: false, unresolved: false });
    const long = "x".repeat(60);
    assert.deepEqual(describeTopicChange(long, `✔ ${long}`), { target: `✔ ${"x".repeat(55)}...`, resolved: true, unresolved: false });
  });

  test("deadlines have a 20-second grace; change_all takes the stricter one that applies", () => {
    assert.equal(pastDeadline(620, 600), false);
    assert.equal(pastDeadline(621, 600), true);
    assert.equal(pastDeadline(1e9, null), false);
    const limits = { withinChannel: 100, betweenChannels: 50 };
    assert.equal(moveDeadlineSeconds(true, false, limits), 120);
    assert.equal(moveDeadlineSeconds(false, true, limits), 70);
    assert.equal(moveDeadlineSeconds(true, true, limits), 70);
    assert.equal(moveDeadlineSeconds(true, true, { withinChannel: null, betweenChannels: null }), null);
  });

  test("the time-limit error carries what may be moved", () => {
    const e = moveTimeLimitExceeded([7, 8], 5);
    assert.deepEqual([e.msg, e.code, e.data], [
      "You only have permission to move the 2/5 most recent messages in this topic.",
      "MOVE_MESSAGES_TIME_LIMIT_EXCEEDED",
      { first_message_id_allowed_to_move: 7, total_messages_in_topic: 5, total_messages_allowed_to_move: 2 },
    ]);
    assert.equal(moveTimeLimitExceeded([], 3).data.first_message_id_allowed_to_move, null);
    assert.equal(topicLinkSyntax("dev", "bugs"), "#**dev>bugs**");
  });
});

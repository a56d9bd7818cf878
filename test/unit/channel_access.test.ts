import { test, describe } from "node:test";
import assert from "node:assert/strict";
import {
  administerAccess,
  canAccessHistory,
  canAdminister,
  canRemoveSubscribers,
  cannotAddSubscribers,
  channelCreationRefusal,
  hasBasicAccess,
  hasContentAccess,
  hasMetadataAccess,
  postRefusal,
  type ChannelFacts,
  type UserFacts,
} from "../../src/domain/channel_access.js";
import { Role } from "../../src/domain/roles.js";

// Group ids: 10 everyone, 11 members, 12 admins, 13 nobody, 20..29 channel-specific groups.
const EVERYONE = 10;
const MEMBERS = 11;
const ADMINS = 12;
const NOBODY = 13;

function channel(over: Partial<ChannelFacts> = {}, groups: Partial<ChannelFacts["groups"]> = {}): ChannelFacts {
  return {
    inviteOnly: false,
    isWebPublic: false,
    historyPublicToSubscribers: true,
    isArchived: false,
    ...over,
    groups: {
      can_add_subscribers_group: NOBODY,
      can_administer_channel_group: NOBODY,
      can_delete_any_message_group: NOBODY,
      can_delete_own_message_group: NOBODY,
      can_move_messages_out_of_channel_group: NOBODY,
      can_move_messages_within_channel_group: NOBODY,
      can_remove_subscribers_group: ADMINS,
      can_resolve_topics_group: NOBODY,
      can_send_message_group: EVERYONE,
      can_subscribe_group: NOBODY,
      ...groups,
    },
  };
}

function user(role: number, extra: number[] = [], isBot = false): UserFacts {
  const groups = new Set<number>([EVERYONE, ...extra]);
  if (role !== Role.GUEST) groups.add(MEMBERS);
  if (role <= Role.ADMINISTRATOR) groups.add(ADMINS);
  return { id: 1, role, isBot, groups };
}

const owner = user(Role.OWNER);
const admin = user(Role.ADMINISTRATOR);
const moderator = user(Role.MODERATOR);
const member = user(Role.MEMBER);
const guest = user(Role.GUEST);
const publicChannel = channel();
const privateChannel = channel({ inviteOnly: true, historyPublicToSubscribers: false });
const privateShared = channel({ inviteOnly: true });
const webPublic = channel({ isWebPublic: true });

describe("content access", () => {
  test("public channels are readable by every non-guest", () => {
    for (const u of [owner, admin, moderator, member]) assert.equal(hasContentAccess(u, publicChannel, false), true);
    assert.equal(hasContentAccess(guest, publicChannel, false), false);
    assert.equal(hasContentAccess(guest, publicChannel, true), true);
  });

  test("web-public channels are readable by everyone, guests included", () => {
    assert.equal(hasContentAccess(guest, webPublic, false), true);
  });

  test("private channels need a subscription or a content-granting group", () => {
    for (const u of [owner, admin, member, guest]) {
      assert.equal(hasContentAccess(u, privateChannel, false), false);
      assert.equal(hasContentAccess(u, privateChannel, true), true);
    }
    const viaSubscribe = channel({ inviteOnly: true }, { can_subscribe_group: 20 });
    const viaAdd = channel({ inviteOnly: true }, { can_add_subscribers_group: 21 });
    assert.equal(hasContentAccess(user(Role.MEMBER, [20]), viaSubscribe, false), true);
    assert.equal(hasContentAccess(user(Role.MEMBER, [21]), viaAdd, false), true);
    assert.equal(hasContentAccess(user(Role.MEMBER, [22]), viaAdd, false), false);
  });

  test("guests never gain access through groups that exclude everyone", () => {
    const c = channel({ inviteOnly: true }, { can_subscribe_group: 20, can_add_subscribers_group: 20 });
    assert.equal(hasContentAccess(user(Role.GUEST, [20]), c, false), false);
  });
});

describe("metadata access", () => {
  test("admins see private channels they cannot read", () => {
    assert.equal(hasMetadataAccess(admin, privateChannel, false), true);
    assert.equal(hasMetadataAccess(owner, privateChannel, false), true);
    assert.equal(hasMetadataAccess(moderator, privateChannel, false), false);
    assert.equal(hasContentAccess(admin, privateChannel, false), false);
  });

  test("the administer, add-subscribers and subscribe groups grant metadata access", () => {
    for (const setting of ["can_administer_channel_group", "can_add_subscribers_group", "can_subscribe_group"] as const) {
      const c = channel({ inviteOnly: true }, { [setting]: 20 });
      assert.equal(hasMetadataAccess(user(Role.MEMBER, [20]), c, false), true, setting);
      assert.equal(hasMetadataAccess(user(Role.GUEST, [20]), c, false), false, setting);
    }
  });

  test("guests see only subscribed or web-public channels", () => {
    assert.equal(hasMetadataAccess(guest, publicChannel, false), false);
    assert.equal(hasMetadataAccess(guest, publicChannel, true), true);
    assert.equal(hasMetadataAccess(guest, webPublic, false), true);
    assert.equal(hasBasicAccess(guest, privateChannel, false), false);
    assert.equal(hasBasicAccess(admin, privateChannel, false), true);
  });
});

describe("administering", () => {
  test("admins and members of can_administer_channel_group (never guests)", () => {
    const c = channel({}, { can_administer_channel_group: 20 });
    assert.equal(canAdminister(admin, c), true);
    assert.equal(canAdminister(owner, c), true);
    assert.equal(canAdminister(moderator, c), false);
    assert.equal(canAdminister(user(Role.MEMBER, [20]), c), true);
    assert.equal(canAdminister(user(Role.GUEST, [20]), c), false);
  });

  test("refusals hide channels the user cannot read", () => {
    const c = channel({ inviteOnly: true }, { can_administer_channel_group: 20 });
    assert.equal(administerAccess(user(Role.MEMBER, [20]), c, false), "ok");
    assert.equal(administerAccess(member, c, true), "forbidden");
    assert.equal(administerAccess(member, c, false), "hidden");
    assert.equal(administerAccess(user(Role.GUEST, [20]), c, true), "forbidden");
    assert.equal(administerAccess(user(Role.GUEST, [20]), c, false), "hidden");
  });
});

describe("history", () => {
  test("public history is open to non-guests; protected history is not", () => {
    assert.equal(canAccessHistory(member, publicChannel, false), true);
    assert.equal(canAccessHistory(guest, publicChannel, false), false);
    assert.equal(canAccessHistory(guest, publicChannel, true), true);
    assert.equal(canAccessHistory(guest, webPublic, false), true);
    assert.equal(canAccessHistory(member, privateShared, true), true);
    assert.equal(canAccessHistory(member, privateShared, false), false);
    assert.equal(canAccessHistory(member, privateChannel, true), false);
    assert.equal(canAccessHistory(admin, privateChannel, false), false);
  });
});

describe("posting", () => {
  test("the posting group comes first", () => {
    const c = channel({}, { can_send_message_group: ADMINS });
    assert.equal(postRefusal(member, c, true), "no_post_permission");
    assert.equal(postRefusal(admin, c, false), null);
  });

  test("a bot may post where its owner may", () => {
    const c = channel({}, { can_send_message_group: 20 });
    const bot = { ...user(Role.MEMBER, [], true), owner: { groups: new Set([20]), subscribed: false } };
    assert.equal(postRefusal(bot, c, false), null);
    const orphan = user(Role.MEMBER, [], true);
    assert.equal(postRefusal(orphan, c, false), "no_post_permission");
  });

  test("archived channels accept nothing", () => {
    assert.equal(postRefusal(admin, channel({ isArchived: true }), true), "not_authorized");
  });

  test("private channels need a subscription (or the owner's, for bots)", () => {
    assert.equal(postRefusal(member, privateChannel, false), "not_authorized");
    assert.equal(postRefusal(admin, privateChannel, false), "not_authorized");
    assert.equal(postRefusal(member, privateChannel, true), null);
    const bot = { ...user(Role.MEMBER, [], true), owner: { groups: new Set([EVERYONE]), subscribed: true } };
    assert.equal(postRefusal(bot, privateChannel, false), null);
  });

  test("guests post to subscribed and web-public channels only", () => {
    assert.equal(postRefusal(guest, publicChannel, false), "not_authorized");
    assert.equal(postRefusal(guest, publicChannel, true), null);
    assert.equal(postRefusal(guest, webPublic, false), null);
  });

  test("content groups allow posting to private channels with shared history", () => {
    const shared = channel({ inviteOnly: true }, { can_subscribe_group: 20 });
    const protectedHistory = channel({ inviteOnly: true, historyPublicToSubscribers: false }, { can_subscribe_group: 20 });
    assert.equal(postRefusal(user(Role.MEMBER, [20]), shared, false), null);
    assert.equal(postRefusal(user(Role.MEMBER, [20]), protectedHistory, false), "not_authorized");
  });
});

describe("changing subscribers", () => {
  const c1 = channel({}, { can_add_subscribers_group: 20 });
  const c2 = channel({}, { can_administer_channel_group: 21 });
  const c3 = channel();

  test("the realm group and admins may add to every channel", () => {
    assert.deepEqual(cannotAddSubscribers(member, [c1, c2, c3], MEMBERS), []);
    assert.deepEqual(cannotAddSubscribers(admin, [c1, c2, c3], NOBODY), []);
  });

  test("others need the channel's add-subscribers or administer group", () => {
    assert.deepEqual(cannotAddSubscribers(user(Role.MEMBER, [20]), [c1, c2, c3], NOBODY), [c2, c3]);
    assert.deepEqual(cannotAddSubscribers(user(Role.MEMBER, [21]), [c1, c2, c3], NOBODY), [c1, c3]);
    assert.deepEqual(cannotAddSubscribers(guest, [c1], EVERYONE), [c1]);
  });

  test("removing others needs can_remove_subscribers_group and access, or administering", () => {
    assert.equal(canRemoveSubscribers(admin, [{ channel: privateChannel, subscribed: false }]), true);
    assert.equal(canRemoveSubscribers(member, [{ channel: publicChannel, subscribed: true }]), false);
    assert.equal(canRemoveSubscribers(guest, []), false);
    const open = channel({}, { can_remove_subscribers_group: MEMBERS });
    assert.equal(canRemoveSubscribers(member, [{ channel: open, subscribed: false }]), true);
    const hidden = channel({ inviteOnly: true }, { can_remove_subscribers_group: MEMBERS });
    assert.equal(canRemoveSubscribers(member, [{ channel: hidden, subscribed: false }]), false);
    assert.equal(canRemoveSubscribers(member, [{ channel: hidden, subscribed: true }]), true);
    const administered = channel({ inviteOnly: true }, { can_administer_channel_group: 20 });
    assert.equal(canRemoveSubscribers(user(Role.MEMBER, [20]), [{ channel: administered, subscribed: false }]), true);
  });
});

describe("creating channels", () => {
  const policy = { canCreatePublicGroup: MEMBERS, canCreatePrivateGroup: ADMINS, canCreateWebPublicGroup: ADMINS, webPublicEnabled: true };
  const kind = (over: Partial<{ inviteOnly: boolean; isWebPublic: boolean; isDefault: boolean }> = {}) => ({
    inviteOnly: false,
    isWebPublic: false,
    isDefault: false,
    ...over,
  });

  test("each kind needs its realm group", () => {
    assert.equal(channelCreationRefusal(member, policy, kind()), null);
    assert.equal(channelCreationRefusal(member, policy, kind({ inviteOnly: true })), "Insufficient permission");
    assert.equal(channelCreationRefusal(admin, policy, kind({ inviteOnly: true })), null);
    assert.equal(channelCreationRefusal(guest, { ...policy, canCreatePublicGroup: EVERYONE }, kind()), "Insufficient permission");
  });

  test("default channels: admins only, never private", () => {
    assert.equal(channelCreationRefusal(member, policy, kind({ isDefault: true })), "Insufficient permission");
    assert.equal(channelCreationRefusal(admin, policy, kind({ isDefault: true })), null);
    assert.equal(channelCreationRefusal(admin, policy, kind({ isDefault: true, inviteOnly: true })), "A default channel cannot be private.");
  });

  test("web-public channels need the server setting and the realm group", () => {
    assert.equal(channelCreationRefusal(admin, { ...policy, webPublicEnabled: false }, kind({ isWebPublic: true })), "Web-public channels are not enabled.");
    assert.equal(channelCreationRefusal(member, policy, kind({ isWebPublic: true })), "Insufficient permission");
    assert.equal(channelCreationRefusal(admin, policy, kind({ isWebPublic: true })), null);
  });
});

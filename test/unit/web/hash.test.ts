/** The web client's URLs: Zulip's hash format both ways. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { channelsHash, hashDecode, hashEncode, messageHash, parseChannelsHash, parseHash, placeToHash } from "../../../web/src/state/hash.js";

const channels: Record<string, number> = { verona: 1, "core team": 7 };
const emails: Record<string, number> = { "iago@zulip.com": 5, "hamlet@zulip.com": 10 };
const r = { channelByName: (n: string) => channels[n.toLowerCase()], userByEmail: (e: string) => emails[e] };
const names = { channelName: (id: number) => ({ 1: "Verona", 7: "core team" })[id], userName: (id: number) => ({ 5: "Iago", 10: "King Hamlet" })[id] };

test("Zulip's hash encoding keeps dots apart from escapes and round-trips", () => {
  assert.equal(hashEncode("a.b c%"), "a.2Eb.20c.25");
  assert.equal(hashEncode("✔ done!"), ".E2.9C.94.20done.21");
  for (const s of ["a.b c%", "✔ done!", "x/y", "(1)*'"]) assert.equal(hashDecode(hashEncode(s)), s);
  assert.equal(hashDecode(".ZZ"), ".ZZ", "a malformed escape is kept as it is");
});

test("the views and an empty hash", () => {
  assert.equal(parseHash("", r), undefined);
  assert.equal(parseHash("#", r), undefined);
  assert.deepEqual(parseHash("#inbox", r), { view: "inbox", narrow: [] });
  assert.deepEqual(parseHash("#recent", r), { view: "recent", narrow: [] });
  assert.deepEqual(parseHash("#recent_topics", r), { view: "recent", narrow: [] });
  assert.deepEqual(parseHash("#feed", r), { view: "narrow", narrow: [] });
  assert.deepEqual(parseHash("#all_messages", r), { view: "narrow", narrow: [] });
});

test("a channel, topic and message: ID-name, a plain ID, or a name; near and with are the anchor", () => {
  assert.deepEqual(parseHash("#narrow/channel/1-Verona/topic/test/near/15", r), {
    view: "narrow",
    narrow: [
      { operator: "channel", operand: 1 },
      { operator: "topic", operand: "test" },
    ],
    near: 15,
  });
  assert.deepEqual(parseHash("#narrow/stream/7-core-team/subject/a.20b.2Ec/with/3", r)?.narrow, [
    { operator: "channel", operand: 7 },
    { operator: "topic", operand: "a b.c" },
  ]);
  assert.equal(parseHash("#narrow/stream/7-core-team/subject/x/with/3", r)?.near, 3);
  assert.deepEqual(parseHash("#narrow/stream/Verona", r)?.narrow, [{ operator: "channel", operand: 1 }]);
  assert.deepEqual(parseHash("#narrow/stream/nowhere", r)?.narrow, [{ operator: "channel", operand: "nowhere" }]);
  assert.deepEqual(parseHash("#narrow/near/15", r), { view: "narrow", narrow: [], near: 15 });
  assert.equal(parseHash("#narrow/near/abc", r)?.near, undefined);
});

test("people: ID-name, groups, emails, the old pm-with; negation and other operators", () => {
  assert.deepEqual(parseHash("#narrow/dm/5-Iago", r)?.narrow, [{ operator: "dm", operand: [5] }]);
  assert.deepEqual(parseHash("#narrow/dm/5,10-group", r)?.narrow, [{ operator: "dm", operand: [5, 10] }]);
  assert.deepEqual(parseHash("#narrow/pm-with/iago@zulip.com,hamlet@zulip.com", r)?.narrow, [{ operator: "dm", operand: [5, 10] }]);
  assert.deepEqual(parseHash("#narrow/sender/10-King-Hamlet", r)?.narrow, [{ operator: "sender", operand: 10 }]);
  assert.deepEqual(parseHash("#narrow/sender/iago@zulip.com", r)?.narrow, [{ operator: "sender", operand: 5 }]);
  assert.deepEqual(parseHash("#narrow/is/starred/-topic/lunch/search/a.20word", r)?.narrow, [
    { operator: "is", operand: "starred" },
    { operator: "topic", operand: "lunch", negated: true },
    { operator: "search", operand: "a word" },
  ]);
  assert.deepEqual(parseHash("#narrow/id/42", r)?.narrow, [{ operator: "id", operand: 42 }]);
  // One person, not a list: the server refuses a list for dm-including.
  assert.deepEqual(parseHash("#narrow/dm-including/5-Iago", r)?.narrow, [{ operator: "dm-including", operand: 5 }]);
  assert.deepEqual(parseHash("#narrow/group-pm-with/iago@zulip.com", r)?.narrow, [{ operator: "dm-including", operand: 5 }]);
  assert.equal(placeToHash({ view: "narrow", narrow: [{ operator: "dm-including", operand: 5 }] }, names), "#narrow/dm-including/5-Iago");
});

test("the channels overlay: its lists, the new-channel form and a channel's settings", () => {
  assert.deepEqual(parseChannelsHash("#channels/subscribed"), { tab: "subscribed" });
  assert.deepEqual(parseChannelsHash("#channels/all"), { tab: "all" });
  assert.deepEqual(parseChannelsHash("#channels/new"), { tab: "new" });
  assert.deepEqual(parseChannelsHash("#channels"), { tab: "subscribed" });
  assert.deepEqual(parseChannelsHash("#channels/notsubscribed"), { tab: "subscribed" }, "a list Confab lacks opens one's own channels");
  assert.deepEqual(parseChannelsHash("#channels/7/core.20team/general"), { tab: "channel", id: 7, section: "general" });
  assert.deepEqual(parseChannelsHash("#channels/7/core.20team/personal"), { tab: "channel", id: 7, section: "personal" });
  assert.deepEqual(parseChannelsHash("#channels/7/core.20team/subscribers"), { tab: "channel", id: 7, section: "subscribers" });
  assert.deepEqual(parseChannelsHash("#channels/7"), { tab: "channel", id: 7, section: "general" });
  assert.deepEqual(parseChannelsHash("#channels/7/x/nonsense"), { tab: "channel", id: 7, section: "general" });
  for (const h of ["#inbox", "#narrow/channel/1-Verona", "#channelsx", "", "#settings"]) assert.equal(parseChannelsHash(h), undefined, h);
  // The place behind the overlay stays what it was: the URL names none.
  assert.equal(parseHash("#channels/all", r), undefined);
  assert.equal(parseHash("#channels/7/core.20team/general", r), undefined);

  assert.equal(channelsHash({ tab: "all" }, names), "#channels/all");
  assert.equal(channelsHash({ tab: "new" }, names), "#channels/new");
  assert.equal(channelsHash({ tab: "channel", id: 7, section: "general" }, names), "#channels/7/core.20team/general");
  assert.equal(channelsHash({ tab: "channel", id: 99, section: "personal" }, names), "#channels/99/unknown/personal");
  for (const route of [{ tab: "subscribed" }, { tab: "channel", id: 1, section: "subscribers" }] as const) assert.deepEqual(parseChannelsHash(channelsHash(route, names)), route);
});

test("an unknown page is the combined feed", () => {
  assert.deepEqual(parseHash("#settings/profile", r), { view: "narrow", narrow: [] });
});

test("places are written the way they are read", () => {
  assert.equal(placeToHash({ view: "inbox", narrow: [] }, names), "#inbox");
  assert.equal(placeToHash({ view: "recent", narrow: [] }, names), "#recent");
  assert.equal(placeToHash({ view: "narrow", narrow: [] }, names), "#feed");
  const topic = { view: "narrow" as const, narrow: [{ operator: "channel", operand: 7 }, { operator: "topic", operand: "a b.c" }], near: 9 };
  const hash = placeToHash(topic, names);
  assert.equal(hash, "#narrow/channel/7-core-team/topic/a.20b.2Ec/near/9");
  assert.deepEqual(parseHash(hash, r), topic);
  assert.equal(placeToHash({ view: "narrow", narrow: [{ operator: "dm", operand: [10, 5] }] }, names), "#narrow/dm/5,10-group");
  assert.equal(placeToHash({ view: "narrow", narrow: [{ operator: "dm", operand: [10] }] }, names), "#narrow/dm/10-King-Hamlet");
  assert.equal(placeToHash({ view: "narrow", narrow: [{ operator: "is", operand: "starred", negated: true }] }, names), "#narrow/-is/starred");
});

test("a message's link names its conversation and the message", () => {
  assert.equal(messageHash({ id: 15, type: "stream", stream_id: 1, subject: "test" }, 5, names), "#narrow/channel/1-Verona/topic/test/near/15");
  assert.equal(messageHash({ id: 16, type: "private", subject: "", dmUserIds: [5, 10] }, 5, names), "#narrow/dm/10-King-Hamlet/near/16");
  assert.equal(messageHash({ id: 17, type: "private", subject: "", dmUserIds: [5] }, 5, names), "#narrow/dm/5-Iago/near/17");
});

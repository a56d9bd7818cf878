/** The web client's pure views of its state: the Inbox, Recent conversations and the feed's layout. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { buildInbox, topicVisible, type InboxRules, type UnreadEntry } from "../../../web/src/state/inbox.js";
import { filterRecent, recentConversations, type RecentMessage } from "../../../web/src/state/recent.js";
import { dayOf, layoutFeed, meMessageHtml } from "../../../web/src/state/feed.js";

const rules = (muted: number[] = [], policies: Record<string, number> = {}, pinned: number[] = []): InboxRules => ({
  channelMuted: (id) => muted.includes(id),
  topicPolicy: (id, topic) => policies[`${id}:${topic}`],
  compareChannels: (a, b) => Number(pinned.includes(b)) - Number(pinned.includes(a)) || a - b,
});

const s = (streamId: number, topic: string, mentioned = false): UnreadEntry => ({ streamId, topic, mentioned });
const d = (dm: string, mentioned = false): UnreadEntry => ({ dm, mentioned });

test("the Inbox groups unread messages by DM conversation and by channel and topic, newest first", () => {
  const inbox = buildInbox(
    [
      [1, s(10, "lunch")],
      [2, s(10, "plans", true)],
      [3, s(20, "x")],
      [4, d("5")],
      [5, s(10, "lunch")],
      [6, d("5,7", true)],
      [7, d("5")],
    ],
    rules(),
  );
  assert.deepEqual(inbox.dms, [
    { key: "5", count: 2, maxId: 7, mentioned: false },
    { key: "5,7", count: 1, maxId: 6, mentioned: true },
  ]);
  assert.deepEqual(inbox.channels, [
    {
      streamId: 10,
      count: 3,
      mentioned: true,
      topics: [
        { topic: "lunch", count: 2, maxId: 5, mentioned: false },
        { topic: "plans", count: 1, maxId: 2, mentioned: true },
      ],
    },
    { streamId: 20, count: 1, mentioned: false, topics: [{ topic: "x", count: 1, maxId: 3, mentioned: false }] },
  ]);
});

test("muted channels keep only unmuted and followed topics; muted topics are left out; pinned channels come first", () => {
  const r = rules([10], { "10:kept": 2, "10:followed": 3, "20:quiet": 1 }, [30]);
  const inbox = buildInbox(
    [
      [1, s(10, "other")],
      [2, s(10, "kept")],
      [3, s(10, "followed")],
      [4, s(20, "quiet")],
      [5, s(20, "loud")],
      [6, s(30, "pinned")],
    ],
    r,
  );
  assert.deepEqual(
    inbox.channels.map((c) => [c.streamId, c.topics.map((t) => t.topic)]),
    [
      [30, ["pinned"]],
      [10, ["followed", "kept"]],
      [20, ["loud"]],
    ],
  );
  assert.equal(topicVisible(10, "other", r), false);
  assert.equal(topicVisible(20, "loud", r), true);
  assert.deepEqual(buildInbox([], r), { dms: [], channels: [] });
});

const msg = (id: number, sender_id: number, where: { stream_id?: number; subject?: string; dm?: string }, timestamp = id * 60): RecentMessage & { dm?: string } => ({
  id,
  sender_id,
  timestamp,
  type: where.dm !== undefined ? "private" : "stream",
  stream_id: where.stream_id,
  subject: where.subject ?? "",
  dm: where.dm,
});

test("Recent conversations: one row per topic or DM conversation, newest activity first, senders latest first", () => {
  const list = recentConversations(
    [msg(1, 5, { stream_id: 10, subject: "a" }), msg(2, 7, { stream_id: 10, subject: "a" }), msg(3, 9, { dm: "9" }), msg(4, 5, { stream_id: 10, subject: "b" }), msg(5, 9, { stream_id: 10, subject: "a" }), msg(6, 5, { stream_id: 10, subject: "a" })],
    5,
    (m) => m.dm!,
  );
  assert.deepEqual(
    list.map((c) => [c.key, c.maxId, c.senders, c.participated]),
    [
      ["10:a", 6, [5, 9, 7], true],
      ["10:b", 4, [5], true],
      ["dm:9", 3, [9], false],
    ],
  );
  assert.equal(list[0].timestamp, 360);
  assert.deepEqual([list[0].streamId, list[0].topic, list[2].dm], [10, "a", "9"]);
});

test("Recent conversations filter by unread, participation, muting and channel", () => {
  const list = recentConversations([msg(1, 5, { stream_id: 10, subject: "a" }), msg(2, 7, { stream_id: 20, subject: "b" }), msg(3, 7, { dm: "7" })], 5, (m) => m.dm!);
  const unread = (c: { key: string }) => (c.key === "20:b" ? 2 : 0);
  const muted = (c: { key: string }) => c.key === "dm:7";
  const keys = (f: Parameters<typeof filterRecent>[1]) => filterRecent(list, f, unread, muted).map((c) => c.key);
  assert.deepEqual(keys({ unreadOnly: false, participatedOnly: false, includeMuted: true }), ["dm:7", "20:b", "10:a"]);
  assert.deepEqual(keys({ unreadOnly: false, participatedOnly: false, includeMuted: false }), ["20:b", "10:a"]);
  assert.deepEqual(keys({ unreadOnly: true, participatedOnly: false, includeMuted: true }), ["20:b"]);
  assert.deepEqual(keys({ unreadOnly: false, participatedOnly: true, includeMuted: true }), ["10:a"]);
  assert.deepEqual(keys({ unreadOnly: false, participatedOnly: false, includeMuted: true, streamId: 20 }), ["20:b"]);
});

test("the feed: blocks per conversation, the sender again after another sender or a new day", () => {
  const day = (n: number, h: number) => new Date(2026, 10, n, h).getTime() / 1000;
  const m = (id: number, sender_id: number, key: string, timestamp: number) => ({ id, sender_id, key, timestamp });
  const blocks = layoutFeed([m(1, 5, "a", day(1, 9)), m(2, 5, "a", day(1, 10)), m(3, 7, "a", day(1, 11)), m(4, 7, "a", day(2, 9)), m(5, 7, "b", day(2, 10)), m(6, 7, "a", day(2, 11))], (x) => x.key);
  assert.deepEqual(
    blocks.map((b) => [b.key, b.rows.map((r) => [r.m.id, r.showSender, r.newDay])]),
    [
      ["a", [[1, true, false], [2, false, false], [3, true, false], [4, true, true]]],
      ["b", [[5, true, false]]],
      ["a", [[6, true, false]]],
    ],
  );
  assert.equal(dayOf(day(3, 0)), dayOf(day(3, 23)));
  assert.notEqual(dayOf(day(3, 23)), dayOf(day(4, 0)));
  assert.deepEqual(layoutFeed([], () => ""), []);
});

test("a /me message reads as its sender doing something, the name escaped; other messages are left alone", () => {
  assert.equal(meMessageHtml({ is_me_message: true, content: "<p>/me waves <em>hello</em></p>" }, "Iago <the \"ancient\"> & co"), '<p><strong class="me-sender">Iago &lt;the &quot;ancient&quot;&gt; &amp; co</strong> waves <em>hello</em></p>');
  assert.equal(meMessageHtml({ is_me_message: false, content: "<p>/me waves</p>" }, "Iago"), undefined);
  assert.equal(meMessageHtml({ is_me_message: true, content: "<p>waves</p>" }, "Iago"), undefined);
  assert.equal(meMessageHtml({ content: "<p>/me waves</p>" }, "Iago"), undefined);
});

import { test, describe } from "node:test";
import assert from "node:assert/strict";
import {
  channelIdFrom,
  checkDeliveryTime,
  directRecipientIds,
  failureNotice,
  formatScheduledMessage,
  globalTime,
  isTooLate,
  LATE_CUTOFF_SECONDS,
  recipientIdsFrom,
  scheduledMessageType,
  sortScheduledMessages,
  type ApiScheduledMessage,
  type StoredScheduledMessage,
} from "../../src/domain/scheduled_messages.js";
import { ZulipError } from "../../src/http/errors.js";
import { createStateContext, selectedSections, type RegisterOptions } from "../../src/events/state.js";
import type { AppContext } from "../../src/context.js";
import type { UserRow } from "../../src/store/users.js";
import type { Realm } from "../../src/store/realms.js";
import "../../src/events/sections/index.js";

function fails(fn: () => unknown, msg: string) {
  assert.throws(fn, (e: unknown) => e instanceof ZulipError && e.msg === msg && e.code === "BAD_REQUEST" && e.status === 400);
}

const row = (over: Partial<StoredScheduledMessage> = {}): StoredScheduledMessage => ({
  id: 7,
  sender_id: 10,
  stream_id: 3,
  dm_key: null,
  topic: "castle",
  content: "hi",
  rendered_content: "<p>hi</p>",
  scheduled_timestamp: 1681662420,
  failed: 0,
  ...over,
});

describe("types", () => {
  test("channel and stream are channel messages; direct and private are direct messages", () => {
    assert.equal(scheduledMessageType("stream"), "stream");
    assert.equal(scheduledMessageType("channel"), "stream");
    assert.equal(scheduledMessageType("direct"), "private");
    assert.equal(scheduledMessageType("private"), "private");
  });
});

describe("addressing", () => {
  test("a channel message goes to one channel id", () => {
    assert.equal(channelIdFrom(5), 5);
    fails(() => channelIdFrom([5]), "Invalid data type for channel ID");
  });

  test("a direct message goes to a list of user ids, repeats removed", () => {
    assert.deepEqual(recipientIdsFrom([3, 2, 3]), [3, 2]);
    assert.deepEqual(recipientIdsFrom([]), []);
    fails(() => recipientIdsFrom(3), "Invalid data type for recipients");
  });

  test("a direct message is shown as going to everyone but the sender, or to the sender alone", () => {
    assert.deepEqual(directRecipientIds("4,10", 10), [4]);
    assert.deepEqual(directRecipientIds("4,10,12", 10), [4, 12]);
    assert.deepEqual(directRecipientIds("10", 10), [10]);
  });
});

describe("timing", () => {
  test("the delivery time must be strictly after now", () => {
    checkDeliveryTime(101, 100.5);
    fails(() => checkDeliveryTime(100, 100), "Scheduled delivery time must be in the future.");
    fails(() => checkDeliveryTime(100, 100.5), "Scheduled delivery time must be in the future.");
  });

  test("a message is sent up to ten minutes late, not later", () => {
    assert.equal(LATE_CUTOFF_SECONDS, 600);
    assert.equal(isTooLate(1000, 1000), false);
    assert.equal(isTooLate(1000, 1600), false);
    assert.equal(isTooLate(1000, 1600.5), true);
  });
});

describe("API form", () => {
  test("a channel message has a channel id and a topic", () => {
    assert.deepEqual(formatScheduledMessage(row()), {
      scheduled_message_id: 7,
      type: "stream",
      to: 3,
      topic: "castle",
      content: "hi",
      rendered_content: "<p>hi</p>",
      scheduled_delivery_timestamp: 1681662420,
      failed: false,
    });
  });

  test("a direct message has user ids and no topic", () => {
    assert.deepEqual(formatScheduledMessage(row({ stream_id: null, dm_key: "6,10", topic: "", failed: 1 })), {
      scheduled_message_id: 7,
      type: "private",
      to: [6],
      content: "hi",
      rendered_content: "<p>hi</p>",
      scheduled_delivery_timestamp: 1681662420,
      failed: true,
    });
  });

  test("sorted by delivery time, then id", () => {
    const m = (id: number, at: number) => formatScheduledMessage(row({ id, scheduled_timestamp: at }));
    assert.deepEqual(
      sortScheduledMessages([m(3, 20), m(2, 10), m(1, 20)]).map((x) => x.scheduled_message_id),
      [2, 1, 3],
    );
  });
});

describe("failure notice", () => {
  test("a global time in UTC, as Zulip writes it", () => {
    assert.equal(globalTime(1681662420), "<time:2023-04-16T16:27:00+00:00>");
  });

  test("Notification Bot's message quotes the error and links to the scheduled messages", () => {
    assert.equal(
      failureNotice(1681662420, "Not authorized to send to channel 'Denmark'"),
      "The message you scheduled for <time:2023-04-16T16:27:00+00:00> was not sent because of the following error:\n\n" +
        "> Not authorized to send to channel 'Denmark'\n\n" +
        "[View scheduled messages](#scheduled)",
    );
  });
});

describe("register state", () => {
  const options = { fetchEventTypes: ["scheduled_messages"], eventTypes: null } as unknown as RegisterOptions;
  const ctx = createStateContext({} as AppContext, {} as UserRow, {} as Realm, options);
  const section = selectedSections(ctx).find((s) => s.name === "scheduled_messages")!;
  const m = (id: number, at: number, content = "hi") => ({ ...formatScheduledMessage(row({ id, scheduled_timestamp: at })), content });
  const ids = (state: Record<string, unknown>) =>
    (state.scheduled_messages as ApiScheduledMessage[]).map((x) => [x.scheduled_message_id, x.content]);

  test("follows scheduled_messages events, keeping the earliest first, harmlessly if already applied", () => {
    assert.deepEqual(section.eventTypes, ["scheduled_messages"]);
    const state: Record<string, unknown> = { scheduled_messages: [m(1, 10), m(2, 30)] };
    const apply = (event: Record<string, unknown>) => section.apply!(state, { type: "scheduled_messages", ...event }, ctx);
    apply({ op: "add", scheduled_messages: [m(3, 20)] });
    apply({ op: "add", scheduled_messages: [m(3, 20)] });
    assert.deepEqual(ids(state), [
      [1, "hi"],
      [3, "hi"],
      [2, "hi"],
    ]);
    apply({ op: "update", scheduled_message: m(1, 40, "edited") });
    assert.deepEqual(ids(state), [
      [3, "hi"],
      [2, "hi"],
      [1, "edited"],
    ]);
    apply({ op: "remove", scheduled_message_id: 3 });
    apply({ op: "remove", scheduled_message_id: 3 });
    assert.deepEqual(ids(state), [
      [2, "hi"],
      [1, "edited"],
    ]);
  });
});

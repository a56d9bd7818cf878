import { test, describe } from "node:test";
import assert from "node:assert/strict";
import "../../src/events/sections/index.js";
import { createStateContext, selectedSections, type RegisterOptions } from "../../src/events/state.js";
import type { AppContext } from "../../src/context.js";
import type { UserRow } from "../../src/store/users.js";
import type { Realm } from "../../src/store/realms.js";
import { buildUnreads } from "../../src/domain/unreads.js";

const ME = 1;
const contextFor = (fetchEventTypes: string[]) => {
  const options = { fetchEventTypes, eventTypes: null, capabilities: { empty_topic_name: true } } as unknown as RegisterOptions;
  return createStateContext({} as AppContext, { id: ME } as UserRow, {} as Realm, options);
};
const flagsEvent = (op: string, flag: string, messages: number[], extra: Record<string, unknown> = {}) => ({
  type: "update_message_flags",
  op,
  operation: op,
  flag,
  messages,
  all: false,
  ...extra,
});

describe("starred_messages", () => {
  const ctx = contextFor(["starred_messages"]);
  const section = selectedSections(ctx).find((s) => s.name === "starred_messages")!;

  test("follows starred changes, ignores other flags, harmlessly if already applied", () => {
    assert.deepEqual(section.eventTypes, ["update_message_flags"]);
    const state: Record<string, unknown> = { starred_messages: [3, 9] };
    const apply = (e: Record<string, unknown>) => section.apply!(state, e, ctx);
    apply(flagsEvent("add", "starred", [5, 9]));
    assert.deepEqual(state.starred_messages, [3, 5, 9]);
    apply(flagsEvent("add", "read", [7]));
    apply(flagsEvent("remove", "starred", [3, 4]));
    apply(flagsEvent("remove", "starred", [3]));
    assert.deepEqual(state.starred_messages, [5, 9]);
  });
});

describe("unread_msgs", () => {
  const ctx = contextFor(["message", "update_message_flags"]);
  const section = selectedSections(ctx).find((s) => s.name === "unread_msgs")!;
  const fresh = () => ({
    _raw_unreads: buildUnreads(
      ME,
      [
        { messageId: 11, streamId: 4, topic: "t", dmKey: null, flags: 0 },
        { messageId: 10, streamId: null, topic: "", dmKey: "1,2", flags: 0 },
      ],
      [],
    ),
  });
  const finish = (state: Record<string, unknown>) => {
    section.finish!(state, ctx);
    return state.unread_msgs as { count: number; streams: unknown[]; pms: unknown[] };
  };

  test("mark_all_as_read's event (all, no message list) empties the summary", () => {
    assert.equal(finish(fresh()).count, 2);
    const state: Record<string, unknown> = fresh();
    section.apply!(state, { ...flagsEvent("add", "read", []), all: true }, ctx);
    assert.equal(finish(state).count, 0);
  });

  test("reads remove messages, unreads put them back from message_details", () => {
    const state: Record<string, unknown> = fresh();
    section.apply!(state, flagsEvent("add", "read", [10, 11]), ctx);
    section.apply!(
      state,
      flagsEvent("remove", "read", [11], { message_details: { "11": { type: "stream", stream_id: 4, topic: "t", unmuted_stream_msg: true } } }),
      ctx,
    );
    const unread = finish(state);
    assert.equal(unread.count, 1);
    assert.deepEqual(unread.streams, [{ stream_id: 4, topic: "t", unread_message_ids: [11] }]);
    assert.deepEqual(unread.pms, []);
  });
});

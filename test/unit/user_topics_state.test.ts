import { test } from "node:test";
import assert from "node:assert/strict";
import { createStateContext, selectedSections, settleQueuedEvents, type RegisterOptions, type State } from "../../src/events/state.js";
import "../../src/events/sections/index.js";

const options = (over: Partial<RegisterOptions>): RegisterOptions => ({
  applyMarkdown: true,
  clientGravatar: false,
  slimPresence: false,
  presenceHistoryLimitDays: undefined,
  includeSubscribers: false,
  capabilities: {},
  narrow: [],
  allPublicStreams: false,
  eventTypes: null,
  fetchEventTypes: null,
  ...over,
});

/** The sections chosen for these fetch types, applying queued events to a given fetched state. */
async function applied(fetchEventTypes: string[], state: State, events: Record<string, unknown>[], over: Partial<RegisterOptions> = {}) {
  const ctx = createStateContext({} as never, {} as never, {} as never, options({ fetchEventTypes, ...over }));
  const selected = selectedSections(ctx);
  const last = await settleQueuedEvents(state, ctx, selected, async () => events.map((e, id) => ({ ...e, id })));
  return { state, last };
}

const row = (topic_name: string, visibility_policy: number, stream_id = 5) => ({ stream_id, topic_name, last_updated: 100, visibility_policy });
const event = (topic_name: string, visibility_policy: number, stream_id = 5) => ({ type: "user_topic", ...row(topic_name, visibility_policy, stream_id), last_updated: 200 });

test("user_topic events queued during the fetch update user_topics", async () => {
  const { state, last } = await applied(
    ["user_topic"],
    { user_topics: [row("Lunch", 1), row("dinner", 3), row("dinner", 3, 6)] },
    [event("lunch", 3), event("DINNER", 0), event("new", 2), event("gone", 0)],
    { capabilities: { empty_topic_name: true } },
  );
  assert.equal(last, 3);
  assert.deepEqual(state.user_topics, [{ ...row("dinner", 3, 6) }, { ...row("lunch", 3), last_updated: 200 }, { ...row("new", 2), last_updated: 200 }]);
});

test("the empty topic, queued under its display name, is one topic; clients without empty topics see the display name", async () => {
  const { state } = await applied(["user_topic"], { user_topics: [row("", 1)] }, [event("general chat", 3)]);
  assert.deepEqual(state.user_topics, [{ ...row("general chat", 3), last_updated: 200 }]);
});

test("muted_topics events replace the legacy list, which is absent when user_topic is asked for too", async () => {
  const list = [["Denmark", "castle", 200]];
  assert.deepEqual((await applied(["muted_topics"], { muted_topics: [] }, [{ type: "muted_topics", muted_topics: list }])).state, { muted_topics: list });
  const both = await applied(["muted_topics", "user_topic"], { user_topics: [] }, [{ type: "muted_topics", muted_topics: list }]);
  assert.deepEqual(both.state, { user_topics: [] });
});

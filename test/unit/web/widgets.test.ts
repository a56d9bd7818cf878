/** The web client's polls and to-do lists, replayed from their submessages as Zulip's web client replays them. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { addSubmessage, nameTaken, nextIdx, voteData, widgetState, type Submessage } from "../../../web/src/state/widgets.js";

const AUTHOR = 10;
let nextId = 1;
const sub = (sender_id: number, content: unknown, msg_type = "widget"): Submessage => ({
  id: nextId++,
  message_id: 99,
  sender_id,
  msg_type,
  content: typeof content === "string" ? content : JSON.stringify(content),
});
const poll = (question: string, options: string[]) => sub(AUTHOR, { widget_type: "poll", extra_data: { question, options } });
const todo = (task_list_title: string, tasks: { task: string; desc: string }[]) => sub(AUTHOR, { widget_type: "todo", extra_data: { task_list_title, tasks } });

test("a poll: listed options (once each), options added, votes given and taken back", () => {
  const state = widgetState(AUTHOR, [
    poll("Lunch?", ["Pizza", "Soup", "Pizza"]),
    sub(20, { type: "new_option", idx: 1, option: "Salad" }),
    sub(30, { type: "new_option", idx: 1, option: "Soup" }),
    sub(20, { type: "vote", key: "canned,0", vote: 1 }),
    sub(30, { type: "vote", key: "canned,0", vote: 1 }),
    sub(30, { type: "vote", key: "20,1", vote: 1 }),
    sub(20, { type: "vote", key: "canned,0", vote: -1 }),
    sub(20, { type: "vote", key: "nowhere", vote: 1 }),
    sub(30, { type: "vote", key: "20,1", vote: 1 }),
  ]);
  assert.deepEqual(state, {
    kind: "poll",
    question: "Lunch?",
    options: [
      { key: "canned,0", option: "Pizza", voters: [30] },
      { key: "canned,1", option: "Soup", voters: [] },
      { key: "20,1", option: "Salad", voters: [30] },
    ],
  });
});

test("only the poll's author changes its question; malformed submessages are skipped", () => {
  const state = widgetState(AUTHOR, [
    poll("", []),
    sub(20, { type: "question", question: "Hijacked" }),
    sub(AUTHOR, { type: "question", question: "Real" }),
    sub(20, "{not json"),
    sub(20, { type: "new_option", idx: 5000, option: "Too far" }),
    sub(20, { type: "new_option", option: "No idx" }),
    sub(20, { type: "new_option", idx: 2, option: "Fine" }, "other"),
  ]);
  assert.deepEqual(state, { kind: "poll", question: "Real", options: [{ key: "20,2", option: "Fine", voters: [] }] });
});

test("a to-do list: tasks listed and added, struck and unstruck, the title changed by its author only", () => {
  const state = widgetState(AUTHOR, [
    todo("Trip", [{ task: "Tickets", desc: "" }]),
    sub(20, { type: "new_task", key: 2, task: "Hotel", desc: "near the station", completed: false }),
    sub(30, { type: "new_task", key: 2, task: "Tickets", desc: "again", completed: false }),
    sub(30, { type: "strike", key: "0,canned" }),
    sub(20, { type: "strike", key: "2,20" }),
    sub(20, { type: "strike", key: "2,20" }),
    sub(20, { type: "new_task_list_title", title: "Mine" }),
    sub(AUTHOR, { type: "new_task_list_title", title: "Holiday" }),
  ]);
  assert.deepEqual(state, {
    kind: "todo",
    title: "Holiday",
    tasks: [
      { key: "0,canned", task: "Tickets", desc: "", completed: true },
      { key: "2,20", task: "Hotel", desc: "near the station", completed: false },
    ],
  });
});

test("no widget: no submessages, a first one not by the message's sender, or an unknown widget type", () => {
  assert.equal(widgetState(AUTHOR, []), null);
  assert.equal(widgetState(AUTHOR, [sub(20, { widget_type: "poll", extra_data: {} })]), null);
  assert.equal(widgetState(AUTHOR, [sub(AUTHOR, { widget_type: "zform", extra_data: {} })]), null);
  assert.equal(widgetState(AUTHOR, [sub(AUTHOR, "[]")]), null);
  assert.deepEqual(widgetState(AUTHOR, [sub(AUTHOR, { widget_type: "poll" })]), { kind: "poll", question: "", options: [] });
});

test("a submessage event is added once, in id order", () => {
  const first = poll("Q", []);
  const e = { submessage_id: first.id + 5, message_id: 99, sender_id: 20, msg_type: "widget", content: "{}" };
  const once = addSubmessage([first], e);
  assert.deepEqual(once.map((s) => s.id), [first.id, first.id + 5]);
  assert.deepEqual(addSubmessage(once, e), once);
  assert.deepEqual(addSubmessage(once, { ...e, submessage_id: first.id + 2 }).map((s) => s.id), [first.id, first.id + 2, first.id + 5]);
});

test("what the reader sends: a vote toggles, a new index is past their own, names already there are taken", () => {
  const subs = [poll("Q", ["A"]), sub(20, { type: "new_option", idx: 4, option: "B" }), sub(30, { type: "new_option", idx: 9, option: "C" })];
  const state = widgetState(AUTHOR, subs);
  assert.ok(state?.kind === "poll");
  assert.deepEqual(voteData(state.options[0], 20), { type: "vote", key: "canned,0", vote: 1 });
  assert.deepEqual(voteData({ ...state.options[0], voters: [20] }, 20), { type: "vote", key: "canned,0", vote: -1 });
  assert.equal(nextIdx(subs, 20), 5);
  assert.equal(nextIdx(subs, 40), 1);
  assert.ok(nameTaken(state, "B"));
  assert.ok(!nameTaken(state, "D"));
});

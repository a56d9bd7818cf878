/**
 * Zulip's message widgets, /poll and /todo: the widget a message's text creates, and the checks
 * on each later submessage (a vote, a new option or task, a struck task, an edited question or
 * title), with Zulip's error texts.
 */
import { badRequest } from "../http/errors.js";

export type WidgetType = "poll" | "todo";

export interface PollExtraData {
  question: string;
  options: string[];
}

export interface TodoExtraData {
  task_list_title: string;
  tasks: { task: string; desc: string }[];
}

export type WidgetContent = { widget_type: "poll"; extra_data: PollExtraData } | { widget_type: "todo"; extra_data: TodoExtraData };

/** The largest index a client may give an option or task it adds (Zulip's MAX_IDX). */
export const MAX_IDX = 1000;

/** Bounds what one submessage may hold: an option or a task as long as a message, escaped. */
export const MAX_SUBMESSAGE_LENGTH = 20000;

const COMMAND = /^\/(poll|todo)(?=\s|$)/;

/** Python's str.splitlines: every line boundary it knows, no empty line after a final break. */
function splitLines(text: string): string[] {
  const lines = text.split(/\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]/);
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/** A line of the list under the command, without a leading "-" or "*" bullet. */
function listItem(line: string): string {
  return line.trim().replace(/^\s*[-*]?\s*/, "");
}

/**
 * The widget a message creates: `/poll question` or `/todo title` as its first word, then one
 * option or task per line (a task's description after its first ": ").
 */
export function widgetFromContent(content: string): WidgetContent | null {
  const command = COMMAND.exec(content);
  if (!command) return null;
  const lines = splitLines(content.slice(command[0].length));
  // An empty first line (the command alone on its line) is no heading, and is skipped below.
  const heading = lines.length && lines[0] ? lines.shift()!.trim() : "";
  const items = lines.map(listItem).filter((item) => item.length > 0);
  if (command[1] === "poll") return { widget_type: "poll", extra_data: { question: heading, options: items } };
  return {
    widget_type: "todo",
    extra_data: {
      task_list_title: heading,
      tasks: items.map((item) => {
        const at = item.indexOf(": ");
        return at < 0 ? { task: item.trim(), desc: "" } : { task: item.slice(0, at).trim(), desc: item.slice(at + 2).trim() };
      }),
    },
  };
}

/** The widget type named by a widget submessage's content, if it is one we check. */
export function widgetTypeOf(content: string): WidgetType | null {
  try {
    const type = (JSON.parse(content) as { widget_type?: unknown } | null)?.widget_type;
    return type === "poll" || type === "todo" ? type : null;
  } catch {
    return null;
  }
}

type Check = (where: string, value: unknown) => void;

const isDict = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

const string: Check = (where, v) => {
  if (typeof v !== "string") throw badRequest(`${where} is not a string`);
};
const boolean: Check = (where, v) => {
  if (typeof v !== "boolean") throw badRequest(`${where} is not a boolean`);
};
const integer: Check = (where, v) => {
  if (typeof v !== "number" || !Number.isInteger(v)) throw badRequest(`${where} is not an integer`);
};
const intIn =
  (allowed: readonly number[]): Check =>
  (where, v) => {
    integer(where, v);
    if (!allowed.includes(v as number)) throw badRequest(`Invalid ${where}`);
  };
const intRange =
  (low: number, high: number): Check =>
  (where, v) => {
    integer(where, v);
    if ((v as number) < low) throw badRequest(`${where} is too small`);
    if ((v as number) > high) throw badRequest(`${where} is too large`);
  };

/**
 * Option and task keys name who added the item and its index (`canned` for the ones in the
 * original message). Zulip's server takes any string here, but the mobile app refuses to load a
 * message whose vote key is not of this form, so one malformed vote could hide a conversation.
 */
const itemKey =
  (form: RegExp): Check =>
  (where, v) => {
    string(where, v);
    if (!form.test(v as string)) throw badRequest(`Invalid ${where}`);
  };
const POLL_OPTION_KEY = itemKey(/^(canned|\d{1,10}),\d{1,4}$/);
const TODO_TASK_KEY = itemKey(/^\d{1,4},(canned|\d{1,10})$/);

/** Exactly these keys, each checked, in Zulip's order: missing keys, their values, then extra keys. */
function dictOnly(name: string, data: Record<string, unknown>, keys: [string, Check][]): void {
  for (const [key, check] of keys) {
    if (!(key in data)) throw badRequest(`${key} key is missing from ${name}`);
    check(`${name}["${key}"]`, data[key]);
  }
  const extra = Object.keys(data).filter((k) => !keys.some(([key]) => key === k));
  if (extra.length) throw badRequest(`Unexpected arguments: ${extra.join(", ")}`);
}

/** The data's `type`, after checking it is an object that has a string one. */
function typed(name: string, data: unknown): { data: Record<string, unknown>; type: string } {
  if (!isDict(data)) throw badRequest(`${name} is not a dict`);
  if (!("type" in data)) throw badRequest(`type key is missing from ${name}`);
  string(`${name}["type"]`, data.type);
  return { data, type: data.type as string };
}

/** A submessage on a poll: a vote (1 or -1) on an option's key, a new option, or (by its author only) the question. */
export function checkPollData(raw: unknown, isWidgetAuthor: boolean): void {
  const name = "poll data";
  const { data, type } = typed(name, raw);
  switch (type) {
    case "vote":
      return dictOnly(name, data, [
        ["type", string],
        ["key", POLL_OPTION_KEY],
        ["vote", intIn([1, -1])],
      ]);
    case "question":
      if (!isWidgetAuthor) throw badRequest("You can't edit a question unless you are the author.");
      return dictOnly(name, data, [
        ["type", string],
        ["question", string],
      ]);
    case "new_option":
      return dictOnly(name, data, [
        ["type", string],
        ["option", string],
        ["idx", intRange(0, MAX_IDX)],
      ]);
  }
  throw badRequest(`Unknown type for poll data: ${type}`);
}

/** A submessage on a to-do list: a new task, a task struck or unstruck, or (by its author only) the title. */
export function checkTodoData(raw: unknown, isWidgetAuthor: boolean): void {
  const name = "todo data";
  const { data, type } = typed(name, raw);
  switch (type) {
    case "new_task":
      return dictOnly(name, data, [
        ["type", string],
        ["key", intRange(0, MAX_IDX)],
        ["task", string],
        ["desc", string],
        ["completed", boolean],
      ]);
    case "strike":
      return dictOnly(name, data, [
        ["type", string],
        ["key", TODO_TASK_KEY],
      ]);
    case "new_task_list_title":
      if (!isWidgetAuthor) throw badRequest("You can't edit the task list title unless you are the author.");
      return dictOnly(name, data, [
        ["type", string],
        ["title", string],
      ]);
  }
  throw badRequest(`Unknown type for todo data: ${type}`);
}

/** Checks a submessage's data against the message's widget; other widget types are not checked, as in Zulip. */
export function checkWidgetData(widgetType: WidgetType | null, data: unknown, isWidgetAuthor: boolean): void {
  if (widgetType === "poll") checkPollData(data, isWidgetAuthor);
  else if (widgetType === "todo") checkTodoData(data, isWidgetAuthor);
}

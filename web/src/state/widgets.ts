/**
 * Polls and to-do lists from a message's submessages: the first is the widget its sender's
 * /poll or /todo made, each later one a vote, an option or task added, a task struck, or the
 * question or title changed. The state is the submessages replayed in order, as Zulip's web
 * client replays them (same keys, same rules for what it ignores), so every client agrees. Pure.
 */

export interface Submessage {
  id: number;
  message_id: number;
  sender_id: number;
  msg_type: string;
  content: string;
}

export interface PollOption {
  /** `canned,<n>` for the options the message listed, `<sender id>,<idx>` for those added since. */
  key: string;
  option: string;
  voters: number[];
}

export interface PollState {
  kind: "poll";
  question: string;
  options: PollOption[];
}

export interface TodoTask {
  /** `<n>,canned` for the tasks the message listed, `<idx>,<sender id>` for those added since. */
  key: string;
  task: string;
  desc: string;
  completed: boolean;
}

export interface TodoState {
  kind: "todo";
  title: string;
  tasks: TodoTask[];
}

export type WidgetState = PollState | TodoState;

/** The largest index a client gives what it adds (Zulip's MAX_IDX). */
const MAX_IDX = 1000;

type Data = Record<string, unknown>;

function parse(content: string): Data | null {
  try {
    const data: unknown = JSON.parse(content);
    return typeof data === "object" && data !== null && !Array.isArray(data) ? (data as Data) : null;
  } catch {
    return null;
  }
}

const isIdx = (v: unknown): v is number => typeof v === "number" && Number.isInteger(v) && v >= 0 && v <= MAX_IDX;
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : []);

function addOption(poll: PollState, key: string, option: string): PollState {
  // The /poll syntax allows the same option twice; it is shown once.
  if (poll.options.some((o) => o.option === option)) return poll;
  const at = poll.options.findIndex((o) => o.key === key);
  const added = { key, option, voters: [] };
  return { ...poll, options: at < 0 ? [...poll.options, added] : poll.options.map((o, i) => (i === at ? added : o)) };
}

function applyPoll(poll: PollState, senderId: number, authorId: number, d: Data): PollState {
  switch (d.type) {
    case "new_option":
      return typeof d.option === "string" && isIdx(d.idx) ? addOption(poll, `${senderId},${d.idx}`, d.option) : poll;
    case "question":
      return senderId === authorId && typeof d.question === "string" ? { ...poll, question: d.question } : poll;
    case "vote": {
      if (d.vote !== 1 && d.vote !== -1) return poll;
      return {
        ...poll,
        options: poll.options.map((o) => {
          if (o.key !== d.key) return o;
          const others = o.voters.filter((id) => id !== senderId);
          return { ...o, voters: d.vote === 1 ? [...others, senderId] : others };
        }),
      };
    }
  }
  return poll;
}

function addTask(todo: TodoState, key: string, task: string, desc: string, completed: boolean): TodoState {
  if (todo.tasks.some((t) => t.task === task)) return todo;
  return { ...todo, tasks: [...todo.tasks, { key, task, desc, completed }] };
}

function applyTodo(todo: TodoState, senderId: number, authorId: number, d: Data): TodoState {
  switch (d.type) {
    case "new_task":
      if (!isIdx(d.key) || typeof d.task !== "string" || typeof d.desc !== "string" || typeof d.completed !== "boolean") return todo;
      return addTask(todo, `${d.key},${senderId}`, d.task, d.desc, d.completed);
    case "strike":
      return { ...todo, tasks: todo.tasks.map((t) => (t.key === d.key ? { ...t, completed: !t.completed } : t)) };
    case "new_task_list_title":
      return senderId === authorId && typeof d.title === "string" ? { ...todo, title: d.title } : todo;
  }
  return todo;
}

/** The widget as its submessages leave it, or null when the message has none we show. */
export function widgetState(authorId: number, submessages: readonly Submessage[]): WidgetState | null {
  const [first, ...rest] = submessages;
  if (!first || first.msg_type !== "widget" || first.sender_id !== authorId) return null;
  const widget = parse(first.content);
  const extra = widget && typeof widget.extra_data === "object" && widget.extra_data !== null ? (widget.extra_data as Data) : {};
  let state: WidgetState;
  if (widget?.widget_type === "poll") {
    let poll: PollState = { kind: "poll", question: typeof extra.question === "string" ? extra.question : "", options: [] };
    strings(extra.options).forEach((option, i) => (poll = addOption(poll, `canned,${i}`, option)));
    state = poll;
  } else if (widget?.widget_type === "todo") {
    let todo: TodoState = { kind: "todo", title: typeof extra.task_list_title === "string" ? extra.task_list_title : "", tasks: [] };
    const tasks = Array.isArray(extra.tasks) ? (extra.tasks as unknown[]) : [];
    tasks.forEach((t, i) => {
      const { task, desc } = (t ?? {}) as Data;
      if (typeof task === "string") todo = addTask(todo, `${i},canned`, task, typeof desc === "string" ? desc : "", false);
    });
    state = todo;
  } else return null;
  // Every later submessage acts on the widget, whatever its msg_type: the server checked it as such.
  for (const s of rest) {
    const d = parse(s.content);
    if (!d) continue;
    state = state.kind === "poll" ? applyPoll(state, s.sender_id, authorId, d) : applyTodo(state, s.sender_id, authorId, d);
  }
  return state;
}

export interface SubmessageEvent {
  submessage_id: number;
  message_id: number;
  sender_id: number;
  msg_type: string;
  content: string;
}

/** The message's submessages after a `submessage` event; one already there is not added twice. */
export function addSubmessage(submessages: readonly Submessage[], e: SubmessageEvent): Submessage[] {
  if (submessages.some((s) => s.id === e.submessage_id)) return [...submessages];
  const added = { id: e.submessage_id, message_id: e.message_id, sender_id: e.sender_id, msg_type: e.msg_type, content: e.content };
  return [...submessages, added].sort((a, b) => a.id - b.id);
}

/**
 * The next index for something the reader adds (an option or a task): past every index they
 * used on this message, from any of their devices.
 */
export function nextIdx(submessages: readonly Submessage[], me: number): number {
  let next = 1;
  for (const s of submessages.slice(1)) {
    if (s.sender_id !== me) continue;
    const d = parse(s.content);
    const idx = d?.type === "new_option" ? d.idx : d?.type === "new_task" ? d.key : undefined;
    if (isIdx(idx)) next = Math.max(next, idx + 1);
  }
  return next;
}

/** What the reader sends to vote for an option, or take their vote back. */
export function voteData(option: PollOption, me: number) {
  return { type: "vote", key: option.key, vote: option.voters.includes(me) ? -1 : 1 };
}

export const newOptionData = (option: string, idx: number) => ({ type: "new_option", idx, option });
export const questionData = (question: string) => ({ type: "question", question });
export const newTaskData = (task: string, desc: string, idx: number) => ({ type: "new_task", key: idx, task, desc, completed: false });
export const strikeData = (task: TodoTask) => ({ type: "strike", key: task.key });
export const titleData = (title: string) => ({ type: "new_task_list_title", title });

/** Whether an option (poll) or a task (to-do list) of this name is already there. */
export function nameTaken(state: WidgetState, name: string): boolean {
  return state.kind === "poll" ? state.options.some((o) => o.option === name) : state.tasks.some((t) => t.task === name);
}

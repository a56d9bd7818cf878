/**
 * A message's poll or to-do list in place of its text: votes, options and tasks go to the
 * server as submessages, and the widget changes when their `submessage` events come back, so
 * every reader's copy shows the same thing.
 */
import type { ComponentChildren } from "preact";
import { useRef, useState } from "preact/hooks";
import { api } from "../../api";
import { model, userName, type Message } from "../../model";
import {
  nameTaken,
  newOptionData,
  newTaskData,
  nextIdx,
  questionData,
  strikeData,
  titleData,
  voteData,
  widgetState,
  type PollState,
  type Submessage,
  type TodoState,
} from "../../state/widgets";
import "./widgets.css";

type Send = (data: Record<string, unknown>) => Promise<void>;
/** The index for the next option or task the reader adds. */
type NextIdx = () => number;

function sender(m: Message, setError: (e: string) => void): Send {
  return async (data) => {
    setError("");
    try {
      await api("POST", "/submessage", { message_id: m.id, msg_type: "widget", content: JSON.stringify(data) });
    } catch (e) {
      setError((e as Error).message);
    }
  };
}

/** A heading its author may rewrite in place (a poll's question, a list's title). */
function EditableHeading({ text, placeholder, label, mine, save }: { text: string; placeholder: string; label: string; mine: boolean; save: (t: string) => void }) {
  const [draft, setDraft] = useState<string | null>(null);
  if (draft === null) {
    return (
      <div class="widget-heading">
        <h4>{text || placeholder}</h4>
        {mine && (
          <button type="button" class="widget-icon" aria-label={`Edit ${label}`} title={`Edit ${label}`} onClick={() => setDraft(text)}>
            ✎
          </button>
        )}
      </div>
    );
  }
  const submit = () => {
    const value = draft.trim();
    setDraft(null);
    if (value && value !== text) save(value);
  };
  return (
    <form
      class="widget-heading widget-row"
      onSubmit={(e) => {
        e.preventDefault();
        submit();
      }}
    >
      <input aria-label={label} value={draft} onInput={(e) => setDraft(e.currentTarget.value)} onKeyDown={(e) => e.key === "Escape" && setDraft(null)} ref={(el) => el?.focus()} />
      <button type="submit" disabled={!draft.trim()}>
        Save
      </button>
      <button type="button" class="secondary" onClick={() => setDraft(null)}>
        Cancel
      </button>
    </form>
  );
}

/** A field and a button that adds what was typed, unless it is blank or already there. */
function AddForm({ fields, button, taken, add }: { fields: string[]; button: string; taken: (name: string) => boolean; add: (values: string[]) => void }) {
  const [values, setValues] = useState(fields.map(() => ""));
  const name = values[0].trim();
  const duplicate = name !== "" && taken(name);
  return (
    <form
      class="widget-row widget-add"
      onSubmit={(e) => {
        e.preventDefault();
        if (!name || duplicate) return;
        add(values.map((v) => v.trim()));
        setValues(fields.map(() => ""));
      }}
    >
      {fields.map((label, i) => (
        <input key={label} aria-label={label} placeholder={label} value={values[i]} onInput={(e) => setValues(values.map((v, j) => (j === i ? e.currentTarget.value : v)))} />
      ))}
      <button type="submit" disabled={!name || duplicate} title={duplicate ? "Already there" : undefined}>
        {button}
      </button>
    </form>
  );
}

function Poll({ m, poll, send, idx }: { m: Message; poll: PollState; send: Send; idx: NextIdx }) {
  const me = model.me.user_id;
  return (
    <>
      <EditableHeading text={poll.question} placeholder="Poll" label="question" mine={m.sender_id === me} save={(q) => void send(questionData(q))} />
      <ul class="poll-options">
        {poll.options.map((o) => {
          const mine = o.voters.includes(me);
          const names = o.voters.map(userName).join(", ");
          return (
            <li key={o.key}>
              <button
                type="button"
                class={`poll-vote${mine ? " mine" : ""}`}
                aria-pressed={mine}
                aria-label={`${o.option}: ${o.voters.length} ${o.voters.length === 1 ? "vote" : "votes"}`}
                title={mine ? "Take back your vote" : "Vote"}
                onClick={() => void send(voteData(o, me))}
              >
                {o.voters.length}
              </button>
              <span class="poll-text">
                <span class="poll-option">{o.option}</span>
                {names && <span class="widget-muted"> {names}</span>}
              </span>
            </li>
          );
        })}
      </ul>
      <AddForm fields={["New option"]} button="Add option" taken={(n) => nameTaken(poll, n)} add={([option]) => void send(newOptionData(option, idx()))} />
    </>
  );
}

function Todo({ m, todo, send, idx }: { m: Message; todo: TodoState; send: Send; idx: NextIdx }) {
  const me = model.me.user_id;
  return (
    <>
      <EditableHeading text={todo.title} placeholder="Task list" label="task list title" mine={m.sender_id === me} save={(t) => void send(titleData(t))} />
      <ul class="todo-tasks">
        {todo.tasks.map((t) => (
          <li key={t.key} class={t.completed ? "done" : undefined}>
            <label>
              <input type="checkbox" checked={t.completed} onChange={() => void send(strikeData(t))} />
              <span>
                <strong>{t.task}</strong>
                {t.desc && <span class="widget-muted">: {t.desc}</span>}
              </span>
            </label>
          </li>
        ))}
      </ul>
      <AddForm
        fields={["New task", "Description"]}
        button="Add task"
        taken={(n) => nameTaken(todo, n)}
        add={([task, desc]) => void send(newTaskData(task, desc, idx()))}
      />
    </>
  );
}

/** The message's widget, or `children` (its text) when it has none. */
export function WidgetOr({ m, children }: { m: Message; children: ComponentChildren }) {
  const [error, setError] = useState("");
  // Two additions sent before the first comes back as an event must not share an index.
  const lastIdx = useRef(0);
  const state = m.submessages?.length ? widgetState(m.sender_id, m.submessages as Submessage[]) : null;
  if (!state) return <>{children}</>;
  const send = sender(m, setError);
  const idx = () => (lastIdx.current = Math.max(lastIdx.current + 1, nextIdx(m.submessages ?? [], model.me.user_id)));
  return (
    <section class={`widget widget-${state.kind}`} aria-label={state.kind === "poll" ? "Poll" : "To-do list"}>
      {state.kind === "poll" ? <Poll m={m} poll={state} send={send} idx={idx} /> : <Todo m={m} todo={state} send={send} idx={idx} />}
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
    </section>
  );
}

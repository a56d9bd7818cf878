/**
 * Scheduled messages, as in Zulip's web app: one's messages waiting to be sent, soonest first,
 * under the day they go out, with their time in the reader's zone and hour format. Edit opens one
 * in the compose box (sending then saves it, PATCH, keeping its time; Schedule there picks a new
 * one), Reschedule picks a new time here, Delete cancels it. Opened from the left sidebar, kept
 * current by `scheduled_messages` events. Keys: ↑/↓ move, Enter edits, Backspace deletes, Esc closes.
 */
import { moveFocusInList } from "../../components/listKeys";
import { useRef, useState } from "preact/hooks";
import { api } from "../../api";
import { changed, model, useModel } from "../../model";
import { fullTime, timeOfDay } from "../../time";
import { Rendered } from "../../components/Rendered";
import { closeCompose, compose, openCompose } from "../compose/Compose";
import { Overlay, composeTargetOf, conversationLabel, focusRowAt, goToConversation, inField } from "../drafts/Overlay";
import "./scheduled.css";

export interface ScheduledMessage {
  scheduled_message_id: number;
  type: "stream" | "private";
  to: number | number[];
  topic?: string;
  content: string;
  rendered_content?: string;
  /** In seconds. */
  scheduled_delivery_timestamp: number;
  /** The server tried to send it and could not. */
  failed?: boolean;
}

export const scheduledOverlay = { open: false };

export function openScheduled(): void {
  scheduledOverlay.open = true;
  changed();
}

export function closeScheduled(): void {
  scheduledOverlay.open = false;
  changed();
}

/** Soonest first. */
export function sortedScheduled(): ScheduledMessage[] {
  return ([...model.scheduled] as ScheduledMessage[]).sort(
    (a, b) => a.scheduled_delivery_timestamp - b.scheduled_delivery_timestamp || a.scheduled_message_id - b.scheduled_message_id,
  );
}

/** Opens a scheduled message in the compose box, in its conversation; sending there saves the edit. */
export function editScheduled(s: ScheduledMessage): void {
  closeScheduled();
  // What the box held before is kept as a draft, as closing it would.
  if (compose.open && compose.scheduledId !== s.scheduled_message_id) void closeCompose();
  goToConversation(s);
  openCompose(composeTargetOf(s), s.content);
  compose.scheduledId = s.scheduled_message_id;
  changed();
}

export async function deleteScheduled(id: number): Promise<void> {
  await api("DELETE", `/scheduled_messages/${id}`);
  // The event says the same a moment later; the row leaves at once.
  model.scheduled = model.scheduled.filter((s) => s.scheduled_message_id !== id);
  if (compose.scheduledId === id) compose.scheduledId = 0;
  changed();
}

export async function reschedule(id: number, seconds: number): Promise<void> {
  await api("PATCH", `/scheduled_messages/${id}`, { scheduled_delivery_timestamp: seconds });
}

/** A moment as a datetime-local input's value, in the browser's zone ("2026-01-15T15:05"). */
export function localInputValue(ms: number): string {
  const d = new Date(ms);
  const p = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}`;
}

const startOfDay = (d: Date) => new Date(d.getFullYear(), d.getMonth(), d.getDate()).getTime();

/** "Today", "Tomorrow", or "Thursday, January 15" (with the year when not this one). */
function dayLabel(ms: number): string {
  const d = new Date(ms);
  const now = new Date();
  const days = Math.round((startOfDay(d) - startOfDay(now)) / 86_400_000);
  if (days === 0) return "Today";
  if (days === 1) return "Tomorrow";
  return new Intl.DateTimeFormat(undefined, { weekday: "long", month: "long", day: "numeric", year: d.getFullYear() === now.getFullYear() ? undefined : "numeric" }).format(d);
}

function ScheduledDialog() {
  const body = useRef<HTMLDivElement>(null);
  const [errors, setErrors] = useState<Record<number, string>>({});
  const [editing, setEditing] = useState(0);
  const [when, setWhen] = useState("");
  const [busy, setBusy] = useState(0);
  const messages = sortedScheduled();
  const twentyFour = model.settings.twenty_four_hour_time;

  const setError = (id: number, message: string) => setErrors((all) => ({ ...all, [id]: message }));
  const rowAt = (id: number) => [...(body.current?.querySelectorAll<HTMLElement>(".ov-row") ?? [])].findIndex((r) => r.dataset.id === String(id));
  const focusRow = (id: number) => requestAnimationFrame(() => body.current?.querySelector<HTMLElement>(`.ov-row[data-id="${id}"]`)?.focus());

  const remove = async (s: ScheduledMessage) => {
    const id = s.scheduled_message_id;
    const at = rowAt(id);
    setError(id, "");
    setBusy(id);
    try {
      await deleteScheduled(id);
      focusRowAt(body.current, Math.max(0, at));
    } catch (e) {
      setError(id, `Could not delete it: ${(e as Error).message}`);
    } finally {
      setBusy(0);
    }
  };

  const startReschedule = (s: ScheduledMessage) => {
    setError(s.scheduled_message_id, "");
    setEditing(s.scheduled_message_id);
    setWhen(localInputValue(s.scheduled_delivery_timestamp * 1000));
    requestAnimationFrame(() => document.getElementById(`reschedule-${s.scheduled_message_id}`)?.focus());
  };

  const saveReschedule = async (s: ScheduledMessage) => {
    const id = s.scheduled_message_id;
    const ms = new Date(when).getTime();
    if (!when || Number.isNaN(ms)) return setError(id, "Choose a date and time.");
    setError(id, "");
    setBusy(id);
    try {
      await reschedule(id, Math.floor(ms / 1000));
      setEditing(0);
      focusRow(id);
    } catch (e) {
      setError(id, (e as Error).message);
    } finally {
      setBusy(0);
    }
  };

  const onKey = (e: KeyboardEvent): boolean => {
    if (e.key === "Escape" && editing) {
      e.preventDefault();
      const id = editing;
      setEditing(0);
      focusRow(id);
      return true;
    }
    if (inField(e)) return false;
    if (body.current && moveFocusInList(e, ".ov-row", body.current)) return true;
    if (e.ctrlKey || e.metaKey || e.altKey) return false;
    const row = (e.target as HTMLElement).closest<HTMLElement>(".ov-row");
    const s = row && messages.find((m) => String(m.scheduled_message_id) === row.dataset.id);
    if (!s) return false;
    if (e.key === "Enter" && e.target === row) {
      e.preventDefault();
      editScheduled(s);
      return true;
    }
    if (e.key === "Backspace" || e.key === "Delete") {
      e.preventDefault();
      void remove(s);
      return true;
    }
    return false;
  };

  const row = (s: ScheduledMessage) => {
    const id = s.scheduled_message_id;
    const label = conversationLabel(s);
    const ms = s.scheduled_delivery_timestamp * 1000;
    const error = errors[id];
    return (
      <li key={id} class={`ov-row scheduled-row${s.failed ? " failed" : ""}`} tabIndex={0} data-id={id}>
        <div class="ov-row-head">
          <span class="ov-target" title={label}>
            {label}
          </span>
          {s.failed && <span class="scheduled-failed">Not sent</span>}
          <time class="ov-time scheduled-time" dateTime={new Date(ms).toISOString()} title={fullTime(ms, twentyFour)}>
            {timeOfDay(ms, twentyFour)}
          </time>
        </div>
        {s.rendered_content ? (
          <Rendered class="ov-content scheduled-content" html={s.rendered_content} />
        ) : (
          <div class="ov-content scheduled-content plain">{s.content}</div>
        )}
        {editing === id ? (
          <form
            class="scheduled-reschedule"
            noValidate
            onSubmit={(e) => {
              e.preventDefault();
              void saveReschedule(s);
            }}
          >
            <label for={`reschedule-${id}`}>Send at</label>
            <input id={`reschedule-${id}`} type="datetime-local" value={when} min={localInputValue(Date.now())} onInput={(e) => setWhen(e.currentTarget.value)} />
            <span class="ov-actions">
              <button type="submit" class="primary" disabled={busy === id}>
                Save time
              </button>
              <button
                type="button"
                onClick={() => {
                  setEditing(0);
                  setError(id, "");
                  focusRow(id);
                }}
              >
                Cancel
              </button>
            </span>
          </form>
        ) : (
          <div class="ov-actions">
            <button type="button" class="primary" aria-label={`Edit scheduled message: ${label}`} onClick={() => editScheduled(s)}>
              Edit
            </button>
            <button type="button" aria-label={`Reschedule message: ${label}`} onClick={() => startReschedule(s)}>
              Reschedule
            </button>
            <button type="button" class="danger" aria-label={`Delete scheduled message: ${label}`} disabled={busy === id} onClick={() => void remove(s)}>
              Delete
            </button>
          </div>
        )}
        {error && (
          <p class="ov-error" role="alert">
            {error}
          </p>
        )}
      </li>
    );
  };

  // Under the day each goes out.
  const days: { label: string; messages: ScheduledMessage[] }[] = [];
  for (const s of messages) {
    const label = dayLabel(s.scheduled_delivery_timestamp * 1000);
    if (days[days.length - 1]?.label === label) days[days.length - 1].messages.push(s);
    else days.push({ label, messages: [s] });
  }

  return (
    <Overlay title="Scheduled messages" class="scheduled-overlay" onClose={closeScheduled} onKey={onKey}>
      <div ref={body}>
        {messages.length === 0 ? (
          <p class="ov-empty">No scheduled messages. Use Schedule in the compose box to send one later.</p>
        ) : (
          <>
            {days.map((day) => (
              <section key={day.label} class="ov-section" aria-label={day.label}>
                <h3>{day.label}</h3>
                <ul class="ov-list">{day.messages.map(row)}</ul>
              </section>
            ))}
            <p class="ov-hint">↑ ↓ move · Enter edits · Backspace deletes · Esc closes</p>
          </>
        )}
      </div>
    </Overlay>
  );
}

/** Mounted by the page; shows the overlay while it is open. */
export function ScheduledOverlay() {
  useModel();
  return scheduledOverlay.open ? <ScheduledDialog /> : null;
}

/** The left sidebar's "Scheduled messages" view, shown while there are any. */
export function ScheduledViewEntry() {
  const n = model.scheduled.length;
  if (!n) return null;
  return (
    <li class="scheduled-view">
      <button type="button" aria-haspopup="dialog" onClick={openScheduled}>
        <span class="name">Scheduled messages</span>
        <span class="view-tally">{n}</span>
      </button>
    </li>
  );
}

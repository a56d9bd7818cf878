/**
 * Scheduled messages, as in Zulip's web app: one's messages waiting to be sent, soonest first,
 * under the day they go out, with their time in the reader's zone and hour format. Edit opens one
 * in the compose box (sending then saves it, PATCH, keeping its time; Schedule there picks a new
 * one), Reschedule picks a new time here, Delete cancels it. Opened from the left sidebar, kept
 * current by `scheduled_messages` events. Keys: ↑/↓ move, Enter edits, Backspace deletes, Esc closes.
 */
import { useState } from "preact/hooks";
import { api } from "../../api";
import { Modal } from "../../components/Modal";
import { Rendered } from "../../components/Rendered";
import { changed, model, useModel, type ScheduledMessage } from "../../model";
import { dayOf } from "../../state/feed";
import { dayLabel, fullTime, timeOfDay } from "../../time";
import { closeCompose, compose, openCompose } from "../compose/Compose";
import { composeTargetOf, conversationLabel, goToConversation } from "../drafts/conversation";
import { useListRows } from "../drafts/rows";
import "./scheduled.css";

const scheduledOverlay = { open: false };

function openScheduled(): void {
  scheduledOverlay.open = true;
  changed();
}

function closeScheduled(): void {
  scheduledOverlay.open = false;
  changed();
}

/** Soonest first. */
function sortedScheduled(): ScheduledMessage[] {
  return [...model.scheduled].sort((a, b) => a.scheduled_delivery_timestamp - b.scheduled_delivery_timestamp || a.scheduled_message_id - b.scheduled_message_id);
}

/** Opens a scheduled message in the compose box, in its conversation; sending there saves the edit. */
function editScheduled(s: ScheduledMessage): void {
  closeScheduled();
  // Already there: its unsaved edit stays.
  if (compose.open && compose.scheduledId === s.scheduled_message_id) {
    requestAnimationFrame(() => document.getElementById("compose-content")?.focus());
    return;
  }
  // What the box held before is kept as a draft, as closing it would.
  if (compose.open) void closeCompose();
  goToConversation(s);
  openCompose(composeTargetOf(s), s.content);
  compose.scheduledId = s.scheduled_message_id;
  changed();
}

async function deleteScheduled(id: number): Promise<void> {
  await api("DELETE", `/scheduled_messages/${id}`);
  // The event says the same a moment later; the row leaves at once.
  model.scheduled = model.scheduled.filter((s) => s.scheduled_message_id !== id);
  if (compose.scheduledId === id) compose.scheduledId = 0;
  changed();
}

async function reschedule(id: number, seconds: number): Promise<void> {
  await api("PATCH", `/scheduled_messages/${id}`, { scheduled_delivery_timestamp: seconds });
}

/** A moment as a datetime-local input's value, in the browser's zone ("2026-01-15T15:05"). */
function localInputValue(ms: number): string {
  const d = new Date(ms);
  const p = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}`;
}

function ScheduledDialog() {
  const [errors, setErrors] = useState<Record<number, string>>({});
  const [editing, setEditing] = useState(0);
  const [when, setWhen] = useState("");
  const [busy, setBusy] = useState(0);
  const messages = sortedScheduled();
  const twentyFour = model.settings.twenty_four_hour_time;

  const setError = (id: number, message: string) => setErrors((all) => ({ ...all, [id]: message }));

  const rows = useListRows({
    items: messages,
    idOf: (s) => s.scheduled_message_id,
    open: editScheduled,
    remove: async (s) => {
      const id = s.scheduled_message_id;
      setError(id, "");
      setBusy(id);
      try {
        await deleteScheduled(id);
        return true;
      } catch (e) {
        setError(id, `Could not delete it: ${(e as Error).message}`);
        return false;
      } finally {
        setBusy(0);
      }
    },
  });
  const focusRow = (id: number) => requestAnimationFrame(() => rows.body.current?.querySelector<HTMLElement>(`.ov-row[data-id="${id}"]`)?.focus());

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
    return rows.onKey(e);
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
            <button type="button" class="danger" aria-label={`Delete scheduled message: ${label}`} disabled={busy === id} onClick={() => void rows.removeRow(s)}>
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
  const days: { key: string; label: string; messages: ScheduledMessage[] }[] = [];
  for (const s of messages) {
    const key = dayOf(s.scheduled_delivery_timestamp);
    if (days[days.length - 1]?.key === key) days[days.length - 1].messages.push(s);
    else days.push({ key, label: dayLabel(s.scheduled_delivery_timestamp * 1000), messages: [s] });
  }

  return (
    <Modal title="Scheduled messages" class="ov scheduled-overlay" onClose={closeScheduled} onKey={onKey} initialFocus=".ov-row">
      <div ref={rows.body}>
        {messages.length === 0 ? (
          <p class="ov-empty">No scheduled messages. Use Schedule in the compose box to send one later.</p>
        ) : (
          <>
            {days.map((day) => (
              <section key={day.key} class="ov-section" aria-label={day.label}>
                <h3>{day.label}</h3>
                <ul class="ov-list">{day.messages.map(row)}</ul>
              </section>
            ))}
            <p class="ov-hint">↑ ↓ move · Enter edits · Backspace deletes · Esc closes</p>
          </>
        )}
      </div>
    </Modal>
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

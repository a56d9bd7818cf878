/**
 * Drafts, as in Zulip's web app: the unsent messages kept on the server, newest first, those of
 * the conversation in view listed apart. Restoring one opens it in the compose box, in its
 * conversation, remembering which draft it is (sending deletes it; closing the box saves it
 * back); deleting one removes it from the server. Opened with `d` or from the left sidebar, kept
 * current by `drafts` events. Keys: ↑/↓ move, Enter restores, Backspace deletes, Esc or `d` closes.
 */
import { moveFocusInList } from "../../components/listKeys";
import { useRef, useState } from "preact/hooks";
import { api } from "../../api";
import { changed, model, useModel } from "../../model";
import { fullTime, timeOfDay } from "../../time";
import { closeCompose, compose, openCompose } from "../compose/Compose";
import { Overlay, composeTargetOf, conversationLabel, focusRowAt, goToConversation, inField, isConversationInView } from "./Overlay";
import "./drafts.css";

export interface Draft {
  id: number;
  type: "" | "stream" | "private";
  to: number[];
  topic: string;
  content: string;
  /** When it was last edited, in seconds. */
  timestamp: number;
}

export const draftsOverlay = { open: false };

export function openDrafts(): void {
  draftsOverlay.open = true;
  changed();
}

export function closeDrafts(): void {
  draftsOverlay.open = false;
  changed();
}

/** The `d` key: opens the overlay, or closes it when open. */
export function toggleDrafts(): void {
  if (draftsOverlay.open) closeDrafts();
  else openDrafts();
}

/** Newest first. */
export function sortedDrafts(): Draft[] {
  return ([...model.drafts.values()] as unknown as Draft[]).sort((a, b) => (b.timestamp ?? 0) - (a.timestamp ?? 0) || b.id - a.id);
}

/** Opens a draft in the compose box, in its conversation; what the box held before is kept as a draft of its own. */
export function restoreDraft(d: Draft): void {
  closeDrafts();
  if (compose.open && compose.draftId === d.id) {
    requestAnimationFrame(() => document.getElementById("compose-content")?.focus());
    return;
  }
  if (compose.open) void closeCompose();
  goToConversation(d);
  openCompose(composeTargetOf(d), d.content);
  compose.draftId = d.id;
  changed();
}

export async function deleteDraft(id: number): Promise<void> {
  await api("DELETE", `/drafts/${id}`);
  // The `drafts` event says the same a moment later; the row leaves at once.
  model.drafts.delete(id);
  // The compose box no longer has a draft to save back to.
  if (compose.draftId === id) compose.draftId = 0;
  changed();
}

/** When a draft was last edited: the time today, else the day and time. */
function editedAt(seconds: number, twentyFour: unknown): string {
  const ms = seconds * 1000;
  return new Date(ms).toDateString() === new Date().toDateString() ? timeOfDay(ms, twentyFour) : fullTime(ms, twentyFour);
}

function DraftsDialog() {
  const body = useRef<HTMLDivElement>(null);
  const [error, setError] = useState("");
  const drafts = sortedDrafts();
  const here = drafts.filter(isConversationInView);
  const others = drafts.filter((d) => !here.includes(d));
  const twentyFour = model.settings.twenty_four_hour_time;

  const remove = async (d: Draft) => {
    const rows = [...(body.current?.querySelectorAll<HTMLElement>(".ov-row") ?? [])];
    const at = rows.findIndex((r) => r.dataset.id === String(d.id));
    const hadFocus = rows[at]?.contains(document.activeElement);
    setError("");
    try {
      await deleteDraft(d.id);
      if (hadFocus) focusRowAt(body.current, Math.max(0, at));
    } catch (e) {
      setError(`Could not delete the draft: ${(e as Error).message}`);
    }
  };

  const onKey = (e: KeyboardEvent): boolean => {
    if (body.current && moveFocusInList(e, ".ov-row", body.current)) return true;
    if (inField(e) || e.ctrlKey || e.metaKey || e.altKey) return false;
    if (e.key === "d") {
      e.preventDefault();
      closeDrafts();
      return true;
    }
    const row = (e.target as HTMLElement).closest<HTMLElement>(".ov-row");
    const d = row && (model.drafts.get(Number(row.dataset.id)) as unknown as Draft | undefined);
    if (!d) return false;
    if (e.key === "Enter" && e.target === row) {
      e.preventDefault();
      restoreDraft(d);
      return true;
    }
    if (e.key === "Backspace" || e.key === "Delete") {
      e.preventDefault();
      void remove(d);
      return true;
    }
    return false;
  };

  const row = (d: Draft) => {
    const label = conversationLabel(d);
    const ms = (d.timestamp ?? 0) * 1000;
    return (
      <li key={d.id} class="ov-row draft-row" tabIndex={0} data-id={d.id}>
        <div class="ov-row-head">
          <span class="ov-target" title={label}>
            {label}
          </span>
          <time class="ov-time" dateTime={new Date(ms).toISOString()} title={fullTime(ms, twentyFour)}>
            {editedAt(d.timestamp ?? 0, twentyFour)}
          </time>
        </div>
        <div class="ov-content draft-content" onClick={() => restoreDraft(d)}>
          {d.content}
        </div>
        <div class="ov-actions">
          <button type="button" class="primary" aria-label={`Restore draft: ${label}`} onClick={() => restoreDraft(d)}>
            Restore
          </button>
          <button type="button" class="danger" aria-label={`Delete draft: ${label}`} onClick={() => void remove(d)}>
            Delete
          </button>
        </div>
      </li>
    );
  };

  return (
    <Overlay title="Drafts" class="drafts-overlay" onClose={closeDrafts} onKey={onKey}>
      <div ref={body}>
        {error && (
          <p class="ov-error drafts-error" role="alert">
            {error}
          </p>
        )}
        {drafts.length === 0 ? (
          <p class="ov-empty">No drafts. Text left in the compose box is kept here when you close it.</p>
        ) : (
          <>
            {here.length > 0 && (
              <section class="ov-section" aria-label="Drafts from this conversation">
                <h3>This conversation</h3>
                <ul class="ov-list">{here.map(row)}</ul>
              </section>
            )}
            {others.length > 0 && (
              <section class="ov-section" aria-label={here.length ? "Other drafts" : "All drafts"}>
                {here.length > 0 && <h3>Other drafts</h3>}
                <ul class="ov-list">{others.map(row)}</ul>
              </section>
            )}
            <p class="ov-hint">↑ ↓ move · Enter restores · Backspace deletes · Esc or D closes</p>
          </>
        )}
      </div>
    </Overlay>
  );
}

/** Mounted by the page; shows the overlay while it is open. */
export function DraftsOverlay() {
  useModel();
  return draftsOverlay.open ? <DraftsDialog /> : null;
}

/** The left sidebar's "Drafts" view, with how many there are. */
export function DraftsViewEntry() {
  const n = model.drafts.size;
  return (
    <li class="drafts-view">
      <button type="button" aria-haspopup="dialog" onClick={openDrafts}>
        <span class="name">Drafts</span>
        {n > 0 && <span class="view-tally">{n}</span>}
      </button>
    </li>
  );
}

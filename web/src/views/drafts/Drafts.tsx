/**
 * Drafts, as in Zulip's web app: the unsent messages kept on the server, newest first, those of
 * the conversation in view listed apart. Restoring one opens it in the compose box, in its
 * conversation, remembering which draft it is (sending deletes it; closing the box saves it
 * back); deleting one removes it from the server. Opened with `d` or from the left sidebar, kept
 * current by `drafts` events. Keys: ↑/↓ move, Enter restores, Backspace deletes, Esc or `d` closes.
 */
import { useState } from "preact/hooks";
import { api } from "../../api";
import { Modal } from "../../components/Modal";
import { changed, model, useModel, type Draft } from "../../model";
import { dateOnly, fullTime, timeOfDay } from "../../time";
import { closeCompose, compose, openCompose } from "../compose/Compose";
import { composeTargetOf, conversationLabel, goToConversation, isConversationInView } from "./conversation";
import { useListRows } from "./rows";
import "./drafts.css";

const draftsOverlay = { open: false };

function openDrafts(): void {
  draftsOverlay.open = true;
  changed();
}

function closeDrafts(): void {
  draftsOverlay.open = false;
  changed();
}

/** The `d` key: opens the overlay, or closes it when open. */
export function toggleDrafts(): void {
  if (draftsOverlay.open) closeDrafts();
  else openDrafts();
}

/** Newest first. */
function sortedDrafts(): Draft[] {
  return [...model.drafts.values()].sort((a, b) => b.timestamp - a.timestamp || b.id - a.id);
}

/** Opens a draft in the compose box, in its conversation; what the box held before is kept as a draft of its own. */
function restoreDraft(d: Draft): void {
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

async function deleteDraft(id: number): Promise<void> {
  await api("DELETE", `/drafts/${id}`);
  // The `drafts` event says the same a moment later; the row leaves at once.
  model.drafts.delete(id);
  // The compose box no longer has a draft to save back to.
  if (compose.draftId === id) compose.draftId = 0;
  changed();
}

/** When a draft was last edited: the time today, else the day and time. */
function editedAt(ms: number, twentyFour: unknown): string {
  return dateOnly(ms) === dateOnly(Date.now()) ? timeOfDay(ms, twentyFour) : fullTime(ms, twentyFour);
}

function DraftsDialog() {
  const [error, setError] = useState("");
  const drafts = sortedDrafts();
  const here: Draft[] = [];
  const others: Draft[] = [];
  for (const d of drafts) (isConversationInView(d) ? here : others).push(d);
  const twentyFour = model.settings.twenty_four_hour_time;

  const rows = useListRows({
    items: drafts,
    idOf: (d) => d.id,
    open: restoreDraft,
    remove: async (d) => {
      setError("");
      try {
        await deleteDraft(d.id);
        return true;
      } catch (e) {
        setError(`Could not delete the draft: ${(e as Error).message}`);
        return false;
      }
    },
    onPlainKey: (e) => {
      if (e.key !== "d") return false;
      e.preventDefault();
      closeDrafts();
      return true;
    },
  });

  const row = (d: Draft) => {
    const label = conversationLabel(d);
    const ms = d.timestamp * 1000;
    return (
      <li key={d.id} class="ov-row draft-row" tabIndex={0} data-id={d.id}>
        <div class="ov-row-head">
          <span class="ov-target" title={label}>
            {label}
          </span>
          <time class="ov-time" dateTime={new Date(ms).toISOString()} title={fullTime(ms, twentyFour)}>
            {editedAt(ms, twentyFour)}
          </time>
        </div>
        <div class="ov-content draft-content" onClick={() => restoreDraft(d)}>
          {d.content}
        </div>
        <div class="ov-actions">
          <button type="button" class="primary" aria-label={`Restore draft: ${label}`} onClick={() => restoreDraft(d)}>
            Restore
          </button>
          <button type="button" class="danger" aria-label={`Delete draft: ${label}`} onClick={() => void rows.removeRow(d)}>
            Delete
          </button>
        </div>
      </li>
    );
  };

  return (
    <Modal title="Drafts" class="ov drafts-overlay" onClose={closeDrafts} onKey={rows.onKey} initialFocus=".ov-row">
      <div ref={rows.body}>
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
    </Modal>
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

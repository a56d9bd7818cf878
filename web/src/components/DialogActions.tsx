/**
 * The foot of a dialog that asks for something: the server's refusal, if any, then Cancel and
 * the confirming button, which says what it is doing while the request waits. The dialogs'
 * styles (components/Modal's too) are in dialog.css, imported here.
 */
import "./dialog.css";

/** A refusal or a mistake, read out when it appears. */
export function ErrorLine({ error }: { error: string }) {
  return error ? (
    <p class="error" role="alert">
      {error}
    </p>
  ) : null;
}

interface DialogActionsProps {
  error: string;
  busy: boolean;
  onCancel: () => void;
  /** The confirming button's label, and its label while the request waits. */
  confirm: string;
  busyLabel: string;
  /** Without it, the confirming button submits the dialog's form. */
  onConfirm?: () => void;
  danger?: boolean;
  /** Nothing to confirm yet. */
  disabled?: boolean;
}

export function DialogActions({ error, busy, onCancel, confirm, busyLabel, onConfirm, danger, disabled }: DialogActionsProps) {
  return (
    <>
      <ErrorLine error={error} />
      <footer>
        <button type="button" class="secondary" onClick={onCancel}>
          Cancel
        </button>
        <button type={onConfirm ? "button" : "submit"} class={danger ? "danger" : undefined} disabled={busy || disabled} onClick={onConfirm}>
          {busy ? busyLabel : confirm}
        </button>
      </footer>
    </>
  );
}

/**
 * The rows of the Drafts and Scheduled messages lists (`.ov-row`, styled in overlay.css): the
 * keys pressed on them and the focus after one is removed. ↑/↓ (and j/k) move between rows,
 * Enter opens the focused row, Backspace or Delete removes it; a removed row that had the focus
 * passes it on, once it has left the list, to the row now at its place (or the last one).
 */
import { useLayoutEffect, useRef } from "preact/hooks";
import { inTextField, moveFocusInList } from "../../components/listKeys";
import "./overlay.css";

const ROW = ".ov-row";

export function useListRows<T>({
  items,
  idOf,
  open,
  remove,
  onPlainKey,
}: {
  /** The rows listed now. */
  items: T[];
  idOf: (item: T) => number;
  /** Enter on a row. */
  open: (item: T) => void;
  /** Backspace or Delete on a row, and its Delete button; resolves to whether it was removed (a refusal is the list's to show). */
  remove: (item: T) => Promise<boolean>;
  /** The list's own keys, pressed outside text fields and without modifiers; true when handled. */
  onPlainKey?: (e: KeyboardEvent) => boolean;
}) {
  const body = useRef<HTMLDivElement>(null);
  /** The row being removed that had the focus, and its place. */
  const leaving = useRef<{ id: number; at: number } | null>(null);

  // Once the row has left (the server's answer or its event, whichever comes first), in the same
  // commit that removed it: the focus is never seen lost, nor put back on the leaving row.
  useLayoutEffect(() => {
    const l = leaving.current;
    if (!l || items.some((item) => idOf(item) === l.id)) return;
    leaving.current = null;
    const rows = body.current?.querySelectorAll<HTMLElement>(ROW) ?? [];
    (rows[Math.min(l.at, rows.length - 1)] ?? body.current?.closest("dialog")?.querySelector<HTMLElement>(".dialog-close"))?.focus();
  });

  const removeRow = async (item: T): Promise<void> => {
    const id = idOf(item);
    const rows = [...(body.current?.querySelectorAll<HTMLElement>(ROW) ?? [])];
    const at = rows.findIndex((r) => r.dataset.id === String(id));
    const focused = document.activeElement;
    // The focus in the row, or nowhere in particular (a click on a button that does not take it).
    if (at >= 0 && (rows[at].contains(focused) || !focused || focused === document.body || focused === body.current?.closest("dialog"))) leaving.current = { id, at };
    if (!(await remove(item)) && leaving.current?.id === id) leaving.current = null;
  };

  const onKey = (e: KeyboardEvent): boolean => {
    if (inTextField(e)) return false;
    if (body.current && moveFocusInList(e, ROW, body.current)) return true;
    if (e.ctrlKey || e.metaKey || e.altKey) return false;
    if (onPlainKey?.(e)) return true;
    const row = (e.target as HTMLElement).closest<HTMLElement>(ROW);
    const item = row && items.find((i) => String(idOf(i)) === row.dataset.id);
    if (!row || !item) return false;
    if (e.key === "Enter" && e.target === row) {
      e.preventDefault();
      open(item);
      return true;
    }
    if (e.key === "Backspace" || e.key === "Delete") {
      e.preventDefault();
      void removeRow(item);
      return true;
    }
    return false;
  };

  return { body, onKey, removeRow };
}

/**
 * Arrow keys (and j/k) move the focus between the rows of a list view, as in Zulip's Inbox,
 * Recent conversations and overlays; Enter opens the focused row through its own link or button.
 * Returns whether the key was one of them.
 */
export function moveFocusInList(e: KeyboardEvent, rowSelector: string, root = e.currentTarget as HTMLElement): boolean {
  const down = e.key === "ArrowDown" || e.key === "j";
  const up = e.key === "ArrowUp" || e.key === "k";
  if ((!down && !up) || e.ctrlKey || e.metaKey || e.altKey) return false;
  const rows = [...root.querySelectorAll<HTMLElement>(rowSelector)];
  if (!rows.length) return false;
  const current = (document.activeElement as HTMLElement | null)?.closest<HTMLElement>(rowSelector);
  const at = current ? rows.indexOf(current) : -1;
  const next = at < 0 ? 0 : Math.max(0, Math.min(rows.length - 1, at + (down ? 1 : -1)));
  rows[next].focus();
  rows[next].scrollIntoView({ block: "nearest" });
  e.preventDefault();
  return true;
}

/** Whether a key press belongs to a text field, where letters and Backspace edit text. */
export function inTextField(e: KeyboardEvent): boolean {
  const el = e.target as HTMLElement | null;
  return !!el && (el.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(el.tagName));
}

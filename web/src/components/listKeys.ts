/**
 * Arrow keys (and j/k) move the focus between the rows of a list view, as in Zulip's Inbox and
 * Recent conversations; Enter opens the focused row through its own link or button.
 */
export function moveFocusInList(e: KeyboardEvent, rowSelector: string): boolean {
  const down = e.key === "ArrowDown" || e.key === "j";
  const up = e.key === "ArrowUp" || e.key === "k";
  if (!down && !up) return false;
  const list = e.currentTarget as HTMLElement;
  const rows = [...list.querySelectorAll<HTMLElement>(rowSelector)];
  if (!rows.length) return false;
  const at = rows.indexOf(document.activeElement as HTMLElement);
  const next = at < 0 ? 0 : Math.max(0, Math.min(rows.length - 1, at + (down ? 1 : -1)));
  rows[next].focus();
  e.preventDefault();
  return true;
}

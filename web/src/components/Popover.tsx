/**
 * A menu of actions opened from a button: in the page's body (so no scrolling box clips it),
 * placed by the button and kept there while the page scrolls, moved through with the arrow keys,
 * closed by Escape, Tab or a click elsewhere. `useMenu` and `MenuButton` are the button that
 * opens it and the dialogs its items open. Its styles are in popover.css.
 */
import "./popover.css";
import type { ComponentChildren, RefObject } from "preact";
import { createPortal } from "preact/compat";
import { useLayoutEffect, useRef, useState } from "preact/hooks";

const MARGIN = 8;

/** Below the button, its right edges aligned (its left ones for `start`); above it when there is no room below; always on screen. */
function place(menu: HTMLElement, anchor: HTMLElement, align: "start" | "end") {
  const a = anchor.getBoundingClientRect();
  const { offsetWidth: w, offsetHeight: h } = menu;
  let top = a.bottom + 4;
  if (top + h > window.innerHeight - MARGIN) top = Math.max(MARGIN, a.top - h - 4);
  const left = Math.max(MARGIN, Math.min(align === "start" ? a.left : a.right - w, window.innerWidth - w - MARGIN));
  menu.style.top = `${top}px`;
  menu.style.left = `${left}px`;
}

export interface PopoverProps {
  anchor: HTMLElement;
  label: string;
  /** `refocus`: give the focus back to the button (after a key, not after a click elsewhere). */
  onClose: (refocus: boolean) => void;
  /** A refusal from the server, or a short confirmation, shown under the items. */
  error?: string;
  note?: string;
  busy?: boolean;
  /** "start" for a card opened from a name at the left of the page (a message's sender). */
  align?: "start" | "end";
  children: ComponentChildren;
}

export function Popover({ anchor, label, onClose, error, note, busy, align = "end", children }: PopoverProps) {
  const ref = useRef<HTMLDivElement>(null);

  useLayoutEffect(() => {
    const menu = ref.current!;
    place(menu, anchor, align);
    menu.querySelector<HTMLElement>("[role=menuitem]")?.focus();
    const follow = () => place(menu, anchor, align);
    const outside = (e: PointerEvent) => {
      const target = e.target as Node;
      if (!menu.contains(target) && !anchor.contains(target)) onClose(false);
    };
    // Escape closes the menu wherever the focus is (a click on its text leaves it on the page),
    // and goes no further: to the page's shortcuts it means "back to the home view".
    const escape = (e: KeyboardEvent) => {
      if (e.key !== "Escape") return;
      e.stopPropagation();
      e.preventDefault();
      onClose(true);
    };
    window.addEventListener("scroll", follow, true);
    window.addEventListener("resize", follow);
    window.addEventListener("keydown", escape, true);
    document.addEventListener("pointerdown", outside, true);
    return () => {
      window.removeEventListener("scroll", follow, true);
      window.removeEventListener("resize", follow);
      window.removeEventListener("keydown", escape, true);
      document.removeEventListener("pointerdown", outside, true);
    };
  }, [anchor]);

  // An error or a note changes the height: the menu may have to move up.
  useLayoutEffect(() => place(ref.current!, anchor, align), [error, note]);

  const onKeyDown = (e: KeyboardEvent) => {
    // The page's own shortcuts (j, k, c, Escape…) are not for a menu that has the focus.
    e.stopPropagation();
    const items = [...ref.current!.querySelectorAll<HTMLElement>("[role=menuitem]")];
    const at = items.indexOf(document.activeElement as HTMLElement);
    const moveTo = (i: number) => {
      e.preventDefault();
      items[(i + items.length) % items.length]?.focus();
    };
    if (e.key === "ArrowDown") moveTo(at + 1);
    else if (e.key === "ArrowUp") moveTo(at < 0 ? -1 : at - 1);
    else if (e.key === "Home") moveTo(0);
    else if (e.key === "End") moveTo(-1);
    else if (e.key === "Tab") {
      e.preventDefault();
      onClose(true);
    }
  };

  return createPortal(
    <div ref={ref} class="popover" role="menu" aria-label={label} aria-busy={busy} onKeyDown={onKeyDown}>
      {children}
      {error && (
        <p class="popover-status error" role="alert">
          {error}
        </p>
      )}
      {note && (
        <p class="popover-status" role="status">
          {note}
        </p>
      )}
    </div>,
    document.body,
  );
}

/** On the button that opens a menu: Enter opens it, and is not the page's "reply" shortcut. */
export const keepEnter = (e: KeyboardEvent) => e.key === "Enter" && e.stopPropagation();

export interface Menu<D> {
  button: RefObject<HTMLButtonElement | null>;
  open: boolean;
  setOpen: (open: boolean) => void;
  /** Closes the menu; `refocus` gives the focus back to its button. */
  close: (refocus: boolean) => void;
  /** The dialog an item opened, if any. */
  dialog: D | null;
  /** Closes the menu, giving the focus back to its button (where the dialog returns it), and opens a dialog. */
  show: (dialog: D) => void;
  hide: () => void;
}

/** A menu's state: whether it is open, and the dialog one of its items opened. `onClose` runs whenever the menu closes. */
export function useMenu<D = never>(onClose?: () => void): Menu<D> {
  const button = useRef<HTMLButtonElement>(null);
  const [open, setOpen] = useState(false);
  const [dialog, setDialog] = useState<D | null>(null);
  const close = (refocus: boolean) => {
    setOpen(false);
    onClose?.();
    if (refocus) button.current?.focus();
  };
  return {
    button,
    open,
    setOpen,
    close,
    dialog,
    show: (d: D) => {
      close(true);
      setDialog(d);
    },
    hide: () => setDialog(null),
  };
}

/** The button that opens and closes a menu; the menu (a Popover) is anchored on `menu.button`. */
export function MenuButton({ menu, class: className, label, title, children }: { menu: Pick<Menu<never>, "button" | "open" | "setOpen">; class: string; label: string; title?: string; children: ComponentChildren }) {
  return (
    <button
      ref={menu.button}
      type="button"
      class={className}
      aria-label={label}
      title={title}
      aria-haspopup="menu"
      aria-expanded={menu.open}
      onClick={() => menu.setOpen(!menu.open)}
      onKeyDown={keepEnter}
    >
      {children}
    </button>
  );
}

/** `disabled` (while an action waits) keeps the item focusable: a disabled button would drop the focus out of the menu. */
export function MenuItem({ onSelect, danger, disabled, children }: { onSelect: () => void; danger?: boolean; disabled?: boolean; children: ComponentChildren }) {
  return (
    <button type="button" role="menuitem" class={danger ? "danger" : undefined} aria-disabled={disabled} onClick={() => disabled || onSelect()}>
      {children}
    </button>
  );
}

export const MenuSeparator = () => <hr role="separator" />;

/**
 * Runs an action that asks the server: busy while it waits, `done` when it answered, its
 * refusal kept in `error` for the menu or dialog to show.
 */
export function useAction(done: () => void) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState("");
  const run = async (action: () => Promise<unknown>) => {
    setBusy(true);
    setError("");
    try {
      await action();
    } catch (e) {
      setError((e as Error).message || String(e));
      return;
    } finally {
      setBusy(false);
    }
    done();
  };
  return { busy, error, run };
}

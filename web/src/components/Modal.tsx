/**
 * A modal dialog on the browser's own <dialog>: it keeps the focus inside, closes on Escape or a
 * click on the backdrop and lies above everything. It goes into the page's body so that no
 * hidden or clipping parent (a message's hover controls) hides it; the page's shortcuts do not
 * see keys pressed in it. When it closes the focus goes back to where it was, unless whoever
 * closed it moved the focus on purpose (to the compose box). Its styles are in dialog.css.
 */
import "./dialog.css";
import type { ComponentChildren } from "preact";
import { createPortal } from "preact/compat";
import { useEffect, useId, useRef } from "preact/hooks";

export function Modal({
  title,
  class: className,
  onClose,
  onKey,
  initialFocus,
  children,
}: {
  title: string;
  /** Classes of the <dialog>, beside `dialog`. */
  class?: string;
  onClose: () => void;
  /** Keys pressed inside; return true when handled. Escape closes unless this handles it. */
  onKey?: (e: KeyboardEvent) => boolean;
  /** A selector for what takes the focus on opening (the close button when nothing matches); without it, the browser's choice. */
  initialFocus?: string;
  children: ComponentChildren;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current!;
    const back = document.activeElement as HTMLElement | null;
    dialog.showModal();
    if (initialFocus) (dialog.querySelector<HTMLElement>(initialFocus) ?? dialog.querySelector<HTMLElement>(".dialog-close"))?.focus();
    // Escape with the focus outside the dialog (a click on its text leaves it on the page) goes no
    // further than the dialog, which the browser then cancels (below): to the page's shortcuts it
    // means "back to the home view". Inside, the dialog's own keydown handles it.
    const escape = (e: KeyboardEvent) => e.key === "Escape" && !dialog.contains(e.target as Node) && e.stopPropagation();
    window.addEventListener("keydown", escape, true);
    return () => {
      window.removeEventListener("keydown", escape, true);
      // Nothing else took the focus: it was in the dialog, now gone, or on the page's body.
      const now = document.activeElement;
      if (!now || now === document.body || dialog.contains(now)) back?.focus();
    };
  }, []);
  return createPortal(
    <dialog
      ref={ref}
      class={className ? `dialog ${className}` : "dialog"}
      aria-labelledby={titleId}
      // Escape with the focus nowhere in particular: closed as the keys below close it, never by
      // the browser alone behind Preact's back. When the browser does not let that be prevented
      // (a second Escape without a click or key between), it closes the dialog: `close` follows.
      onCancel={(e) => {
        e.preventDefault();
        if (e.defaultPrevented) onClose();
      }}
      onClose={onClose}
      onKeyDown={(e) => {
        // The page's shortcuts (c, r, j…) are not for keys pressed in a dialog.
        e.stopPropagation();
        if (onKey?.(e)) return;
        if (e.key === "Escape") {
          e.preventDefault();
          onClose();
        }
      }}
      // A click on the dialog element itself, not its content, is on the backdrop.
      onClick={(e) => e.target === ref.current && onClose()}
    >
      <div class="dialog-body">
        <header>
          <h2 id={titleId}>{title}</h2>
          <button type="button" class="dialog-close" aria-label="Close" onClick={onClose}>
            ×
          </button>
        </header>
        {children}
      </div>
    </dialog>,
    document.body,
  );
}

/**
 * A modal dialog on the browser's own <dialog>: it keeps the focus inside, closes on Escape and
 * lies above everything. It goes into the page's body so that no hidden or clipping parent (a
 * message's hover controls) hides it, and gives the focus back to where it was when it closes.
 * Its styles are in views/feed/menus.css.
 */
import type { ComponentChildren } from "preact";
import { createPortal } from "preact/compat";
import { useEffect, useId, useRef } from "preact/hooks";

export function Modal({ title, onClose, children }: { title: string; onClose: () => void; children: ComponentChildren }) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const back = document.activeElement as HTMLElement | null;
    ref.current!.showModal();
    // Escape closes the dialog (natively) and nothing else: to the page's shortcuts it means
    // "back to the home view", and a click on the dialog's text leaves the focus outside it.
    const escape = (e: KeyboardEvent) => e.key === "Escape" && e.stopPropagation();
    window.addEventListener("keydown", escape, true);
    return () => {
      window.removeEventListener("keydown", escape, true);
      back?.focus();
    };
  }, []);
  return createPortal(
    <dialog
      ref={ref}
      class="dialog"
      aria-labelledby={titleId}
      // Escape closes the dialog natively; the owner then removes it.
      onClose={onClose}
      // The page's shortcuts (c, r, j…) are not for keys pressed in a dialog.
      onKeyDown={(e) => e.stopPropagation()}
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

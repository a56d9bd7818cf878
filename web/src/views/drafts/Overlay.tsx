/**
 * The frame shared by the Drafts and Scheduled messages overlays: a modal <dialog> in the page's
 * body with a title and a close button, the keyboard kept to itself (the page's shortcuts do not
 * see keys pressed inside), Escape and a click on the backdrop closing it, and the focus given
 * back to where it was. Also the helpers both lists use: a conversation's label, moving between
 * rows with the arrow keys, and the sidebar's plain counts.
 */
import type { ComponentChildren } from "preact";
import { createPortal } from "preact/compat";
import { useEffect, useId, useRef } from "preact/hooks";
import { model, streamName, userName } from "../../model";
import { go } from "../../navigate";
import "./overlay.css";

export function Overlay({
  title,
  class: className,
  onClose,
  onKey,
  children,
}: {
  title: string;
  class: string;
  onClose: () => void;
  /** Keys pressed inside; return true when handled. Escape closes unless this handles it. */
  onKey?: (e: KeyboardEvent) => boolean;
  children: ComponentChildren;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const back = document.activeElement as HTMLElement | null;
    ref.current!.showModal();
    // The first row, or the close button when the list is empty.
    requestAnimationFrame(() => (ref.current?.querySelector<HTMLElement>(".ov-row") ?? ref.current?.querySelector<HTMLElement>(".ov-close"))?.focus());
    return () => {
      // Whoever closed the overlay may have moved the focus on purpose (to the compose box).
      if (!document.activeElement || document.activeElement === document.body) back?.focus();
    };
  }, []);
  return createPortal(
    <dialog
      ref={ref}
      class={`ov ${className}`}
      aria-labelledby={titleId}
      // Escape with the focus nowhere in particular: closed as the keys below close it, never
      // by the browser alone behind Preact's back.
      onCancel={(e) => {
        e.preventDefault();
        onClose();
      }}
      onKeyDown={(e) => {
        e.stopPropagation();
        if (onKey?.(e)) return;
        if (e.key === "Escape") {
          e.preventDefault();
          onClose();
        }
      }}
      onClick={(e) => e.target === ref.current && onClose()}
    >
      <div class="ov-frame">
        <header class="ov-header">
          <h2 id={titleId}>{title}</h2>
          <button type="button" class="ov-close" aria-label="Close" onClick={onClose}>
            ×
          </button>
        </header>
        <div class="ov-body">{children}</div>
      </div>
    </dialog>,
    document.body,
  );
}

export interface Conversation {
  type: string;
  to: unknown;
  topic?: string;
}

const channelOf = (c: Conversation) => (Array.isArray(c.to) ? Number(c.to[0]) : Number(c.to));
const peopleOf = (c: Conversation) => (Array.isArray(c.to) ? c.to.map(Number) : []);

/** "#Verona › castle", "DM with Othello, Iago", or "No recipient" for a draft without one. */
export function conversationLabel(c: Conversation): string {
  if (c.type === "stream") return `#${streamName(channelOf(c))} › ${c.topic || "general chat"}`;
  const people = peopleOf(c);
  if (!people.length) return "No recipient";
  const others = people.filter((id) => id !== model.me.user_id);
  return others.length ? `DM with ${others.map(userName).join(", ")}` : "DM with yourself";
}

/** The compose box's target for a draft or a scheduled message. */
export function composeTargetOf(c: Conversation): { kind: "stream" | "dm"; streamId?: number; topic?: string; to?: number[] } {
  if (c.type === "stream") return { kind: "stream", streamId: channelOf(c), topic: c.topic ?? "" };
  if (c.type === "private") return { kind: "dm", to: peopleOf(c) };
  // A draft written before choosing where it goes.
  return { kind: "stream" };
}

/** Shows the conversation a draft or a scheduled message belongs to, as Zulip does on restoring one. */
export function goToConversation(c: Conversation): void {
  if (c.type === "stream") {
    go([
      { operator: "channel", operand: channelOf(c) },
      { operator: "topic", operand: c.topic ?? "" },
    ]);
  } else if (peopleOf(c).length) go([{ operator: "dm", operand: peopleOf(c) }]);
}

/** Whether the conversation in view is this one: its drafts are listed first. */
export function isConversationInView(c: Conversation): boolean {
  // Inbox and Recent conversations leave the narrow empty.
  const narrow = model.narrow;
  if (c.type === "stream") {
    const channel = narrow.find((t) => t.operator === "channel")?.operand;
    const topic = narrow.find((t) => t.operator === "topic")?.operand;
    return channel === channelOf(c) && typeof topic === "string" && topic.toLowerCase() === (c.topic ?? "").toLowerCase();
  }
  const dm = narrow.find((t) => t.operator === "dm")?.operand;
  const key = (ids: number[]) => [...new Set(ids.filter((id) => id !== model.me.user_id))].sort((a, b) => a - b).join(",");
  return Array.isArray(dm) && peopleOf(c).length > 0 && key(dm as number[]) === key(peopleOf(c));
}

/** Whether a key press belongs to a text field (Backspace there edits the text). */
export function inField(e: KeyboardEvent): boolean {
  const el = e.target as HTMLElement | null;
  return !!el && (el.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(el.tagName));
}

/** After a row leaves, the focus goes to the row now at its place, or the last one. */
export function focusRowAt(root: HTMLElement | null, index: number): void {
  requestAnimationFrame(() => {
    if (!root) return;
    const rows = root.querySelectorAll<HTMLElement>(".ov-row");
    (rows[Math.min(index, rows.length - 1)] ?? root.closest("dialog")?.querySelector<HTMLElement>(".ov-close"))?.focus();
  });
}

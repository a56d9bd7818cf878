/**
 * Zulip's keyboard shortcuts: one table drives both the key handling and the help overlay, so
 * the overlay lists exactly what works.
 */
import { conversationKey, model, topicMuted, type Message } from "./model";
import { goTo, go, homePlace } from "./navigate";
import { conversationNarrow } from "./state/hash";
import { markNarrowRead, setStarred, toggleReaction, toggleTopicMute, TopicPolicy } from "./messages";
import { closeCompose, compose, defaultTarget, openCompose, replyTo } from "./views/compose/Compose";
import { toggleDrafts } from "./views/drafts/Drafts";
import { select } from "./views/feed/Feed";
import type { Narrow } from "./state/narrow";

export interface Shortcut {
  /** How the help overlay shows the keys. */
  keys: string;
  label: string;
  section: "Basics" | "Navigation" | "Composing" | "Message actions";
  /** Keys as KeyboardEvent.key values; a leading "Shift+" or "Ctrl+" needs that modifier. */
  match: string[];
  run(): void;
}

const selected = (): Message | undefined => model.messages.get(model.selectedId);

const dmIds = (m: Message) => (Array.isArray(m.display_recipient) ? m.display_recipient.map((r) => r.id) : []);

/** The next conversation with unread messages after the one in view (Zulip's `n` and `p`). */
export function nextUnread(kind: "topic" | "dm", followedOnly = false): Narrow | undefined {
  const m = selected();
  const current = m ? conversationKey(m) : "";
  const seen = new Set<string>();
  for (const [, u] of [...model.unread.entries()].sort((a, b) => a[0] - b[0])) {
    const key = u.streamId !== undefined ? `${u.streamId}:${u.topic}` : `dm:${u.dm}`;
    if (key === current || seen.has(key)) continue;
    seen.add(key);
    if (kind === "topic" && u.streamId !== undefined) {
      if (followedOnly ? model.topicPolicy.get(key) !== TopicPolicy.FOLLOWED : topicMuted(u.streamId, u.topic!)) continue;
      return [
        { operator: "channel", operand: u.streamId },
        { operator: "topic", operand: u.topic! },
      ];
    }
    if (kind === "dm" && u.dm) return [{ operator: "dm", operand: u.dm.split(",").map(Number) }];
  }
  return undefined;
}

function step(by: number) {
  const ids = model.list.ids;
  if (!ids.length || model.view !== "narrow") return;
  const at = ids.indexOf(model.selectedId);
  select(ids[Math.max(0, Math.min(ids.length - 1, at < 0 ? ids.length - 1 : at + by))]);
}

const withSelected = (f: (m: Message) => void) => () => {
  const m = selected();
  if (m && model.view === "narrow") f(m);
};

export const SHORTCUTS: Shortcut[] = [
  { keys: "R or Enter", label: "Reply to the selected message", section: "Basics", match: ["r", "Enter"], run: withSelected((m) => replyTo(m)) },
  { keys: "C", label: "New channel message", section: "Basics", match: ["c"], run: () => openCompose({ ...defaultTarget(), kind: "stream" }) },
  { keys: "X", label: "New direct message", section: "Basics", match: ["x"], run: () => openCompose({ kind: "dm" }) },
  { keys: "/ or Ctrl + K", label: "Search messages", section: "Basics", match: ["/", "Ctrl+k"], run: () => document.getElementById("search")?.focus() },
  { keys: "?", label: "Show or hide these shortcuts", section: "Basics", match: ["?", "Shift+?"], run: () => document.dispatchEvent(new CustomEvent("confab:help")) },
  { keys: "Esc or Ctrl + [", label: "Close compose, or go to your home view", section: "Basics", match: ["Escape", "Ctrl+["], run: () => (compose.open ? void closeCompose() : goTo(homePlace())) },
  { keys: "↓ or J", label: "Next message", section: "Navigation", match: ["ArrowDown", "j"], run: () => step(1) },
  { keys: "↑ or K", label: "Previous message", section: "Navigation", match: ["ArrowUp", "k"], run: () => step(-1) },
  {
    keys: "End or Shift + G",
    label: "Last message, marking the view as read",
    section: "Navigation",
    match: ["End", "Shift+G"],
    run: () => {
      step(model.list.ids.length);
      if (model.view === "narrow") void markNarrowRead(model.narrow);
    },
  },
  { keys: "Home", label: "First message", section: "Navigation", match: ["Home"], run: () => step(-model.list.ids.length) },
  { keys: "N", label: "Next unread topic", section: "Navigation", match: ["n"], run: () => ((n) => n && go(n))(nextUnread("topic")) },
  { keys: "Shift + N", label: "Next unread followed topic", section: "Navigation", match: ["Shift+N"], run: () => ((n) => n && go(n))(nextUnread("topic", true)) },
  { keys: "P", label: "Next unread direct message", section: "Navigation", match: ["p"], run: () => ((n) => n && go(n))(nextUnread("dm")) },
  {
    keys: "S",
    label: "Go to the selected message's conversation, or from a topic to its channel",
    section: "Navigation",
    match: ["s"],
    run: withSelected((m) => {
      const inTopic = model.narrow.some((t) => t.operator === "topic");
      if (m.type === "stream" && inTopic) go([{ operator: "channel", operand: m.stream_id! }]);
      else go(conversationNarrow({ ...m, dmUserIds: dmIds(m) }, model.me.user_id), m.id);
    }),
  },
  { keys: "Shift + I", label: "Go to Inbox", section: "Navigation", match: ["Shift+I"], run: () => goTo({ view: "inbox", narrow: [] }) },
  { keys: "T", label: "Go to Recent conversations", section: "Navigation", match: ["t"], run: () => goTo({ view: "recent", narrow: [] }) },
  { keys: "A", label: "Go to the combined feed", section: "Navigation", match: ["a"], run: () => go([]) },
  { keys: "Shift + P", label: "Go to direct messages", section: "Navigation", match: ["Shift+P"], run: () => go([{ operator: "is", operand: "dm" }]) },
  { keys: "*", label: "Go to starred messages", section: "Navigation", match: ["*", "Shift+*"], run: () => go([{ operator: "is", operand: "starred" }]) },
  {
    keys: "Shift + R",
    label: "Reply directly to the sender",
    section: "Composing",
    match: ["Shift+R"],
    run: withSelected((m) => openCompose({ kind: "dm", to: [m.sender_id] })),
  },
  {
    keys: "@",
    label: "Reply mentioning the sender",
    section: "Composing",
    match: ["@", "Shift+@"],
    run: withSelected((m) => replyTo(m, `@**${m.sender_full_name}|${m.sender_id}** `)),
  },
  { keys: "D", label: "View drafts", section: "Composing", match: ["d"], run: toggleDrafts },
  {
    keys: "I",
    label: "Open the selected message's actions menu",
    section: "Message actions",
    match: ["i"],
    run: withSelected(() => document.dispatchEvent(new CustomEvent("confab:message-menu"))),
  },
  { keys: "Ctrl + S", label: "Star or unstar the selected message", section: "Message actions", match: ["Ctrl+s"], run: withSelected((m) => void setStarred(m, !m.flags.includes("starred"))) },
  {
    keys: "+",
    label: "React with 👍",
    section: "Message actions",
    match: ["+", "Shift++"],
    run: withSelected((m) => void toggleReaction(m, { name: "+1", code: "1f44d", type: "unicode_emoji" })),
  },
  {
    keys: "=",
    label: "Toggle the first emoji reaction",
    section: "Message actions",
    match: ["="],
    run: withSelected((m) => {
      const r = m.reactions[0];
      if (r) void toggleReaction(m, { name: r.emoji_name, code: r.emoji_code, type: r.reaction_type });
    }),
  },
  {
    keys: "Shift + M",
    label: "Mute or unmute the selected message's topic",
    section: "Message actions",
    match: ["Shift+M"],
    run: withSelected((m) => {
      if (m.type === "stream") void toggleTopicMute(m.stream_id!, m.subject);
    }),
  },
];

/** A key press as the table spells it: "j", "Shift+I", "Ctrl+k", "Shift+?" (shifted symbols keep their Shift). */
function keyName(e: KeyboardEvent): string {
  const key = e.key.length === 1 && e.shiftKey ? e.key.toUpperCase() : e.key;
  return `${e.ctrlKey || e.metaKey ? "Ctrl+" : ""}${e.shiftKey ? "Shift+" : ""}${key}`;
}

export function shortcutFor(e: KeyboardEvent): Shortcut | undefined {
  if (e.altKey) return undefined;
  const name = keyName(e);
  return SHORTCUTS.find((s) => s.match.includes(name));
}

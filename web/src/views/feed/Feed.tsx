/**
 * The message feed, grouped by conversation. Only a window of at most WINDOW messages is in the
 * page whatever the number loaded; it slides as the reader scrolls, keeping the message under
 * the reader's eye in place, and asks the server for older pages at the top.
 */
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import { model, changed, dmKeyOf, streamName, userName, conversationKey, messageDmKey, type Message } from "../../model";
import { loadOlder, markRead } from "../../messages";
import { go } from "../../navigate";
import { MessageRow } from "./MessageRow";

const WINDOW = 250;
const STEP = 100;
const EDGE_PX = 400;

function Header({ m }: { m: Message }) {
  if (m.type === "stream") {
    const sub = model.subs.get(m.stream_id!);
    return (
      <div class="recipient-header" style={{ borderLeftColor: sub?.color ?? "#888" }}>
        <button type="button" class="link" onClick={() => go([{ operator: "channel", operand: m.stream_id! }])}>
          #{streamName(m.stream_id)}
        </button>
        <span aria-hidden="true"> › </span>
        <button type="button" class="link" onClick={() => go([{ operator: "channel", operand: m.stream_id! }, { operator: "topic", operand: m.subject }])}>
          {m.subject || "general chat"}
        </button>
      </div>
    );
  }
  const key = messageDmKey(m);
  return (
    <div class="recipient-header dm">
      <button type="button" class="link" onClick={() => go([{ operator: "dm", operand: key.split(",").map(Number) }])}>
        Direct messages with {key.split(",").map((id) => userName(Number(id))).join(", ")}
      </button>
    </div>
  );
}

interface Group {
  key: string;
  messages: Message[];
}

function groupMessages(messages: Message[]): Group[] {
  const groups: Group[] = [];
  for (const m of messages) {
    const key = conversationKey(m);
    const last = groups.at(-1);
    if (last && last.key === key) last.messages.push(m);
    else groups.push({ key, messages: [m] });
  }
  return groups;
}

function GroupView({ group, selectedId }: { group: Group; selectedId: number }) {
  return (
    <section class="message-group" aria-label={conversationLabel(group.messages[0])}>
      <Header m={group.messages[0]} />
      {group.messages.map((m, i) => (
        <MessageRow key={m.id} m={m} showSender={i === 0 || group.messages[i - 1].sender_id !== m.sender_id} selected={m.id === selectedId} unread={model.unread.has(m.id)} />
      ))}
    </section>
  );
}

function conversationLabel(m: Message): string {
  return m.type === "stream" ? `${streamName(m.stream_id)} > ${m.subject}` : `Direct messages`;
}

function lowerBound(ids: number[], id: number): number {
  let lo = 0;
  let hi = ids.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (ids[mid] < id) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export function Feed() {
  const scroller = useRef<HTMLDivElement>(null);
  // The window: from firstId to lastId; lastId null means "through the newest", following new messages.
  const [firstId, setFirstId] = useState(0);
  const [lastId, setLastId] = useState<number | null>(null);
  const anchor = useRef<{ id: number; top: number } | null>(null);
  const stick = useRef(true);
  const ids = model.list.ids;

  let start = firstId ? lowerBound(ids, firstId) : Math.max(0, ids.length - STEP);
  let end = lastId === null ? ids.length : Math.min(ids.length, lowerBound(ids, lastId) + 1);
  if (end - start > WINDOW) {
    if (lastId === null) start = end - WINDOW;
    else end = start + WINDOW;
  }
  const shown = ids.slice(start, end).map((id) => model.messages.get(id)!).filter(Boolean);

  // A new narrow starts at its newest messages.
  const narrowKey = JSON.stringify(model.narrow);
  useEffect(() => {
    setFirstId(0);
    setLastId(null);
    stick.current = true;
  }, [narrowKey]);

  /** Remembers where a visible message is, so the next render can put it back there. */
  const keepPlace = useCallback(() => {
    const el = scroller.current;
    if (!el) return;
    const top = el.getBoundingClientRect().top;
    for (const row of el.querySelectorAll<HTMLElement>("[data-id]")) {
      const r = row.getBoundingClientRect();
      if (r.bottom > top) {
        anchor.current = { id: Number(row.dataset.id), top: r.top - top };
        return;
      }
    }
  }, []);

  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el) return;
    if (stick.current && lastId === null) {
      el.scrollTop = el.scrollHeight;
    } else if (anchor.current) {
      const row = el.querySelector<HTMLElement>(`[data-id="${anchor.current.id}"]`);
      if (row) el.scrollTop += row.getBoundingClientRect().top - el.getBoundingClientRect().top - anchor.current.top;
      anchor.current = null;
    }
    readVisible();
  });

  const readVisible = useCallback(() => {
    const el = scroller.current;
    if (!el || document.visibilityState !== "visible") return;
    const box = el.getBoundingClientRect();
    const seen: number[] = [];
    for (const row of el.querySelectorAll<HTMLElement>("[data-unread]")) {
      const r = row.getBoundingClientRect();
      if (r.top >= box.top - 2 && r.top < box.bottom - 20) seen.push(Number(row.dataset.id));
    }
    if (seen.length) markRead(seen);
  }, []);

  useEffect(() => {
    const onVisible = () => readVisible();
    document.addEventListener("visibilitychange", onVisible);
    window.addEventListener("focus", onVisible);
    return () => {
      document.removeEventListener("visibilitychange", onVisible);
      window.removeEventListener("focus", onVisible);
    };
  }, [readVisible]);

  const onScroll = () => {
    const el = scroller.current!;
    const fromBottom = el.scrollHeight - el.scrollTop - el.clientHeight;
    stick.current = fromBottom < 40 && end === ids.length;
    if (el.scrollTop < EDGE_PX) {
      if (start > 0) {
        keepPlace();
        const nextStart = Math.max(0, start - STEP);
        setFirstId(ids[nextStart]);
        if (end - nextStart > WINDOW) setLastId(ids[nextStart + WINDOW - 1]);
      } else if (!model.list.foundOldest && !model.list.loading) {
        keepPlace();
        setFirstId(ids[0] ?? 0);
        void loadOlder();
      }
    } else if (fromBottom < EDGE_PX && end < ids.length) {
      keepPlace();
      const nextEnd = Math.min(ids.length, end + STEP);
      setLastId(nextEnd >= ids.length ? null : ids[nextEnd - 1]);
      if (nextEnd - start > WINDOW) setFirstId(ids[nextEnd - WINDOW]);
    }
    readVisible();
  };

  const groups = groupMessages(shown);
  const empty = !model.list.loading && ids.length === 0;
  return (
    <div class="feed" ref={scroller} onScroll={onScroll} onClick={toggleSpoiler} data-loaded={ids.length} role="log" aria-live="polite" aria-busy={model.list.loading} tabIndex={-1}>
      {model.list.loading && <p class="loading">Loading messages…</p>}
      {start === 0 && model.list.foundOldest && ids.length > 0 && <p class="history-start">This is the beginning of the conversation.</p>}
      {groups.map((g) => (
        <GroupView key={`${g.key}-${g.messages[0].id}`} group={g} selectedId={model.selectedId} />
      ))}
      {empty && <p class="empty">No messages here yet.</p>}
      <TypingNotice />
    </div>
  );
}

/** Who is typing in the conversation in view (a topic or a direct-message conversation). */
function TypingNotice() {
  const channel = model.narrow.find((t) => t.operator === "channel")?.operand;
  const topic = model.narrow.find((t) => t.operator === "topic")?.operand;
  const dm = model.narrow.find((t) => t.operator === "dm")?.operand;
  const key = Array.isArray(dm) ? `dm:${dmKeyOf(dm)}` : typeof channel === "number" && typeof topic === "string" ? `${channel}:${topic}` : "";
  const typists = [...(model.typing.get(key) ?? [])];
  if (!typists.length) return null;
  return (
    <p class="feed-typing" aria-live="polite">
      {typists.map(userName).join(", ")} {typists.length > 1 ? "are" : "is"} typing…
    </p>
  );
}

/** Spoilers in rendered messages open and close on a click on their header. */
function toggleSpoiler(e: MouseEvent) {
  const header = (e.target as HTMLElement).closest(".spoiler-header");
  const block = header?.closest(".spoiler-block");
  if (!block) return;
  block.classList.toggle("open");
  block.querySelector(".spoiler-content")?.setAttribute("aria-hidden", String(!block.classList.contains("open")));
}

/** Selects a message (j/k, click) and scrolls it into view. */
export function select(id: number) {
  model.selectedId = id;
  changed();
  requestAnimationFrame(() => document.querySelector(`[data-id="${id}"]`)?.scrollIntoView({ block: "nearest" }));
}

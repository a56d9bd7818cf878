/**
 * The message feed, grouped by conversation. Only a window of at most WINDOW messages is in the
 * page whatever the number loaded; it slides as the reader scrolls, keeping the message under
 * the reader's eye in place, and asks the server for older pages at the top.
 */
import { Fragment } from "preact";
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import { model, changed, dmKeyOf, dmNames, streamName, topicDisplay, userName, conversationKey, messageDmKey, type Message } from "../../model";
import { asFound, highlightedTopic, loadNewer, loadOlder, markRead } from "../../messages";
import { layoutFeed, type FeedBlock } from "../../state/feed";
import { dayLabel } from "../../time";
import { go } from "../../navigate";
import { MessageRow } from "./MessageRow";
import { TopicMenu } from "./TopicMenu";

const WINDOW = 250;
const STEP = 100;
/** Rows drawn before and after the selected message when a narrow opens. */
const OPEN_BEFORE = 20;
const OPEN_AFTER = 40;
const EDGE_PX = 400;

function Header({ m }: { m: Message }) {
  if (m.type === "stream") {
    const sub = model.subs.get(m.stream_id!);
    // A search result's topic, with the words found highlighted (escaped by the server).
    const topicHtml = highlightedTopic(m);
    return (
      <div class="recipient-header" style={{ borderLeftColor: sub?.color ?? "var(--muted)" }}>
        <button type="button" class="link" onClick={() => go([{ operator: "channel", operand: m.stream_id! }])}>
          #{streamName(m.stream_id)}
        </button>
        <span aria-hidden="true"> › </span>
        <button type="button" class="link" onClick={() => go([{ operator: "channel", operand: m.stream_id! }, { operator: "topic", operand: m.subject }])}>
          {topicHtml ? <span dangerouslySetInnerHTML={{ __html: topicHtml }} /> : topicDisplay(m.subject)}
        </button>
        <TopicMenu m={m} />
      </div>
    );
  }
  const key = messageDmKey(m);
  return (
    <div class="recipient-header dm">
      <button type="button" class="link" onClick={() => go([{ operator: "dm", operand: key.split(",").map(Number) }])}>
        Direct messages with {dmNames(key)}
      </button>
    </div>
  );
}

function BlockView({ block, selectedId }: { block: FeedBlock<Message>; selectedId: number }) {
  const first = block.rows[0].m;
  return (
    <section class="message-group" aria-label={conversationLabel(first)}>
      <div class="recipient-row">
        <Header m={first} />
        <span class="block-date">{dayLabel(first.timestamp * 1000)}</span>
      </div>
      {block.rows.map(({ m, showSender, newDay }) => (
        <Fragment key={m.id}>
          {newDay && (
            <div class="date-separator" role="separator">
              {dayLabel(m.timestamp * 1000)}
            </div>
          )}
          <MessageRow m={m} showSender={showSender} selected={m.id === selectedId} unread={model.unread.has(m.id)} />
        </Fragment>
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
  const [, rerender] = useState(0);
  // The window: from `first` to `last`; `last` null means "through the newest loaded", `first`
  // null "from the oldest there is", so messages moved in before the first shown still show.
  const win = useRef({ first: 0 as number | null, last: null as number | null, opened: -1 });
  const placeSelected = useRef(false);
  const lastSelected = useRef(0);
  const anchor = useRef<{ id: number; top: number } | null>(null);
  const stick = useRef(false);
  const list = model.list;
  const ids = list.ids;

  // A narrow just opened: the window holds a screenful or two around the selected message (the
  // first unread, or the one a link named), and the reader is placed at it; scrolling widens it.
  // Drawing the whole first page (200 rows) took most of the time to a usable feed.
  if (win.current.opened !== list.opened && !list.loading) {
    const at = Math.max(0, ids.indexOf(model.selectedId));
    win.current = { first: firstFrom(at - OPEN_BEFORE), last: at + OPEN_AFTER < ids.length - 1 ? ids[at + OPEN_AFTER]! : null, opened: list.opened };
    placeSelected.current = true;
    stick.current = list.foundNewest && at >= ids.length - 1;
  }
  function firstFrom(index: number): number | null {
    return index <= 0 && list.foundOldest ? null : (ids[Math.max(0, index)] ?? 0);
  }
  const setWindow = (first: number | null, last: number | null) => {
    win.current = { ...win.current, first, last };
    rerender((n) => n + 1);
  };

  const first = win.current.first;
  let start = first === null ? 0 : first ? lowerBound(ids, first) : Math.max(0, ids.length - STEP);
  let end = win.current.last === null ? ids.length : Math.min(ids.length, lowerBound(ids, win.current.last) + 1);
  if (end - start > WINDOW) {
    if (win.current.last === null) start = end - WINDOW;
    else end = start + WINDOW;
  }
  // A newly selected message is drawn wherever the keyboard (j, k, End) took it; a selection
  // left behind by scrolling away is not chased.
  const selectedAt = lowerBound(ids, model.selectedId);
  if (lastSelected.current !== model.selectedId && ids[selectedAt] === model.selectedId && (selectedAt < start || selectedAt >= end)) {
    start = Math.min(start, selectedAt);
    end = Math.max(end, selectedAt + 1);
    if (end - start > WINDOW) [start, end] = selectedAt < start + WINDOW / 2 ? [start, start + WINDOW] : [end - WINDOW, end];
    win.current = { ...win.current, first: firstFrom(start), last: end >= ids.length ? null : ids[end - 1]! };
  }
  lastSelected.current = model.selectedId;
  const shown = ids
    .slice(start, end)
    .map((id) => model.messages.get(id)!)
    .filter(Boolean)
    .map(asFound);

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

  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el) return;
    if (placeSelected.current && !list.loading) {
      placeSelected.current = false;
      const row = el.querySelector<HTMLElement>(`[data-id="${model.selectedId}"]`);
      if (stick.current || !row) el.scrollTop = el.scrollHeight;
      // Zulip shows the first unread message a third of the way down, with context above it.
      else el.scrollTop += row.getBoundingClientRect().top - el.getBoundingClientRect().top - el.clientHeight / 3;
    } else if (stick.current && win.current.last === null) {
      el.scrollTop = el.scrollHeight;
    } else if (anchor.current) {
      const row = el.querySelector<HTMLElement>(`[data-id="${anchor.current.id}"]`);
      if (row) el.scrollTop += row.getBoundingClientRect().top - el.getBoundingClientRect().top - anchor.current.top;
      anchor.current = null;
    }
    readVisible();
  });

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
    stick.current = fromBottom < 40 && end === ids.length && list.foundNewest;
    if (el.scrollTop < EDGE_PX) {
      if (start > 0) {
        keepPlace();
        const nextStart = Math.max(0, start - STEP);
        setWindow(firstFrom(nextStart), end - nextStart > WINDOW ? ids[nextStart + WINDOW - 1] : win.current.last);
      } else if (!list.foundOldest && !list.loading) {
        keepPlace();
        setWindow(ids[0] ?? 0, win.current.last);
        void loadOlder();
      }
    } else if (fromBottom < EDGE_PX) {
      if (end < ids.length) {
        keepPlace();
        const nextEnd = Math.min(ids.length, end + STEP);
        setWindow(nextEnd - start > WINDOW ? ids[nextEnd - WINDOW] : win.current.first, nextEnd >= ids.length ? null : ids[nextEnd - 1]);
      } else if (!list.foundNewest && !list.loading) {
        keepPlace();
        void loadNewer();
      }
    }
    readVisible();
  };

  // A window too short to scroll would never hear the scroll that widens it.
  useEffect(() => {
    const el = scroller.current;
    if (el && !list.loading && el.scrollHeight - el.clientHeight < EDGE_PX && (start > 0 || end < ids.length)) onScroll();
  });

  const blocks = layoutFeed(shown, conversationKey);
  const empty = !list.loading && ids.length === 0;
  const loadingAtEnd = list.loading && !!list.loadingNewer;
  return (
    <div class="feed" ref={scroller} onScroll={onScroll} onClick={toggleSpoiler} data-loaded={ids.length} role="log" aria-live="polite" aria-busy={list.loading} tabIndex={-1}>
      {list.loading && !loadingAtEnd && <p class="loading">Loading messages…</p>}
      {start === 0 && list.foundOldest && ids.length > 0 && <p class="history-start">This is the beginning of the conversation.</p>}
      {blocks.map((b) => (
        <BlockView key={`${b.key}-${b.rows[0].m.id}`} block={b} selectedId={model.selectedId} />
      ))}
      {list.error && (
        <p class="error" role="alert">
          Cannot show these messages: {list.error}
        </p>
      )}
      {empty && !list.error && <p class="empty">No messages here yet.</p>}
      {loadingAtEnd && <p class="loading">Loading messages…</p>}
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

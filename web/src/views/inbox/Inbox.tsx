/**
 * The Inbox: every conversation with unread messages, direct messages first, then channels with
 * their topics, each with its count; channels fold away (remembered in this browser), a filter
 * narrows the list, and the keyboard moves through it.
 */
import { useState } from "preact/hooks";
import { dmNames, model, topicDisplay, visibilityRules } from "../../model";
import { conversationHash } from "../../navigate";
import { buildInbox } from "../../state/inbox";
import { moveFocusInList } from "../../components/listKeys";
import { markConversationRead } from "../../messages";
import "./inbox.css";

const FOLDED_KEY = "confab.inbox.folded";

function loadFolded(): Set<string> {
  try {
    return new Set(JSON.parse(localStorage.getItem(FOLDED_KEY) ?? "[]") as string[]);
  } catch {
    return new Set();
  }
}

function Count({ n, mentioned }: { n: number; mentioned: boolean }) {
  return (
    <span class="inbox-counts">
      {mentioned && (
        <span class="inbox-mention" title="You were mentioned">
          @
        </span>
      )}
      <span class="count">{n}</span>
    </span>
  );
}

export function Inbox() {
  const [folded, setFolded] = useState(loadFolded);
  const [filter, setFilter] = useState("");
  const inbox = buildInbox(model.unread.entries(), visibilityRules);
  const want = filter.trim().toLowerCase();
  const matches = (...texts: string[]) => !want || texts.some((t) => t.toLowerCase().includes(want));

  const toggle = (key: string) => {
    const next = new Set(folded);
    if (!next.delete(key)) next.add(key);
    setFolded(next);
    localStorage.setItem(FOLDED_KEY, JSON.stringify([...next]));
  };

  const dms = inbox.dms.filter((d) => matches(dmNames(d.key)));
  const channels = inbox.channels
    .map((c) => {
      const name = model.subs.get(c.streamId)?.name ?? model.streams.get(c.streamId)?.name ?? "";
      return { ...c, name, topics: c.topics.filter((t) => matches(name, t.topic)) };
    })
    .filter((c) => c.topics.length);

  const header = (key: string, label: preact.ComponentChildren, count: number, mentioned: boolean, color?: string) => (
    <button
      type="button"
      class="inbox-header inbox-row"
      aria-expanded={!folded.has(key)}
      style={color ? { borderLeftColor: color } : undefined}
      onClick={() => toggle(key)}
      onKeyDown={(e) => {
        if ((e.key === "ArrowLeft" && !folded.has(key)) || (e.key === "ArrowRight" && folded.has(key))) toggle(key);
      }}
    >
      <span class="fold" aria-hidden="true">
        {folded.has(key) ? "▸" : "▾"}
      </span>
      <span class="inbox-name">{label}</span>
      <Count n={count} mentioned={mentioned} />
    </button>
  );

  return (
    <div class="inbox" role="region" aria-label="Inbox" onKeyDown={(e) => moveFocusInList(e, ".inbox-row")}>
      <div class="inbox-toolbar">
        <label for="inbox-filter" class="sr-only">
          Filter conversations
        </label>
        <input id="inbox-filter" type="search" placeholder="Filter conversations" value={filter} onInput={(e) => setFilter(e.currentTarget.value)} />
      </div>
      {dms.length > 0 && (
        <section class="inbox-section" aria-label="Direct messages">
          {header(
            "dm",
            "Direct messages",
            dms.reduce((n, d) => n + d.count, 0),
            dms.some((d) => d.mentioned),
          )}
          {!folded.has("dm") &&
            dms.map((d) => (
              <div class="inbox-item" key={d.key}>
                <a class="inbox-row inbox-conversation" href={conversationHash({ dm: d.key })}>
                  <span class="inbox-name">{dmNames(d.key)}</span>
                  <Count n={d.count} mentioned={d.mentioned} />
                </a>
              </div>
            ))}
        </section>
      )}
      {channels.map((c) => (
        <section class="inbox-section" key={c.streamId} aria-label={`Channel ${c.name}`}>
          {header(`channel:${c.streamId}`, `#${c.name}`, c.count, c.mentioned, model.subs.get(c.streamId)?.color)}
          {!folded.has(`channel:${c.streamId}`) &&
            c.topics.map((t) => (
              <div class="inbox-item" key={t.topic}>
                <a class="inbox-row inbox-conversation inbox-topic" href={conversationHash({ streamId: c.streamId, topic: t.topic })}>
                  <span class="inbox-name">{topicDisplay(t.topic)}</span>
                  {model.topicPolicy.get(`${c.streamId}:${t.topic}`) === 3 && <span class="followed" title="You follow this topic">●</span>}
                  <Count n={t.count} mentioned={t.mentioned} />
                </a>
                <button type="button" class="inbox-read link" title="Mark as read" aria-label={`Mark ${topicDisplay(t.topic)} as read`} onClick={() => void markConversationRead(c.streamId, t.topic)}>
                  ✓
                </button>
              </div>
            ))}
        </section>
      ))}
      {!dms.length && !channels.length && (
        <p class="inbox-empty">
          {want ? "No unread conversations match your filter." : "There are no unread messages in your Inbox."} <a href="#recent">See recent conversations</a>.
        </p>
      )}
    </div>
  );
}

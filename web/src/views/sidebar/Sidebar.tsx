/** Left sidebar: views (Inbox, Recent conversations, feeds), channels (pinned, by folder, muted) with their topics, and direct messages. */
import { dmNames, model, topicDisplay, type Subscription, type unreadCounts } from "../../model";
import { DraftsViewEntry } from "../drafts/Drafts";
import { ScheduledViewEntry } from "../scheduled/Scheduled";
import { go, goTo } from "../../navigate";
import type { Narrow } from "../../state/narrow";
import { ChannelRowMenu, ChannelsHeading } from "../channels/SidebarParts";

function Count({ n, label }: { n: number | undefined; label: string }) {
  return n ? (
    <span class="count" aria-label={`${n} unread ${label}`}>
      {n}
    </span>
  ) : null;
}

function LockIcon() {
  return (
    <svg viewBox="0 0 10 12" width="9" height="11" aria-label="private" role="img">
      <path d="M2 5V3.5a3 3 0 0 1 6 0V5h1v7H1V5zm1.5 0h3V3.5a1.5 1.5 0 0 0-3 0z" fill="currentColor" />
    </svg>
  );
}

function isNarrow(narrow: Narrow, operator: string, operand: unknown): boolean {
  return narrow.some((t) => t.operator === operator && t.operand === operand);
}

export function Sidebar({ counts }: { counts: ReturnType<typeof unreadCounts> }) {
  const narrow = model.view === "narrow" ? model.narrow : [];
  const viewingChannel = narrow.find((t) => t.operator === "channel")?.operand;
  const viewingTopic = narrow.find((t) => t.operator === "topic")?.operand;
  const subs = [...model.subs.values()].sort((a, b) => a.name.localeCompare(b.name));
  const pinned = subs.filter((s) => s.pin_to_top);
  const folders = [...model.folders.values()].filter((f) => !f.is_archived).sort((a, b) => (a.order ?? a.id) - (b.order ?? b.id));
  const inFolder = (id: number | null) => subs.filter((s) => !s.pin_to_top && (s.folder_id ?? null) === id);

  const channel = (s: Subscription) => {
    const active = viewingChannel === s.stream_id;
    const topics = active ? [...(model.topics.get(s.stream_id) ?? new Map()).entries()].sort((a, b) => b[1] - a[1]).slice(0, 10) : [];
    return (
      <li key={s.stream_id} class={`channel${s.is_muted ? " muted" : ""}${active && !viewingTopic ? " active" : ""}`}>
        <button type="button" onClick={() => go([{ operator: "channel", operand: s.stream_id }])} aria-current={active && !viewingTopic ? "page" : undefined}>
          <span class="swatch" style={{ background: s.color }} aria-hidden="true">
            {s.invite_only ? <LockIcon /> : "#"}
          </span>
          <span class="name">{s.name}</span>
          <Count n={counts.byStream.get(s.stream_id)} label={`messages in ${s.name}`} />
        </button>
        <ChannelRowMenu sub={s} />
        {topics.length > 0 && (
          <ul class="topics" aria-label={`Topics in ${s.name}`}>
            {topics.map(([topic]) => (
              <li key={topic} class={`${viewingTopic === topic ? "active" : ""}${model.topicPolicy.get(`${s.stream_id}:${topic}`) === 1 ? " muted" : ""}`}>
                <button
                  type="button"
                  onClick={() => go([{ operator: "channel", operand: s.stream_id }, { operator: "topic", operand: topic }])}
                  aria-current={viewingTopic === topic ? "page" : undefined}
                >
                  <span class="name">{topicDisplay(topic)}</span>
                  <Count n={counts.byTopic.get(`${s.stream_id}:${topic}`)} label={`messages in ${topic}`} />
                </button>
              </li>
            ))}
          </ul>
        )}
      </li>
    );
  };

  const dms = [...model.dms.entries()].sort((a, b) => b[1] - a[1]).slice(0, 15);
  return (
    <nav class="left-sidebar" aria-label="Channels and conversations">
      <ul class="views">
        <li class={model.view === "inbox" ? "active" : ""}>
          <button type="button" onClick={() => goTo({ view: "inbox", narrow: [] })}>
            <span class="name">Inbox</span>
            <Count n={counts.total} label="messages" />
          </button>
        </li>
        <li class={model.view === "recent" ? "active" : ""}>
          <button type="button" onClick={() => goTo({ view: "recent", narrow: [] })}>
            <span class="name">Recent conversations</span>
          </button>
        </li>
        <li class={model.view === "narrow" && narrow.length === 0 ? "active" : ""}>
          <button type="button" onClick={() => go([])}>
            <span class="name">Combined feed</span>
            <Count n={counts.total} label="messages" />
          </button>
        </li>
        <li class={isNarrow(narrow, "is", "mentioned") ? "active" : ""}>
          <button type="button" onClick={() => go([{ operator: "is", operand: "mentioned" }])}>
            <span class="name">Mentions</span>
            <Count n={counts.mentions} label="mentions" />
          </button>
        </li>
        <li class={isNarrow(narrow, "is", "starred") ? "active" : ""}>
          <button type="button" onClick={() => go([{ operator: "is", operand: "starred" }])}>
            <span class="name">Starred messages</span>
          </button>
        </li>
        <DraftsViewEntry />
        <ScheduledViewEntry />
      </ul>
      {pinned.length > 0 && (
        <section>
          <h2>Pinned</h2>
          <ul class="channels">{pinned.map(channel)}</ul>
        </section>
      )}
      {folders.map((f) =>
        inFolder(f.id).length ? (
          <section key={f.id}>
            <h2>{f.name}</h2>
            <ul class="channels">{inFolder(f.id).map(channel)}</ul>
          </section>
        ) : null,
      )}
      <section>
        <ChannelsHeading />
        <ul class="channels">{inFolder(null).filter((s) => !s.folder_id || !model.folders.has(s.folder_id)).map(channel)}</ul>
      </section>
      <section>
        <h2>Direct messages</h2>
        <ul class="dms">
          {dms.map(([key]) => (
            <li key={key} class={isDmNarrow(narrow, key) ? "active" : ""}>
              <button type="button" onClick={() => go([{ operator: "dm", operand: key.split(",").map(Number) }])}>
                <span class="name">{dmNames(key)}</span>
                <Count n={counts.byDm.get(key)} label={`direct messages from ${dmNames(key)}`} />
              </button>
            </li>
          ))}
        </ul>
      </section>
    </nav>
  );
}

function isDmNarrow(narrow: Narrow, key: string): boolean {
  const t = narrow.find((x) => x.operator === "dm");
  return !!t && Array.isArray(t.operand) && [...t.operand].sort((a, b) => a - b).join(",") === key;
}

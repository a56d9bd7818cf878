/** The page: top bar with search, the three columns, settings, and Zulip's core keyboard shortcuts. */
import { useEffect, useState } from "preact/hooks";
import { api, logout } from "./api";
import { findUser, model, useModel, userName, streamName, conversationKey, unreadCounts } from "./model";
import { go } from "./navigate";
import { setSubscriptionProperty, setTopicPolicy } from "./messages";
import { narrowToSearch, parseSearch, type Narrow } from "./narrow";
import { Sidebar } from "./views/sidebar/Sidebar";
import { Feed, select } from "./views/feed/Feed";
import { People } from "./views/people/People";
import { Compose, compose, openCompose, closeCompose, defaultTarget } from "./views/compose/Compose";
import { Settings } from "./views/settings/Settings";
import { ChannelsOverlay } from "./views/channels/ChannelsOverlay";
import { DraftsOverlay } from "./views/drafts/Drafts";
import { ScheduledOverlay } from "./views/scheduled/Scheduled";
import { Rendered } from "./components/Rendered";
import { ThemeSwitch } from "./components/ThemeSwitch";
import { showUnreadFavicon } from "./favicon";

function title(narrow: Narrow): string {
  if (!narrow.length) return "Combined feed";
  return narrow
    .map((t) => {
      if (t.operator === "channel") return `#${streamName(typeof t.operand === "number" ? t.operand : undefined) || t.operand}`;
      if (t.operator === "topic") return `› ${t.operand}`;
      if (t.operator === "dm" && Array.isArray(t.operand)) return `Direct messages with ${t.operand.map(userName).join(", ")}`;
      if (t.operator === "sender") return `Messages from ${typeof t.operand === "number" ? userName(t.operand) : t.operand}`;
      if (t.operator === "is") return t.operand === "starred" ? "Starred messages" : t.operand === "mentioned" ? "Mentions" : `is:${t.operand}`;
      if (t.operator === "search") return `Search: ${t.operand}`;
      return `${t.operator}:${t.operand}`;
    })
    .join(" ");
}

const resolveChannel = (name: string) => [...model.streams.values()].find((s) => s.name.toLowerCase() === name.toLowerCase())?.stream_id;
const resolveUser = (who: string) => findUser(who)?.user_id;

function typingTarget(e: KeyboardEvent): boolean {
  const el = e.target as HTMLElement | null;
  return !!el && (el.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(el.tagName));
}

/** The next topic or conversation with unread messages after the one in view (Zulip's `n`). */
function nextUnreadConversation(): Narrow | undefined {
  const current = conversationKey(model.messages.get(model.selectedId) ?? ({ type: "private", display_recipient: [] } as never));
  const seen = new Set<string>();
  for (const [, u] of [...model.unread.entries()].sort((a, b) => a[0] - b[0])) {
    const key = u.streamId !== undefined ? `${u.streamId}:${u.topic}` : `dm:${u.dm}`;
    if (key === current || seen.has(key)) continue;
    seen.add(key);
    if (u.streamId !== undefined) {
      if (model.subs.get(u.streamId)?.is_muted) continue;
      return [
        { operator: "channel", operand: u.streamId },
        { operator: "topic", operand: u.topic! },
      ];
    }
    return [{ operator: "dm", operand: u.dm!.split(",").map(Number) }];
  }
  return undefined;
}

/** The channel in view: its description, and muting and pinning it (or muting the topic). */
function ChannelHeader({ narrow }: { narrow: Narrow }) {
  const id = narrow.find((t) => t.operator === "channel")?.operand;
  const topic = narrow.find((t) => t.operator === "topic")?.operand;
  const s = typeof id === "number" ? model.streams.get(id) : undefined;
  if (!s) return null;
  const sub = model.subs.get(s.stream_id);
  const topicMuted = typeof topic === "string" && model.topicPolicy.get(`${s.stream_id}:${topic}`) === 1;
  return (
    <>
      {s.rendered_description && <Rendered class="channel-description" html={s.rendered_description} />}
      {sub && (
        <span class="channel-controls">
          {typeof topic === "string" ? (
            <button type="button" class="secondary" aria-pressed={topicMuted} onClick={() => void setTopicPolicy(s.stream_id, topic, topicMuted ? 0 : 1)}>
              {topicMuted ? "Unmute topic" : "Mute topic"}
            </button>
          ) : (
            <button type="button" class="secondary" aria-pressed={sub.is_muted} onClick={() => void setSubscriptionProperty(s.stream_id, "is_muted", !sub.is_muted)}>
              {sub.is_muted ? "Unmute channel" : "Mute channel"}
            </button>
          )}
          <button type="button" class="secondary" aria-pressed={sub.pin_to_top} onClick={() => void setSubscriptionProperty(s.stream_id, "pin_to_top", !sub.pin_to_top)}>
            {sub.pin_to_top ? "Unpin" : "Pin to top"}
          </button>
        </span>
      )}
    </>
  );
}

export function App() {
  useModel();
  const [search, setSearch] = useState("");
  const [panel, setPanel] = useState<"" | "channels" | "people">("");
  const [settingsOpen, setSettingsOpen] = useState(false);
  const [help, setHelp] = useState(false);

  useEffect(() => {
    setSearch(narrowToSearch(model.narrow, (id) => streamName(id), (id) => model.users.get(id)?.email ?? String(id)));
    setPanel("");
  }, [JSON.stringify(model.narrow)]);

  useEffect(() => {
    const counts = unreadCounts();
    document.title = `${counts.total ? `(${counts.total}) ` : ""}${title(model.narrow)} - ${model.realm.name || "Confab"}`;
    showUnreadFavicon(counts.total);
  });

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.ctrlKey || e.metaKey || e.altKey) return;
      if (e.key === "Escape") {
        if (settingsOpen) return setSettingsOpen(false);
        if (help) return setHelp(false);
        if (compose.open) {
          e.preventDefault();
          void closeCompose();
          return;
        }
        (document.activeElement as HTMLElement | null)?.blur();
        return;
      }
      if (typingTarget(e) || settingsOpen) return;
      const ids = model.list.ids;
      const at = ids.indexOf(model.selectedId);
      switch (e.key) {
        case "/":
          e.preventDefault();
          document.getElementById("search")?.focus();
          break;
        case "c":
          e.preventDefault();
          openCompose({ ...defaultTarget(), kind: "stream" });
          break;
        case "x":
          e.preventDefault();
          openCompose({ kind: "dm" });
          break;
        case "r":
        case "Enter": {
          const m = model.messages.get(model.selectedId);
          if (!m) break;
          e.preventDefault();
          if (m.type === "stream") openCompose({ kind: "stream", streamId: m.stream_id, topic: m.subject });
          else openCompose({ kind: "dm", to: (m.display_recipient as { id: number }[]).map((r) => r.id).filter((id) => id !== model.me.user_id) });
          break;
        }
        case "j":
        case "ArrowDown":
          if (at >= 0 && at + 1 < ids.length) {
            e.preventDefault();
            select(ids[at + 1]);
          }
          break;
        case "k":
        case "ArrowUp":
          if (at > 0) {
            e.preventDefault();
            select(ids[at - 1]);
          }
          break;
        case "n": {
          const next = nextUnreadConversation();
          if (next) go(next);
          break;
        }
        case "?":
          setHelp(!help);
          break;
      }
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, [settingsOpen, help]);

  // Presence: reported when the page opens and every minute after, as Zulip's web app does.
  useEffect(() => {
    const report = () => void api("POST", "/users/me/presence", { status: document.visibilityState === "visible" ? "active" : "idle", new_user_input: true }).catch(() => {});
    report();
    const timer = setInterval(report, 60000);
    return () => clearInterval(timer);
  }, []);

  if (!model.ready) return <p class="boot">{model.error || "Loading…"}</p>;

  return (
    <div class={`app${panel ? ` show-${panel}` : ""}`}>
      <a class="skip" href="#compose-area">
        Skip to compose
      </a>
      <header class="top">
        <button type="button" class="only-narrow" aria-label="Channels" aria-expanded={panel === "channels"} onClick={() => setPanel(panel === "channels" ? "" : "channels")}>
          ☰
        </button>
        <h1 class="realm">{model.realm.name}</h1>
        <form
          class="search"
          role="search"
          onSubmit={(e) => {
            e.preventDefault();
            go(parseSearch(search, resolveChannel, resolveUser));
            (document.activeElement as HTMLElement | null)?.blur();
          }}
        >
          <label for="search" class="sr-only">
            Search messages
          </label>
          <input id="search" type="search" placeholder="Search (channel: topic: sender: is:starred …)" value={search} onInput={(e) => setSearch(e.currentTarget.value)} />
        </form>
        <ThemeSwitch />
        <button type="button" onClick={() => setSettingsOpen(true)} aria-label="Settings">
          ⚙
        </button>
        <button type="button" class="only-narrow" aria-label="People" aria-expanded={panel === "people"} onClick={() => setPanel(panel === "people" ? "" : "people")}>
          People
        </button>
        <button type="button" onClick={() => void logout()}>
          Log out
        </button>
      </header>
      {model.error && (
        <p class="banner" role="status">
          {model.error}
        </p>
      )}
      <Sidebar />
      <main class="middle" aria-label={title(model.narrow)}>
        <div class="narrow-title">
          <h2>{title(model.narrow)}</h2>
          <ChannelHeader narrow={model.narrow} />
        </div>
        <Feed />
        <div id="compose-area">
          <Compose />
        </div>
      </main>
      <People />
      <DraftsOverlay />
      <ScheduledOverlay />
      {settingsOpen && <Settings onClose={() => setSettingsOpen(false)} />}
      {help && (
        <div class="modal" role="dialog" aria-label="Keyboard shortcuts" aria-modal="true">
          <h2>Keyboard shortcuts</h2>
          <dl>
            <dt>c</dt>
            <dd>New message to a channel</dd>
            <dt>x</dt>
            <dd>New direct message</dd>
            <dt>r / Enter</dt>
            <dd>Reply to the selected message</dd>
            <dt>j / k</dt>
            <dd>Next / previous message</dd>
            <dt>n</dt>
            <dd>Next unread topic</dd>
            <dt>/</dt>
            <dd>Search</dd>
            <dt>Esc</dt>
            <dd>Close compose box or dialog</dd>
          </dl>
          <button type="button" onClick={() => setHelp(false)}>
            Close
          </button>
        </div>
      )}
      <ChannelsOverlay />
    </div>
  );
}

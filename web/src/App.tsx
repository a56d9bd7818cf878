/** The page: top bar with search, the three columns (a view or a narrow in the middle), settings, and the keyboard. */
import { useEffect, useRef, useState } from "preact/hooks";
import { api, logout } from "./api";
import { dmKeyOf, model, topicMuted, useModel, userName, streamName, unreadCounts } from "./model";
import { markNarrowRead, setSubscriptionProperty, toggleTopicMute } from "./messages";
import { inTextField } from "./components/listKeys";
import type { Narrow } from "./state/narrow";
import { Sidebar } from "./views/sidebar/Sidebar";
import { Feed } from "./views/feed/Feed";
import { Inbox } from "./views/inbox/Inbox";
import { Recent } from "./views/recent/Recent";
import { ShortcutHelp } from "./components/ShortcutHelp";
import { shortcutFor } from "./shortcuts";
import { People } from "./views/people/People";
import { Compose } from "./views/compose/Compose";
import { Settings } from "./views/settings/Settings";
import { ChannelsOverlay } from "./views/channels/ChannelsOverlay";
import { SearchBox } from "./views/search/SearchBox";
import { DraftsOverlay } from "./views/drafts/Drafts";
import { ScheduledOverlay } from "./views/scheduled/Scheduled";
import { Rendered } from "./components/Rendered";
import { ThemeSwitch } from "./components/ThemeSwitch";
import { showUnreadFavicon } from "./favicon";
import { followColorScheme } from "./theme";
import { PermissionBanner } from "./views/notifications/PermissionBanner";

const IS_TITLES: Record<string, string> = { starred: "Starred messages", mentioned: "Mentions", dm: "Direct message feed", private: "Direct message feed", unread: "Unread messages", resolved: "Resolved topics", followed: "Followed topics" };

function term(t: Narrow[number]): string {
  if (t.operator === "channel") return `#${typeof t.operand === "number" ? streamName(t.operand) : t.operand}`;
  if (t.operator === "topic") return `› ${t.operand}`;
  if (t.operator === "dm" && Array.isArray(t.operand)) return `Direct messages with ${t.operand.map(userName).join(", ")}`;
  if (t.operator === "sender") return `Messages from ${typeof t.operand === "number" ? userName(t.operand) : t.operand}`;
  if (t.operator === "dm-including") return `Direct messages including ${typeof t.operand === "number" ? userName(t.operand) : t.operand}`;
  if (t.operator === "is") return IS_TITLES[String(t.operand)] ?? `is:${t.operand}`;
  if (t.operator === "search") return `Search: ${t.operand}`;
  return `${t.operator}:${t.operand}`;
}

function title(narrow: Narrow): string {
  if (model.view === "inbox") return "Inbox";
  if (model.view === "recent") return "Recent conversations";
  if (!narrow.length) return "Combined feed";
  return narrow.map((t) => (t.negated ? `Excluding ${term(t)}` : term(t))).join(" ");
}

/** Unread messages the narrow in view holds, where the client can count them. */
function unreadInNarrow(narrow: Narrow, counts: ReturnType<typeof unreadCounts>): number {
  const channel = narrow.find((t) => t.operator === "channel")?.operand;
  const topic = narrow.find((t) => t.operator === "topic")?.operand;
  const dm = narrow.find((t) => t.operator === "dm")?.operand;
  if (!narrow.length) return counts.total;
  if (narrow.some((t) => t.negated)) return 0;
  if (narrow.length === 2 && typeof channel === "number" && typeof topic === "string") return counts.byTopic.get(`${channel}:${topic}`) ?? 0;
  if (narrow.length === 1 && typeof channel === "number") return counts.byStream.get(channel) ?? 0;
  if (narrow.length === 1 && Array.isArray(dm)) return counts.byDm.get(dmKeyOf(dm)) ?? 0;
  return 0;
}

/** The channel in view: its description, and muting and pinning it (or muting the topic). */
function ChannelHeader({ narrow }: { narrow: Narrow }) {
  const id = narrow.find((t) => t.operator === "channel")?.operand;
  const topic = narrow.find((t) => t.operator === "topic")?.operand;
  const s = typeof id === "number" ? model.streams.get(id) : undefined;
  if (!s) return null;
  const sub = model.subs.get(s.stream_id);
  const muted = typeof topic === "string" && topicMuted(s.stream_id, topic);
  return (
    <>
      {s.rendered_description && <Rendered class="channel-description" html={s.rendered_description} />}
      {sub && (
        <span class="channel-controls">
          {typeof topic === "string" ? (
            <button type="button" class="secondary" aria-pressed={muted} onClick={() => void toggleTopicMute(s.stream_id, topic)}>
              {muted ? "Unmute topic" : "Mute topic"}
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
  const [panel, setPanel] = useState<"" | "channels" | "people">("");
  const [settingsOpen, setSettingsOpen] = useState(false);
  const [help, setHelp] = useState(false);

  useEffect(() => {
    setPanel("");
  }, [model.view, JSON.stringify(model.narrow)]);

  // Until register answers, the remembered theme (main.tsx) stays.
  useEffect(() => (model.ready ? followColorScheme(model.settings.color_scheme) : undefined), [model.ready, model.settings.color_scheme]);

  // Counted once per render: the title, the favicon, the narrow's button and the sidebar share it.
  const counts = unreadCounts();
  const pageTitle = `${counts.total ? `(${counts.total}) ` : ""}${title(model.narrow)} - ${model.realm.name || "Confab"}`;
  useEffect(() => {
    document.title = pageTitle;
    showUnreadFavicon(counts.total);
  }, [pageTitle, counts.total]);

  // Read by the key handler as they are now: an effect re-subscribed after paint would leave a
  // handler that still sees the help open for a moment after it closed, and eats the next Escape.
  const overlays = useRef({ settingsOpen, help });
  overlays.current = { settingsOpen, help };
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const { settingsOpen, help } = overlays.current;
      // A native dialog (menus' dialogs, overlays) owns the keyboard, Escape included.
      if (document.querySelector("dialog[open]")) return;
      if (e.key === "Escape" || (e.ctrlKey && e.key === "[")) {
        if (settingsOpen) return setSettingsOpen(false);
        if (help) return setHelp(false);
        if (inTextField(e) && !(e.target as HTMLElement).closest(".compose")) return (e.target as HTMLElement).blur();
      } else if ((inTextField(e) && !(e.ctrlKey && e.key === "k")) || settingsOpen || document.querySelector("[aria-modal=true]:not(.shortcut-help)")) return;
      // Enter on a focused button or link is that control's own click, not "reply".
      if (e.key === "Enter" && (e.target as HTMLElement | null)?.closest?.("button, a[href]")) return;
      const shortcut = shortcutFor(e);
      if (!shortcut) return;
      e.preventDefault();
      shortcut.run();
    };
    const onHelp = () => setHelp((h) => !h);
    document.addEventListener("keydown", onKey);
    document.addEventListener("confab:help", onHelp);
    return () => {
      document.removeEventListener("keydown", onKey);
      document.removeEventListener("confab:help", onHelp);
    };
  }, []);

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
        <SearchBox />
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
      <div class="banners">
        {model.error && (
          <p class="banner" role="status">
            {model.error}
          </p>
        )}
        <PermissionBanner />
      </div>
      <Sidebar counts={counts} />
      <main class="middle" aria-label={title(model.narrow)}>
        {model.view === "inbox" ? (
          <Inbox />
        ) : model.view === "recent" ? (
          <Recent />
        ) : (
          <>
            <div class="narrow-title">
              <h2>{title(model.narrow)}</h2>
              <ChannelHeader narrow={model.narrow} />
              {unreadInNarrow(model.narrow, counts) > 0 && (
                <button type="button" class="secondary mark-read" onClick={() => void markNarrowRead(model.narrow)}>
                  Mark all as read
                </button>
              )}
            </div>
            <Feed />
          </>
        )}
        <div id="compose-area">
          <Compose />
        </div>
      </main>
      <People />
      <DraftsOverlay />
      <ScheduledOverlay />
      {settingsOpen && <Settings onClose={() => setSettingsOpen(false)} />}
      {help && <ShortcutHelp onClose={() => setHelp(false)} />}
      <ChannelsOverlay />
    </div>
  );
}

/**
 * Desktop notifications and sounds for new messages, as the user's settings ask (the rules are
 * in state/notify.ts). Nothing is raised for a message the reader is looking at: the tab has the
 * focus and the message belongs to the narrow in view.
 */
import { conversationKey, model, streamName, topicDisplay, userName, type Message } from "./model";
import { go } from "./navigate";
import { matchesNarrow, type Narrow } from "./state/narrow";
import { notificationsFor, type NotifySettings } from "./state/notify";

/** Zulip shows this much of a message in a notification. */
const BODY_CHARS = 150;

export const desktopSupported = () => typeof window !== "undefined" && "Notification" in window;

function plainText(html: string): string {
  const text = new DOMParser().parseFromString(html.slice(0, 20_000), "text/html").body.textContent ?? "";
  const squeezed = text.replace(/\s+/g, " ").trim();
  return squeezed.length > BODY_CHARS ? `${squeezed.slice(0, BODY_CHARS - 1)}…` : squeezed;
}

function title(m: Message): string {
  const sender = m.sender_full_name || userName(m.sender_id);
  if (m.type === "stream") return `${sender} (#${streamName(m.stream_id)} > ${topicDisplay(m.subject)})`;
  const others = Array.isArray(m.display_recipient) ? m.display_recipient.length : 0;
  return others > 2 ? `${sender} (to you and ${others - 2} others)` : sender;
}

function conversationNarrow(m: Message): Narrow {
  if (m.type === "stream") return [{ operator: "channel", operand: m.stream_id! }, { operator: "topic", operand: m.subject }];
  const ids = Array.isArray(m.display_recipient) ? m.display_recipient.map((r) => r.id).filter((id) => id !== model.me.user_id) : [];
  return [{ operator: "dm", operand: ids.length ? ids : [model.me.user_id] }];
}

let audio: AudioContext | undefined;

/** A short two-tone chime, made rather than fetched: the sound files are not served. */
function chime(): void {
  try {
    audio ??= new AudioContext();
    const start = audio.currentTime;
    for (const [i, freq] of [880, 1320].entries()) {
      const osc = audio.createOscillator();
      const gain = audio.createGain();
      osc.frequency.value = freq;
      gain.gain.setValueAtTime(0.15, start + i * 0.12);
      gain.gain.exponentialRampToValueAtTime(0.001, start + i * 0.12 + 0.25);
      osc.connect(gain).connect(audio.destination);
      osc.start(start + i * 0.12);
      osc.stop(start + i * 0.12 + 0.25);
    }
  } catch {
    // Browsers refuse audio before the page has been interacted with; a missed chime is fine.
  }
}

export function showNotification(heading: string, body: string, tag: string, onClick?: () => void): void {
  if (!desktopSupported() || Notification.permission !== "granted") return;
  let n: Notification;
  try {
    n = new Notification(heading, { body, tag, icon: "/favicon.ico" });
  } catch {
    // Mobile browsers offer Notification but refuse its constructor (they want a service worker).
    return;
  }
  n.onclick = () => {
    window.focus();
    onClick?.();
    n.close();
  };
}

/** Called for each message event. */
export function notifyArrival(m: Message): void {
  if (document.hasFocus() && model.view === "narrow" && matchesNarrow(m, model.narrow, model.me.user_id)) return;
  const { desktop, sound } = notificationsFor(m, {
    myId: model.me.user_id,
    settings: model.settings as NotifySettings,
    channel: (id) => model.subs.get(id),
    topicPolicy: (id, topic) => model.topicPolicy.get(`${id}:${topic}`),
    senderMuted: (id) => model.mutedUsers.has(id),
  });
  if (desktop) {
    const hideContent = m.type === "private" && model.settings.pm_content_in_desktop_notifications === false;
    showNotification(title(m), hideContent ? "New direct message" : plainText(m.content), conversationKey(m), () => go(conversationNarrow(m), m.id));
  }
  if (sound) chime();
}

export function testNotification(): void {
  showNotification("Test notification", "This is what a notification from Confab looks like.", "test");
  if (model.settings.notification_sound !== "none") chime();
}

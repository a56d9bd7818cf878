/**
 * One's notification settings, laid out as Zulip's: what notifies (channels; direct messages,
 * mentions and alerts; followed topics) against how (desktop, sound, mobile, email), then the
 * sound, email batching and what emails and notifications may show.
 */
import { useState } from "preact/hooks";
import { api } from "../../api";
import { model } from "../../model";
import { desktopSupported, testNotification } from "../../notifications";
import { Field, useResult } from "./form";
import "../notifications/notifications.css";

const HOW = ["Desktop", "Sound", "Mobile", "Email"] as const;

const WHAT: [label: string, settings: [string, string, string, string]][] = [
  ["Channels", ["enable_stream_desktop_notifications", "enable_stream_audible_notifications", "enable_stream_push_notifications", "enable_stream_email_notifications"]],
  ["Direct messages, mentions and alerts", ["enable_desktop_notifications", "enable_sounds", "enable_offline_push_notifications", "enable_offline_email_notifications"]],
  ["Followed topics", ["enable_followed_topic_desktop_notifications", "enable_followed_topic_audible_notifications", "enable_followed_topic_push_notifications", "enable_followed_topic_email_notifications"]],
];

const BATCHING: [number, string][] = [
  [120, "2 minutes"],
  [300, "5 minutes"],
  [600, "10 minutes"],
  [1800, "30 minutes"],
  [3600, "1 hour"],
  [21600, "6 hours"],
  [86400, "1 day"],
  [604800, "1 week"],
];

function useSave() {
  const result = useResult();
  const save = (name: string, value: boolean | string | number) => void result.run(() => api("PATCH", "/settings", { [name]: value }));
  return { save, view: result.view };
}

/** A checkbox for a boolean setting; `label` is shown, or only read out where the table's headers say what it is. */
function Check({ name, label, save, visible = true }: { name: string; label: string; save: (n: string, v: boolean) => void; visible?: boolean }) {
  const input = <input id={`set-${name}`} type="checkbox" checked={model.settings[name] === true} aria-label={visible ? undefined : label} onChange={(e) => save(name, e.currentTarget.checked)} />;
  if (!visible) return input;
  return (
    <div class="field check">
      {input}
      <label for={`set-${name}`}>{label}</label>
    </div>
  );
}

function BrowserPermission() {
  const [permission, setPermission] = useState(() => (desktopSupported() ? Notification.permission : "unsupported"));
  const ask = async () => setPermission(await Notification.requestPermission());
  const text: Record<string, string> = {
    granted: "This browser shows Confab's desktop notifications.",
    denied: "This browser blocks Confab's desktop notifications; allow them in the browser's site settings.",
    default: "This browser has not been asked to show desktop notifications yet.",
    unsupported: "This browser cannot show desktop notifications.",
  };
  return (
    <div class="notify-permission">
      <span>{text[permission]}</span>
      {permission === "default" && (
        <button type="button" onClick={() => void ask()}>
          Allow notifications
        </button>
      )}
      <button type="button" class="secondary" onClick={testNotification}>
        Send a test notification
      </button>
    </div>
  );
}

export function Notifications() {
  const { save, view } = useSave();
  const sounds = ((model.settings.available_notification_sounds as string[] | undefined) ?? []).concat("none");
  return (
    <>
      <BrowserPermission />
      <table class="notify-table">
        <thead>
          <tr>
            <td />
            {HOW.map((h) => (
              <th key={h} scope="col">
                {h}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {WHAT.map(([label, names]) => (
            <tr key={label}>
              <th scope="row">{label}</th>
              {names.map((name, i) => (
                <td key={name}>
                  <Check name={name} label={`${label}: ${HOW[i]}`} save={save} visible={false} />
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
      <Check name="wildcard_mentions_notify" label="Notify for @all, @everyone and @topic mentions" save={save} />
      <Check name="enable_followed_topic_wildcard_mentions_notify" label="Notify for @all mentions in followed topics" save={save} />
      <Check name="pm_content_in_desktop_notifications" label="Show the content of direct messages in desktop notifications" save={save} />
      <Field id="set-notification_sound" label="Notification sound">
        <select id="set-notification_sound" value={String(model.settings.notification_sound ?? "zulip")} onChange={(e) => save("notification_sound", e.currentTarget.value)}>
          {sounds.map((s) => (
            <option key={s} value={s}>
              {s === "none" ? "None" : s[0]!.toUpperCase() + s.slice(1)}
            </option>
          ))}
        </select>
      </Field>
      <Field id="set-email_notifications_batching_period_seconds" label="Wait before sending an email about new messages">
        <select
          id="set-email_notifications_batching_period_seconds"
          value={String(model.settings.email_notifications_batching_period_seconds ?? 120)}
          onChange={(e) => save("email_notifications_batching_period_seconds", Number(e.currentTarget.value))}
        >
          {BATCHING.map(([v, l]) => (
            <option key={v} value={v}>
              {l}
            </option>
          ))}
        </select>
      </Field>
      <Check name="message_content_in_email_notifications" label="Include the message in notification emails" save={save} />
      <Check name="enable_digest_emails" label="Send digest emails when I'm away" save={save} />
      <Check name="enable_login_emails" label="Email me about new sign-ins to my account" save={save} />
      {view}
    </>
  );
}

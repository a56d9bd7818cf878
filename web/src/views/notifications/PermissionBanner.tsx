/**
 * Asks, once the user wants desktop notifications, for the browser's permission to show them;
 * "Not now" hides it for this page, "Never ask" for this browser.
 */
import { useState } from "preact/hooks";
import { model, useModel } from "../../model";
import { desktopSupported } from "../../notifications";
import "./notifications.css";

const NEVER_ASK = "confab.notifications.never-ask";

export function PermissionBanner() {
  useModel();
  const [hidden, setHidden] = useState(() => localStorage.getItem(NEVER_ASK) === "1");
  const [, setAsked] = useState(0);
  if (hidden || !desktopSupported() || Notification.permission !== "default") return null;
  if (!model.ready || model.settings.enable_desktop_notifications === false) return null;
  const allow = async () => {
    await Notification.requestPermission();
    setAsked((n) => n + 1);
  };
  const never = () => {
    localStorage.setItem(NEVER_ASK, "1");
    setHidden(true);
  };
  return (
    <div class="notify-banner" role="region" aria-label="Desktop notifications">
      <span>Allow desktop notifications to hear about direct messages and mentions while Confab is in the background.</span>
      <button type="button" onClick={() => void allow()}>
        Allow notifications
      </button>
      <button type="button" class="secondary" onClick={() => setHidden(true)}>
        Not now
      </button>
      <button type="button" class="link" onClick={never}>
        Never ask on this computer
      </button>
    </div>
  );
}

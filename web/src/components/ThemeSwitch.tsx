/**
 * Automatic, dark or light, as Zulip's web app offers them next to its settings: shows the chosen
 * theme and saves a new choice to the `color_scheme` setting, whose event brings it back to
 * every open tab.
 */
import type { JSX } from "preact";
import { useState } from "preact/hooks";
import { api } from "../api";
import { changed, model } from "../model";
import { COLOR_SCHEMES } from "../theme";

const ICONS: Record<number, JSX.Element> = {
  1: <path d="M8 1.5a6.5 6.5 0 1 0 0 13 6.5 6.5 0 0 0 0-13zm0 1.5v10a5 5 0 0 1 0-10z" />,
  2: <path d="M6.2 1.7a6.5 6.5 0 1 0 8.1 8.1A5.5 5.5 0 0 1 6.2 1.7z" />,
  3: (
    <>
      <circle cx="8" cy="8" r="3" />
      <path d="M8 .8v2.4M8 12.8v2.4M.8 8h2.4M12.8 8h2.4M2.9 2.9l1.7 1.7M11.4 11.4l1.7 1.7M2.9 13.1l1.7-1.7M11.4 4.6l1.7-1.7" stroke="currentColor" stroke-width="1.5" stroke-linecap="round" />
    </>
  ),
};

export function ThemeSwitch() {
  const [error, setError] = useState("");
  // On a phone only the current choice shows (style.css); tapping it opens the other two.
  const [open, setOpen] = useState(false);
  const current = model.settings.color_scheme;

  // The choice shows at once (App follows the setting); the setting's event confirms it, and a
  // failure puts the saved one back.
  const choose = async (value: number) => {
    setOpen(false);
    setError("");
    model.settings = { ...model.settings, color_scheme: value };
    changed();
    try {
      await api("PATCH", "/settings", { color_scheme: value });
    } catch (e) {
      model.settings = { ...model.settings, color_scheme: current };
      changed();
      setError(`Theme not saved: ${(e as Error).message}`);
    }
  };

  return (
    <div class={`theme-switch${open ? " open" : ""}`} role="group" aria-label="Color theme">
      {COLOR_SCHEMES.map(({ value, name }) => (
        <button key={value} type="button" aria-pressed={current === value} aria-label={`${name} theme`} title={`${name} theme`} onClick={() => (value === current ? setOpen(!open) : void choose(value))}>
          <svg viewBox="0 0 16 16" width="16" height="16" fill="currentColor" aria-hidden="true">
            {ICONS[value]}
          </svg>
        </button>
      ))}
      {error && (
        <span class="error" role="alert">
          {error}
        </span>
      )}
    </div>
  );
}

/**
 * The color theme. Zulip's `color_scheme` user setting picks it (1 automatic, following the
 * system's `prefers-color-scheme`; 2 dark; 3 light) and style.css keys its palette on
 * `data-theme` on <html>.
 */
export type Theme = "dark" | "light";

export const COLOR_SCHEMES = [
  { value: 1, name: "Automatic" },
  { value: 2, name: "Dark" },
  { value: 3, name: "Light" },
] as const;

/** The theme a setting shows; automatic, and any value this client does not know, follow the system. */
export function themeFor(colorScheme: unknown, systemDark: boolean): Theme {
  if (colorScheme === 2) return "dark";
  if (colorScheme === 3) return "light";
  return systemDark ? "dark" : "light";
}

const REMEMBERED = "confab.color_scheme";
// Storage can be refused (blocked site data, some private windows): the theme then waits for register.
function storage(): Storage | null {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
}
const systemQuery = () => window.matchMedia("(prefers-color-scheme: dark)");

function show(colorScheme: unknown, systemDark: boolean): void {
  document.documentElement.dataset.theme = themeFor(colorScheme, systemDark);
}

/**
 * Shows the setting's theme now and again whenever the system's preference changes; returns
 * the unsubscribe. The setting is remembered for `showRememberedTheme` on the next load.
 */
export function followColorScheme(colorScheme: unknown): () => void {
  const query = systemQuery();
  const onChange = () => show(colorScheme, query.matches);
  onChange();
  storage()?.setItem(REMEMBERED, String(colorScheme));
  query.addEventListener("change", onChange);
  return () => query.removeEventListener("change", onChange);
}

/** The theme of the last visit, before register answers with the setting: no white flash for a dark-theme user. */
export function showRememberedTheme(): void {
  show(Number(storage()?.getItem(REMEMBERED)), systemQuery().matches);
}

/**
 * How the client writes times: a message's time of day, and the full weekday, date and time used
 * for global times (`<time:…>` in Markdown) and for a message time's tooltip. Both follow the
 * reader's `twenty_four_hour_time` setting, passed as it is in the model: anything but a boolean
 * (`null` is allowed since feature level 408) means the habit of the reader's locale. `where`
 * exists for tests, which need a fixed locale and zone.
 */
export interface Where {
  locale?: string;
  timeZone?: string;
}

const TIME_OF_DAY: Intl.DateTimeFormatOptions = { hour: "numeric", minute: "2-digit" };
const DATE: Intl.DateTimeFormatOptions = { weekday: "short", year: "numeric", month: "short", day: "numeric" };
const STYLES = { time: TIME_OF_DAY, date: DATE, full: { ...DATE, ...TIME_OF_DAY } } as const;

// A feed formats hundreds of times per render; building an Intl.DateTimeFormat costs far more than using one.
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(style: keyof typeof STYLES, twentyFour: unknown, where: Where): Intl.DateTimeFormat {
  const hours = typeof twentyFour === "boolean" ? twentyFour : null;
  const key = `${style}|${hours}|${where.locale ?? ""}|${where.timeZone ?? ""}`;
  let f = formatters.get(key);
  if (!f) {
    // h23 rather than `hour12: false`, which some engines render as "24:05" just after midnight.
    const hourCycle = hours === null ? undefined : hours ? "h23" : "h12";
    f = new Intl.DateTimeFormat(where.locale, { ...STYLES[style], hourCycle, timeZone: where.timeZone });
    formatters.set(key, f);
  }
  return f;
}

/** "3:05 PM", or "15:05" in 24-hour time: what a message shows next to its sender. */
export function timeOfDay(ms: number, twentyFour: unknown, where: Where = {}): string {
  return formatter("time", twentyFour, where).format(ms);
}

/** "Thu, Jan 15, 2026, 3:05 PM": a moment on its own, with the day it falls on. */
export function fullTime(ms: number, twentyFour: unknown, where: Where = {}): string {
  return formatter("full", twentyFour, where).format(ms);
}

/** A global time's `datetime` attribute (UTC ISO 8601, as the server renders it) in the reader's time; null when unreadable. */
export function globalTime(datetime: string, twentyFour: unknown, where: Where = {}): string | null {
  const ms = Date.parse(datetime);
  return Number.isNaN(ms) ? null : fullTime(ms, twentyFour, where);
}

/** "Thu, Jan 15, 2026": a day on its own. */
export function dateOnly(ms: number, where: Where = {}): string {
  return formatter("date", null, where).format(ms);
}

/** "Today", "Yesterday", "Tomorrow", or the date, as Zulip labels a day; `now` for tests. */
export function dayLabel(ms: number, now = Date.now(), where: Where = {}): string {
  const day = (t: number) => dateOnly(t, where);
  const DAY = 86_400_000;
  if (day(ms) === day(now)) return "Today";
  if (day(ms) === day(now - DAY)) return "Yesterday";
  if (day(ms) === day(now + DAY)) return "Tomorrow";
  return day(ms);
}

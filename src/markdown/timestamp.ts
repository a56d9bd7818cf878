/**
 * `<time:…>`: an ISO 8601 date/time (naive times are UTC) or a UNIX timestamp, normalized to
 * UTC as `YYYY-MM-DDTHH:MM:SS[.ffffff]Z`. Null when the input is not a valid time.
 */

const ISO_RE =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,6})\d*)?)?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

const MIN_MS = Date.UTC(1, 0, 1) - 0;
const MAX_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

function format(ms: number, micros: number): string {
  const d = new Date(ms);
  const pad = (n: number, w = 2) => String(n).padStart(w, "0");
  const base =
    `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}` +
    `T${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
  return micros ? `${base}.${pad(micros, 6)}Z` : `${base}Z`;
}

function utcMs(y: number, mo: number, d: number, h: number, mi: number, s: number): number | null {
  const date = new Date(0);
  date.setUTCFullYear(y, mo - 1, d);
  date.setUTCHours(h, mi, s, 0);
  if (date.getUTCFullYear() !== y || date.getUTCMonth() !== mo - 1 || date.getUTCDate() !== d) return null;
  return date.getTime();
}

export function parseTimestamp(input: string): string | null {
  const text = input.trim();
  const m = ISO_RE.exec(text);
  if (m) {
    const [, y, mo, d, h = "0", mi = "0", s = "0", frac = "", tz] = m;
    if (Number(h) > 23 || Number(mi) > 59 || Number(s) > 59) return null;
    const local = utcMs(Number(y), Number(mo), Number(d), Number(h), Number(mi), Number(s));
    if (local === null || Number(y) < 1) return null;
    let offsetMin = 0;
    if (tz && tz.toUpperCase() !== "Z") {
      const digits = tz.slice(1).replace(":", "");
      const oh = Number(digits.slice(0, 2));
      const om = Number(digits.slice(2) || "0");
      if (oh > 23 || om > 59) return null;
      offsetMin = (tz[0] === "-" ? -1 : 1) * (oh * 60 + om);
    }
    const ms = local - offsetMin * 60_000;
    if (ms < MIN_MS || ms > MAX_MS) return null;
    return format(ms, Number(frac.padEnd(6, "0") || "0"));
  }
  if (/^[+-]?(\d+(\.\d*)?|\.\d+)$/.test(text)) {
    const seconds = Number(text);
    const ms = Math.floor(seconds * 1000);
    if (!Number.isFinite(ms) || ms < MIN_MS || ms > MAX_MS) return null;
    const micros = Math.round((seconds - Math.floor(seconds)) * 1e6) % 1_000_000;
    return format(Math.floor(seconds) * 1000, micros);
  }
  return null;
}

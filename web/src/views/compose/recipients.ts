/**
 * The people a direct message's "To" field offers for what was typed: active people not yet
 * chosen, whose name or email (as far as the reader may see it) matches, the best matches first.
 * Unit-tested in test/unit/web/compose_recipients.test.ts.
 */
import { visibleEmail } from "../people/card.js";

export interface Candidate {
  user_id: number;
  full_name: string;
  email: string;
  delivery_email?: string | null;
  is_active: boolean;
}

/** 0: the name starts with the query; 1: a later word of the name does; 2: an email does; -1: no match (".com" is in every address). */
function rank(u: Candidate, q: string): number {
  const name = u.full_name.toLowerCase();
  const email = visibleEmail(u).toLowerCase();
  if (name.startsWith(q)) return 0;
  if (name.split(/\s+/).some((w) => w.startsWith(q))) return 1;
  return email && email.startsWith(q) ? 2 : -1;
}

export function matchRecipients<U extends Candidate>(people: Iterable<U>, query: string, chosen: readonly number[], limit = 8): U[] {
  const q = query.trim().toLowerCase();
  if (!q) return [];
  const taken = new Set(chosen);
  return [...people]
    .filter((u) => u.is_active && !taken.has(u.user_id))
    .map((u) => ({ u, r: rank(u, q) }))
    .filter((x) => x.r >= 0)
    .sort((a, b) => a.r - b.r || a.u.full_name.localeCompare(b.u.full_name))
    .slice(0, limit)
    .map((x) => x.u);
}

/**
 * Pasted or typed "a@example.com, Cordelia, …": the people found for the finished parts (all
 * but the last, still being typed, unless `all`), and the text that found no one, kept to fix.
 */
export function splitTyped<U extends Candidate>(text: string, find: (who: string) => U | undefined, all = false): { found: U[]; rest: string } {
  const parts = text.split(",");
  const last = all ? "" : parts.pop()!;
  const found: U[] = [];
  const unknown: string[] = [];
  for (const part of parts) {
    if (!part.trim()) continue;
    const u = find(part);
    if (u && u.is_active) found.push(u);
    else unknown.push(part.trim());
  }
  return { found, rest: [...unknown, last.trim()].filter(Boolean).join(", ") };
}

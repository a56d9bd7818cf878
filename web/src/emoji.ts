/** Emoji: Unicode characters for Zulip's emoji codes, and the name list loaded only when needed. */
import { model } from "./model";

export interface EmojiChoice {
  name: string;
  code: string;
  type: "unicode_emoji" | "realm_emoji";
  url?: string;
}

export const codeToChar = (code: string) => String.fromCodePoint(...code.split("-").map((h) => parseInt(h, 16)));

/** Rendered messages name emoji by class (`emoji-1f600`); they are shown as the character itself. */
export function showEmoji(root: HTMLElement): void {
  for (const span of root.querySelectorAll<HTMLElement>("span.emoji")) {
    const code = /(?:^|\s)emoji-([0-9a-f-]+)/.exec(span.className)?.[1];
    if (code && span.dataset.shown !== "1") {
      span.textContent = codeToChar(code);
      span.dataset.shown = "1";
    }
  }
}

const POPULAR = ["+1", "tada", "smile", "heart", "working_on_it", "octopus", "joy", "thinking", "eyes", "rocket"];
let names: Promise<Record<string, string>> | undefined;

/** Zulip's emoji names, fetched as a separate chunk on first use. */
export function emojiNames(): Promise<Record<string, string>> {
  names ??= import("../../src/markdown/data/emoji.json").then((m) => (m.default as { name_to_code: Record<string, string> }).name_to_code);
  return names;
}

export async function searchEmoji(query: string, limit = 40): Promise<EmojiChoice[]> {
  const q = query.toLowerCase().replace(/^:/, "");
  const out: EmojiChoice[] = [];
  for (const e of Object.values(model.realm.realm_emoji)) {
    if (!e.deactivated && e.name.includes(q)) out.push({ name: e.name, code: e.id, type: "realm_emoji", url: e.source_url });
  }
  const all = await emojiNames();
  const ordered = q ? Object.keys(all).filter((n) => n.includes(q)).sort((a, b) => Number(!a.startsWith(q)) - Number(!b.startsWith(q)) || a.length - b.length) : POPULAR.concat(Object.keys(all));
  for (const name of ordered) {
    if (out.length >= limit) break;
    if (all[name]) out.push({ name, code: all[name], type: "unicode_emoji" });
  }
  return out;
}

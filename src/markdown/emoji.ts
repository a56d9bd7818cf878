/** Emoji: Zulip's names for Unicode emoji, emoticon translation and the emoji markup. */
import emojiData from "./data/emoji.json" with { type: "json" };
import { Atomic, El } from "./engine/tree.js";

const DATA: { name_to_code: Record<string, string>; code_to_name: Record<string, string> } = emojiData;

const own = (o: object, k: string) => Object.prototype.hasOwnProperty.call(o, k);

export function emojiCodeForName(name: string): string | undefined {
  return own(DATA.name_to_code, name) ? DATA.name_to_code[name] : undefined;
}

export function emojiNameForCode(code: string): string | undefined {
  return own(DATA.code_to_name, code) ? DATA.code_to_name[code] : undefined;
}

let emojiApiJson: string | undefined;

/**
 * What `server_emoji_data_url` serves, in the shape Zulip's clients parse: every emoji code with
 * its names, the canonical name first. Made once; the names never change while running.
 */
export function serverEmojiDataJson(): string {
  if (emojiApiJson === undefined) {
    const names = new Map<string, string[]>();
    for (const [code, name] of Object.entries(DATA.code_to_name)) names.set(code, [name]);
    for (const [name, code] of Object.entries(DATA.name_to_code)) {
      const list = names.get(code);
      if (list && list[0] !== name) list.push(name);
      else if (!list) names.set(code, [name]);
    }
    emojiApiJson = JSON.stringify({ code_to_names: Object.fromEntries(names) });
  }
  return emojiApiJson;
}

/** The code Zulip uses for an emoji: its code points in hex, without variation selectors. */
export function emojiCode(text: string): string {
  return [...text.replace(/\uFE0F/g, "")].map((c) => c.codePointAt(0)!.toString(16).padStart(4, "0")).join("-");
}

/** `<span class="emoji emoji-1f604" title="smile" …>:smile:</span>` */
export function unicodeEmojiElement(code: string, name: string): El {
  const title = name.replace(/_/g, " ");
  const span = new El("span").set("class", `emoji emoji-${code}`).set("title", title).set("role", "img").set("aria-label", title);
  span.text = new Atomic(`:${name}:`);
  return span;
}

/** Custom (and the built-in `:zulip:`) emoji are images. */
export function imageEmojiElement(src: string, name: string): El {
  return new El("img").set("src", src).set("class", "emoji").set("alt", `:${name}:`).set("title", name.replace(/_/g, " "));
}

export const ZULIP_EMOJI_URL = "/static/generated/emoji/images/emoji/unicode/zulip.png";

export const EMOTICONS: Record<string, string> = {
  ":)": "slight_smile",
  "(:": "slight_smile",
  ":(": "frown",
  "<3": "heart",
  ":|": "neutral",
  ":/": "confused",
  ";)": "wink",
  ":D": "smile",
  ":o": "open_mouth",
  ":O": "open_mouth",
  ":p": "stuck_out_tongue",
  ":P": "stuck_out_tongue",
};

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const TERMINAL = String.raw`,.;?!()\[\] "'\n\t`;
export const EMOTICON_RE = new RegExp(
  `(?<![^${TERMINAL}])(${Object.keys(EMOTICONS).map(escapeRe).join("|")})(?![^${TERMINAL}])`,
  "g",
);

/**
 * A run of characters that could be one emoji: a flag (two regional indicators) or an emoji with
 * its modifiers, joined to further emoji by zero-width joiners.
 */
const ONE = String.raw`(?:\p{RI}\p{RI}|\p{Emoji}(?:\p{Emoji_Modifier}|\uFE0F\u20E3?|[\u{E0020}-\u{E007E}]+\u{E007F})?)`;
export const POSSIBLE_EMOJI_RE = new RegExp(`${ONE}(?:\\u200D${ONE})*`, "gu");
/** A lone character that is normally shown as text (digits, `#`, arrows), not as an emoji. */
export const TEXT_PRESENTATION_RE = /^\P{Emoji_Presentation}\u20E3?$/u;

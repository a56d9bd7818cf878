/**
 * Line-level passes that run before block parsing: hanging lists, whitespace normalization and
 * fenced blocks (code, quote, spoiler, math).
 */
import { MAX_NESTING, checkRenderDeadline, unableToRender } from "../budget.js";

export interface FenceOutput {
  /** Stores rendered HTML and returns the placeholder that stands for it in the text. */
  stash(html: string): string;
  formatCode(lang: string | null, text: string): string;
  formatTex(text: string): string;
}

/** An opening or closing fence: ``` or ~~~ (3+), optional language and a header for spoilers. */
export const FENCE_RE = /^(~{3,}|`{3,})[ ]*(?:\{?\.?([a-zA-Z0-9_+,\-./#]+)[ ]*([^ ~`][^~`]*)?\}?)?$/;

const LIST_ITEM_RE = /^[ ]*([*+-]|\d\.)[ ]+(.*)/;

/**
 * A list directly after a line of text (or after a list of the other kind) gets a blank line
 * inserted before it so that it parses as a list rather than as paragraph text.
 */
export function separateHangingLists(lines: string[]): string[] {
  const copy = [...lines];
  let inserts = 0;
  const open: { fence: string; isCode: boolean }[] = [];
  let inCode = false;
  for (let i = 0; i < lines.length - 1; i++) {
    const m = FENCE_RE.exec(lines[i]);
    if (m) {
      const fence = m[1];
      const lang = m[2];
      const isCode = lang !== "quote" && lang !== "quoted";
      const closesLast = !lang && open.length > 0 && open[open.length - 1].fence === fence;
      if (closesLast) open.pop();
      else open.push({ fence, isCode });
      inCode = open.some((f) => f.isCode);
    }
    const li1 = LIST_ITEM_RE.exec(lines[i]);
    const li2 = LIST_ITEM_RE.exec(lines[i + 1]);
    if (
      !inCode &&
      lines[i] &&
      ((li2 && !li1) || (li1 && li2 && (li1[1].length === 1) !== (li2[1].length === 1)))
    ) {
      copy.splice(i + inserts + 1, 0, "");
      inserts++;
    }
  }
  return copy;
}

function expandTabs(line: string, size: number): string {
  if (!line.includes("\t")) return line;
  let out = "";
  for (const ch of line) {
    out += ch === "\t" ? " ".repeat(size - (out.length % size)) : ch;
  }
  return out;
}

export function normalizeWhitespace(lines: string[]): string[] {
  let source = lines.join("\n").replace(/[\u0002\u0003]/g, "");
  source = source.replace(/\r\n/g, "\n").replace(/\r/g, "\n") + "\n\n";
  source = source
    .split("\n")
    .map((l) => expandTabs(l, 4))
    .join("\n");
  source = source.replace(/(?<=\n) +\n/g, "\n");
  return source.split("\n");
}

abstract class Handler {
  lines: string[] = [];
  constructor(
    readonly proc: FencedBlocks,
    readonly output: string[],
    readonly fence: string | null,
    readonly processContents: boolean,
  ) {}

  handleLine(line: string): void {
    if (line.trimEnd() === this.fence) this.done();
    else this.lines.push(line.trimEnd());
  }

  done(): void {
    if (this.lines.length) {
      let text = this.format(this.lines.join("\n"));
      if (!this.processContents) text = this.proc.out.stash(text);
      this.output.push("", ...text.split("\n"), "");
    }
    this.proc.handlers.pop();
  }

  abstract format(text: string): string;
}

class OuterHandler extends Handler {
  constructor(proc: FencedBlocks, output: string[]) {
    super(proc, output, null, false);
  }
  override handleLine(line: string): void {
    this.proc.checkForNewFence(this.output, line);
  }
  format(text: string): string {
    return text;
  }
}

class CodeHandler extends Handler {
  constructor(proc: FencedBlocks, output: string[], fence: string, readonly lang: string | null) {
    super(proc, output, fence, false);
  }
  format(text: string): string {
    return this.proc.out.formatCode(this.lang, text);
  }
}

class QuoteHandler extends Handler {
  constructor(proc: FencedBlocks, output: string[], fence: string) {
    super(proc, output, fence, true);
  }
  override handleLine(line: string): void {
    if (line.trimEnd() === this.fence) this.done();
    else this.proc.checkForNewFence(this.lines, line);
  }
  format(text: string): string {
    return text
      .split("\n")
      .map((l) => "> " + l)
      .join("\n");
  }
}

const SPOILER_OPEN = '<div class="spoiler-block"><div class="spoiler-header">';
const SPOILER_MIDDLE = '</div><div class="spoiler-content" aria-hidden="true">';
const SPOILER_CLOSE = "</div></div>";

class SpoilerHandler extends Handler {
  constructor(proc: FencedBlocks, output: string[], fence: string, readonly header: string | null) {
    super(proc, output, fence, true);
  }
  override handleLine(line: string): void {
    if (line.trimEnd() === this.fence) this.done();
    else this.proc.checkForNewFence(this.lines, line);
  }
  format(text: string): string {
    const out = [this.proc.out.stash(SPOILER_OPEN)];
    if (this.header !== null) out.push(this.header);
    out.push(this.proc.out.stash(SPOILER_MIDDLE), text, this.proc.out.stash(SPOILER_CLOSE));
    return out.join("\n\n");
  }
}

class TexHandler extends Handler {
  constructor(proc: FencedBlocks, output: string[], fence: string) {
    super(proc, output, fence, false);
  }
  format(text: string): string {
    return this.proc.out.formatTex(text);
  }
}

/** Replaces fenced blocks: code and math become stashed HTML, quotes and spoilers stay Markdown. */
export class FencedBlocks {
  handlers: Handler[] = [];
  constructor(readonly out: FenceOutput) {}

  checkForNewFence(output: string[], line: string): void {
    const m = FENCE_RE.exec(line);
    if (!m) {
      output.push(line);
      return;
    }
    const fence = m[1];
    const lang = m[2] ? m[2].toLowerCase() : null;
    const header = m[3] ?? null;
    let handler: Handler;
    if (lang === "quote" || lang === "quoted") handler = new QuoteHandler(this, output, fence);
    else if (lang === "math") handler = new TexHandler(this, output, fence);
    else if (lang === "spoiler") handler = new SpoilerHandler(this, output, fence, header);
    else handler = new CodeHandler(this, output, fence, lang);
    // The outer handler is not a fence. Each level prefixes every inner line again, so depth costs quadratically.
    if (this.handlers.length > MAX_NESTING) throw unableToRender();
    this.handlers.push(handler);
  }

  run(lines: string[]): string[] {
    const output: string[] = [];
    this.handlers = [new OuterHandler(this, output)];
    for (const line of lines) {
      checkRenderDeadline();
      this.handlers[this.handlers.length - 1].handleLine(line);
    }
    while (this.handlers.length) this.handlers[this.handlers.length - 1].done();
    if (output.length > 2 && output[output.length - 2] !== "") output.push("");
    return output;
  }
}

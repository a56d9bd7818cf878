/**
 * Block structure. The text is cut into blocks at blank lines; each block goes to the first
 * processor that accepts it, and processors may split a block or push parts back. This is the
 * model Zulip's renderer uses, and the source of its behaviour for lists (2-space nesting,
 * tight/loose items), quotes that swallow lazy lines, headings that need a space, and so on.
 */
import { El, Atomic, textOf } from "./tree.js";
import { MAX_NESTING, checkRenderDeadline } from "../budget.js";

type State = "list" | "looselist" | "detabbed" | "blockquote";

interface Processor {
  test(parent: El, block: string): boolean;
  /** Returning false means "not handled after all"; the next processor is tried. */
  run(parent: El, blocks: string[]): boolean | void;
}

const LIST_TAGS = new Set(["ul", "ol"]);

/** Escapes the characters that are special in HTML; code text is stored escaped. */
export const codeEscape = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

const lastChild = (el: El) => el.last();

function startsWithSpaces(s: string, n: number): boolean {
  for (let i = 0; i < n; i++) if (s[i] !== " ") return false;
  return true;
}


export class BlockParser {
  private states: State[] = [];
  private depth = 0;
  private processors: Processor[];

  constructor() {
    this.processors = [
      new EmptyBlock(),
      new ListIndent(this),
      new CodeBlock(),
      new HashHeader(this),
      new Table(),
      new HorizontalRule(this),
      new ListBlock(this, "ol"),
      new ListBlock(this, "ul"),
      new BlockQuote(this),
      new Paragraph(this),
    ];
  }

  setState(s: State) {
    this.states.push(s);
  }
  resetState() {
    this.states.pop();
  }
  isState(s: State) {
    return this.states.length > 0 && this.states[this.states.length - 1] === s;
  }

  parseDocument(lines: string[]): El {
    const root = new El("div");
    this.parseChunk(root, lines.join("\n"));
    return root;
  }

  parseChunk(parent: El, text: string) {
    this.parseBlocks(parent, text.split("\n\n"));
  }

  /** Whether structures may still nest deeper; deeper ones are kept as plain text, not recursed into. */
  canNest(): boolean {
    return this.depth < MAX_NESTING;
  }

  parseBlocks(parent: El, blocks: string[]) {
    this.depth++;
    try {
      while (blocks.length) {
        checkRenderDeadline();
        for (const p of this.processors) {
          if (p.test(parent, blocks[0]) && p.run(parent, blocks) !== false) break;
        }
      }
    } finally {
      this.depth--;
    }
  }
}

class EmptyBlock implements Processor {
  test(_p: El, block: string) {
    return !block || block.startsWith("\n");
  }
  run(parent: El, blocks: string[]) {
    const block = blocks.shift()!;
    let filler = "\n\n";
    if (block) {
      filler = "\n";
      const rest = block.slice(1);
      if (rest) blocks.unshift(rest);
    }
    const sibling = lastChild(parent);
    if (sibling && sibling.tag === "pre" && sibling.children.length && sibling.children[0].tag === "code") {
      const code = sibling.children[0];
      code.text = new Atomic(textOf(code.text) + filler);
    }
  }
}

/** Continuation blocks of list items, indented by 2 spaces per level. */
class ListIndent implements Processor {
  private readonly indentRe = /^((?:[ ]{2})+)/;
  constructor(private parser: BlockParser) {}

  test(parent: El, block: string) {
    if (!startsWithSpaces(block, 2) || this.parser.isState("detabbed") || !this.parser.canNest()) return false;
    if (parent.tag === "li") return true;
    const last = lastChild(parent);
    return !!last && LIST_TAGS.has(last.tag);
  }

  run(parent: El, blocks: string[]) {
    let block = blocks.shift()!;
    const [level, sibling] = this.getLevel(parent, block);
    block = block
      .split("\n")
      .map((l) => (startsWithSpaces(l, 2 * level) ? l.slice(2 * level) : l))
      .join("\n");
    this.parser.setState("detabbed");
    if (parent.tag === "li") {
      const last = lastChild(parent);
      if (last && LIST_TAGS.has(last.tag)) this.parser.parseBlocks(last, [block]);
      else this.parser.parseBlocks(parent, [block]);
    } else if (sibling.tag === "li") {
      this.parser.parseBlocks(sibling, [block]);
    } else if (sibling.children.length && lastChild(sibling)!.tag === "li") {
      const li = lastChild(sibling)!;
      if (textOf(li.text)) {
        const p = new El("p");
        p.text = li.text;
        li.text = "";
        li.insert(0, p);
      }
      this.parser.parseChunk(li, block);
    } else {
      this.parser.parseBlocks(sibling.sub("li"), [block]);
    }
    this.parser.resetState();
  }

  private getLevel(parent: El, block: string): [number, El] {
    const m = this.indentRe.exec(block);
    const indentLevel = m ? m[1].length / 2 : 0;
    let level = this.parser.isState("list") ? 1 : 0;
    while (indentLevel > level) {
      const child = lastChild(parent);
      if (child && (LIST_TAGS.has(child.tag) || child.tag === "li")) {
        if (LIST_TAGS.has(child.tag)) level++;
        parent = child;
      } else {
        break;
      }
    }
    return [level, parent];
  }
}

/** A block indented by 4 spaces. */
class CodeBlock implements Processor {
  test(_p: El, block: string) {
    return startsWithSpaces(block, 4);
  }

  run(parent: El, blocks: string[]) {
    const sibling = lastChild(parent);
    const [block, rest] = detab(blocks.shift()!, 4);
    if (sibling && sibling.tag === "pre" && sibling.children.length && sibling.children[0].tag === "code") {
      const code = sibling.children[0];
      code.text = new Atomic(`${textOf(code.text)}\n${codeEscape(block.trimEnd())}\n`);
    } else {
      parent.sub("pre").sub("code").text = new Atomic(`${codeEscape(block.trimEnd())}\n`);
    }
    if (rest) blocks.unshift(rest);
  }
}

function detab(text: string, width: number): [string, string] {
  const lines = text.split("\n");
  const kept: string[] = [];
  for (const line of lines) {
    if (startsWithSpaces(line, width)) kept.push(line.slice(width));
    else if (!line.trim()) kept.push("");
    else break;
  }
  return [kept.join("\n"), lines.slice(kept.length).join("\n")];
}

/** `# Heading` (a space after the hashes is required) on any line of a block. */
class HashHeader implements Processor {
  private readonly re = /(?:^|\n)(#{1,6})\s((?:\\.|[^\\])*?)#*(?:\n|$)/;
  constructor(private parser: BlockParser) {}

  test(_p: El, block: string) {
    return this.re.test(block);
  }

  run(parent: El, blocks: string[]) {
    const block = blocks.shift()!;
    const m = this.re.exec(block)!;
    const before = block.slice(0, m.index);
    const after = block.slice(m.index + m[0].length);
    if (before) this.parser.parseBlocks(parent, [before]);
    parent.sub(`h${m[1].length}`).text = m[2].trim();
    if (after) blocks.unshift(after);
  }
}

class Table implements Processor {
  private separator: string[] = [];
  private border = false;

  test(_p: El, block: string) {
    const rows = block.split("\n").map((r) => trimSpaces(r));
    if (rows.length < 2) return false;
    const header = rows[0];
    this.border = header.startsWith("|") || END_BORDER.test(header);
    const row0 = this.splitRow(header);
    let isTable = row0.length > 1;
    if (!isTable && row0.length === 1 && this.border) {
      for (let i = 1; i < rows.length; i++) {
        isTable = rows[i].startsWith("|") || END_BORDER.test(rows[i]);
        if (!isTable) break;
      }
    }
    if (isTable) {
      const sep = this.splitRow(rows[1]);
      isTable = sep.length === row0.length && /^[|:\- ]*$/.test(sep.join(""));
      if (isTable) this.separator = sep;
    }
    return isTable;
  }

  run(parent: El, blocks: string[]) {
    const lines = blocks.shift()!.split("\n");
    const align = this.separator.map((c) => {
      const s = trimSpaces(c);
      if (s.startsWith(":") && s.endsWith(":")) return "center";
      if (s.startsWith(":")) return "left";
      if (s.endsWith(":")) return "right";
      return null;
    });
    const table = parent.sub("table");
    this.buildRow(trimSpaces(lines[0]), table.sub("thead"), "th", align);
    const tbody = table.sub("tbody");
    const rows = lines.slice(2);
    if (!rows.length) {
      const tr = tbody.sub("tr");
      for (let i = 0; i < align.length; i++) tr.sub("td");
    }
    for (const row of rows) this.buildRow(trimSpaces(row), tbody, "td", align);
  }

  private buildRow(row: string, parent: El, tag: string, align: (string | null)[]) {
    const tr = parent.sub("tr");
    const cells = this.splitRow(row);
    align.forEach((a, i) => {
      const c = tr.sub(tag);
      c.text = i < cells.length ? trimSpaces(cells[i]) : "";
      if (a) c.set("style", `text-align: ${a};`);
    });
  }

  private splitRow(row: string): string[] {
    if (this.border) {
      if (row.startsWith("|")) row = row.slice(1);
      row = row.replace(END_BORDER, "");
    }
    return splitCells(row);
  }
}

const END_BORDER = /(?<!\\)(?:\\\\)*\|$/;
const trimSpaces = (s: string) => s.replace(/^ +| +$/g, "");

/** Splits on pipes that are neither escaped nor inside a code span. */
function splitCells(row: string): string[] {
  const cells: string[] = [];
  let start = 0;
  let i = 0;
  while (i < row.length) {
    const c = row[i];
    if (c === "\\") {
      i += 2;
      continue;
    }
    if (c === "`") {
      let n = 0;
      while (row[i + n] === "`") n++;
      const fence = "`".repeat(n);
      const close = findClosingTicks(row, i + n, fence);
      i = close >= 0 ? close + n : i + n;
      continue;
    }
    if (c === "|") {
      cells.push(row.slice(start, i));
      start = i + 1;
    }
    i++;
  }
  cells.push(row.slice(start));
  return cells;
}

function findClosingTicks(row: string, from: number, fence: string): number {
  let i = row.indexOf(fence, from);
  while (i >= 0) {
    if (row[i + fence.length] !== "`" && row[i - 1] !== "`") return i;
    i = row.indexOf(fence, i + 1);
  }
  return -1;
}

/** A line of three or more `-`, `_` or `*` (one kind), with at most two spaces between them. */
function findRule(block: string): { start: number; end: number } | null {
  let pos = 0;
  for (const line of block.split("\n")) {
    if (isRuleLine(line)) return { start: pos, end: pos + line.length };
    pos += line.length + 1;
  }
  return null;
}

function isRuleLine(line: string): boolean {
  let i = 0;
  while (i < 3 && line[i] === " ") i++;
  const c = line[i];
  if (c !== "-" && c !== "_" && c !== "*") return false;
  let count = 0;
  let spaces = 0;
  for (; i < line.length; i++) {
    if (line[i] === c) {
      if (spaces > 2) return false;
      count++;
      spaces = 0;
    } else if (line[i] === " ") {
      spaces++;
    } else {
      return false;
    }
  }
  return count >= 3;
}

class HorizontalRule implements Processor {
  private match: { start: number; end: number } | null = null;
  constructor(private parser: BlockParser) {}

  test(_p: El, block: string) {
    this.match = findRule(block);
    return this.match !== null;
  }

  run(parent: El, blocks: string[]) {
    const block = blocks.shift()!;
    const m = this.match!;
    const pre = block.slice(0, m.start).replace(/\n+$/, "");
    if (pre) this.parser.parseBlocks(parent, [pre]);
    parent.sub("hr");
    const post = block.slice(m.end).replace(/^\n+/, "");
    if (post) blocks.unshift(post);
  }
}

/**
 * Ordered (`1.`) and bulleted (`*`, `-`, `+`) lists. Items nest by 2 spaces; a list only
 * continues a preceding list of the same kind; an ordered list keeps its first number as `start`.
 */
class ListBlock implements Processor {
  private readonly re: RegExp;
  private readonly childRe: RegExp;
  private readonly indentRe = /^[ ]{2,3}(?:\d+\.|[*+-])[ ]+.*/;
  private start = "1";

  constructor(
    private parser: BlockParser,
    private tag: "ol" | "ul",
  ) {
    this.re = tag === "ol" ? /^[ ]?\d+\.[ ]+(.*)/ : /^[ ]?[*+-][ ]+(.*)/;
    this.childRe = tag === "ol" ? /^[ ]?(\d+\.)[ ]+(.*)/ : /^[ ]?([*+-])[ ]+(.*)/;
  }

  test(_p: El, block: string) {
    return this.parser.canNest() && this.re.test(block);
  }

  run(parent: El, blocks: string[]) {
    const items = this.getItems(blocks.shift()!);
    const sibling = lastChild(parent);
    let lst: El;
    if (sibling && sibling.tag === this.tag) {
      lst = sibling;
      const lastLi = lastChild(lst)!;
      if (textOf(lastLi.text)) {
        const p = new El("p");
        p.text = lastLi.text;
        lastLi.text = "";
        lastLi.insert(0, p);
      }
      const lch = lastChild(lastLi);
      if (lch && textOf(lch.tail)) {
        lastLi.sub("p").text = textOf(lch.tail).trimStart();
        lch.tail = "";
      }
      const li = lst.sub("li");
      this.parser.setState("looselist");
      this.parser.parseBlocks(li, [items.shift()!]);
      this.parser.resetState();
    } else if (LIST_TAGS.has(parent.tag)) {
      lst = parent;
    } else {
      lst = parent.sub(this.tag);
      if (this.tag === "ol" && this.start !== "1") lst.set("start", this.start);
    }
    this.parser.setState("list");
    for (const item of items) {
      if (startsWithSpaces(item, 2)) this.parser.parseBlocks(lastChild(lst)!, [item]);
      else this.parser.parseBlocks(lst.sub("li"), [item]);
    }
    this.parser.resetState();
  }

  private getItems(block: string): string[] {
    const items: string[] = [];
    for (const line of block.split("\n")) {
      const m = this.childRe.exec(line);
      if (m) {
        if (!items.length && this.tag === "ol") this.start = /^\d+/.exec(m[1])![0];
        items.push(m[2]);
      } else if (this.indentRe.test(line) && items.length) {
        if (startsWithSpaces(items[items.length - 1], 2)) items[items.length - 1] += `\n${line}`;
        else items.push(line);
      } else if (items.length) {
        items[items.length - 1] += `\n${line}`;
      }
    }
    return items;
  }
}

/**
 * `>` quotes. A quote made only of empty `>` lines is not a quote. Mentions inside a quote are
 * made silent, and a blank line always ends a quote.
 */
class BlockQuote implements Processor {
  private readonly re = /(^|\n)(?!(?:[ ]{0,3}>\s*(?:$|\n))*(?:$|\n))[ ]{0,3}>[ ]?(.*)/;
  constructor(private parser: BlockParser) {}

  test(_p: El, block: string) {
    return this.parser.canNest() && this.re.test(block);
  }

  run(parent: El, blocks: string[]) {
    let block = blocks.shift()!;
    const m = this.re.exec(block);
    if (m) {
      this.parser.parseBlocks(parent, [block.slice(0, m.index)]);
      block = block
        .slice(m.index)
        .split("\n")
        .map((l) => this.clean(l))
        .join("\n");
    }
    const quote = parent.sub("blockquote");
    this.parser.setState("blockquote");
    this.parser.parseChunk(quote, block);
    this.parser.resetState();
  }

  private clean(line: string): string {
    line = line
      .replace(USER_MENTION_RE, (_all, _silent, name: string) => `@_**${name}**`)
      .replace(GROUP_MENTION_RE, (_all, _silent, name: string) => `@_*${name}*`);
    if (line.trim() === ">") return "";
    const m = /^[ ]{0,3}>[ ]?(.*)/.exec(line);
    return m ? m[1] : line;
  }
}

/** What may precede a mention: start of text, whitespace or an opening character. */
export const BEFORE_MENTION = String.raw`(?<![^\s'"({\[/<])`;
export const USER_MENTION_RE = new RegExp(String.raw`${BEFORE_MENTION}@(_?)\*\*([^*]+)\*\*`, "g");
export const GROUP_MENTION_RE = new RegExp(String.raw`${BEFORE_MENTION}@(_?)\*([^*]+)\*`, "g");

class Paragraph implements Processor {
  constructor(private parser: BlockParser) {}

  test() {
    return true;
  }

  run(parent: El, blocks: string[]) {
    const block = blocks.shift()!;
    if (!block.trim()) return;
    if (this.parser.isState("list")) {
      const sibling = lastChild(parent);
      if (sibling) {
        sibling.tail = sibling.tail ? `${textOf(sibling.tail)}\n${block}` : `\n${block}`;
      } else {
        parent.text = textOf(parent.text) ? `${textOf(parent.text)}\n${block}` : block.trimStart();
      }
    } else {
      parent.sub("p").text = block.trimStart();
    }
  }
}

/**
 * Inline syntax. Patterns run in priority order over each text; a match is replaced by a
 * placeholder that stands for the element it produced, so later (lower-priority) patterns see
 * the placeholder and not the text inside it. The text inside a new element is then run through
 * the patterns after the one that made it. Matching this order is what makes `**[x](y)**`,
 * `` `*a*` `` or `<time:**x**>` come out the way Zulip renders them.
 */
import { Atomic, El, isAtomic, textOf, type Text } from "./tree.js";
import { checkRenderDeadline } from "../budget.js";

export interface InlineResult {
  node: El | string;
  start?: number;
  end?: number;
}

export interface Found {
  start: number;
  end: number;
}

export interface InlinePattern<M extends Found = Found> {
  /**
   * A legacy pattern gives up on the whole text as soon as it declines one match; other
   * patterns go on to the next match.
   */
  legacy: boolean;
  /** The first match starting at or after `from`. */
  find(data: string, from: number): M | null;
  handle(m: M, data: string): InlineResult | null;
  /**
   * After a replacement, search on after the new placeholder rather than from the start of the
   * text. For a pattern that never matches across placeholders this finds the same matches, in
   * linear rather than quadratic time.
   */
  resumeAfterMatch?: boolean;
}

export interface RegexFound extends Found {
  m: RegExpExecArray;
}

/** A pattern given by a JavaScript regular expression (which gets the `g` flag). */
export function regexPattern(
  regex: RegExp,
  handle: (m: RegExpExecArray, data: string) => InlineResult | null,
  legacy = false,
): InlinePattern<RegexFound> {
  const re = regex.global ? regex : new RegExp(regex.source, regex.flags + "g");
  return {
    legacy,
    find(data, from) {
      re.lastIndex = from;
      const m = re.exec(data);
      return m ? { start: m.index, end: m.index + m[0].length, m } : null;
    },
    handle: (f, data) => handle(f.m, data),
  };
}

const STX = "\u0002";
const ETX = "\u0003";
const PREFIX = `${STX}klzzwxh:`;
const PLACEHOLDER_RE = new RegExp(`${PREFIX}([0-9]+)${ETX}`, "y");

/** Whether `data[start, end)` overlaps a placeholder, i.e. is not plain text. */
export function overlapsPlaceholder(data: string, start: number, end: number): boolean {
  const slice = data.slice(start, end);
  if (slice.includes(STX) || slice.includes(ETX)) return true;
  return data.lastIndexOf(STX, start - 1) > data.lastIndexOf(ETX, start - 1);
}

export class InlineProcessor {
  private stashed: (El | string)[] = [];

  /** In priority order; set before `run`. */
  patterns: InlinePattern<any>[] = [];

  private stash(node: El | string): string {
    const id = String(this.stashed.length).padStart(4, "0");
    this.stashed.push(node);
    return `${PREFIX}${id}${ETX}`;
  }

  /** The plain text a placeholder stands for (used where text is needed, e.g. a link's href). */
  unescape(text: string): string {
    return text.replace(new RegExp(`${PREFIX}([0-9]+)${ETX}`, "g"), (all, id: string) => {
      const node = this.stashed[Number(id)];
      if (node === undefined) return all;
      if (typeof node === "string") return node;
      return [...node.iter()].map((e) => textOf(e.text) + (e === node ? "" : textOf(e.tail))).join("");
    });
  }

  handleInline(data: Text, patternIndex = 0): Text {
    if (data === null || isAtomic(data)) return data;
    let text = data;
    let startIndex = 0;
    while (patternIndex < this.patterns.length) {
      const [next, matched, nextStart] = this.applyPattern(this.patterns[patternIndex], text, patternIndex, startIndex);
      text = next;
      startIndex = nextStart;
      if (!matched) patternIndex++;
    }
    return text;
  }

  private applyPattern(pattern: InlinePattern, data: string, patternIndex: number, startIndex: number): [string, boolean, number] {
    checkRenderDeadline();
    let found: Found | null;
    let result: InlineResult | null = null;
    if (pattern.legacy) {
      found = pattern.find(data, startIndex);
      if (!found) return [data, false, 0];
      result = pattern.handle(found, data);
      if (!result) return [data, true, data.length];
    } else {
      let from = startIndex;
      for (;;) {
        found = pattern.find(data, from);
        if (!found) return [data, false, 0];
        result = pattern.handle(found, data);
        if (result) break;
        checkRenderDeadline();
        from = found.end > found.start ? found.end : found.end + 1;
      }
    }
    const node = result.node;
    const start = result.start ?? found.start;
    const end = result.end ?? found.end;
    if (typeof node !== "string" && !isAtomic(node.text)) {
      for (const child of [node, ...node.children]) {
        if (child.text !== null && textOf(child.text)) child.text = this.handleInline(child.text, patternIndex + 1);
        if (child.tail !== null && textOf(child.tail)) child.tail = this.handleInline(child.tail, patternIndex);
      }
    }
    const placeholder = this.stash(node);
    const resumeAt = pattern.resumeAfterMatch ? start + placeholder.length : 0;
    return [data.slice(0, start) + placeholder + data.slice(end), true, resumeAt];
  }

  private processElementText(node: El, subnode: El, isText: boolean): void {
    let text: Text;
    if (isText) {
      text = subnode.text;
      subnode.text = null;
    } else {
      text = subnode.tail;
      subnode.tail = null;
    }
    const children = this.processPlaceholders(text, subnode, isText);
    const pos = !isText && node !== subnode ? node.children.indexOf(subnode) + 1 : 0;
    node.children.splice(pos, 0, ...children);
  }

  private processPlaceholders(data: Text, parent: El, isText: boolean): El[] {
    const result: El[] = [];
    const join = (target: Text, text: Text): Text => (textOf(target) ? textOf(target) + textOf(text) : text);
    const linkText = (text: Text) => {
      if (!textOf(text)) return;
      if (result.length) {
        const last = result[result.length - 1];
        last.tail = join(last.tail, text);
      } else if (!isText) {
        parent.tail = join(parent.tail, text);
      } else {
        parent.text = join(parent.text, text);
      }
    };
    const atomic = isAtomic(data);
    let rest = textOf(data);
    let start = 0;
    while (rest) {
      const index = rest.indexOf(PREFIX, start);
      if (index === -1) {
        const text = rest.slice(start);
        linkText(atomic ? new Atomic(text) : text);
        break;
      }
      PLACEHOLDER_RE.lastIndex = index;
      const pm = PLACEHOLDER_RE.exec(rest);
      const node = pm ? this.stashed[Number(pm[1])] : undefined;
      if (pm && node !== undefined) {
        const phEnd = index + pm[0].length;
        if (index > 0) linkText(rest.slice(start, index));
        if (typeof node === "string") {
          linkText(node);
          start = phEnd;
          continue;
        }
        for (const child of [node, ...node.children]) {
          if (child.tail !== null && textOf(child.tail).trim()) this.processElementText(node, child, false);
          if (child.text !== null && textOf(child.text).trim()) this.processElementText(child, child, true);
        }
        start = phEnd;
        result.push(node);
      } else {
        const end = index + PREFIX.length;
        linkText(rest.slice(start, end));
        start = end;
      }
    }
    return result;
  }

  run(root: El): void {
    const stack: El[] = [root];
    while (stack.length) {
      const current = stack.pop()!;
      const queue: [El, El[]][] = [];
      for (let i = 0; i < current.children.length; i++) {
        const child = current.children[i];
        if (child.text !== null && textOf(child.text) && !isAtomic(child.text)) {
          const text = child.text;
          child.text = null;
          const lst = this.processPlaceholders(this.handleInline(text), child, true);
          stack.push(...lst);
          queue.push([child, lst]);
        }
        if (child.tail !== null && textOf(child.tail)) {
          const tail = this.handleInline(child.tail);
          const dummy = new El("d");
          child.tail = null;
          const tailResult = this.processPlaceholders(tail, dummy, false);
          if (dummy.tail !== null) child.tail = dummy.tail;
          current.children.splice(current.children.indexOf(child) + 1, 0, ...tailResult);
        }
        if (child.children.length) stack.push(child);
      }
      for (const [element, lst] of queue) element.children.splice(0, 0, ...lst);
    }
  }
}

/**
 * The document tree the renderer builds and its HTML serialization. It follows the model of
 * Zulip's backend (an ElementTree with `text` before the first child and `tail` after each
 * element) because whitespace placement in Zulip's HTML is defined in those terms.
 */

/** Text that inline patterns must not touch (code, link text, already-rendered markup). */
export class Atomic {
  constructor(readonly value: string) {}
}

export type Text = string | Atomic | null;

export const textOf = (t: Text): string => (t === null ? "" : typeof t === "string" ? t : t.value);
export const isAtomic = (t: Text): t is Atomic => t instanceof Atomic;

export class El {
  text: Text = null;
  tail: Text = null;
  children: El[] = [];
  attrs = new Map<string, string>();

  constructor(public tag: string) {}

  set(name: string, value: string): this {
    this.attrs.set(name, value);
    return this;
  }

  get(name: string): string | undefined {
    return this.attrs.get(name);
  }

  append(child: El): El {
    this.children.push(child);
    return child;
  }

  sub(tag: string): El {
    return this.append(new El(tag));
  }

  insert(index: number, child: El): void {
    this.children.splice(index, 0, child);
  }

  last(): El | undefined {
    return this.children[this.children.length - 1];
  }

  /** Every element of the subtree, in document order, this one first. */
  *iter(): Generator<El> {
    yield this;
    for (const c of this.children) yield* c.iter();
  }
}

/** Elements after which the serializer and prettifier treat content as block-level. */
const BLOCK_LEVEL = new Set(
  (
    "address article aside blockquote details div dl fieldset figcaption figure footer form h1 h2 h3 h4 h5 h6 " +
    "header hgroup hr main menu nav ol p pre section table ul canvas colgroup dd body dt group html iframe li " +
    "legend math map noscript output object option progress script style summary tbody td textarea tfoot th thead tr video"
  ).split(" "),
);
export const isBlockLevel = (tag: string) => BLOCK_LEVEL.has(tag.toLowerCase());

const VOID = new Set("area base basefont br col embed frame hr img input isindex keygen link meta param source track wbr".split(" "));

/** `&` that does not already start an entity. */
const BARE_AMP = /&(?!(?:#[0-9]+|#x[0-9a-f]+|[0-9a-z]+);)/gi;

export function escapeText(s: string): string {
  if (s.includes("&")) s = s.replace(BARE_AMP, "&amp;");
  if (s.includes("<")) s = s.replace(/</g, "&lt;");
  if (s.includes(">")) s = s.replace(/>/g, "&gt;");
  return s;
}

export function escapeAttr(s: string): string {
  return escapeText(s).replace(/"/g, "&quot;");
}

/** Adds the newlines between block-level elements that Zulip's HTML has. */
export function prettify(root: El): void {
  const visit = (el: El) => {
    if (isBlockLevel(el.tag) && el.tag !== "code" && el.tag !== "pre") {
      if (!textOf(el.text).trim() && el.children.length && isBlockLevel(el.children[0].tag)) el.text = "\n";
      for (const c of el.children) if (isBlockLevel(c.tag)) visit(c);
    }
    if (!textOf(el.tail).trim()) el.tail = "\n";
  };
  visit(root);
  for (const el of root.iter()) {
    if (el.tag !== "br") continue;
    const tail = textOf(el.tail);
    el.tail = tail.trim() ? `\n${tail}` : "\n";
  }
}

export function serialize(el: El, out: string[] = []): string[] {
  out.push("<", el.tag);
  for (const [k, v] of [...el.attrs].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    out.push(k === v ? ` ${k}` : ` ${k}="${escapeAttr(v)}"`);
  }
  out.push(">");
  if (!VOID.has(el.tag)) {
    if (el.text !== null) out.push(escapeText(textOf(el.text)));
    for (const c of el.children) serialize(c, out);
    out.push("</", el.tag, ">");
  }
  if (el.tail !== null) out.push(escapeText(textOf(el.tail)));
  return out;
}

/**
 * A word-level diff of two rendered messages, marked up the way Zulip's edit history shows it:
 * the new HTML with removed words in `highlight_text_deleted` spans and added words in
 * `highlight_text_inserted` spans. The new version's tags are all kept in order (removed tags
 * are dropped), so the result nests exactly as the new HTML does.
 */

/** Beyond this many cells the middle of the two versions is shown as replaced wholesale. */
export const MAX_DIFF_CELLS = 250_000;

interface Token {
  text: string;
  isTag: boolean;
}

/** Tags, words and the whitespace between them. */
function tokenize(html: string): Token[] {
  const tokens: Token[] = [];
  for (const m of html.matchAll(/<[^>]*>?|[^<\s]+|\s+/g)) tokens.push({ text: m[0], isTag: m[0].startsWith("<") });
  return tokens;
}

type Op = "equal" | "delete" | "insert";

/** Longest-common-subsequence edit script of the (already trimmed) middles. */
function middleOps(a: Token[], b: Token[]): [Op, Token][] {
  if (a.length * b.length > MAX_DIFF_CELLS) {
    return [...a.map((t): [Op, Token] => ["delete", t]), ...b.map((t): [Op, Token] => ["insert", t])];
  }
  const width = b.length + 1;
  const lcs = new Uint32Array((a.length + 1) * width);
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      lcs[i * width + j] =
        a[i].text === b[j].text ? lcs[(i + 1) * width + j + 1] + 1 : Math.max(lcs[(i + 1) * width + j], lcs[i * width + j + 1]);
    }
  }
  const ops: [Op, Token][] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i].text === b[j].text) {
      ops.push(["equal", b[j]]);
      i++;
      j++;
    } else if (lcs[(i + 1) * width + j] >= lcs[i * width + j + 1]) {
      ops.push(["delete", a[i++]]);
    } else {
      ops.push(["insert", b[j++]]);
    }
  }
  while (i < a.length) ops.push(["delete", a[i++]]);
  while (j < b.length) ops.push(["insert", b[j++]]);
  return ops;
}

function diffOps(a: Token[], b: Token[]): [Op, Token][] {
  let start = 0;
  while (start < a.length && start < b.length && a[start].text === b[start].text) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1].text === b[endB - 1].text) {
    endA--;
    endB--;
  }
  return [
    ...b.slice(0, start).map((t): [Op, Token] => ["equal", t]),
    ...middleOps(a.slice(start, endA), b.slice(start, endB)),
    ...b.slice(endB).map((t): [Op, Token] => ["equal", t]),
  ];
}

const SPAN_CLASS: Record<Exclude<Op, "equal">, string> = {
  delete: "highlight_text_deleted",
  insert: "highlight_text_inserted",
};

/** The `content_html_diff` of an edit from `before` to `after`. */
export function highlightHtmlDifferences(before: string, after: string): string {
  let out = "";
  let open: Op = "equal";
  const close = () => {
    if (open !== "equal") out += "</span>";
    open = "equal";
  };
  for (const [op, token] of diffOps(tokenize(before), tokenize(after))) {
    if (token.isTag) {
      close();
      if (op !== "delete") out += token.text;
      continue;
    }
    if (op !== open) {
      close();
      if (op !== "equal") out += `<span class="${SPAN_CLASS[op]}">`;
      open = op;
    }
    out += token.text;
  }
  close();
  return out;
}

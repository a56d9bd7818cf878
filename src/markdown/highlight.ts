/**
 * Syntax highlighting with Pygments' token classes (`k`, `nf`, `s2`, …), the markup Zulip's
 * clients style. Lexers exist for Python, TeX and PHP (and the PHP hybrids); code in other
 * languages is shown as escaped plain text, as Pygments does for languages it cannot lex.
 */
/** Pygments escapes quotes; a second HTML pass (done when a language is given) turns them back. */
export const escapeCode = (s: string, quotes: boolean) => {
  s = s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  return quotes ? s.replace(/"/g, "&quot;").replace(/'/g, "&#39;") : s;
};

/** A rule: a sticky regex, the token class per capture group (or for the whole match), a state change. */
type Rule = [RegExp, string | string[], string?];
type Lexer = Record<string, (Rule | { include: string })[]>;

const r = (source: string, flags = "") => new RegExp(source, "y" + flags);
const words = (list: string[], suffix = String.raw`\b`) => r(`(?:${list.join("|")})${suffix}`);

const PY_KEYWORDS = [
  "assert", "async", "await", "break", "continue", "del", "elif", "else", "except", "finally", "for", "global",
  "if", "lambda", "pass", "raise", "nonlocal", "return", "try", "while", "yield", "as", "with",
];
const PY_BUILTINS = [
  "__import__", "abs", "aiter", "all", "any", "anext", "ascii", "bin", "bool", "bytearray", "breakpoint", "bytes",
  "callable", "chr", "classmethod", "compile", "complex", "delattr", "dict", "dir", "divmod", "enumerate", "eval",
  "filter", "float", "format", "frozenset", "getattr", "globals", "hasattr", "hash", "hex", "id", "input", "int",
  "isinstance", "issubclass", "iter", "len", "list", "locals", "map", "max", "memoryview", "min", "next", "object",
  "oct", "open", "ord", "pow", "print", "property", "range", "repr", "reversed", "round", "set", "setattr", "slice",
  "sorted", "staticmethod", "str", "sum", "super", "tuple", "type", "vars", "zip",
];
const PY_EXCEPTIONS = [
  "ArithmeticError", "AssertionError", "AttributeError", "BaseException", "Exception", "ImportError", "IndexError",
  "KeyError", "KeyboardInterrupt", "LookupError", "NameError", "NotImplementedError", "OSError", "RuntimeError",
  "StopIteration", "SyntaxError", "TypeError", "ValueError", "ZeroDivisionError",
];

const PYTHON: Lexer = {
  root: [
    [r(String.raw`\n`), "w"],
    [/(?<![\s\S])#!.*/y, "ch"],
    [r("#.*"), "c1"],
    [r(String.raw`[^\S\n]+`), ""],
    [r(String.raw`\\\n`), ""],
    [r(String.raw`(def)((?:\s|\\\s)+)`), ["k", "w"], "funcname"],
    [r(String.raw`(class)((?:\s|\\\s)+)`), ["k", "w"], "classname"],
    [r(String.raw`(from|import)((?:\s|\\\s)+)`), ["kn", "w"], "module"],
    [words(PY_KEYWORDS), "k"],
    [words(["True", "False", "None"]), "kc"],
    [words(["in", "is", "and", "or", "not"]), "ow"],
    [r(String.raw`@[\w.]+`), "nd"],
    [r(String.raw`(?:[rRbBuUfF]{1,2})(?=["'])`), "sa"],
    [r(`"""[\\s\\S]*?"""`), "s2"],
    [r(`'''[\\s\\S]*?'''`), "s1"],
    [r(String.raw`"(?:[^"\\\n]|\\.)*"`), "s2"],
    [r(String.raw`'(?:[^'\\\n]|\\.)*'`), "s1"],
    [words(PY_BUILTINS, String.raw`\b(?!\s*=[^=])`), "nb"],
    [words(["self", "cls", "Ellipsis", "NotImplemented"]), "bp"],
    [words(PY_EXCEPTIONS), "ne"],
    [r(String.raw`__[a-zA-Z0-9_]+__\b`), "fm"],
    [r(String.raw`0[xX][0-9a-fA-F_]+`), "mh"],
    [r(String.raw`(?:\d[\d_]*\.\d*|\.\d+)(?:[eE][+-]?\d+)?j?|\d[\d_]*[eE][+-]?\d+j?`), "mf"],
    [r(String.raw`\d[\d_]*`), "mi"],
    [r(String.raw`!=|==|<<|>>|:=|[-~+/*%=<>&^|.]`), "o"],
    [r(String.raw`[\]{}:(),;[]`), "p"],
    [r(String.raw`[\p{L}_][\p{L}\p{N}_]*`, "u"), "n"],
    [r(String.raw`[\s\S]`), ""],
  ],
  funcname: [[r(String.raw`[\p{L}_][\p{L}\p{N}_]*`, "u"), "nf", "#pop"], [r(""), "", "#pop"]],
  classname: [[r(String.raw`[\p{L}_][\p{L}\p{N}_]*`, "u"), "nc", "#pop"], [r(""), "", "#pop"]],
  module: [[r(String.raw`[\p{L}_][\p{L}\p{N}_.]*`, "u"), "nn", "#pop"], [r(""), "", "#pop"]],
};

const TEX: Lexer = {
  root: [
    [r(String.raw`\\\[`), "sb", "displaymath"],
    [r(String.raw`\\\(`), "s", "inlinemath"],
    [r(String.raw`\$\$`), "sb", "displaymath"],
    [r(String.raw`\$`), "s", "inlinemath"],
    [r(String.raw`\\(?:[a-zA-Z@_:]+|\S?)`), "k", "command"],
    [r(String.raw`%.*?\n`), "c"],
    [r("[{}&_^]"), "nb"],
    [r(String.raw`[^\\$%&_^{}]+`), ""],
  ],
  math: [
    [r(String.raw`\\(?:[a-zA-Z]+|\S?)`), "nv"],
    [r(String.raw`%.*?\n`), "c"],
    [r("[{}&_^]"), "nb"],
    [r(String.raw`[0-9]+`), "m"],
    [r(String.raw`[-=!+*/()\[\]]`), "o"],
    [r(String.raw`[^=!+*/()\[\]\\$%&_^{}0-9-]+`), "nb"],
  ],
  inlinemath: [[r(String.raw`\\\)`), "s", "#pop"], [r(String.raw`\$`), "s", "#pop"], { include: "math" }],
  displaymath: [[r(String.raw`\\\]`), "s", "#pop"], [r(String.raw`\$\$`), "s", "#pop"], [r(String.raw`\$`), "nb"], { include: "math" }],
  command: [[r(String.raw`\[.*?\]`), "na"], [r(String.raw`\*`), "k"], [r(""), "", "#pop"]],
};

const PHP_KEYWORDS = [
  "and", "E_PARSE", "old_function", "E_ERROR", "or", "as", "E_WARNING", "parent", "eval", "PHP_OS", "break", "exit",
  "case", "extends", "PHP_VERSION", "cfunction", "FALSE", "print", "for", "require", "continue", "foreach",
  "require_once", "declare", "return", "default", "static", "do", "switch", "die", "stdClass", "echo", "else", "TRUE",
  "elseif", "var", "empty", "if", "xor", "enddeclare", "include", "virtual", "endfor", "include_once", "while",
  "endforeach", "global", "endif", "list", "endwhile", "not", "endswitch", "new", "abstract", "isset", "unset", "try",
  "catch", "throw", "this", "use", "namespace", "trait", "yield", "finally", "match",
];
const PHP_IDENT = String.raw`(?:[\\_a-zA-Z]|[^\x00-\x7f])(?:[\\\w]|[^\x00-\x7f])*`;

const PHP: Lexer = {
  root: [
    [r(String.raw`\?>`), "cp"],
    [r(String.raw`\s+`), ""],
    [r(String.raw`#.*?\n`), "c1"],
    [r(String.raw`//.*?\n`), "c1"],
    [r(String.raw`/\*\*/`), "cm"],
    [r(String.raw`/\*\*[\s\S]*?\*/`), "sd"],
    [r(String.raw`/\*[\s\S]*?\*/`), "cm"],
    [r(String.raw`(->|::)(\s*)(${PHP_IDENT})`), ["o", "", "na"]],
    [r(String.raw`[~!%^&*+=|:.<>/@-]+`), "o"],
    [r(String.raw`\?`), "o"],
    [r(String.raw`[\[\]{}();,]+`), "p"],
    [r(String.raw`(class)(\s+)`), ["k", ""], "classname"],
    [r(String.raw`(function)(\s*)(?=\()`), ["k", ""]],
    [r(String.raw`(function)(\s+)(&?)(\s*)`), ["k", "", "o", ""], "functionname"],
    [r(String.raw`(const)(\s+)(${PHP_IDENT})`), ["k", "", "no"]],
    [words(PHP_KEYWORDS), "k"],
    [words(["true", "false", "null"]), "kc"],
    [r(String.raw`\$+${PHP_IDENT}`), "nv"],
    [r(PHP_IDENT), "nx"],
    [r(String.raw`(?:\d+\.\d*|\d*\.\d+)(?:e[+-]?[0-9]+)?`), "mf"],
    [r(String.raw`0x[a-f0-9]+`), "mh"],
    [r(String.raw`\d+`), "mi"],
    [r(String.raw`'(?:[^'\\]*(?:\\.[^'\\]*)*)'`), "s1"],
    [r("`(?:[^`\\\\]*(?:\\\\.[^`\\\\]*)*)`"), "sb"],
    [r(String.raw`"(?:[^"\\]*(?:\\.[^"\\]*)*)"`), "s2"],
    [r(String.raw`[\s\S]`), ""],
  ],
  classname: [[r(PHP_IDENT), "nc", "#pop"], [r(""), "", "#pop"]],
  functionname: [[r(PHP_IDENT), "nf", "#pop"], [r(""), "", "#pop"]],
};

const LEXERS: Record<string, Lexer> = {
  Python: PYTHON,
  "Python 2.x": PYTHON,
  TeX: TEX,
  PHP: PHP,
  "CSS+PHP": PHP,
  "HTML+PHP": PHP,
  "JavaScript+PHP": PHP,
  "XML+PHP": PHP,
};

const expanded = new WeakMap<Lexer, Map<string, Rule[]>>();

function rulesOf(lexer: Lexer, state: string): Rule[] {
  let states = expanded.get(lexer);
  if (!states) expanded.set(lexer, (states = new Map()));
  let rules = states.get(state);
  if (!rules) {
    rules = lexer[state].flatMap((rule) => ("include" in rule ? rulesOf(lexer, rule.include) : [rule]));
    states.set(state, rules);
  }
  return rules;
}

function tokenize(lexer: Lexer, src: string): [string, string][] {
  const tokens: [string, string][] = [];
  const stack = ["root"];
  let pos = 0;
  while (pos < src.length) {
    let matched = false;
    for (const [re, cls, next] of rulesOf(lexer, stack[stack.length - 1])) {
      re.lastIndex = pos;
      const m = re.exec(src);
      if (!m) continue;
      if (Array.isArray(cls)) cls.forEach((c, i) => m[i + 1] && tokens.push([c, m[i + 1]]));
      else if (m[0]) tokens.push([cls, m[0]]);
      if (next === "#pop") {
        if (stack.length > 1) stack.pop();
      } else if (next) {
        stack.push(next);
      }
      if (m[0].length === 0 && next !== "#pop" && !next) continue;
      pos += m[0].length;
      matched = true;
      break;
    }
    if (!matched) {
      tokens.push(["", src[pos]]);
      pos++;
      stack.length = 1;
    }
  }
  return tokens;
}

/** Highlighted HTML for the code, or null when there is no lexer for the language. */
export function highlight(lexerName: string, src: string, quotes: boolean): string | null {
  const lexer = LEXERS[lexerName];
  if (!lexer) return null;
  const merged: [string, string][] = [];
  for (const [cls, text] of tokenize(lexer, src + (src.endsWith("\n") ? "" : "\n"))) {
    const last = merged[merged.length - 1];
    if (last && last[0] === cls) last[1] += text;
    else merged.push([cls, text]);
  }
  return merged
    .map(([cls, text]) =>
      text
        .split("\n")
        .map((part) => (part && cls ? `<span class="${cls}">${escapeCode(part, quotes)}</span>` : escapeCode(part, quotes)))
        .join("\n"),
    )
    .join("");
}

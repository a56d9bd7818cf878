/**
 * RFC 6570 URI templates with string variables (all that linkifier URL templates need):
 * validation and expansion.
 */

interface VarSpec {
  name: string;
  prefix?: number;
  explode: boolean;
}

type Part = string | { op: string; vars: VarSpec[] };

const OPERATORS: Record<string, { first: string; sep: string; named: boolean; ifEmpty: string; reserved: boolean }> = {
  "": { first: "", sep: ",", named: false, ifEmpty: "", reserved: false },
  "+": { first: "", sep: ",", named: false, ifEmpty: "", reserved: true },
  "#": { first: "#", sep: ",", named: false, ifEmpty: "", reserved: true },
  ".": { first: ".", sep: ".", named: false, ifEmpty: "", reserved: false },
  "/": { first: "/", sep: "/", named: false, ifEmpty: "", reserved: false },
  ";": { first: ";", sep: ";", named: true, ifEmpty: "", reserved: false },
  "?": { first: "?", sep: "&", named: true, ifEmpty: "=", reserved: false },
  "&": { first: "&", sep: "&", named: true, ifEmpty: "=", reserved: false },
};

const VARNAME = /^(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})(?:\.?(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2}))*$/;

export class UriTemplate {
  private constructor(private readonly parts: Part[]) {}

  /** Parses a template; null when it is not a valid RFC 6570 template. */
  static parse(template: string): UriTemplate | null {
    const parts: Part[] = [];
    let i = 0;
    while (i < template.length) {
      const open = template.indexOf("{", i);
      const literalEnd = open < 0 ? template.length : open;
      const literal = template.slice(i, literalEnd);
      if (literal.includes("}")) return null;
      if (literal) parts.push(literal);
      if (open < 0) break;
      const close = template.indexOf("}", open);
      if (close < 0) return null;
      const expr = parseExpression(template.slice(open + 1, close));
      if (!expr) return null;
      parts.push(expr);
      i = close + 1;
    }
    return new UriTemplate(parts);
  }

  /**
   * The scheme every expansion has: "" for a relative URL, undefined when a variable could decide
   * it (a variable before the scheme's colon, or a `+` expansion, which keeps colons, before the
   * first delimiter).
   */
  scheme(): string | undefined {
    let text = "";
    let variableSeen = false;
    for (const part of this.parts) {
      if (typeof part !== "string") {
        if (part.op === "+") return undefined;
        variableSeen = true;
        continue;
      }
      const delimiter = /[:/?#]/.exec(part);
      if (!delimiter) {
        text += part;
        continue;
      }
      if (delimiter[0] !== ":") return "";
      return variableSeen ? undefined : (text + part.slice(0, delimiter.index)).toLowerCase();
    }
    return "";
  }

  /** Names of all variables the template uses. */
  variables(): string[] {
    return this.parts.flatMap((p) => (typeof p === "string" ? [] : p.vars.map((v) => v.name)));
  }

  expand(values: Record<string, string | undefined>): string {
    return this.parts
      .map((part) => {
        // Literals keep reserved characters and %-escapes; anything else is escaped (a lone "%").
        if (typeof part === "string") return encode(part, true);
        const op = OPERATORS[part.op];
        const pieces: string[] = [];
        for (const v of part.vars) {
          const raw = values[v.name];
          if (raw === undefined || raw === null) continue;
          const value = encode(v.prefix === undefined ? raw : [...raw].slice(0, v.prefix).join(""), op.reserved);
          if (!op.named) pieces.push(value);
          else if (raw === "") pieces.push(v.name + op.ifEmpty);
          else pieces.push(`${v.name}=${value}`);
        }
        return pieces.length ? op.first + pieces.join(op.sep) : "";
      })
      .join("");
  }
}

function parseExpression(body: string): Part | null {
  let op = "";
  if (body && "+#./;?&".includes(body[0])) {
    op = body[0];
    body = body.slice(1);
  } else if (body && "=,!@|".includes(body[0])) {
    return null;
  }
  if (!body) return null;
  const vars: VarSpec[] = [];
  for (const spec of body.split(",")) {
    const m = /^([^:*]*)(?::([1-9][0-9]{0,3})|(\*))?$/.exec(spec);
    if (!m || !VARNAME.test(m[1])) return null;
    vars.push({ name: m[1], prefix: m[2] ? Number(m[2]) : undefined, explode: !!m[3] });
  }
  return { op, vars };
}

const UNRESERVED = /[A-Za-z0-9\-._~]/;
const RESERVED = /[:/?#[\]@!$&'()*+,;=]/;

function encode(value: string, allowReserved: boolean): string {
  let out = "";
  for (let i = 0; i < value.length; i++) {
    const c = value[i];
    if (UNRESERVED.test(c) || (allowReserved && RESERVED.test(c))) {
      out += c;
    } else if (allowReserved && c === "%" && /^[0-9A-Fa-f]{2}$/.test(value.slice(i + 1, i + 3))) {
      out += value.slice(i, i + 3);
      i += 2;
    } else {
      const cp = value.codePointAt(i)!;
      const ch = String.fromCodePoint(cp);
      if (ch.length === 2) i++;
      out += [...Buffer.from(ch, "utf8")].map((b) => "%" + b.toString(16).toUpperCase().padStart(2, "0")).join("");
    }
  }
  return out;
}

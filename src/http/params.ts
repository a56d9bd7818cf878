/**
 * Declarative request parameters, the way Zulip's typed_endpoint does them.
 *
 * Every value arrives as a string (form body first, then query string). Plain string
 * parameters are taken verbatim; every other type is JSON text inside the field, decoded
 * strictly and validated. Failures produce Zulip's exact messages, naming the nested
 * location like `narrow[0][1]` or `can_add_subscribers_group["new"]`.
 */
import { createRequire } from "node:module";
import type { z } from "zod";
import { badRequest, confusingArguments, missingArgument } from "./errors.js";

type Decoder<T> = (raw: string, name: string) => T;

/** zod's builders, handed to the schema builders of JSON parameters. */
export type Zod = typeof z;

let zod: Zod | undefined;
/**
 * zod holds 3 MiB of heap once loaded, and a server that no client has yet sent a JSON
 * parameter has no use for it, so the first such parameter loads it (synchronously: decoding is).
 */
function loadZod(): Zod {
  return (zod ??= (createRequire(import.meta.url)("zod") as typeof import("zod")).z);
}

export class Param<T> {
  constructor(
    readonly decode: Decoder<T>,
    readonly required: boolean,
    readonly fallback: (() => T) | undefined,
    readonly aliases: readonly string[],
    /** JSON parameters treat the literal `null` as "not sent". */
    readonly nullMeansAbsent: boolean,
  ) {}

  optional(): Param<T | undefined> {
    return new Param<T | undefined>(this.decode, false, undefined, this.aliases, this.nullMeansAbsent);
  }

  default(value: T): Param<T> {
    return new Param<T>(this.decode, false, () => value, this.aliases, this.nullMeansAbsent);
  }

  /** Optional JSON parameter where an explicit `null` is a meaningful value, distinct from absence. */
  nullable(): Param<T | null | undefined> {
    const inner = this.decode;
    const decode: Decoder<T | null> = (raw, name) => (raw.trim() === "null" ? null : inner(raw, name));
    return new Param<T | null | undefined>(decode, false, undefined, this.aliases, false);
  }

  alias(...names: string[]): Param<T> {
    return new Param<T>(this.decode, this.required, this.fallback, [...this.aliases, ...names], this.nullMeansAbsent);
  }
}

export type ParamSpecs = Record<string, Param<unknown>>;
export type ParamValues<S extends ParamSpecs> = { [K in keyof S]: S[K] extends Param<infer T> ? T : never };

const param = <T>(decode: Decoder<T>, isJson: boolean) => new Param<T>(decode, true, undefined, [], isJson);

/** Renders a zod issue path the way Zulip names nested values. */
function locate(name: string, path: readonly PropertyKey[]): string {
  return name + path.map((p) => `[${JSON.stringify(typeof p === "symbol" ? String(p) : p)}]`).join("");
}

const TYPE_NAMES: Record<string, string> = {
  boolean: "a boolean",
  int: "an integer",
  // Zulip's API has integer parameters but no float ones, and zod reports ints as numbers.
  number: "an integer",
  string: "a string",
  array: "a list",
  object: "a dict",
  record: "a dict",
};

/** Translates the first zod issue into Zulip's message template. */
function zodMessage(name: string, error: z.ZodError): string {
  const issue = error.issues[0];
  const where = locate(name, issue.path);
  switch (issue.code) {
    case "invalid_type": {
      const expected = String(issue.expected);
      return `${where} is not ${TYPE_NAMES[expected] ?? `a ${expected}`}`;
    }
    case "too_big":
      return issue.origin === "string"
        ? `${where} is too long (limit: ${issue.maximum} characters)`
        : `${where} is too large`;
    case "too_small":
      if (issue.origin === "string") {
        return Number(issue.minimum) === 1 ? `${where} cannot be blank` : `${where} is too short.`;
      }
      return `${where} is too small`;
    case "invalid_value":
    case "invalid_union":
      return `Invalid ${where}`;
    case "unrecognized_keys":
      // Zulip names the location of the unexpected key itself.
      return `Argument "${issue.keys[0]}" at ${locate(name, [...issue.path, issue.keys[0]])} is unexpected`;
    case "invalid_format":
      return `${where} has invalid format`;
    default:
      return issue.message ? `Invalid ${where}: ${issue.message}` : `Invalid ${where}`;
  }
}

function parseJson(raw: string, name: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    throw badRequest(`${name} is not valid JSON`);
  }
}

/** Validates an already-decoded value against a schema, with Zulip's error texts. */
export function validateWith<T>(schema: z.ZodType<T>, value: unknown, name: string): T {
  const result = schema.safeParse(value);
  if (!result.success) throw badRequest(zodMessage(name, result.error));
  return result.data;
}

export interface StringOptions {
  maxLength?: number;
  /** Strip surrounding whitespace and refuse an empty result ("cannot be blank"). */
  nonBlank?: boolean;
}

function checkString(value: string, name: string, opts: StringOptions): string {
  let v = value;
  if (opts.nonBlank) {
    v = v.trim();
    if (v.length === 0) throw badRequest(`${name} cannot be blank`);
  }
  if (opts.maxLength !== undefined && [...v].length > opts.maxLength) {
    throw badRequest(`${name} is too long (limit: ${opts.maxLength} characters)`);
  }
  return v;
}

/**
 * A JSON parameter whose schema is built by its first request: routes declare hundreds of
 * parameters, most of which a given server never receives.
 */
function lazyJson<T>(build: (z: Zod) => z.ZodType<T>): Param<T> {
  let schema: z.ZodType<T> | undefined;
  return param<T>((raw, name) => validateWith((schema ??= build(loadZod())), parseJson(raw, name), name), true);
}

export const P = {
  /** A plain string, taken verbatim from the request. */
  string: (opts: StringOptions = {}) => param((raw, name) => checkString(raw, name, opts), false),

  /** A plain string that must be one of the listed values. */
  oneOf: <const V extends string>(values: readonly V[]) =>
    param<V>((raw, name) => {
      if (!(values as readonly string[]).includes(raw)) throw badRequest(`Invalid ${name}`);
      return raw as V;
    }, false),

  /** Any JSON value validated by the zod schema that `build` makes of the builders it is given. */
  json: <T>(build: (z: Zod) => z.ZodType<T>) => lazyJson(build),

  int: (opts: { min?: number; max?: number } = {}) =>
    lazyJson((z) => {
      let schema = z.int();
      if (opts.min !== undefined) schema = schema.min(opts.min);
      if (opts.max !== undefined) schema = schema.max(opts.max);
      return schema;
    }),

  bool: () => lazyJson((z) => z.boolean()),

  intList: () => lazyJson((z) => z.array(z.int())),

  stringList: () => lazyJson((z) => z.array(z.string())),
};

/** Where a request's raw parameters come from: body first, then query string. */
export interface RawParams {
  get(name: string): string | undefined;
  names(): string[];
}

export function rawParams(body: unknown, query: unknown): RawParams {
  const sources = [body, query].filter((s): s is Record<string, unknown> => !!s && typeof s === "object");
  const pick = (v: unknown): string | undefined => {
    if (Array.isArray(v)) return pick(v[v.length - 1]);
    if (typeof v === "string") return v;
    if (Buffer.isBuffer(v)) return undefined;
    return v === undefined || v === null ? undefined : String(v);
  };
  return {
    get(name) {
      for (const s of sources) {
        if (Object.prototype.hasOwnProperty.call(s, name)) {
          const v = pick(s[name]);
          if (v !== undefined) return v;
        }
      }
      return undefined;
    },
    names() {
      return [...new Set(sources.flatMap((s) => Object.keys(s)))];
    },
  };
}

/** Names the request sent that no declared parameter consumed (`client` is never reported). */
export function unusedParameters(raw: RawParams, specs: ParamSpecs): string[] {
  const known = new Set<string>(["client"]);
  for (const [name, spec] of Object.entries(specs)) {
    known.add(name);
    spec.aliases.forEach((a) => known.add(a));
  }
  return raw.names().filter((n) => !known.has(n)).sort();
}

export function parseParams<S extends ParamSpecs>(raw: RawParams, specs: S): ParamValues<S> {
  const out: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(specs)) {
    const present = [name, ...spec.aliases].filter((n) => raw.get(n) !== undefined);
    if (present.length > 1) {
      throw confusingArguments(present[0], present[1]);
    }
    const key = present[0];
    const value = key === undefined ? undefined : raw.get(key)!;
    if (value === undefined || (spec.nullMeansAbsent && value.trim() === "null")) {
      if (spec.required) throw missingArgument(name);
      out[name] = spec.fallback ? spec.fallback() : undefined;
      continue;
    }
    out[name] = spec.decode(value, key!);
  }
  return out as ParamValues<S>;
}


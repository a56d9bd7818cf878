/**
 * Zulip's OpenAPI description (FL 420, prose stripped: scripts/openapi-fixture.py), turned into
 * what a contract test needs: the operations, example parameters, and response validators.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import AjvModule from "ajv";

type Schema = Record<string, any>;

export const spec: Schema = JSON.parse(
  readFileSync(fileURLToPath(new URL("../fixtures/zulip-openapi-fl420.json", import.meta.url)), "utf8"),
);

export interface Operation {
  method: string;
  path: string;
  operationId: string;
  op: Schema;
}

export function operations(): Operation[] {
  const out: Operation[] = [];
  for (const [path, item] of Object.entries<Schema>(spec.paths)) {
    for (const method of ["get", "post", "patch", "put", "delete"]) {
      const op = item[method];
      if (op) out.push({ method: method.toUpperCase(), path, operationId: op.operationId ?? `${method} ${path}`, op });
    }
  }
  return out;
}

function lookup(ref: string): Schema {
  return ref
    .slice(2)
    .split("/")
    .reduce((node: Schema, part) => node[part.replace(/~1/g, "/").replace(/~0/g, "~")], spec);
}

/**
 * Inlines $refs and merges `allOf` into one object schema. Zulip writes extensions as
 * allOf[base, {additionalProperties: false, properties}], meaning "the base's properties plus
 * these and nothing else" (its own validator merges them the same way); plain JSON Schema would
 * instead reject every base property in the second branch.
 */
export function resolve(schema: Schema, seen: string[] = []): Schema {
  if (Array.isArray(schema)) return schema.map((s) => resolve(s, seen));
  if (!schema || typeof schema !== "object") return schema;
  if (typeof schema.$ref === "string") {
    if (seen.includes(schema.$ref)) return {};
    return resolve(lookup(schema.$ref), [...seen, schema.$ref]);
  }
  const out: Schema = {};
  for (const [k, v] of Object.entries(schema)) {
    if (k === "example" || k === "examples") continue;
    if (k === "properties" || k === "patternProperties") {
      out[k] = Object.fromEntries(Object.entries<Schema>(v).map(([name, s]) => [name, resolve(s, seen)]));
    } else {
      out[k] = typeof v === "object" && v !== null ? resolve(v, seen) : v;
    }
  }
  if (out.nullable === true) {
    // OpenAPI 3.0's `nullable` in JSON Schema terms: the schema, or null.
    const { nullable: _, ...inner } = out;
    return { anyOf: [resolve(inner, seen), { type: "null" }] };
  }
  if (!out.allOf) return out;
  const { allOf, ...rest } = out;
  const merged: Schema = { ...rest };
  for (const part of allOf as Schema[]) {
    for (const [k, v] of Object.entries(part)) {
      if (k === "properties") merged.properties = { ...merged.properties, ...v };
      else if (k === "required") merged.required = [...new Set([...(merged.required ?? []), ...v])];
      else if (k === "additionalProperties") merged.additionalProperties = merged.additionalProperties === false ? false : v;
      else if (!(k in merged)) merged[k] = v;
    }
  }
  return merged;
}

// Unknown keywords (`nullable: false`, x-*) are ignored.
const Ajv = (AjvModule as unknown as { default: typeof AjvModule }).default ?? AjvModule;
const ajv = new (Ajv as any)({ strict: false, allErrors: true });

export function successValidator(op: Schema): ((body: unknown) => string[]) | undefined {
  const schema = op.responses?.["200"]?.content?.["application/json"]?.schema;
  if (!schema) return undefined;
  const validate = ajv.compile(resolve(schema));
  return (body) =>
    validate(body) ? [] : (validate.errors ?? []).slice(0, 5).map((e: any) => `${e.instancePath || "/"} ${e.message} ${JSON.stringify(e.params)}`);
}

export interface ParamSpec {
  name: string;
  in: "path" | "query" | "body";
  required: boolean;
  example: unknown;
  /** The JSON type the spec gives the value (`integer`, `array`...), when it names one. */
  type?: string;
}

/** Every parameter of an operation with its example, path, query and form body alike. */
export function parameters(op: Schema): ParamSpec[] {
  const out: ParamSpec[] = [];
  for (const raw of op.parameters ?? []) {
    const p = raw.$ref ? lookup(raw.$ref) : raw;
    const schema = resolveShallow(p.schema ?? p.content?.["application/json"]?.schema ?? {});
    out.push({ name: p.name, in: p.in === "path" ? "path" : "query", required: Boolean(p.required), example: p.example ?? schema.example, type: schema.type });
  }
  const form = op.requestBody?.content?.["application/x-www-form-urlencoded"]?.schema ?? op.requestBody?.content?.["multipart/form-data"]?.schema;
  if (form) {
    const body = resolveShallow(form);
    const required = new Set<string>(body.required ?? []);
    for (const [name, s] of Object.entries<Schema>(body.properties ?? {})) {
      const resolved = resolveShallow(s);
      out.push({ name, in: "body", required: required.has(name), example: s.example ?? resolved.example, type: resolved.type });
    }
  }
  return out;
}

function resolveShallow(schema: Schema): Schema {
  return schema.$ref ? resolveShallow(lookup(schema.$ref)) : schema;
}

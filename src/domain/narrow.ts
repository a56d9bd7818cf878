/**
 * Narrow terms for GET /messages: decoding the `narrow` parameter into canonical terms, as
 * Zulip validates them. What each operator matches is decided where the query is built.
 */
import { badRequest } from "../http/errors.js";
import { readEmptyTopicAliases } from "./topics.js";

export type Operand = string | number | number[];

export interface NarrowTerm {
  /** Canonical operator: legacy spellings are mapped to the current ones. */
  operator: string;
  operand: Operand;
  negated: boolean;
}

const ALIASES: Record<string, string> = {
  stream: "channel",
  streams: "channels",
  "pm-with": "dm",
  pm_with: "dm",
  "group-pm-with": "dm-including",
  group_pm_with: "dm-including",
  subject: "topic",
};

const SUPPORTING_ID = new Set(["channel", "stream", "id", "sender", "group-pm-with", "dm-including"]);
const SUPPORTING_IDS = new Set(["pm-with", "dm"]);

function validateOperand(operator: string, operand: unknown): Operand {
  if (SUPPORTING_ID.has(operator)) {
    if (typeof operand === "string" || Number.isInteger(operand)) return operand as Operand;
    throw badRequest("operand is not a string or an integer");
  }
  if (SUPPORTING_IDS.has(operator)) {
    if (typeof operand === "string") return operand;
    if (Array.isArray(operand) && operand.every((x) => Number.isInteger(x))) return operand as number[];
    throw badRequest("operand is not a string or integer list");
  }
  if (typeof operand !== "string") throw badRequest("operand is not a string");
  if (operator === "search" && operand.trim() === "") throw badRequest("operand cannot be blank");
  return operand;
}

function decodeTerm(elem: unknown, index: number): NarrowTerm {
  const where = `narrow[${index}]`;
  let operator: unknown;
  let operand: unknown;
  let negated: unknown = false;
  if (Array.isArray(elem)) {
    if (elem.length !== 2 || elem.some((x) => typeof x !== "string")) {
      throw badRequest(`Invalid ${where}: element is not a string pair`);
    }
    [operator, operand] = elem;
  } else if (elem !== null && typeof elem === "object") {
    const o = elem as Record<string, unknown>;
    if (o.operand === undefined || o.operand === null) throw badRequest(`Invalid ${where}: operand is missing`);
    if (o.operator === undefined || o.operator === null) throw badRequest(`Invalid ${where}: operator is missing`);
    ({ operator, operand } = o);
    negated = o.negated ?? false;
  } else {
    throw badRequest(`Invalid ${where}: dict or list required`);
  }
  if (typeof operator !== "string") throw badRequest("operator is not a string");
  const value = validateOperand(operator, operand);
  if (typeof negated !== "boolean") throw badRequest("negated is not a boolean");
  const canonical = ALIASES[operator] ?? operator;
  return {
    operator: canonical,
    operand: canonical === "topic" && typeof value === "string" ? readEmptyTopicAliases(value) : value,
    negated,
  };
}

export function decodeNarrow(value: unknown): NarrowTerm[] {
  if (!Array.isArray(value)) throw badRequest("narrow is not a list");
  return value.map(decodeTerm);
}

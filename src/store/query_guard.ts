/**
 * Checks and rewrites every query on its way to the database, so that no request can reach a
 * database limit that would end in a 500:
 * - a NUL character, which PostgreSQL text refuses, is refused on both databases alike with
 *   Django's wording (Zulip's own checks, with their texts, run before any query);
 * - `IN (...)` with more values than a statement may bind (32,766 on SQLite, 65,535 on
 *   PostgreSQL) becomes one bound list: a JSON array on SQLite, an array on PostgreSQL.
 */
import {
  BinaryOperationNode,
  OperationNodeTransformer,
  OperatorNode,
  PrimitiveValueListNode,
  RawNode,
  ValueNode,
  type KyselyPlugin,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryResult,
  type RootOperationNode,
  type UnknownRow,
} from "kysely";
import { badRequest } from "../http/errors.js";
import { NULL_CHARACTERS } from "../domain/linkifiers.js";
import type { Dialect } from "./db.js";

/** Lists up to this long stay a list of parameters, as written. */
const MAX_INLINE_LIST = 1000;

export function checkValue(value: unknown): void {
  if (typeof value === "string" && value.includes("\u0000")) throw badRequest(NULL_CHARACTERS);
}

function isInOperator(node: BinaryOperationNode): boolean {
  const op = node.operator;
  return OperatorNode.is(op) && (op.operator === "in" || op.operator === "not in");
}

/**
 * Refuses NUL anywhere in the query and tells whether it has a list too long to bind as is.
 * Reads the tree in place: copying it, as a transformer does, cost more than running the query.
 */
function checkAndFindLongLists(node: unknown): boolean {
  if (Array.isArray(node)) {
    let found = false;
    for (const item of node) found = checkAndFindLongLists(item) || found;
    return found;
  }
  if (!node || typeof node !== "object") return false;
  if (ValueNode.is(node as ValueNode)) {
    checkValue((node as ValueNode).value);
    return false;
  }
  if (PrimitiveValueListNode.is(node as PrimitiveValueListNode)) {
    const { values } = node as PrimitiveValueListNode;
    values.forEach(checkValue);
    return values.length > MAX_INLINE_LIST;
  }
  let found = false;
  for (const key in node) {
    if (key !== "kind") found = checkAndFindLongLists((node as Record<string, unknown>)[key]) || found;
  }
  return found;
}

/** Rewrites long IN lists into one bound list. */
class LongListRewriter extends OperationNodeTransformer {
  constructor(private readonly dialect: Dialect) {
    super();
  }

  protected override transformBinaryOperation(node: BinaryOperationNode): BinaryOperationNode {
    const out = super.transformBinaryOperation(node);
    const list = out.rightOperand;
    if (!isInOperator(out) || !PrimitiveValueListNode.is(list) || list.values.length <= MAX_INLINE_LIST) return out;
    return BinaryOperationNode.create(out.leftOperand, out.operator, this.boundList(list.values));
  }

  private boundList(values: readonly unknown[]): RawNode {
    const type = values.every((v) => typeof v === "number") ? "bigint" : "text";
    return RawNode.create(boundListSql(this.dialect, type), [ValueNode.create(boundListValue(this.dialect, values))]);
  }
}

/** The SQL around a list bound as one parameter: SQLite reads a JSON array, PostgreSQL an array. */
export function boundListSql(dialect: Dialect, type: "bigint" | "text"): [string, string] {
  return dialect === "sqlite" ? ["(SELECT value FROM json_each(", "))"] : ["(SELECT unnest(", `::${type}[]))`];
}

/** A list as that one parameter carries it. */
export function boundListValue(dialect: Dialect, values: readonly unknown[]): unknown {
  return dialect === "sqlite" ? JSON.stringify(values) : values;
}

export class QueryGuardPlugin implements KyselyPlugin {
  private readonly rewriter: LongListRewriter;
  constructor(dialect: Dialect) {
    this.rewriter = new LongListRewriter(dialect);
  }
  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    return checkAndFindLongLists(args.node) ? this.rewriter.transformNode(args.node) : args.node;
  }
  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result;
  }
}

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

function checkValue(value: unknown): void {
  if (typeof value === "string" && value.includes("\u0000")) throw badRequest(NULL_CHARACTERS);
}

function isInOperator(node: BinaryOperationNode): boolean {
  const op = node.operator;
  return OperatorNode.is(op) && (op.operator === "in" || op.operator === "not in");
}

class Guard extends OperationNodeTransformer {
  constructor(private readonly dialect: Dialect) {
    super();
  }

  protected override transformValue(node: ValueNode): ValueNode {
    checkValue(node.value);
    return super.transformValue(node);
  }

  protected override transformPrimitiveValueList(node: PrimitiveValueListNode): PrimitiveValueListNode {
    node.values.forEach(checkValue);
    return super.transformPrimitiveValueList(node);
  }

  protected override transformBinaryOperation(node: BinaryOperationNode): BinaryOperationNode {
    const out = super.transformBinaryOperation(node);
    const list = out.rightOperand;
    if (!isInOperator(out) || !PrimitiveValueListNode.is(list) || list.values.length <= MAX_INLINE_LIST) return out;
    return BinaryOperationNode.create(out.leftOperand, out.operator, this.boundList(list.values));
  }

  private boundList(values: readonly unknown[]): RawNode {
    if (this.dialect === "sqlite") {
      return RawNode.create(["(SELECT value FROM json_each(", "))"], [ValueNode.create(JSON.stringify(values))]);
    }
    const type = values.every((v) => typeof v === "number") ? "bigint[]" : "text[]";
    return RawNode.create(["(SELECT unnest(", `::${type}))`], [ValueNode.create(values)]);
  }
}

export class QueryGuardPlugin implements KyselyPlugin {
  private readonly guard: Guard;
  constructor(dialect: Dialect) {
    this.guard = new Guard(dialect);
  }
  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    return this.guard.transformNode(args.node);
  }
  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result;
  }
}

/**
 * SQLite recompiles a statement whenever a parameter that its plan was chosen for is bound again,
 * and better-sqlite3 binds every parameter on every run, so such a statement was parsed and
 * planned anew each time it ran: half the cost of a short read. Two kinds of parameter are such:
 * - a LIMIT or OFFSET;
 * - the value a column is compared with, when a partial index's condition compares that column
 *   (`users.is_active = 0`): SQLite checks the bound value against the condition.
 * Written into the text instead, they keep the statement compiled. Counts are numbers, and the
 * flags that partial indexes are defined on are 0 or 1, so only a few texts come of it.
 */
import {
  BinaryOperationNode,
  LimitNode,
  OffsetNode,
  OperatorNode,
  SqliteDialect,
  SqliteQueryCompiler,
  ValueNode,
  type OperationNode,
  type QueryCompiler,
} from "kysely";

const EQUALITIES = new Set(["=", "==", "!=", "<>", "is", "is not"]);

const isFlagComparison = (node: BinaryOperationNode) =>
  OperatorNode.is(node.operator) &&
  EQUALITIES.has(node.operator.operator) &&
  ValueNode.is(node.rightOperand) &&
  (node.rightOperand.value === 0 || node.rightOperand.value === 1);

class LiteralCountCompiler extends SqliteQueryCompiler {
  protected override visitLimit(node: LimitNode): void {
    this.append("limit ");
    this.visitLiteralNumber(node.limit);
  }

  protected override visitOffset(node: OffsetNode): void {
    this.append("offset ");
    this.visitLiteralNumber(node.offset);
  }

  protected override visitBinaryOperation(node: BinaryOperationNode): void {
    if (!isFlagComparison(node)) return super.visitBinaryOperation(node);
    this.visitNode(node.leftOperand);
    this.append(" ");
    this.visitNode(node.operator);
    this.append(" ");
    this.visitLiteralNumber(node.rightOperand);
  }

  private visitLiteralNumber(node: OperationNode): void {
    if (ValueNode.is(node) && Number.isSafeInteger(node.value)) this.append(String(node.value));
    else this.visitNode(node);
  }
}

export class ConfabSqliteDialect extends SqliteDialect {
  override createQueryCompiler(): QueryCompiler {
    return new LiteralCountCompiler();
  }
}

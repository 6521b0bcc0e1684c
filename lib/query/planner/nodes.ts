// Questions the planner asks of syntax trees: whether any node (the tree
// itself, or any below it) answers yes, whether one is a plain count(), an
// aggregate call, or a summarize (explicit or implied).

import { isAggregateName } from "../aggregates/registry.ts";
import type * as ast from "../ast.ts";

/** Whether pred holds for e or any node within it. */
export function anyNode(e: ast.AnyNode, pred: (n: ast.AnyNode) => boolean): boolean {
  if (pred(e)) return true;
  for (const k in e) {
    const v = (e as Record<string, unknown>)[k];
    if (Array.isArray(v)) {
      for (const x of v) {
        if (x !== null && typeof x === "object" && "kind" in x && anyNode(x as ast.AnyNode, pred)) {
          return true;
        }
      }
    } else if (
      v !== null && typeof v === "object" && "kind" in v && anyNode(v as ast.AnyNode, pred)
    ) {
      return true;
    }
  }
  return false;
}

/** Whether e is `count()` with no argument and no where clause. */
export function isPlainCount(e: ast.Expr): boolean {
  return (e.kind === "Agg" && e.name === "count" && e.expr === null && e.where === null) ||
    (e.kind === "Call" && e.name === "count" && e.args.length === 0 && e.where === null);
}

export interface SummarizeParts {
  keys: ast.Assignment[];
  aggs: ast.Assignment[];
}

/** Whether e calls an aggregate (not the two-argument min or max, which compare). */
export function isAggregateCall(e: ast.Expr): boolean {
  if (e.kind === "Agg") return true;
  if (e.kind !== "Call" || !isAggregateName(e.name)) return false;
  return !((e.name === "min" || e.name === "max") && e.args.length > 1);
}

/** The keys and aggregates of a summarize, explicit or implied; null for other operators. */
export function summarizeParts(op: ast.Op): SummarizeParts | null {
  switch (op.kind) {
    case "Summarize":
      return { keys: op.keys ?? [], aggs: op.aggs ?? [] };
    case "OpExpr":
      if (!isAggregateCall(op.expr)) return null;
      return {
        keys: [],
        aggs: [{ kind: "Assignment", lhs: null, rhs: op.expr }],
      };
    case "OpAssignment":
      if (op.assignments.length === 0 || !op.assignments.every((a) => isAggregateCall(a.rhs))) {
        return null;
      }
      return { keys: [], aggs: op.assignments };
  }
  return null;
}

// Whether a pipeline's result depends on the order of its input: where it
// does not, a pool's objects are read one after another rather than merged
// by the pool key (the merge of overlapping objects is a large part of
// reading them all). Order-free: values go one by one through operators that
// keep no state (filters, put, cut, yield, over, ...) into a summarize whose
// aggregates do not depend on order (count, min, max, and, or; not sum or
// avg, whose float additions round by order), or into branches (fork,
// switch) that each are order-free. Where the groups come out in the order
// they are first seen, that order may differ (as when the pool performs the
// summarize).

import type * as ast from "../ast.ts";
import { anyNode, isAggregateCall, summarizeParts } from "./nodes.ts";

/**
 * Aggregates whose result does not depend on the order of their input.
 * (Not dcount: when its sketch turns dense depends on the order of values.)
 */
const ORDER_FREE_AGGS = new Set(["count", "min", "max", "and", "or"]);

/** Whether e is a call of an aggregate whose result does not depend on order. */
function orderFreeAgg(e: ast.Expr): boolean {
  return (e.kind === "Agg" || e.kind === "Call") && ORDER_FREE_AGGS.has(e.name);
}

/** Whether the result of ops does not depend on the order of their input (see above). */
export function orderFree(ops: ast.Op[]): boolean {
  for (const op of ops) {
    const parts = summarizeParts(op);
    if (parts !== null) {
      return parts.aggs.length > 0 && parts.aggs.every((a) => orderFreeAgg(a.rhs)) &&
        parts.keys.every((k) => !stateful(k.rhs)) &&
        parts.aggs.every((a) => !nestedAggregate(a.rhs));
    }
    switch (op.kind) {
      case "Parallel":
        return op.ops.every((s) => orderFree(s.ops));
      case "Switch":
        return (op.expr === null || !stateful(op.expr)) &&
          op.cases.every((c) => (c.expr === null || !stateful(c.expr)) && orderFree(c.op.ops));
      case "Where":
      case "Search":
      case "OpExpr":
      case "Yield":
      case "Drop":
      case "Put":
      case "Rename":
      case "Cut":
      case "OpAssignment":
      case "Pass":
        if (stateful(op)) return false;
        break;
      case "Over":
        // Each value's elements go through its scope on their own.
        if (op.exprs.some(stateful)) return false;
        break;
      default:
        return false;
    }
  }
  // The output is the input's values, in their order.
  return false;
}

/** Whether e (or an operator) calls an aggregate, which keeps state from value to value (`yield count()`). */
export function stateful(e: ast.AnyNode): boolean {
  return anyNode(
    e,
    (n) => (n.kind === "Agg" || n.kind === "Call") && isAggregateCall(n as ast.Expr),
  );
}

/** Whether an aggregate's argument or where clause calls an aggregate itself. */
function nestedAggregate(e: ast.Expr): boolean {
  if (e.kind === "Agg") {
    return (e.expr !== null && stateful(e.expr)) || (e.where !== null && stateful(e.where));
  }
  if (e.kind === "Call") return e.args.some(stateful) || (e.where !== null && stateful(e.where));
  return true;
}

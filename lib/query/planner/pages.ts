// Zui asks for a page of results as `{i:count(), v:this} | i > N | head M |
// yield v`: values N+1 to N+M of its input, numbered by a running count. They
// depend on the input's first N+M values alone, so what comes before need give
// no more than those: a pool source a head of N+M (taken from columns where
// it can be), a sort or a fuse only its first N+M values (as before a head),
// with the whole chain kept after it to number, pick and unwrap them.

import type * as ast from "../ast.ts";
import type { Scope } from "../compiler/scope.ts";
import { isPlainCount } from "./nodes.ts";

/**
 * How many of their input's first values decide ops that begin with a head
 * (its count) or a page (N+M); null when any value may.
 */
export function leadingValues(ops: readonly ast.Op[], scope: Scope): number | null {
  const first = ops[0];
  if (first?.kind === "Head") return first.count || 1;
  return pageLimit(ops, scope);
}

/** How many values of their input decide ops that begin by taking a page of it; else null. */
export function pageLimit(ops: readonly ast.Op[], scope: Scope): number | null {
  const [numbered, filter, head] = ops;
  if (head?.kind !== "Head" || head.count < 1) return null;
  const counter = countField(numbered);
  if (counter === null || scope.lookup(counter) !== undefined) return null;
  if (filter.kind !== "OpExpr" && filter.kind !== "Where") return null;
  const e = filter.expr;
  if (e.kind !== "BinaryExpr" || (e.op !== ">" && e.op !== ">=")) return null;
  if (e.lhs.kind !== "ID" || e.lhs.name !== counter) return null;
  const n = e.rhs.kind === "Primitive" && (e.rhs.type === "int64" || e.rhs.type === "uint64") &&
      /^[0-9]+$/.test(e.rhs.text)
    ? Number(e.rhs.text)
    : NaN;
  // Values numbered from 1: `i > N` skips N of them, `i >= N` skips N-1.
  const skipped = e.op === ">" ? n : Math.max(0, n - 1);
  const limit = skipped + head.count;
  return Number.isSafeInteger(limit) ? limit : null;
}

/**
 * The name of the running count in a yield of a record of it and of `this`
 * (`{i:count(), v:this}`, in any order, `this` any number of times), else null.
 */
function countField(op: ast.Op | undefined): string | null {
  const e = op?.kind === "OpExpr"
    ? op.expr
    : op?.kind === "Yield" && op.exprs.length === 1
    ? op.exprs[0]
    : null;
  if (e?.kind !== "RecordExpr") return null;
  let counter: string | null = null;
  for (const f of e.elems) {
    if (f.kind !== "Field") return null;
    if (f.value.kind === "ID" && f.value.name === "this") continue;
    if (!isPlainCount(f.value) || counter !== null) return null;
    counter = f.name;
  }
  return counter;
}

/** A head of a page's N+M values, for operators that run in place of a source's sort. */
export function pageHead(count: number): ast.Op {
  return { kind: "Head", count };
}

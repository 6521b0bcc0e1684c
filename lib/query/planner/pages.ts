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
  return pageOf(ops, scope)?.limit ?? null;
}

/**
 * A page that gives its values as they came (the page, then `yield v` of
 * the field holding `this`): values skip+1 to limit of the input, in order;
 * else null.
 */
export function bareValues(
  ops: readonly ast.Op[],
  scope: Scope,
): { skip: number; limit: number } | null {
  const page = pageOf(ops, scope);
  const out = ops[3];
  if (page === null || out?.kind !== "Yield" || out.exprs.length !== 1) return null;
  const e = out.exprs[0];
  if (e.kind !== "ID" || !page.values.includes(e.name) || scope.lookup(e.name) !== undefined) {
    return null;
  }
  return { skip: page.skip, limit: page.limit };
}

/**
 * A page at the head of ops: how many values it skips, how many of the
 * input's first values decide it (N+M), and the fields its record gives
 * `this` in.
 */
function pageOf(
  ops: readonly ast.Op[],
  scope: Scope,
): { skip: number; limit: number; values: string[] } | null {
  const [numbered, filter, head] = ops;
  if (head?.kind !== "Head" || head.count < 1) return null;
  const fields = countField(numbered);
  if (fields === null) return null;
  const counter = fields.counter;
  if (scope.lookup(counter) !== undefined) return null;
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
  return Number.isSafeInteger(limit) ? { skip: skipped, limit, values: fields.values } : null;
}

/**
 * The name of the running count in a yield of a record of it and of `this`
 * (`{i:count(), v:this}`, in any order, `this` any number of times), and
 * the names of the fields holding `this`; else null.
 */
function countField(op: ast.Op | undefined): { counter: string; values: string[] } | null {
  const e = op?.kind === "OpExpr"
    ? op.expr
    : op?.kind === "Yield" && op.exprs.length === 1
    ? op.exprs[0]
    : null;
  if (e?.kind !== "RecordExpr") return null;
  let counter: string | null = null;
  const values: string[] = [];
  for (const f of e.elems) {
    if (f.kind !== "Field") return null;
    if (f.value.kind === "ID" && f.value.name === "this") {
      values.push(f.name);
      continue;
    }
    if (!isPlainCount(f.value) || counter !== null) return null;
    counter = f.name;
  }
  return counter === null ? null : { counter, values };
}

/** A head of a page's N+M values, for operators that run in place of a source's sort. */
export function pageHead(count: number): ast.Op {
  return { kind: "Head", count };
}

// A `put x:=E` (or a `yield {x:E, ...}`) right before a summarize, for the
// columns: the summary's keys
// and arguments with the field x replaced by E (`put x:=rtt*1000 | sum(x)`
// as `sum(rtt*1000)`), which columns can feed from rtt's values. After the
// put, x holds E's value on every record, so an expression of x gives what
// the same expression of E does — except where E is quiet (the put then
// leaves x out: no call to quiet() is inlined) and on a value that is not a
// record (the put makes it an error: the columns feed only objects of
// records, see VectorSummarize). Rows still go through the put itself.

import type * as ast from "../ast.ts";
import type { Scope } from "../compiler/scope.ts";
import { anyNode } from "./nodes.ts";
import type { SummarizeParts } from "./nodes.ts";

/**
 * The summary after op as a summary of op's input, where op is a put of one
 * field or a yield of one record: null where it cannot be inlined;
 * undefined where op is neither.
 */
export function inlinedBefore(
  op: ast.Op,
  parts: SummarizeParts,
  scope: Scope,
): SummarizeParts | null | undefined {
  const put = putField(op, scope);
  if (put !== null) return inlinedParts(parts, put.name, put.expr);
  const fields = yieldedFields(op, scope);
  if (fields !== null) return yieldedParts(parts, fields, scope);
  return undefined;
}

/** A put of one top-level field (`put x:=E`), as the inliner takes it; else null. */
export function putField(op: ast.Op, scope: Scope): { name: string; expr: ast.Expr } | null {
  if (op.kind !== "Put" || op.args.length !== 1) return null;
  const { lhs, rhs } = op.args[0];
  if (lhs === null || lhs.kind !== "ID" || lhs.name === "this") return null;
  // A name bound in scope is not the field there.
  if (scope.lookup(lhs.name) !== undefined || !inlinable(rhs)) return null;
  return { name: lhs.name, expr: rhs };
}

/** A summary's keys and aggregates with the field replaced by expr; null when that cannot be told. */
function inlinedParts(
  parts: SummarizeParts,
  name: string,
  expr: ast.Expr,
): SummarizeParts | null {
  return substituted(parts, (id) => id === name ? expr : undefined);
}

/**
 * A yield of one record of named fields (`yield {a:E, b}`): its fields'
 * expressions by name, as the inliner takes them; else null.
 */
function yieldedFields(op: ast.Op, scope: Scope): Map<string, ast.Expr> | null {
  if (op.kind !== "Yield" || op.exprs.length !== 1 || op.exprs[0].kind !== "RecordExpr") {
    return null;
  }
  const fields = new Map<string, ast.Expr>();
  for (const el of op.exprs[0].elems) {
    if (el.kind === "Spread") return null;
    const expr = el.kind === "ID" ? el : el.value;
    // (A name bound in scope is not the field after the yield.)
    if (fields.has(el.name) || scope.lookup(el.name) !== undefined || !inlinable(expr)) return null;
    fields.set(el.name, expr);
  }
  return fields;
}

/**
 * A summary of the records a yield makes (yieldedFields) as a summary of
 * its input: each field replaced by its expression. Null where the summary
 * reads anything else of them (another name is missing from every such
 * record), save names bound in scope.
 */
function yieldedParts(
  parts: SummarizeParts,
  fields: Map<string, ast.Expr>,
  scope: Scope,
): SummarizeParts | null {
  return substituted(
    parts,
    (id) => fields.get(id) ?? (scope.lookup(id) !== undefined ? undefined : null),
  );
}

/**
 * What a name stands for: an expression to put in its place, undefined to
 * keep it, null when the summary cannot be inlined.
 */
type Lookup = (name: string) => ast.Expr | undefined | null;

function substituted(parts: SummarizeParts, lookup: Lookup): SummarizeParts | null {
  const keys: ast.Assignment[] = [];
  const aggs: ast.Assignment[] = [];
  for (const [from, to] of [[parts.keys, keys], [parts.aggs, aggs]]) {
    for (const a of from) {
      const rhs = replaced(a.rhs, lookup);
      if (rhs === null) return null;
      to.push({ ...a, rhs });
    }
  }
  return { keys, aggs };
}

/**
 * e with every reference to the field name replaced by expr; null where e
 * reads whole values (this), defines names (over), or is anything else
 * whose references this does not follow.
 */
function replaced(e: ast.Expr, lookup: Lookup): ast.Expr | null {
  const r = (x: ast.Expr) => replaced(x, lookup);
  switch (e.kind) {
    case "ID": {
      if (e.name === "this") return null;
      const to = lookup(e.name);
      return to === undefined ? e : to;
    }
    case "Primitive":
    case "TypeValue":
    case "Glob":
    case "Regexp":
      return e;
    case "BinaryExpr": {
      const lhs = r(e.lhs);
      if (lhs === null) return null;
      // After a dot, a field's name (of the value on its left), not a reference.
      if (e.op === ".") return { ...e, lhs };
      const rhs = e.rhs === null ? null : r(e.rhs);
      if (e.rhs !== null && rhs === null) return null;
      return { ...e, lhs, rhs: rhs as ast.Expr };
    }
    case "UnaryExpr": {
      const operand = r(e.operand);
      return operand === null ? null : { ...e, operand };
    }
    case "Conditional": {
      const cond = r(e.cond), then = r(e.then), other = r(e.else);
      return cond === null || then === null || other === null
        ? null
        : { ...e, cond, then, else: other };
    }
    case "Cast": {
      const inner = r(e.expr);
      return inner === null ? null : { ...e, expr: inner };
    }
    case "Call": {
      const args: ast.Expr[] = [];
      for (const a of e.args) {
        const x = r(a);
        if (x === null) return null;
        args.push(x);
      }
      const where = e.where === null ? null : r(e.where);
      if (e.where !== null && where === null) return null;
      return { ...e, args, where };
    }
    case "Agg": {
      const inner = e.expr === null ? null : r(e.expr);
      if (e.expr !== null && inner === null) return null;
      const where = e.where === null ? null : r(e.where);
      if (e.where !== null && where === null) return null;
      return { ...e, expr: inner, where };
    }
  }
  return null;
}

/** Whether expr can stand for the field: no call to quiet() (which the put would leave out) and nothing replaced() refuses. */
function inlinable(expr: ast.Expr): boolean {
  if (replaced(expr, () => undefined) === null) return false;
  return !anyNode(expr, (n) => n.kind === "Call" && n.name === "quiet");
}

// The planner's pass over the operators right after a pool source (and its
// lifted filter): it decides, before any operator is built, which of them the
// source performs itself — a count, a summarize, a sort by one field (with
// the head that follows it) — and takes them out of the operator chain. The
// lake then carries out each pushdown in full, by whatever means it has for
// an object (metadata, columns, rows), so nothing is decided later.

import { lookupAggregate } from "../aggregates/registry.ts";
import type * as ast from "../ast.ts";
import type { OpCompiler } from "../compiler/ops.ts";
import type { Scope } from "../compiler/scope.ts";
import { fieldPathOf } from "../compiler/demand.ts";
import type { Expr } from "../runtime/expr.ts";
import type { OpFactory } from "../runtime/op.ts";
import { compileVectorFilter } from "../vector/filter.ts";
import { type VectorAggregate, VectorSummarize } from "../vector/summarize.ts";
import type { VectorKey } from "../vector/derive.ts";
import type { TimeBucket } from "../vector/timebucket.ts";
import { literalValue } from "../compiler/expr.ts";
import { exprFields } from "../compiler/demand.ts";
import { DEFAULT_TOP_LIMIT } from "../ops/top.ts";
import { inlinedBefore, putField } from "./inline.ts";
import { anyNode, isPlainCount, type SummarizeParts, summarizeParts } from "./nodes.ts";
import { orderFree, stateful } from "./orderfree.ts";
import { bareValues, leadingValues, pageHead, pageLimit } from "./pages.ts";

/** A fuse before a head of at most this many values is the source's (the values are held). */
const MAX_FUSE_HEAD = 10_000;

export type Pushdown =
  /** `count()`: the output field. */
  | { kind: "count"; field: string }
  /**
   * A summarize: the operator (which the source feeds and ends), how
   * columns can feed it (null: only rows can), and whether its result is
   * the same for any order of its input.
   */
  | {
    kind: "summarize";
    make: OpFactory;
    vector: VectorSummarize | null;
    orderFree: boolean;
    /** A per-value operator before the summarize (a put), which rows go through first. */
    before?: OpFactory;
  }
  /**
   * `sort <path>` and the `head N` after it (limit; null without one), and
   * the operators themselves, for when the source's order does not serve.
   */
  | {
    kind: "sort";
    /** The field sorted by ([] when derive). */
    path: string[];
    /** A sort by an expression of top-level fields (with a head). */
    derive?: SortDerive;
    /** A cut of fields by name before the sort (one of them the field sorted by). */
    cut?: HeadCut;
    reverse: boolean;
    nullsFirst: boolean;
    limit: number | null;
    /** Whether the limit takes the last values (`sort <field> | tail N`), not the first. */
    last?: boolean;
    make: OpFactory;
  }
  /**
   * `head N`: the first N values in pool order (also under a `cut`, which
   * maps one to one). With `cut`: a cut of top-level fields by name next to
   * the head, which the source performs too (names: the fields, in order;
   * make: the operator itself, for values the source makes from rows).
   * With `through`: per-value operators before the head (see HeadThrough).
   */
  | {
    kind: "head";
    limit: number;
    cut: HeadCut | null;
    through?: HeadThrough;
    /** How many of the first `limit` values are not wanted (a page's), none when absent. */
    skip?: number;
  }
  /**
   * `top N <field>` (not -flush): the operator itself, for when columns
   * cannot tell its N values (see fieldtopk.ts).
   */
  | { kind: "top"; path: string[]; limit: number; make: OpFactory }
  /**
   * `fuse` before a head or a page of N values (limit): the fused type of
   * every value the filter passes and the first N of them shaped to it; make:
   * the fuse and a head of N, for when columns cannot tell the type.
   */
  | { kind: "fuse"; limit: number; make: OpFactory }
  /**
   * `tail N`, also with a cut of top-level fields by name next to it (as for
   * head), and the operators themselves, for when columns cannot serve.
   * With `through`: per-value operators before the tail (as HeadThrough, the
   * last N values in pool order).
   */
  | { kind: "tail"; limit: number; cut: HeadCut | null; make: OpFactory; through?: HeadThrough };

/**
 * A sort's expression of top-level fields, and those fields; with put, the
 * put of a field (`put n:=E | sort n`) each picked value goes through.
 */
export interface SortDerive {
  expr: Expr;
  fields: string[];
  put?: OpFactory;
}

/** A `cut` of top-level fields by name (no assignments), performed by a head's source. */
export interface HeadCut {
  names: string[];
  make: OpFactory;
}

/**
 * Operators between the pool and a head that make at most one value of each
 * input, in order, from it and the inputs before it (yield of one
 * expression, put, rename, cut, drop, pass). Such a chain drops a value only
 * on an error("quiet") or error("missing") (as a result, or an input):
 * where the first N values in pool order all come through, its output is the
 * head's, so the source picks those N (by columns) and runs `make` over
 * them; where one does not, it runs `whole` (the operators and the head)
 * over the pool's values in order instead.
 */
export interface HeadThrough {
  make: OpFactory;
  whole: OpFactory;
}

/** Whether op makes at most one value of each input, in order (see HeadThrough). */
function perValue(op: ast.Op): boolean {
  switch (op.kind) {
    case "Yield":
      return op.exprs.length === 1;
    case "Put":
    case "Rename":
    case "Cut":
    case "Drop":
    case "Pass":
      return true;
  }
  return false;
}

/** Aggregates columns can feed (any other leaves the summarize to the rows). */
const VECTOR_AGGS = new Set([
  "count",
  "sum",
  "avg",
  "min",
  "max",
  "dcount",
  "any",
  "collect",
  "union",
  "and",
  "or",
]);

/**
 * What the source performs of ops (the operators after it and its filter),
 * and the operators left for the chain.
 */
export function planPushdown(
  c: OpCompiler,
  ops: ast.Op[],
  scope: Scope,
): { pushdown: Pushdown; rest: ast.Op[] } | null {
  const head = ops[0];
  if (head === undefined) return null;
  if (head.kind === "Head") {
    const cut = headCut(c, ops[1], scope);
    const rest = ops.slice(cut === null ? 1 : 2);
    return { pushdown: { kind: "head", limit: head.count, cut }, rest };
  }
  if (head.kind === "Cut" && ops[1]?.kind === "Head") {
    // A cut of fields by name makes one value of each: the head can come first.
    const cut = headCut(c, head, scope);
    if (cut !== null) {
      return { pushdown: { kind: "head", limit: ops[1].count, cut }, rest: ops.slice(2) };
    }
  }
  // Zui's page of values as they came: only those are made (the values
  // before them are counted, not made); another page, with its operators.
  const bare = bareValues(ops, scope);
  if (bare !== null) {
    const { limit, skip } = bare;
    return { pushdown: { kind: "head", limit, skip, cut: null }, rest: ops.slice(4) };
  }
  const page = pageLimit(ops, scope);
  if (page !== null) return { pushdown: { kind: "head", limit: page, cut: null }, rest: ops };
  if (head.kind === "Fuse") {
    const limit = leadingValues(ops.slice(1), scope);
    if (limit !== null && limit <= MAX_FUSE_HEAD) {
      const make = c.chain([head, pageHead(limit)], scope);
      return { pushdown: { kind: "fuse", limit, make }, rest: ops.slice(1) };
    }
  }
  let k = 0;
  while (k < ops.length && perValue(ops[k])) k++;
  const after = ops[k];
  if (k > 0 && after?.kind === "Head") {
    const through = {
      make: c.chain(ops.slice(0, k), scope),
      whole: c.chain(ops.slice(0, k + 1), scope),
    };
    return {
      pushdown: { kind: "head", limit: after.count, cut: null, through },
      rest: ops.slice(k + 1),
    };
  }
  if (head.kind === "Tail" || (head.kind === "Cut" && ops[1]?.kind === "Tail")) {
    const tail = (head.kind === "Tail" ? head : ops[1]) as ast.Op & { kind: "Tail" };
    const cut = headCut(c, head.kind === "Tail" ? ops[1] : head, scope);
    if (head.kind === "Cut" && cut === null) return null;
    const taken = cut === null ? 1 : 2;
    return {
      pushdown: {
        kind: "tail",
        limit: tail.count || 1,
        cut,
        make: c.chain(ops.slice(0, taken), scope),
      },
      rest: ops.slice(taken),
    };
  }
  // (Not with running state: the last values' would count only those.)
  if (k > 0 && after?.kind === "Tail" && !ops.slice(0, k).some(stateful)) {
    const whole = c.chain(ops.slice(0, k + 1), scope);
    const through = { make: c.chain(ops.slice(0, k), scope), whole };
    return {
      pushdown: { kind: "tail", limit: after.count || 1, cut: null, make: whole, through },
      rest: ops.slice(k + 1),
    };
  }
  if (head.kind === "Top" && !head.flush && head.args?.length === 1) {
    const path = fieldPathOf(head.args[0]);
    if (path !== null && path.length > 0 && !mentionsBound(head, scope)) {
      return {
        pushdown: {
          kind: "top",
          path,
          limit: head.limit || DEFAULT_TOP_LIMIT,
          make: c.op(head, scope),
        },
        rest: ops.slice(1),
      };
    }
  }
  const countField = countOf(head);
  if (countField !== null) {
    return { pushdown: { kind: "count", field: countField }, rest: ops.slice(1) };
  }
  const parts = summarizeParts(head);
  if (parts !== null) {
    return {
      pushdown: {
        kind: "summarize",
        make: c.op(head, scope),
        vector: vectorSummarize(c, parts, scope),
        orderFree: orderFree([head]),
      },
      rest: ops.slice(1),
    };
  }
  // A put of one field, or a yield of one record, and the summarize after
  // it: the columns feed the summary of the operator's expressions
  // (inline.ts); rows go through the operator.
  const next = ops[1] === undefined ? null : summarizeParts(ops[1]);
  const inlined = next === null ? undefined : inlinedBefore(head, next, scope);
  if (inlined !== undefined) {
    return {
      pushdown: {
        kind: "summarize",
        make: c.op(ops[1], scope),
        before: c.op(head, scope),
        vector: inlined === null ? null : vectorSummarize(c, inlined, scope, true),
        orderFree: orderFree([head, ops[1]]),
      },
      rest: ops.slice(2),
    };
  }
  // A cut of fields by name before a sort by one of them with a head: the
  // sort's rows are picked first and the cut made of them (a row with the
  // field has a field to cut), when columns pick them (fieldtopk.ts).
  const cut = head.kind === "Cut" && ops[1]?.kind === "Sort" && ops[2]?.kind === "Head"
    ? headCut(c, head, scope)
    : null;
  // A put of one field before a sort by it (with a head): the sort by the
  // put's expression, and the put made of the values it picks.
  const put = cut === null && ops[1]?.kind === "Sort" ? putField(head, scope) : null;
  const at = cut === null && put === null ? 0 : 1;
  const sort = ops[at];
  if (sort.kind === "Sort" && sort.args?.length === 1) {
    const next = ops[at + 1];
    // A tail after a sort by a field: its last N values.
    const last = at === 0 && next?.kind === "Tail";
    // A page after the sort needs its first N+M values, as a head would.
    const page = next?.kind === "Head" || last ? null : pageLimit(ops.slice(at + 1), scope);
    const limit = next?.kind === "Head" ? next.count : last ? next.count || 1 : page;
    const taken = at + (next?.kind === "Head" || last ? 2 : 1);
    const through = page === null ? ops.slice(0, taken) : [...ops.slice(0, taken), pageHead(page)];
    const path = fieldPathOf(sort.args[0]);
    const byField = path !== null && path.length > 0 && !mentionsBound(sort, scope);
    if (last && !byField) return null;
    let derive: SortDerive | undefined = undefined;
    if (cut !== null) {
      if (!byField || path.length !== 1 || !cut.names.includes(path[0])) return null;
    } else if (put !== null) {
      if (!byField || path.length !== 1 || path[0] !== put.name || limit === null) return null;
      const fields = derivable(put.expr, scope);
      if (fields === null) return null;
      derive = { expr: c.exprs.compile(put.expr, scope), fields, put: c.op(head, scope) };
    } else if (!byField) {
      // An expression of top-level fields, with a head: evaluated from their columns.
      const fields = limit === null ? null : derivable(sort.args[0], scope);
      if (fields === null) return null;
      derive = { expr: c.exprs.compile(sort.args[0], scope), fields };
    }
    return {
      pushdown: {
        kind: "sort",
        path: derive === undefined ? path! : [],
        derive,
        reverse: sort.order === "desc",
        nullsFirst: sort.nullsfirst,
        limit,
        last: last || undefined,
        make: c.chain(through, scope),
        cut: cut ?? undefined,
      },
      rest: ops.slice(taken),
    };
  }
  return null;
}

/** op as a cut of top-level fields by name (`cut a,b`), else null. */
function headCut(c: OpCompiler, op: ast.Op | undefined, scope: Scope): HeadCut | null {
  if (op?.kind !== "Cut" || op.args.length === 0) return null;
  const names: string[] = [];
  for (const a of op.args) {
    if (a.lhs !== null || a.rhs.kind !== "ID" || a.rhs.name === "this") return null;
    if (mentionsBound(a.rhs, scope) || names.includes(a.rhs.name)) return null;
    names.push(a.rhs.name);
  }
  return { names, make: c.op(op, scope) };
}

/** The output field of a lone `count()` (summarize, implied, or `n:=count()`), else null. */
function countOf(op: ast.Op): string | null {
  const named = (a: ast.Assignment) =>
    a.lhs === null ? "count" : a.lhs.kind === "ID" ? a.lhs.name : null;
  switch (op.kind) {
    case "Summarize":
      if ((op.keys ?? []).length > 0 || op.aggs?.length !== 1 || !isPlainCount(op.aggs[0].rhs)) {
        return null;
      }
      return named(op.aggs[0]);
    case "OpExpr":
      return isPlainCount(op.expr) ? "count" : null;
    case "OpAssignment":
      return op.assignments.length === 1 && isPlainCount(op.assignments[0].rhs)
        ? named(op.assignments[0])
        : null;
  }
  return null;
}

/** How columns feed the summarize: keys and arguments that are field paths; else null. */
function vectorSummarize(
  c: OpCompiler,
  parts: SummarizeParts,
  scope: Scope,
  recordsOnly = false,
): VectorSummarize | null {
  const keys: VectorKey[] = [];
  for (const k of parts.keys) {
    const key = columnExpr(c, k.rhs, scope);
    if (key === null) return null;
    keys.push(key);
  }
  const aggs: VectorAggregate[] = [];
  for (const a of parts.aggs) {
    const e = a.rhs;
    let name: string, arg: ast.Expr | null, where: ast.Expr | null;
    if (e.kind === "Agg") {
      name = e.name;
      arg = e.expr;
      where = e.where;
    } else if (e.kind === "Call") {
      if (e.args.length > 1) return null;
      name = e.name;
      arg = e.args[0] ?? null;
      where = e.where;
    } else return null;
    if (!VECTOR_AGGS.has(name) || lookupAggregate(name) === undefined) return null;
    let path: string[] | null = null, derive: VectorAggregate["derive"] = null;
    if (arg !== null) {
      const p = c.exprs.path(arg, scope);
      if (p !== undefined && p.length > 0) path = p;
      else {
        // An expression of top-level fields: evaluated over their values.
        const fields = derivable(arg, scope);
        if (fields === null) return null;
        derive = { expr: c.exprs.compile(arg, scope), fields };
      }
    }
    let vwhere = null;
    if (where !== null) {
      vwhere = compileVectorFilter(where, scope, c.exprs);
      if (vwhere === null) return null;
    }
    aggs.push({ name, path, derive, where: vwhere });
  }
  return new VectorSummarize(keys, aggs, recordsOnly);
}

/**
 * A key's values from columns: a field path's, an expression's of one
 * top-level field (derived from that field's values), or each row's type
 * (`typeof(this)`); null for any other expression.
 */
function columnExpr(c: OpCompiler, e: ast.Expr, scope: Scope): VectorKey | null {
  const p = c.exprs.path(e, scope);
  if (p !== undefined && p.length > 0) return { path: p, derive: null };
  if (
    e.kind === "Call" && e.name === "typeof" && e.args.length === 1 &&
    c.exprs.path(e.args[0], scope)?.length === 0
  ) {
    return { path: [], derive: null, rowType: true };
  }
  const fields = derivable(e, scope);
  if (fields === null || fields.length !== 1) return null;
  const key: VectorKey = { path: fields, derive: c.exprs.compile(e, scope), id: JSON.stringify(e) };
  const bucket = timeBucket(e);
  if (bucket !== null) key.bucket = bucket;
  return key;
}

/**
 * `bucket(f, span)` or `bucket(time(f), span)` of a field f and a duration
 * constant span, or `every(span)` (bucket(ts, span)).
 */
export function timeBucket(e: ast.Expr): TimeBucket | null {
  if (e.kind !== "Call") return null;
  const every = e.name === "every" && e.args.length === 1;
  if (!every && (e.name !== "bucket" || e.args.length !== 2)) return null;
  const [arg, span] = every ? [{ kind: "ID", name: "ts" } as ast.Expr, e.args[0]] : e.args;
  if (span.kind !== "Primitive" || span.type !== "duration") return null;
  const cast = arg.kind === "Cast" && arg.type.value.kind === "TypePrimitive" &&
    arg.type.value.name === "time";
  const f = cast ? (arg as ast.Expr & { kind: "Cast" }).expr : arg;
  if (f.kind !== "ID") return null;
  const ns = literalValue(span).body;
  return typeof ns === "number" || typeof ns === "bigint" ? { span: BigInt(ns), cast } : null;
}

/**
 * The top-level fields an expression reads, when it is a function of their
 * values alone (deterministic, of no names bound in scope); else null.
 */
function derivable(e: ast.Expr, scope: Scope): string[] | null {
  const fields = exprFields(e);
  if (fields === null || fields.size === 0 || mentionsBound(e, scope) || !deterministic(e)) {
    return null;
  }
  return [...fields];
}

/** Functions whose results are not a function of their arguments. */
const NONDETERMINISTIC = new Set(["now", "ksuid"]);

/** False when e calls a function whose result may differ from call to call, or an aggregate. */
function deterministic(e: ast.AnyNode): boolean {
  return !anyNode(e, (n) =>
    n.kind === "Agg" ||
    (n.kind === "Call" && (NONDETERMINISTIC.has(n.name) || lookupAggregate(n.name) !== undefined)));
}

/** True when an identifier in e names a const, type or variable of the scope. */
export function mentionsBound(e: ast.AnyNode, scope: Scope): boolean {
  return anyNode(e, (n) => n.kind === "ID" && scope.lookup(n.name) !== undefined);
}

// Programs that start with `from`: one input port per source, each source's
// pipeline feeding what follows (combined, or the legs of a following join
// or merge). For a single source, the plan (SourcePlan) is settled here,
// before any operator is built: a leading filter (with its column form), the
// key range it implies, the fields the query reads, and what the planner
// (planner/pushdown.ts) takes off the operators for the source to perform —
// a count, a summarize, a sort (top-k) or a head. The source only carries the
// plan out. A `from` elsewhere (after other operators, or heading a parallel
// leg) opens its sources as further ports (ports.ts) and passes its upstream
// through its `pass` leg.

import { invalid, LochError } from "../../errors.ts";
import type * as ast from "../ast.ts";
import { isError, MISSING, zson } from "../runtime/values.ts";
import { fanIn } from "../runtime/channels.ts";
import type { Op, OpFactory } from "../runtime/op.ts";
import type { Expr } from "../runtime/expr.ts";
import type { CompiledQuery, SourcePlan } from "./compile.ts";
import { exprsDemand, fieldDemand } from "./demand.ts";
import { mentionsBound, planPushdown } from "../planner/pushdown.ts";
import { orderFree } from "../planner/orderfree.ts";
import { compileVectorFilter, type VectorFilter } from "../vector/filter.ts";
import type { OpCompiler } from "./ops.ts";
import type { Scope } from "./scope.ts";

export function compileFrom(
  c: OpCompiler,
  from: ast.Op & { kind: "From" },
  rest: ast.Op[],
  scope: Scope,
): CompiledQuery {
  checkTrunks(from, false);
  if (from.trunks.length === 1) return single(c, from.trunks[0], rest, scope);
  const sources: SourcePlan[] = [];
  const legs: OpFactory[] = [];
  for (const trunk of from.trunks) {
    const { plan, leg } = sourceLeg(c, trunk, scope);
    sources.push(plan);
    legs.push(leg);
  }
  const following = rest[0];
  if (following?.kind === "Join" || following?.kind === "Merge") {
    const multi = following.kind === "Join"
      ? c.joinOp(following, scope, legs.length)
      : c.mergeOp(following, scope, legs.length);
    const after = c.chain(rest.slice(1), scope);
    return {
      inputs: 0,
      sources,
      make: (next) => {
        const m = multi(after(next));
        return legs.map((leg, k) => leg(m.ports[k]));
      },
    };
  }
  const after = c.chain(rest, scope);
  return {
    inputs: 0,
    sources,
    make: (next) => {
      const outs = fanIn(after(next), legs.length);
      return legs.map((leg, k) => leg(outs[k]));
    },
  };
}

/**
 * The reference's checks of a `from`'s legs: no `=>` after a pool pattern,
 * and a pass-through leg exactly when the `from` has an upstream.
 */
function checkTrunks(from: ast.Op & { kind: "From" }, hasParent: boolean): void {
  let passes = 0;
  for (const t of from.trunks) {
    const pool = t.source.kind === "Pool" ? t.source.spec.pool : null;
    if (t.seq !== null && (pool?.kind === "Glob" || pool?.kind === "Regexp")) {
      throw new LochError("invalid", "=> not allowed after pool pattern in 'from' operator");
    }
    if (t.source.kind === "Pass") passes++;
  }
  if (!hasParent && passes > 0) {
    throw invalid("no data source for 'from operator' pass-through branch");
  }
  if (hasParent && passes > 1) {
    throw invalid("cannot have multiple pass-through branches in 'from operator'");
  }
  if (hasParent && passes === 0) throw invalid("upstream data source blocked by 'from operator'");
}

/** A source leg of a `from` with several legs: its plan (a leading filter lifted) and operators. */
function sourceLeg(
  c: OpCompiler,
  trunk: ast.Trunk,
  scope: Scope,
): { plan: SourcePlan; leg: OpFactory } {
  const inner = scope.enter();
  for (const decl of trunk.seq?.consts ?? []) c.declare(decl, inner);
  let ops = trunk.seq?.ops ?? [];
  const filter = ops.length > 0 ? filterOf(c, ops[0], inner) : null;
  if (filter !== null) ops = ops.slice(1);
  const plan: SourcePlan = {
    source: trunk.source,
    filter,
    pushdown: null,
    range: rangeOf(c, trunk.source, scope),
    fields: null,
    ordered: true,
  };
  return { plan, leg: c.chain(ops, inner) };
}

/**
 * A `from` that does not head the program: after other operators (its
 * pass-through leg takes the upstream values; hasParent) or at the head of a
 * parallel leg of a program that starts with one. Its other legs become
 * source ports. The result builds an instance given where each leg's output
 * goes, and returns the operator the upstream pushes into.
 */
export function compileFromOp(
  c: OpCompiler,
  from: ast.Op & { kind: "From" },
  scope: Scope,
  hasParent: boolean,
): (outs: Op[]) => Op {
  checkTrunks(from, hasParent);
  const legs: { leg: OpFactory; port: number }[] = [];
  for (const trunk of from.trunks) {
    if (trunk.source.kind === "Pass") {
      legs.push({ leg: c.sequential(trunk.seq ?? EMPTY_SEQ, scope), port: -1 });
      continue;
    }
    if (c.lateralDepth > 0) {
      // A lateral scope runs once per value: a source in it would be read
      // again for every value (the reference reads it once, for the first).
      throw invalid("'from' operator in a lateral scope can only have a pass-through branch");
    }
    const { plan, leg } = sourceLeg(c, trunk, scope);
    legs.push({ leg, port: c.ports.add(plan) });
  }
  return (outs) => {
    let upstream: Op = NO_UPSTREAM;
    legs.forEach(({ leg, port }, k) => {
      const head = leg(outs[k]);
      if (port < 0) upstream = head;
      else c.ports.set(port, head);
    });
    return upstream;
  };
}

const EMPTY_SEQ: ast.Sequential = { kind: "Sequential", consts: [], ops: [] };

/** What a `from` without an upstream returns as its input: nothing is pushed to it. */
const NO_UPSTREAM: Op = { push() {}, end() {}, done: true };

/** One source: its operators, then the program's. */
function single(c: OpCompiler, trunk: ast.Trunk, rest: ast.Op[], scope: Scope): CompiledQuery {
  const inner = scope.enter();
  for (const decl of trunk.seq?.consts ?? []) c.declare(decl, inner);
  let trunkOps = trunk.seq?.ops ?? [];
  // What is lifted comes from the head of the trunk's operators, or of the
  // program's when the trunk has none.
  const fromTrunk = trunkOps.length > 0;
  let ops = fromTrunk ? trunkOps : rest;
  const liftScope = fromTrunk ? inner : scope;
  const all = [...trunkOps, ...rest];
  const filter = ops.length > 0 ? filterOf(c, ops[0], liftScope) : null;
  if (filter !== null) ops = ops.slice(1);
  const fields = fieldDemand(filter === null ? all : all.slice(1), filter?.ast ?? null);
  let folded: ast.Op[] = [];
  if (filter !== null && pushesDown(trunk.source)) {
    const before = ops;
    ops = foldFilters(c, filter, ops, liftScope);
    folded = before.slice(0, before.length - ops.length);
  }
  const planned = pushesDown(trunk.source) ? planPushdown(c, ops, liftScope) : null;
  if (planned !== null) ops = planned.rest;
  if (fromTrunk) trunkOps = ops;
  else rest = ops;
  const pushdown = planned?.pushdown ?? null;
  const left = [...trunkOps, ...rest];
  const ordered = !(pushdown?.kind === "count" ||
    (pushdown?.kind === "summarize" && pushdown.orderFree) ||
    (pushdown === null && orderFree(left)));
  const plan: SourcePlan = {
    source: trunk.source,
    filter,
    pushdown,
    range: rangeOf(c, trunk.source, scope),
    fields,
    ordered,
  };
  if (pushdown === null && pushesDown(trunk.source)) {
    // What the filter and the filters folded into it read.
    const filters = exprsDemand([
      filter?.ast ?? null,
      ...folded.map((op) => c.filterExpr(op, liftScope)),
    ]);
    if (left.every((op) => op.kind === "Pass")) {
      plan.straight = { fields: filters === null ? null : [...filters] };
    } else if (left[0].kind === "Uniq" && filters !== null) {
      // uniq compares values by their encodings, which the pool hands it as
      // read: only what the filters and the operators after it read is decoded.
      const after = fieldDemand(left.slice(1), null);
      const need = !left[0].cflag || after === null ? after : after.includes("value") ? null : [];
      if (need !== null) {
        plan.fields = [...new Set([...filters, ...need])];
        plan.encoded = { after: need };
      }
    }
  }
  const trunkChain = c.chain(trunkOps, inner);
  const restChain = c.chain(rest, scope);
  return {
    inputs: 0,
    sources: [plan],
    make: (next: Op) => [trunkChain(restChain(next))],
  };
}

/** Sources that carry out pushdowns: one pool (not a pattern, a meta-query or a diff). */
function pushesDown(src: ast.Source): boolean {
  return src.kind === "Pool" && src.spec.meta === null && src.spec.pool?.kind === "String" &&
    src.diff === undefined;
}

/** A pool source's `range L to U`, its bounds evaluated as constants. */
function rangeOf(c: OpCompiler, src: ast.Source, scope: Scope): SourcePlan["range"] {
  if (src.kind !== "Pool" || src.range === null) return null;
  const bound = (e: ast.Expr | null) => {
    if (e === null) return null;
    const v = c.exprs.compile(e, scope)(MISSING);
    if (isError(v)) throw invalid(`range bound: ${zson(v)}`);
    return v;
  };
  return { lower: bound(src.range.lower), upper: bound(src.range.upper) };
}

/** The predicate of an operator that is a filter (where, search, a boolean expression). */
function filterOf(c: OpCompiler, op: ast.Op, scope: Scope): SourcePlan["filter"] {
  const e = c.filterExpr(op, scope);
  if (e === null) return null;
  // Names bound in scope are not fields, so such a filter says nothing about keys.
  return {
    ast: e,
    pred: c.exprs.compile(e, scope),
    fieldsOnly: !mentionsBound(e, scope),
    vector: compileVectorFilter(e, scope, c.exprs, true),
  };
}

/**
 * Folds the `where` operators right after a pool's lifted filter into it
 * (SourcePlan filter.thens), so what follows them can be performed by the
 * source too; returns the operators left. Where the filter has columns,
 * only as many as have columns too, so columns can still select the rows.
 */
function foldFilters(
  c: OpCompiler,
  filter: NonNullable<SourcePlan["filter"]>,
  ops: ast.Op[],
  scope: Scope,
): ast.Op[] {
  const preds: Expr[] = [];
  const vectors: VectorFilter[] = [];
  let k = 0;
  for (; k < ops.length; k++) {
    const e = c.filterExpr(ops[k], scope);
    if (e === null) break;
    if (filter.vector !== null) {
      const v = compileVectorFilter(e, scope, c.exprs, false);
      if (v === null) break;
      vectors.push(v);
    }
    preds.push(c.exprs.compile(e, scope));
  }
  if (k === 0) return ops;
  filter.thens = preds;
  if (filter.vector !== null) filter.vector = filter.vector.andThen(vectors);
  return ops.slice(k);
}

/**
 * The `from` at the head of a program: the operator itself, or a parallel
 * whose legs each start with a one-source `from` (read as one `from`).
 */
export function asFrom(op: ast.Op): (ast.Op & { kind: "From" }) | undefined {
  if (op.kind === "From") return op;
  if (op.kind !== "Parallel") return undefined;
  const trunks: ast.Trunk[] = [];
  for (const leg of op.ops) {
    const head = leg.ops[0];
    if (head?.kind !== "From" || head.trunks.length !== 1 || head.trunks[0].seq !== null) {
      return undefined;
    }
    trunks.push({
      kind: "Trunk",
      source: head.trunks[0].source,
      seq: { kind: "Sequential", ops: leg.ops.slice(1), consts: leg.consts },
    });
  }
  return { kind: "From", trunks };
}

/** How many legs an operator sends its output down. */
export function outputs(op: ast.Op): number {
  switch (op.kind) {
    case "Parallel":
      return op.ops.length;
    case "Switch":
      return op.cases.length;
    case "From":
      return op.trunks.length;
  }
  return 1;
}

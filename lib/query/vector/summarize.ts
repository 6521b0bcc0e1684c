// summarize over columns: the rows of an object that pass the filter are
// grouped by their key columns' values (dictionary entries, or distinct
// values), and each group's aggregators — the query's own summarize's — are
// fed that group's values in row order, without a record per row. count()
// is fed in one call per group.
//
// prepare() works out an object's groups without changing anything, so the
// caller can check that objects whose rows interleave in pool order share no
// group (when an aggregate depends on the order of its values); commit()
// feeds them. An object whose keys or arguments the columns cannot give
// (prepare returns null) is summarized from its rows instead.

import type { Aggregator } from "../aggregates/registry.ts";
import type { Summarize } from "../ops/summarize.ts";
import type { Expr } from "../runtime/expr.ts";
import { Kind, typeUnder } from "../../zed/types.ts";
import { isMissing, MISSING, TRUE } from "../runtime/values.ts";
import type { VectorFilter } from "./filter.ts";
import type { ColumnarObject } from "./object.ts";
import { DerivedArg, Deriver, type VectorKey } from "./derive.ts";
import { type KeyOrder, mergeRows, RunKeys, type TieOrder } from "./keymerge.ts";
import { groupKey } from "../aggregates/value-key.ts";
import { groupRows, oneGroup, type PreparedGroups } from "./grouping.ts";
import { type ArgValues, type PathValues, pathValues, rowTypeValues } from "./pathvalues.ts";
import { extremeValue } from "./extreme.ts";

export type { PreparedGroups };

/** A min or max, which integers feed with their extreme (extreme.ts). */
const MIN = -1, MAX = 1;

/**
 * An aggregate over columns: its argument — a path's values, or an
 * expression's of the top-level fields it reads (derive), or neither for
 * count() — and its where clause.
 */
export interface VectorAggregate {
  name: string;
  path: string[] | null;
  derive: { expr: Expr; fields: string[] } | null;
  where: VectorFilter | null;
}

/** Whether an aggregate takes an argument (all but count()). */
function takesArg(a: VectorAggregate): boolean {
  return a.path !== null || a.derive !== null;
}

/** Aggregates that skip every value but numbers (aggregates/math.ts). */
const NUMBERS_ONLY = new Set(["sum", "min", "max"]);

/** Aggregates whose result depends on the order values arrive in. */
const ORDER_SENSITIVE = new Set([
  "any",
  "collect",
  "sum",
  "avg",
  "map",
  "fuse",
  "union",
  "dcount",
]);

export class VectorSummarize {
  private derivers: (Deriver | null)[];

  constructor(
    private keys: VectorKey[],
    private aggs: VectorAggregate[],
    /**
     * Whether only objects of records can be fed from columns (after an
     * inlined put, which makes any other value an error: inline.ts).
     */
    private recordsOnly = false,
  ) {
    this.derivers = keys.map(Deriver.of);
    this.extremes = aggs.map((a) =>
      a.path === null ? 0 : a.name === "min" ? MIN : a.name === "max" ? MAX : 0
    );
  }

  /** Per aggregate: MIN or MAX for a min or max of a field, else 0. */
  private extremes: number[];

  /** Whether some aggregate depends on the order of its values. */
  get orderSensitive(): boolean {
    return this.aggs.some((a) => ORDER_SENSITIVE.has(a.name));
  }

  /**
   * Whether objects whose rows interleave in pool order cannot be fed one
   * after another: some group gets values from two of them for an aggregate
   * whose result depends on their order (sums of integers do not).
   */
  conflicts(run: readonly PreparedGroups[]): boolean {
    for (let j = 0; j < this.aggs.length; j++) {
      const name = this.aggs[j].name;
      if (!ORDER_SENSITIVE.has(name)) continue;
      if (name === "sum" || name === "avg") {
        let bound = 0;
        for (const p of run) bound = p.intBound[j] === null ? Infinity : bound + p.intBound[j]!;
        if (bound < 2 ** 53) continue;
      }
      const seen = new Set<string>();
      for (const p of run) {
        const fed = p.fed[j];
        if (fed === null || fed.length === 0) continue;
        const names = p.names!;
        for (const g of fed) if (seen.has(names[g])) return true;
        for (const g of fed) seen.add(names[g]);
      }
    }
    return false;
  }

  /** Whether every aggregate is a plain count(): groups need only their sizes. */
  private get countsOnly(): boolean {
    return this.aggs.every((a) => !takesArg(a) && a.where === null);
  }

  /** The groups of an object's selected rows (all rows when sel is null); null when columns cannot tell. */
  async prepare(o: ColumnarObject, sel: Uint8Array | null): Promise<PreparedGroups | null> {
    if (this.recordsOnly && !o.types.every((t) => typeUnder(t).kind === Kind.Record)) return null;
    const types = await o.typeIndex();
    const keyValues: PathValues[] = [];
    for (const k of this.keys) {
      const pv = k.rowType === true ? rowTypeValues(o, types) : await pathValues(o, types, k.path);
      if (pv === null) return null;
      keyValues.push(pv);
    }
    const derive = this.derivers;
    const args: (ArgValues | null)[] = [];
    const wheres: (Uint8Array | null)[] = [];
    for (const a of this.aggs) {
      if (a.path !== null) {
        const pv = await pathValues(o, types, a.path, NUMBERS_ONLY.has(a.name));
        if (pv === null) return null;
        args.push(pv);
      } else if (a.derive !== null) {
        const sources: PathValues[] = [];
        for (const f of a.derive.fields) {
          const pv = await pathValues(o, types, [f]);
          if (pv === null) return null;
          sources.push(pv);
        }
        args.push(new DerivedArg(o.rows, sources, a.derive.fields, a.derive.expr));
      } else args.push(null);
      if (a.where === null) wheres.push(null);
      else {
        const s = await a.where.select(o);
        if (s === null) return null;
        wheres.push(s.rows);
      }
    }
    // Arguments the object lacks altogether feed nothing: only the groups' sizes matter then.
    const sizesOnly = this.aggs.every((a, j) =>
      a.where === null && (!takesArg(a) || args[j]!.none)
    );
    const p = keyValues.every((k) => k.vectors.length === 0)
      ? oneGroup(
        o.rows,
        sel,
        derive.map((d) => d?.derive(MISSING) ?? MISSING),
        args,
        wheres,
        sizesOnly,
      )
      : groupRows(o, sel, keyValues, derive, args, wheres, sizesOnly);
    if (p !== null) {
      if (p.names === undefined && this.orderSensitive) p.names = p.keys.map(groupKey);
      p.fed = this.aggs.map((a, j) => ORDER_SENSITIVE.has(a.name) ? fedGroups(p, j) : null);
      p.intBound = args.map((a) => a?.intBound() ?? null);
    }
    return p;
  }

  /** Feeds an object's groups to the summarize (but those skip marks, 1, to leave out). */
  commit(p: PreparedGroups, op: Summarize, skip?: Uint8Array): void {
    const nAggs = this.aggs.length;
    for (let g = 0; g < p.keys.length; g++) {
      if (skip !== undefined && skip[g] === 1) continue;
      const aggs = op.groupOf(p.keys[g], p.names?.[g]);
      if (aggs === null) continue;
      const a0 = p.start[g], a1 = p.start[g + 1];
      if (p.rows.length === 0) {
        // Sizes only: the counts are fed; the other aggregates' arguments are missing.
        for (let j = 0; j < nAggs; j++) {
          if (!takesArg(this.aggs[j])) countInto(op, aggs, j, a1 - a0);
        }
        continue;
      }
      for (let j = 0; j < nAggs; j++) feedRange(op, aggs, j, p, a0, a1, this.extremes[j]);
    }
    op.checkBudget();
  }

  /**
   * Feeds a run of objects whose shared groups' values interleave in pool
   * order, each group its values in pool order: a group found in one object
   * is fed from it as commit() feeds; a group found in several has its rows
   * merged by the pool key (keymerge.ts) and fed in that order.
   * Where that order is not the keys' alone — two of the objects' rows of a
   * group with equal keys (the whole values decide), or rows without a key
   * in several — ties (made once, when first needed) orders them. Returns
   * false, having fed nothing, where there is no such order or it cannot
   * tell.
   */
  async commitMerged(
    run: readonly { o: ColumnarObject; p: PreparedGroups }[],
    keyPath: readonly string[],
    keyOrder: KeyOrder,
    op: Summarize,
    ties?: () => Promise<TieOrder | null>,
  ): Promise<boolean> {
    // Per group name: where it is, object by object. Only where it gets a
    // value for an aggregate that depends on their order: elsewhere (a
    // group of rows without the argument, say, all but the log that has
    // it) commit() feeds it as it would any group.
    const where = new Map<string, { k: number; g: number }[]>();
    for (let k = 0; k < run.length; k++) {
      const p = run[k].p;
      if (p.rows.length === 0) continue;
      const names = p.names!; // set by prepare() for order-sensitive summaries
      const fed = new Uint8Array(p.keys.length);
      for (const f of p.fed) if (f !== null) { for (const g of f) fed[g] = 1; }
      for (let g = 0; g < p.keys.length; g++) {
        if (fed[g] === 0) continue;
        const name = names[g];
        const at = where.get(name);
        if (at === undefined) where.set(name, [{ k, g }]);
        else at.push({ k, g });
      }
    }
    const skip = run.map(({ p }) => new Uint8Array(p.keys.length));
    const merged: { parts: { k: number; g: number }[]; order: Int32Array }[] = [];
    let keys: RunKeys | null = null;
    let tieOrder: TieOrder | null | undefined = undefined;
    for (const parts of where.values()) {
      if (parts.length < 2) continue;
      if (keys === null) {
        // The keys of every object with rows, compared the same way for all groups.
        const each: (PathValues | null)[] = run.map(() => null);
        for (let k = 0; k < run.length; k++) {
          if (run[k].p.rows.length === 0) continue;
          each[k] = await pathValues(run[k].o, await run[k].o.typeIndex(), keyPath);
          if (each[k] === null) return false;
        }
        keys = new RunKeys(each, keyOrder);
      }
      let order = mergeRows(run, parts, keys, tieOrder ?? undefined);
      if (order === null && tieOrder === undefined && ties !== undefined) {
        tieOrder = await ties();
        if (tieOrder !== null) order = mergeRows(run, parts, keys, tieOrder);
      }
      if (order === null) return false;
      merged.push({ parts, order });
      for (const { k, g } of parts) skip[k][g] = 1;
    }
    run.forEach(({ p }, k) => this.commit(p, op, skip[k]));
    for (const { parts, order } of merged) {
      const first = run[parts[0].k].p;
      const aggs = op.groupOf(first.keys[parts[0].g], first.names?.[parts[0].g]);
      if (aggs === null) continue;
      for (let j = 0; j < this.aggs.length; j++) {
        for (let t = 0; t < order.length; t += 3) {
          const p = run[parts[order[t]].k].p;
          feedRange(op, aggs, j, p, order[t + 1], order[t + 2], this.extremes[j]);
        }
      }
    }
    op.checkBudget();
    return true;
  }
}

/**
 * Feeds an object's rows rows[a0, a1) to aggregate j of a group, in that
 * order; a min or max (extreme: MIN or MAX) of integers only their extreme.
 */
function feedRange(
  op: Summarize,
  aggs: Aggregator[],
  j: number,
  p: PreparedGroups,
  a0: number,
  a1: number,
  extreme: number,
): void {
  const arg = p.args[j], where = p.wheres[j];
  if (arg === null && where === null) {
    countInto(op, aggs, j, a1 - a0);
    return;
  }
  const ints = extreme !== 0 && where === null ? arg!.integers() : null;
  if (ints !== null) {
    const v = extremeValue(ints, p.rows, a0, a1, extreme === MAX);
    if (v !== null) op.feed(aggs, j, v);
    return;
  }
  const nums = where === null ? arg?.numbers() ?? null : null;
  if (nums !== null && op.feedNumbers(aggs, j, nums.f64, nums.state, p.rows, a0, a1)) return;
  const bin = where === null ? arg?.binary() ?? null : null;
  if (bin !== null && op.feedBinary(aggs, j, bin.type, bin, p.rows, a0, a1)) return;
  for (let r = a0; r < a1; r++) {
    const i = p.rows[r];
    if (where !== null && where[i] !== 1) continue;
    if (arg === null) {
      op.feed(aggs, j, TRUE);
      continue;
    }
    // (As the row path: an argument that is error("missing") feeds nothing.)
    const v = arg.value(i);
    if (!isMissing(v)) op.feed(aggs, j, v);
  }
}

/** The groups aggregate j gets a value for. */
function fedGroups(p: PreparedGroups, j: number): number[] {
  const out: number[] = [];
  const arg = p.args[j], where = p.wheres[j];
  if (arg !== null && arg.none) return out; // missing everywhere
  for (let g = 0; g < p.keys.length; g++) {
    let feeds = false;
    if (p.rows.length === 0) feeds = arg === null && where === null && p.start[g + 1] > p.start[g];
    for (let r = p.start[g]; r < p.start[g + 1] && !feeds && p.rows.length > 0; r++) {
      const i = p.rows[r];
      feeds = (where === null || where[i] === 1) && (arg === null || arg.has(i));
    }
    if (feeds) out.push(g);
  }
  return out;
}

function countInto(op: Summarize, aggs: Aggregator[], j: number, n: number): void {
  const a = aggs[j];
  if (a.consumeN !== undefined) a.consumeN(TRUE, n);
  else for (let k = 0; k < n; k++) op.feed(aggs, j, TRUE);
}

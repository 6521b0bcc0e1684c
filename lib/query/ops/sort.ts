// `sort [-r] [-nulls first|last] [e1, e2, ...]` (language.md §3.17, §9.1):
// reads everything, then stable-sorts by the keys with the total order of
// compareValues. Missing keys sort as null; nulls go last in both directions
// unless nullsFirst. Without keys, the key is guessed from the first value.
//
// Past the memory budget, the values held so far are sorted and spilled to a
// temporary file as a run (with their keys, evaluated once as in memory);
// at the end the runs and the values still held are merged, ties going to
// the earlier run, so the output is the same stable sort as in memory.

import { compareValues } from "../../zed/compare.ts";
import {
  ID_INT8,
  ID_TIME,
  ID_UINT8,
  isFloat,
  isInteger,
  recordOf,
  type RecordType,
  underId,
} from "../../zed/types.ts";
import type { Batch, Value } from "../../zed/value.ts";
import { BATCH_SIZE } from "../../formats/io.ts";
import type { Expr } from "../runtime/expr.ts";
import { type Op, Unary } from "../runtime/op.ts";
import { sortSliced } from "../runtime/sliced-sort.ts";
import { sliceUsed } from "../runtime/turns.ts";
import { type Ended, finishSync, type Work } from "../runtime/work.ts";
import { isMissing, NULL } from "../runtime/values.ts";
import { compileFieldPath } from "../expr/access.ts";
import type { Path } from "./paths.ts";
import { batchSize } from "../spill/size.ts";
import { currentScope } from "../spill/scope.ts";
import { type SortedEntries, SortRuns } from "../spill/sort-runs.ts";

export interface SortOptions {
  reverse: boolean;
  nullsFirst: boolean;
}

/**
 * The reference's GuessSortKey: `this` for a non-record; else the first field
 * (depth first) of an integer type, else of a float type, else of any type
 * but time (a record field itself qualifies), else `ts`.
 */
export function guessSortKey(v: Value): Path {
  const rt = recordOf(v.type);
  if (rt === undefined) return [];
  return firstField(rt, isInteger) ?? firstField(rt, isFloat) ??
    firstField(rt, (id) => id !== ID_TIME) ?? ["ts"];
}

function firstField(rt: RecordType, pred: (id: number) => boolean): string[] | undefined {
  for (const f of rt.fields) {
    if (pred(underId(f.type))) return [f.name];
    const sub = recordOf(f.type);
    if (sub !== undefined) {
      const p = firstField(sub, pred);
      if (p !== undefined) return [f.name, ...p];
    }
  }
  return undefined;
}

/** Compares values i and j by the keys from the k-th on. */
function compareRest(
  keyVals: Value[][],
  k: number,
  i: number,
  j: number,
  nullsMax: boolean,
): number {
  for (; k < keyVals.length; k++) {
    const a = keyVals[k][i], b = keyVals[k][j];
    const c = compareValues(a.type, a.body, b.type, b.body, nullsMax);
    if (c !== 0) return c;
  }
  return 0;
}

/**
 * Whether every primary key is an integer: the reference then compares them
 * as numbers, so int8 and uint8 keys (byte-wise in the general order) sort
 * numerically.
 */
function allIntegers(first: Value[]): boolean {
  for (let i = 0; i < first.length; i++) if (!isInteger(underId(first[i].type))) return false;
  return true;
}

/** Whether a primary key is a non-null int8 or uint8, whose order depends on `native`. */
function hasSmallInts(first: Value[]): boolean {
  for (let i = 0; i < first.length; i++) {
    const id = underId(first[i].type);
    if ((id === ID_INT8 || id === ID_UINT8) && first[i].body !== null) return true;
  }
  return false;
}

/**
 * The indexes 0..n-1 in sorted order of the keys (native: integer primary
 * keys compared as numbers), pausing in the sort's slices.
 */
function* sortOrder(
  keyVals: Value[][],
  n: number,
  native: boolean,
  opts: SortOptions,
): Generator<void, number[], void> {
  const nullsMax = opts.nullsFirst === opts.reverse;
  const first = keyVals[0];
  const nk = keyVals.length;
  let cmp: (i: number, j: number) => number;
  if (native && first.every((v) => typeof v.body === "number")) {
    // The common case: safe integers, compared as doubles.
    const nums = new Float64Array(n);
    for (let i = 0; i < n; i++) nums[i] = first[i].body as number;
    cmp = (i, j) => {
      const d = nums[i] - nums[j];
      return d < 0 ? -1 : d > 0 ? 1 : nk === 1 ? 0 : compareRest(keyVals, 1, i, j, nullsMax);
    };
  } else if (native) {
    const ints = first.map((v) => v.body as number | bigint | null);
    cmp = (i, j) => {
      const x = ints[i], y = ints[j];
      if (x !== null && y !== null) {
        if (x < y) return -1;
        if (x > y) return 1;
        return compareRest(keyVals, 1, i, j, nullsMax);
      }
      return compareRest(keyVals, 0, i, j, nullsMax);
    };
  } else {
    cmp = (i, j) => compareRest(keyVals, 0, i, j, nullsMax);
  }
  const order = new Array<number>(n);
  for (let i = 0; i < n; i++) order[i] = i;
  // Stable; -r compares the other way round.
  return yield* sortSliced(order, opts.reverse ? (i, j) => cmp(j, i) : cmp);
}

/**
 * The same order as sortOrder, over entries of keys then value: what the
 * merge of spilled runs compares with.
 */
export function entryComparator(
  nk: number,
  native: boolean,
  opts: SortOptions,
): (a: Value[], b: Value[]) => number {
  const nullsMax = opts.nullsFirst === opts.reverse;
  const cmp = (a: Value[], b: Value[]): number => {
    let k = 0;
    if (native) {
      const x = a[0].body as number | bigint | null, y = b[0].body as number | bigint | null;
      if (x !== null && y !== null) {
        if (x < y) return -1;
        if (x > y) return 1;
        k = 1;
      }
    }
    for (; k < nk; k++) {
      const c = compareValues(a[k].type, a[k].body, b[k].type, b[k].body, nullsMax);
      if (c !== 0) return c;
    }
    return 0;
  };
  return opts.reverse ? (a, b) => cmp(b, a) : cmp;
}

export class Sort extends Unary {
  private vals: Value[] = [];
  /** Estimated bytes of vals, in the query's account. */
  private readonly mem = currentScope().use("sort");
  private readonly budget: number;
  private runs: SortRuns | null = null;
  /** The keys in use: the given ones, or the one guessed from the first value. */
  private resolved: readonly Expr[] | undefined;
  /** Whether every primary key spilled so far was an integer (see spill/sort-runs.ts). */
  private allInt = true;

  constructor(
    next: Op,
    private readonly keys: readonly Expr[],
    private readonly opts: SortOptions,
  ) {
    super(next);
    this.budget = currentScope().budget;
    if (keys.length > 0) this.resolved = keys;
  }

  push(batch: Batch): void {
    const vals = this.vals;
    for (let i = 0; i < batch.length; i++) vals.push(batch[i]);
    this.mem.add(batchSize(batch));
    if (this.mem.shouldSpill(this.budget)) this.spill();
  }

  override end(): Ended {
    const vals = this.vals;
    this.vals = [];
    // What is held now goes on downstream (or to the merge's tail).
    this.mem.clear();
    return this.finish(this.runs !== null ? this.emitSpilled(vals) : this.emitSorted(vals));
  }

  /** Sorts the values held and sends them on, a batch per slice. */
  private *emitSorted(vals: Value[]): Work {
    if (vals.length === 0) return;
    const keyVals = yield* this.evalKeys(vals);
    const order = yield* sortOrder(keyVals, vals.length, allIntegers(keyVals[0]), this.opts);
    for (let i = 0; i < order.length && !this.next.done; i += BATCH_SIZE) {
      const m = Math.min(order.length, i + BATCH_SIZE);
      const out = new Array<Value>(m - i);
      for (let k = i; k < m; k++) out[k - i] = vals[order[k]];
      this.next.push(out);
      yield;
    }
  }

  /** Keys evaluated once per value (missing as null), one array per key. */
  private *evalKeys(vals: Value[]): Generator<void, Value[][], void> {
    const n = vals.length;
    if (this.resolved === undefined) this.resolved = [compileFieldPath(guessSortKey(vals[0]))];
    // (The reference re-evaluates all but the first key per comparison; the order is the same.)
    const keyVals: Value[][] = [];
    for (const e of this.resolved) {
      const kv = new Array<Value>(n);
      for (let i = 0; i < n; i++) {
        const r = e(vals[i]);
        kv[i] = isMissing(r) ? NULL : r;
        if ((i & 4095) === 4095 && sliceUsed()) yield;
      }
      keyVals.push(kv);
    }
    return keyVals;
  }

  /** The values held, sorted, as entries of keys then value. */
  private *sortedEntries(vals: Value[]): Generator<void, SortedEntries, void> {
    const keyVals = yield* this.evalKeys(vals);
    const native = this.allInt = this.allInt && allIntegers(keyVals[0]);
    const order = yield* sortOrder(keyVals, vals.length, native, this.opts);
    const nk = keyVals.length;
    const entries = new Array<Value[]>(order.length);
    for (let i = 0; i < order.length; i++) {
      const j = order[i];
      const e = new Array<Value>(nk + 1);
      for (let k = 0; k < nk; k++) e[k] = keyVals[k][j];
      e[nk] = vals[j];
      entries[i] = e;
    }
    return { entries, native, small: native && hasSmallInts(keyVals[0]) };
  }

  /** Sorts the values held and writes them out as a run. */
  private spill(): void {
    const vals = this.vals;
    this.vals = [];
    this.mem.clear();
    if (vals.length === 0) return;
    // (push cannot pause: this sort runs in one go.)
    const sorted = finishSync(this.sortedEntries(vals));
    if (this.runs === null) this.runs = new SortRuns(this.resolved!.length, this.opts, this.budget);
    this.runs.add(sorted);
  }

  /** Merges the runs and the values still held, and sends them on. */
  private *emitSpilled(vals: Value[]): Work {
    const runs = this.runs!;
    this.runs = null;
    try {
      const tail = vals.length > 0 ? yield* this.sortedEntries(vals) : undefined;
      const merger = runs.merge(tail);
      const nk = this.resolved!.length;
      yield* this.emitPulled(() => merger.next()?.[nk]);
    } finally {
      runs.close();
    }
  }
}

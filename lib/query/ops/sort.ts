// `sort [-r] [-nulls first|last] [e1, e2, ...]` (language.md §3.17, §9.1):
// reads everything, then stable-sorts by the keys with the total order of
// compareValues. Missing keys sort as null; nulls go last in both directions
// unless nullsFirst. Without keys, the key is guessed from the first value.
//
// Values are held in memory until the end of the input; spilling sorted runs
// to disk (the reference spills past 128 MiB) is still to come.

import { compareValues } from "../../zed/compare.ts";
import {
  ID_TIME,
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
import { isMissing, NULL } from "../runtime/values.ts";
import { compileFieldPath } from "../expr/access.ts";
import type { Path } from "./paths.ts";

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

export class Sort extends Unary {
  private vals: Value[] = [];

  constructor(
    next: Op,
    private readonly keys: readonly Expr[],
    private readonly opts: SortOptions,
  ) {
    super(next);
  }

  push(batch: Batch): void {
    const vals = this.vals;
    for (let i = 0; i < batch.length; i++) vals.push(batch[i]);
  }

  override end(): void {
    const vals = this.vals;
    this.vals = [];
    if (vals.length > 0) {
      const order = this.order(vals);
      for (let i = 0; i < order.length && !this.next.done; i += BATCH_SIZE) {
        const m = Math.min(order.length, i + BATCH_SIZE);
        const out = new Array<Value>(m - i);
        for (let k = i; k < m; k++) out[k - i] = vals[order[k]];
        this.next.push(out);
      }
    }
    this.next.end();
  }

  /** The indexes of vals in sorted order. */
  private order(vals: Value[]): number[] {
    const n = vals.length;
    const keys = this.keys.length > 0 ? this.keys : [compileFieldPath(guessSortKey(vals[0]))];
    let nullsMax = !this.opts.nullsFirst;
    if (this.opts.reverse) nullsMax = !nullsMax;
    // Keys are evaluated once per value (the reference re-evaluates all but
    // the first per comparison; the order is the same).
    const keyVals: Value[][] = keys.map((e) => {
      const kv = new Array<Value>(n);
      for (let i = 0; i < n; i++) {
        const r = e(vals[i]);
        kv[i] = isMissing(r) ? NULL : r;
      }
      return kv;
    });
    // When every primary key is an integer the reference compares them as
    // numbers, so int8 and uint8 keys (byte-wise in the general order) sort
    // numerically.
    const first = keyVals[0];
    let native = true;
    for (let i = 0; i < n && native; i++) native = isInteger(underId(first[i].type));
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
    // Array.prototype.sort is stable; -r compares the other way round.
    order.sort(this.opts.reverse ? (i, j) => cmp(j, i) : cmp);
    return order;
  }
}

// `sort ... | head N` for a small N: the sort keeps only the N values that
// come first (with their keys), in bounded heaps, rather than every value,
// and sends them on sorted at the end. `sort ... | tail N` likewise keeps the
// N that come last. The order is the full sort's (sort.ts):
// stable (ties in input order), and its primary keys compared as numbers
// when every one of them is an integer, else by the general order (which
// orders int8 and uint8 by their bytes). Which of the two applies is known
// only at the end, so a heap is kept for each while both may.

import { isInteger, underId } from "../../zed/types.ts";
import type { Batch, Value } from "../../zed/value.ts";
import type { Expr } from "../runtime/expr.ts";
import { type Op, Unary } from "../runtime/op.ts";
import type { Ended, Work } from "../runtime/work.ts";
import { isMissing, NULL } from "../runtime/values.ts";
import { compileFieldPath } from "../expr/access.ts";
import { LeastK } from "../runtime/leastk.ts";
import { entryComparator, guessSortKey, type SortOptions } from "./sort.ts";

/** The largest head kept this way; a longer one is the full sort's (which spills). */
export const SORT_HEAD_MAX = 10_000;

/** A value's keys (missing as null), then the value, and its place in the input. */
interface Entry {
  keys: Value[];
  seq: number;
}

export class SortHead extends Unary {
  private resolved: readonly Expr[] | undefined;
  private seq = 0;
  /** Whether every primary key so far is an integer (the numeric order then applies). */
  private allInt = true;
  private numeric: LeastK<Entry> | null = null;
  private general: LeastK<Entry> | null = null;

  constructor(
    next: Op,
    private readonly keys: readonly Expr[],
    private readonly opts: SortOptions,
    private readonly limit: number,
    /** Whether the values kept are the last `limit` (a tail's) rather than the first. */
    private readonly fromEnd = false,
  ) {
    super(next);
    if (keys.length > 0) this.resolved = keys;
  }

  push(batch: Batch): void {
    if (this.resolved === undefined) {
      this.resolved = [compileFieldPath(guessSortKey(batch[0]))];
    }
    const exprs = this.resolved;
    if (this.general === null) {
      const nk = exprs.length;
      const order = (numeric: boolean) => {
        const cmp = entryOrder(entryComparator(nk, numeric, this.opts));
        // The last N in the sort's order are the first N in its reverse (input order too).
        return this.fromEnd ? (a: Entry, b: Entry) => cmp(b, a) : cmp;
      };
      this.general = new LeastK(order(false), this.limit);
      this.numeric = new LeastK(order(true), this.limit);
    }
    for (let i = 0; i < batch.length; i++) {
      const v = batch[i];
      const keys = new Array<Value>(exprs.length + 1);
      for (let k = 0; k < exprs.length; k++) {
        const r = exprs[k](v);
        keys[k] = isMissing(r) ? NULL : r;
      }
      keys[exprs.length] = v;
      const e: Entry = { keys, seq: this.seq++ };
      if (this.allInt && !isInteger(underId(keys[0].type))) {
        this.allInt = false;
        this.numeric = null;
      }
      this.general.offer(e);
      this.numeric?.offer(e);
    }
  }

  override end(): Ended {
    const heap = this.allInt ? this.numeric : this.general;
    this.numeric = this.general = null;
    return this.finish(this.emitAll(heap));
  }

  private *emitAll(heap: LeastK<Entry> | null): Work {
    if (heap === null) return;
    const entries = heap.sorted();
    if (this.fromEnd) entries.reverse();
    const nk = this.resolved!.length;
    yield* this.emitSlices(entries.map((e) => e.keys[nk]));
  }
}

/** Entries in the sort's order: by the keys, then by input order. */
function entryOrder(cmp: (a: Value[], b: Value[]) => number): (a: Entry, b: Entry) => number {
  return (a, b) => cmp(a.keys, b.keys) || a.seq - b.seq;
}

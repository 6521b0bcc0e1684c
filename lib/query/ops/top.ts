// `top [N] [-flush] keys` (language.md §3.23): the N largest values by the
// keys, emitted in descending order at the end (or after every batch with
// -flush). Kept in a min-heap that follows Go's container/heap, so ties
// resolve as the reference's do.

import { compareValues } from "../../zed/compare.ts";
import type { Batch, Value } from "../../zed/value.ts";
import { compileFieldPath } from "../expr/access.ts";
import type { Expr } from "../runtime/expr.ts";
import { type Op, Unary } from "../runtime/op.ts";
import { sliceUsed } from "../runtime/turns.ts";
import { type Ended, finishSync, type Work } from "../runtime/work.ts";
import { isMissing, NULL } from "../runtime/values.ts";
import { guessSortKey } from "./sort.ts";
import { currentScope } from "../spill/scope.ts";
import { valueSize } from "../spill/size.ts";
import { heapDown, type HeapPlaces, heapUp } from "./goheap.ts";

/** Values kept by `top` without a count (or with 0). */
export const DEFAULT_TOP_LIMIT = 100;

export class Top extends Unary implements HeapPlaces {
  private heap: Value[] = [];
  private keys: readonly Expr[] | undefined;
  private readonly limit: number;
  /** Estimated bytes of the heap while it fills (then it only swaps values), in the query's account. */
  private readonly mem = currentScope().use("top");

  constructor(next: Op, limit: number, keys: readonly Expr[], private readonly flush: boolean) {
    super(next);
    this.limit = limit || DEFAULT_TOP_LIMIT;
    this.keys = keys.length > 0 ? keys : undefined;
  }

  /** Missing keys count as null; nulls are smallest. */
  private compare(a: Value, b: Value): number {
    for (const k of this.keys!) {
      let x = k(a), y = k(b);
      if (isMissing(x)) x = NULL;
      if (isMissing(y)) y = NULL;
      const c = compareValues(x.type, x.body, y.type, y.body, false);
      if (c !== 0) return c;
    }
    return 0;
  }

  less(i: number, j: number): boolean {
    return this.compare(this.heap[i], this.heap[j]) < 0;
  }

  swap(i: number, j: number): void {
    const h = this.heap;
    const t = h[i];
    h[i] = h[j];
    h[j] = t;
  }

  private pushHeap(v: Value): void {
    this.heap.push(v);
    heapUp(this, this.heap.length - 1);
  }

  private popHeap(): Value {
    const n = this.heap.length - 1;
    this.swap(0, n);
    heapDown(this, 0, n);
    return this.heap.pop()!;
  }

  push(batch: Batch): void {
    let grew = 0;
    for (const v of batch) {
      this.keys ??= [compileFieldPath(guessSortKey(v))];
      if (this.heap.length < this.limit) {
        this.pushHeap(v);
        grew += valueSize(v);
      } else if (this.compare(this.heap[0], v) < 0) {
        this.pushHeap(v);
        this.popHeap();
      }
    }
    if (grew > 0) {
      this.mem.add(grew);
      this.mem.check();
    }
    if (this.flush) this.emitSorted();
  }

  /** The values held, largest first (emptying the heap), pausing when the slice is used up. */
  private *sorted(): Generator<void, Value[], void> {
    const out: Value[] = new Array(this.heap.length);
    for (let i = out.length - 1; i >= 0; i--) {
      out[i] = this.popHeap();
      if ((i & 1023) === 0 && sliceUsed()) yield;
    }
    this.heap = [];
    this.mem.clear();
    return out;
  }

  private emitSorted(): void {
    this.emit(finishSync(this.sorted()));
  }

  override end(): Ended {
    return this.finish(this.emitAll());
  }

  /** Sends the values held, largest first, a batch per slice. */
  private *emitAll(): Work {
    yield* this.emitSlices(yield* this.sorted());
  }
}

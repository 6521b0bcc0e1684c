// `top N <field>` from columns where its best values tie: the operator keeps
// a min-heap that follows Go's container/heap, so which of several equal
// values it keeps, and the order it emits them in, depend on every value it
// took in and when (an early value that is later dropped still moved the
// others). So the heap is run here as the operator runs it, over the field's
// numbers of every row the filter passes, in pool order — rows as their
// object's column indices, not values — and only the N rows it ends with are
// read. Pool order is that of the objects one after another where the
// objects holding passing rows do not overlap in key (a filter's one log, or
// logs of separate days); else null, and the operator runs on the rows.

import { DictVector, NumberVector, VALUE } from "../zed/vector.ts";
import type { ObjectColumns } from "./columns/mod.ts";
import type { DataObject } from "./objects.ts";
import type { Pick } from "./picks.ts";
import type { PoolKey } from "./poolkey.ts";
import { heapDown, type HeapPlaces, heapUp, type Selection } from "../query/mod.ts";

/**
 * The rows `top limit <path>` keeps, in the order it emits them (largest
 * first), or null where the columns cannot tell: objects that overlap, a
 * field that is not one kind of number held in columns, NaNs.
 */
export async function heapTopK(
  key: PoolKey,
  live: readonly DataObject[],
  cols: readonly ObjectColumns[],
  sels: readonly (Selection | null)[],
  path: readonly string[],
  limit: number,
): Promise<Pick[] | null> {
  const inOrder = objectsInOrder(key, live, cols, sels);
  if (inOrder === null) return null;
  const heap = new TopHeap(limit);
  for (const i of inOrder) {
    const c = cols[i], sel = sels[i];
    const rows = sel !== null && sel.all === false ? sel.rows : null;
    const refs = c.columnsOf(path);
    if (refs.length > 1) return null;
    let num: Float64Array | null = null;
    let big: BigInt64Array | BigUint64Array | null = null;
    let state: Uint8Array | null = null;
    if (refs.length === 1) {
      const v = await c.vector(refs[0]);
      state = v.state;
      if (v instanceof NumberVector) {
        num = v.f64;
        big = v.big;
      } else if (
        v instanceof DictVector && v.entries instanceof NumberVector && v.entries.big === null
      ) {
        const e = v.entries.f64, index = v.index;
        num = new Float64Array(c.rows);
        for (let r = 0; r < c.rows; r++) if (state[r] === VALUE) num[r] = e[index[r]];
      } else return null;
    }
    for (let r = 0; r < c.rows; r++) {
      if (rows !== null && rows[r] !== 1) continue;
      // A null, and a missing field, count as null: less than every number.
      const isNull = state === null || state[r] !== VALUE;
      const x = isNull ? 0 : num![r];
      if (x !== x) return null;
      heap.offer(isNull, x, isNull || big === null ? null : big[r], i, r);
    }
  }
  return heap.sorted();
}

/**
 * The objects holding passing rows, in pool order; null where two of them
 * overlap in key (or one holds rows without a key, which come last).
 */
function objectsInOrder(
  key: PoolKey,
  live: readonly DataObject[],
  cols: readonly ObjectColumns[],
  sels: readonly (Selection | null)[],
): number[] | null {
  const holding: number[] = [];
  for (let i = 0; i < live.length; i++) {
    const sel = sels[i];
    const any = sel === null || sel.all !== false ? cols[i].rows > 0 : sel.rows.includes(1);
    if (any) holding.push(i);
  }
  if (holding.length <= 1) return holding;
  holding.sort((a, b) => key.compare(live[a].first, live[b].first));
  for (let k = 1; k < holding.length; k++) {
    const prev = live[holding[k - 1]], next = live[holding[k]];
    if (prev.last.body === null || key.compare(prev.last, next.first) >= 0) return null;
  }
  return holding;
}

/**
 * The operator's heap (ops/top.ts) over rows: a null flag and a number each
 * (a double, and the exact integer where it is past 2^53, such as a time).
 */
class TopHeap implements HeapPlaces {
  private size = 0;
  private readonly nulls: Uint8Array;
  private readonly nums: Float64Array;
  private readonly bigs: (bigint | null)[];
  private readonly objs: Int32Array;
  private readonly rows: Int32Array;

  constructor(private readonly limit: number) {
    this.nulls = new Uint8Array(limit + 1);
    this.nums = new Float64Array(limit + 1);
    this.bigs = new Array<bigint | null>(limit + 1).fill(null);
    this.objs = new Int32Array(limit + 1);
    this.rows = new Int32Array(limit + 1);
  }

  /** Takes in one row, as the operator takes in a value. */
  offer(isNull: boolean, x: number, big: bigint | null, obj: number, row: number): void {
    if (this.size < this.limit) {
      this.push(isNull, x, big, obj, row);
      return;
    }
    // compare(heap[0], v) < 0
    const rootNull = this.nulls[0] === 1;
    const root = this.nums[0];
    const less = rootNull
      ? !isNull
      : !isNull && (root < x || (root === x && exactly(root, this.bigs[0], x, big) < 0));
    if (!less) return;
    this.push(isNull, x, big, obj, row);
    this.pop();
  }

  /** The rows held, largest first, as the operator emits them (popping the least). */
  sorted(): Pick[] {
    const out: Pick[] = new Array(this.size);
    for (let i = out.length - 1; i >= 0; i--) out[i] = this.pop();
    return out;
  }

  less(i: number, j: number): boolean {
    const a = this.nulls[i] === 1, b = this.nulls[j] === 1;
    if (a || b) return a && !b;
    const x = this.nums[i], y = this.nums[j];
    return x < y || (x === y && exactly(x, this.bigs[i], y, this.bigs[j]) < 0);
  }

  swap(i: number, j: number): void {
    const { nulls, nums, bigs, objs, rows } = this;
    const n = nulls[i], x = nums[i], g = bigs[i], o = objs[i], r = rows[i];
    nulls[i] = nulls[j];
    nums[i] = nums[j];
    bigs[i] = bigs[j];
    objs[i] = objs[j];
    rows[i] = rows[j];
    nulls[j] = n;
    nums[j] = x;
    bigs[j] = g;
    objs[j] = o;
    rows[j] = r;
  }

  private push(isNull: boolean, x: number, big: bigint | null, obj: number, row: number): void {
    const j = this.size++;
    this.nulls[j] = isNull ? 1 : 0;
    this.nums[j] = x;
    this.bigs[j] = big;
    this.objs[j] = obj;
    this.rows[j] = row;
    heapUp(this, j);
  }

  private pop(): Pick {
    const n = this.size - 1;
    this.swap(0, n);
    heapDown(this, 0, n);
    this.size = n;
    return { obj: this.objs[n], row: this.rows[n] };
  }
}

/** The order of two integers whose doubles are equal, by their exact values where known. */
export function exactly(x: number, a: bigint | null, y: number, b: bigint | null): number {
  if (a === null && b === null) return 0;
  const p = a ?? BigInt(x), q = b ?? BigInt(y);
  return p < q ? -1 : p > q ? 1 : 0;
}

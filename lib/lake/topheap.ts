// `top N <field>` from columns where its best values tie: the operator keeps
// a min-heap that follows Go's container/heap, so which of several equal
// values it keeps, and the order it emits them in, depend on every value it
// took in and when (an early value that is later dropped still moved the
// others). So the heap is run here as the operator runs it, over the field's
// numbers or strings of every row the filter passes, in pool order — rows as
// their object's column indices, not values — and only the N rows it ends
// with are read. Pool order is that of the objects one after another where
// the objects holding passing rows do not overlap in key (a filter's one log,
// or logs of separate days); else their rows merged by the key columns
// (keymerge.ts), equal keys in different objects by their values' bytes
// (ties.ts); null where the columns cannot tell, and the operator runs on
// the rows.

import { BinaryVector, DictVector, NumberVector, VALUE, type Vector } from "../zed/vector.ts";
import { compareStrings } from "../zed/utf8.ts";
import type { ObjectColumns } from "./columns/mod.ts";
import type { DataObject } from "./objects.ts";
import type { Pick } from "./picks.ts";
import type { PoolKey } from "./poolkey.ts";
import { rowsInPoolOrder } from "./poolorder.ts";
import { heapDown, type HeapPlaces, heapUp, type Selection } from "../query/mod.ts";

/** An object's values of the field: numbers (exact where big), or strings; null: none. */
interface FieldValues {
  state: Uint8Array | null;
  num: Float64Array | null;
  big: BigInt64Array | BigUint64Array | null;
  strs: readonly (string | undefined)[] | null;
}

/**
 * The rows `top limit <path>` keeps, in the order it emits them (largest
 * first), or null where the columns cannot tell: a field that is not one
 * kind of number, or strings, held in columns; NaNs; ties in key the
 * columns cannot order.
 */
export async function heapTopK(
  key: PoolKey,
  live: readonly DataObject[],
  cols: readonly ObjectColumns[],
  sels: readonly (Selection | null)[],
  path: readonly string[],
  limit: number,
): Promise<Pick[] | null> {
  const order = await passingInOrder(key, live, cols, sels);
  if (order === null) return null;
  const values: (FieldValues | undefined)[] = [];
  let strings: boolean | null = null;
  const heap = new TopHeap(limit);
  for (let t = 0; t < order.objs.length; t++) {
    const i = order.objs[t], rows = order.rows[t];
    let f = values[i];
    if (f === undefined) {
      const found = await fieldValues(cols[i], path);
      if (found === null) return null;
      f = values[i] = found;
      if (f.state !== null) {
        const s = f.strs !== null;
        if (strings !== null && strings !== s) return null; // (numbers and strings)
        strings = s;
      }
    }
    const { state, num, big, strs } = f;
    for (let k = order.from[t]; k < order.to[t]; k++) {
      const r = rows === null ? k : rows[k];
      // A null, and a missing field, count as null: less than every value.
      const isNull = state === null || state[r] !== VALUE;
      if (strs !== null) {
        heap.offerString(isNull, isNull ? "" : strs[r]!, i, r);
        continue;
      }
      const x = isNull ? 0 : num![r];
      if (x !== x) return null;
      heap.offer(isNull, x, isNull || big === null ? null : big[r], i, r);
    }
  }
  return heap.sorted();
}

/** An object's values of the field, or null where they are not one kind the heap takes. */
async function fieldValues(c: ObjectColumns, path: readonly string[]): Promise<FieldValues | null> {
  const refs = c.columnsOf(path);
  if (refs.length > 1) return null;
  if (refs.length === 0) return { state: null, num: null, big: null, strs: null };
  const v: Vector = await c.vector(refs[0]);
  const state = v.state;
  if (v instanceof NumberVector) return { state, num: v.f64, big: v.big, strs: null };
  if (v instanceof BinaryVector && v.isString) {
    const strs: string[] = new Array(c.rows);
    for (let r = 0; r < c.rows; r++) if (state[r] === VALUE) strs[r] = v.body(r) as string;
    return { state, num: null, big: null, strs };
  }
  if (v instanceof DictVector) {
    const index = v.index;
    if (v.entries instanceof NumberVector && v.entries.big === null) {
      const e = v.entries.f64;
      const num = new Float64Array(c.rows);
      for (let r = 0; r < c.rows; r++) if (state[r] === VALUE) num[r] = e[index[r]];
      return { state, num, big: null, strs: null };
    }
    const entries = v.dict;
    if (entries.length > 0 && typeof entries[0] === "string") {
      const strs: string[] = new Array(c.rows);
      for (let r = 0; r < c.rows; r++) {
        if (state[r] === VALUE) strs[r] = entries[index[r]] as string;
      }
      return { state, num: null, big: null, strs };
    }
  }
  return null;
}

/**
 * The rows the filter passes, in pool order, as runs of one object's rows:
 * object objs[t], rows rows[t][from[t], to[t]) (rows[t] null: the row
 * numbers themselves). Null where the columns cannot tell that order.
 */
async function passingInOrder(
  key: PoolKey,
  live: readonly DataObject[],
  cols: readonly ObjectColumns[],
  sels: readonly (Selection | null)[],
): Promise<
  { objs: number[]; rows: (Int32Array | null)[]; from: number[]; to: number[] } | null
> {
  const passing: (Int32Array | null)[] = [];
  const holding: number[] = [];
  for (let i = 0; i < live.length; i++) {
    const sel = sels[i];
    let rows: Int32Array | null = null;
    if (sel !== null && sel.all === false) {
      rows = new Int32Array(sel.count);
      for (let r = 0, n = 0; r < sel.rows.length; r++) if (sel.rows[r] === 1) rows[n++] = r;
    }
    passing.push(rows);
    if ((rows === null ? cols[i].rows : rows.length) > 0) holding.push(i);
  }
  const inOrder = objectsInOrder(key, live, holding);
  if (inOrder !== null) {
    return {
      objs: inOrder,
      rows: inOrder.map((i) => passing[i]),
      from: inOrder.map(() => 0),
      to: inOrder.map((i) => passing[i]?.length ?? cols[i].rows),
    };
  }
  // Overlapping objects: their passing rows merged by the key columns.
  const all = cols.map((c, i) => passing[i] ?? everyRow(c.rows));
  const merged = await rowsInPoolOrder(key, cols, all);
  if (merged === null) return null;
  const out = {
    objs: [] as number[],
    rows: [] as (Int32Array | null)[],
    from: [] as number[],
    to: [] as number[],
  };
  for (let t = 0; t < merged.length; t += 3) {
    const k = merged[t];
    out.objs.push(k);
    out.rows.push(all[k]);
    out.from.push(merged[t + 1]);
    out.to.push(merged[t + 2]);
  }
  return out;
}

/** The row numbers 0 to n-1. */
function everyRow(n: number): Int32Array {
  const rows = new Int32Array(n);
  for (let r = 0; r < n; r++) rows[r] = r;
  return rows;
}

/**
 * The objects holding passing rows, in pool order; null where two of them
 * overlap in key (or one holds rows without a key, which come last).
 */
function objectsInOrder(
  key: PoolKey,
  live: readonly DataObject[],
  holding: number[],
): number[] | null {
  if (holding.length <= 1) return holding;
  const sorted = holding.slice().sort((a, b) => key.compare(live[a].first, live[b].first));
  for (let k = 1; k < sorted.length; k++) {
    const prev = live[sorted[k - 1]], next = live[sorted[k]];
    if (prev.last.body === null || key.compare(prev.last, next.first) >= 0) return null;
  }
  return sorted;
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
  /** Strings, where the field's values are strings (then nums are unused). */
  private readonly strs: string[];
  /** Whether values are strings (set by the first offerString). */
  private strings = false;
  private readonly objs: Int32Array;
  private readonly rows: Int32Array;

  constructor(private readonly limit: number) {
    this.nulls = new Uint8Array(limit + 1);
    this.nums = new Float64Array(limit + 1);
    this.bigs = new Array<bigint | null>(limit + 1).fill(null);
    this.strs = new Array<string>(limit + 1).fill("");
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

  /** Takes in one row whose value is a string (or null), as the operator takes in a value. */
  offerString(isNull: boolean, s: string, obj: number, row: number): void {
    this.strings = true;
    if (this.size === this.limit) {
      // compare(heap[0], v) < 0
      const less = this.nulls[0] === 1 ? !isNull : !isNull && compareStrings(this.strs[0], s) < 0;
      if (!less) return;
    }
    const j = this.size++;
    this.nulls[j] = isNull ? 1 : 0;
    this.strs[j] = s;
    this.objs[j] = obj;
    this.rows[j] = row;
    heapUp(this, j);
    if (this.size > this.limit) this.pop();
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
    if (this.strings) return compareStrings(this.strs[i], this.strs[j]) < 0;
    const x = this.nums[i], y = this.nums[j];
    return x < y || (x === y && exactly(x, this.bigs[i], y, this.bigs[j]) < 0);
  }

  swap(i: number, j: number): void {
    const { nulls, nums, bigs, strs, objs, rows } = this;
    const n = nulls[i], x = nums[i], g = bigs[i], s = strs[i], o = objs[i], r = rows[i];
    nulls[i] = nulls[j];
    nums[i] = nums[j];
    bigs[i] = bigs[j];
    strs[i] = strs[j];
    objs[i] = objs[j];
    rows[i] = rows[j];
    nulls[j] = n;
    nums[j] = x;
    bigs[j] = g;
    strs[j] = s;
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

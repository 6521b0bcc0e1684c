// The pieces of a head's merge of key columns (head.ts): cursors over each
// object's rows and keys, the order of their keys, a heap of them, and the
// byte order of values from the prefixes the columns keep.

import { NULL } from "../query/mod.ts";
import { Kind, ordersAsInteger, typeUnder } from "../zed/types.ts";
import { Value } from "../zed/value.ts";
import { BinaryVector, NumberVector, VALUE, type Vector } from "../zed/vector.ts";
import { PREFIX } from "./columns/mod.ts";
import type { DataObject } from "./objects.ts";
import type { PoolKey } from "./poolkey.ts";

/**
 * A position in one object's rows: the next row that passes the filter, and
 * where its key is: a value, or for string and int columns its bytes or
 * number (compared without making values).
 */
export class Cursor {
  row = -1;
  /** VALUE when the row has a key (else it is null: last in pool order). */
  has = false;
  key: Value = NULL;
  start = 0;
  end = 0;
  num = 0;
  num2 = 0;
  /** For string keys: the length of the prefix all keys of the run share. */
  skip = 0;

  constructor(
    readonly obj: number,
    readonly rows: number,
    /** The keys of the object's first rows (all of them with a filter). */
    public keys: Vector | null,
    private sel: Uint8Array | null,
    /** Reads the keys of the first n rows, for more than keys holds. */
    private grow: ((n: number) => Vector) | null,
  ) {}

  /** Moves to the next row that passes; false at the end. */
  advance(): boolean {
    const sel = this.sel;
    let r = this.row + 1;
    if (sel !== null) { while (r < this.rows && sel[r] !== 1) r++; }
    this.row = r;
    if (r >= this.rows) return false;
    if (this.keys !== null && r >= this.keys.length) {
      this.keys = this.grow!(Math.min(this.rows, 2 * this.keys.length));
    }
    const v = this.keys;
    this.has = v !== null && v.state[r] === VALUE;
    if (!this.has) return true;
    if (v instanceof BinaryVector) {
      const a = v.offsets[r], b = v.offsets[r + 1];
      this.start = a;
      this.end = b;
      // Twelve bytes past the prefix every key of the run shares, as two
      // numbers that order as they do (a missing byte first).
      const d = v.data;
      let x = 0, y = 0;
      const at = a + this.skip;
      for (let k = at; k < at + 6; k++) x = x * 257 + (k < b ? d[k] + 1 : 0);
      for (let k = at + 6; k < at + 12; k++) y = y * 257 + (k < b ? d[k] + 1 : 0);
      this.num = x;
      this.num2 = y;
    } else if (v instanceof NumberVector) {
      // (As a double: int keys beyond 2^53 are told apart exactly on a tie.)
      this.num = v.f64[r];
    } else this.key = new Value(v!.type, v!.body(r));
    return true;
  }
}

/**
 * The length in bytes of the prefix every string key of a run of objects
 * shares: that of its least and greatest keys (0 for other keys).
 */
export function sharedPrefix(run: DataObject[]): number {
  let lo: string | null = null, hi: string | null = null;
  for (const o of run) {
    for (const k of [o.span.lo, o.span.hi]) {
      if (k === null || typeof k.body !== "string") return 0;
      if (lo === null || k.body < lo) lo = k.body;
      if (hi === null || k.body > hi) hi = k.body;
    }
  }
  if (lo === null || hi === null) return 0;
  const a = new TextEncoder().encode(lo), b = new TextEncoder().encode(hi);
  let n = 0;
  while (n < a.length && n < b.length && a[n] === b[n]) n++;
  return n;
}

/**
 * The order of cursors' keys in pool order, nulls last: bytes for string
 * columns of one type, numbers for int columns of one type, values otherwise.
 */
export function cursorOrder(
  keys: (Vector | null)[],
  poolKey: PoolKey,
): (a: Cursor, b: Cursor) => number {
  const present = keys.filter((v): v is Vector => v !== null);
  const t = present[0]?.type;
  const same = present.every((v) => v.type === t);
  const dir = poolKey.desc ? -1 : 1;
  const nulls = (a: Cursor, b: Cursor) => (a.has === b.has ? 0 : a.has ? -1 : 1);
  if (same && present.every((v) => v instanceof BinaryVector && v.isString)) {
    return (a, b) => {
      if (!a.has || !b.has) return nulls(a, b);
      if (a.num !== b.num) return a.num < b.num ? -dir : dir;
      if (a.num2 !== b.num2) return a.num2 < b.num2 ? -dir : dir;
      const x = (a.keys as BinaryVector).data, y = (b.keys as BinaryVector).data;
      const la = a.end - a.start, lb = b.end - b.start;
      const n = la < lb ? la : lb;
      for (let i = a.skip + 12; i < n; i++) {
        const d = x[a.start + i] - y[b.start + i];
        if (d !== 0) return d < 0 ? -dir : dir;
      }
      return la === lb ? 0 : la < lb ? -dir : dir;
    };
  }
  const u = t === undefined ? undefined : typeUnder(t);
  const ints = u !== undefined && u.kind === Kind.Primitive && ordersAsInteger(u.id);
  if (same && ints && present.every((v) => v instanceof NumberVector)) {
    // Doubles order 64-bit ints as they do, but may round two to one (times
    // in nanoseconds do): those are compared exactly.
    const exact = present.some((v) => (v as NumberVector).big !== null);
    return (a, b) => {
      if (!a.has || !b.has) return nulls(a, b);
      if (a.num !== b.num) return a.num < b.num ? -dir : dir;
      if (!exact) return 0;
      const x = (a.keys as NumberVector).exact(a.row), y = (b.keys as NumberVector).exact(b.row);
      return x === y ? 0 : x < y ? -dir : dir;
    };
  }
  return (a, b) => {
    if (!a.has || !b.has) return nulls(a, b);
    return poolKey.compare(keyValue(a), keyValue(b));
  };
}

/**
 * The byte order of two values' bodies from their prefixes and sizes
 * (negative, zero or positive), or undefined when those do not decide it.
 */
export function comparePrefixes(
  pa: Uint8Array,
  ra: number,
  la: number,
  pb: Uint8Array,
  rb: number,
  lb: number,
): number | undefined {
  const n = Math.min(PREFIX, la, lb);
  for (let k = 0; k < n; k++) {
    const d = pa[ra * PREFIX + k] - pb[rb * PREFIX + k];
    if (d !== 0) return d;
  }
  // Equal as far as both go: the shorter comes first, if it ended there.
  if (la <= PREFIX || lb <= PREFIX) return la - lb;
  return undefined;
}

function keyValue(c: Cursor): Value {
  return c.key !== NULL ? c.key : new Value(c.keys!.type, c.keys!.body(c.row));
}

const NONE: Cursor[] = [];

/** A binary min-heap of cursors. */
export class CursorHeap {
  constructor(private items: Cursor[], private less: (a: Cursor, b: Cursor) => number) {
    for (let i = (items.length >> 1) - 1; i >= 0; i--) this.down(i);
  }
  get size(): number {
    return this.items.length;
  }
  all(): Cursor[] {
    return this.items;
  }
  top(): Cursor {
    return this.items[0];
  }
  /**
   * The other cursors whose keys equal the top's: in a heap, any such one has
   * only equal keys above it, so the search goes down equal children only.
   */
  equalToTop(): Cursor[] {
    const a = this.items;
    // Most often neither child ties: no search.
    if (!this.ties(1) && !this.ties(2)) return NONE;
    const out: Cursor[] = [];
    const todo = [1, 2];
    while (todo.length > 0) {
      const i = todo.pop()!;
      if (!this.ties(i)) continue;
      out.push(a[i]);
      todo.push(2 * i + 1, 2 * i + 2);
    }
    return out;
  }
  /** Whether cursor i exists and ties with the top. */
  private ties(i: number): boolean {
    const a = this.items;
    return i < a.length && this.less(a[i], a[0]) === 0;
  }
  /** Restores order after the top moved. */
  fix(): void {
    this.down(0);
  }
  pop(): void {
    const last = this.items.pop()!;
    if (this.items.length > 0) {
      this.items[0] = last;
      this.down(0);
    }
  }
  private down(i: number): void {
    const a = this.items;
    for (;;) {
      const l = 2 * i + 1, r = l + 1;
      let m = i;
      if (l < a.length && this.less(a[l], a[m]) < 0) m = l;
      if (r < a.length && this.less(a[r], a[m]) < 0) m = r;
      if (m === i) return;
      // (A swap through a temporary: destructuring makes an array and its
      // iterator per step until the JIT has compiled this.)
      const t = a[i];
      a[i] = a[m];
      a[m] = t;
      i = m;
    }
  }
}

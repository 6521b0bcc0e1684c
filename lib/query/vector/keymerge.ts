// Merging a group's rows from several objects in pool order, for summaries
// whose aggregates depend on the order of their values (summarize.ts). Rows
// come in runs from one object (the parts of a split load interleave only
// near their edges): each run's end is found by a galloping search against
// the other objects' next keys, so most rows cost no comparison. Keys are
// compared from their columns where all are strings, or all integers (times
// and durations among them), of one type (bytes, or numbers), else as values.

import { MISSING, NULL } from "../runtime/values.ts";
import { Kind, ordersAsInteger, typeUnder } from "../../zed/types.ts";
import type { Value } from "../../zed/value.ts";
import { ABSENT, BinaryVector, NumberVector, VALUE, type Vector } from "../../zed/vector.ts";

/** The order of an object's rows, as summarize.ts reads them. */
export interface GroupRows {
  /** The rows of each group, in row order: rows[start[g], start[g+1]). */
  rows: Int32Array;
  start: Int32Array;
}

/** An object's pool keys: per row, a value (MISSING where it has none). */
export interface RowKeys {
  readonly vectors: Vector[];
  /** Per row, the vector holding it (null when there is at most one). */
  readonly col: Int16Array | null;
  value(i: number): Value;
}

/** The pool's order of keys: direction, and the order of key values (nulls last). */
export interface KeyOrder {
  readonly desc: boolean;
  compare(a: Value, b: Value): number;
}

/** A part of a group: its object (index into the run) and group there. */
export interface GroupPart {
  k: number;
  g: number;
}

/**
 * The pool order of two rows of a run's objects whose keys are equal (or
 * both absent): negative, zero or positive as row i of object a comes before,
 * with, or after row j of object b; undefined where it cannot be told.
 */
export type TieOrder = (a: number, i: number, b: number, j: number) => number | undefined;

/**
 * A group's rows in several objects merged in pool order, as runs of one
 * object's rows (triples: index into parts, and the run's range in that
 * object's rows); null where two objects' rows have equal keys, or a row
 * without a key would have to be placed among other objects' rows, unless
 * ties orders them (then null only where it cannot).
 */
export function mergeRows(
  run: readonly { p: GroupRows }[],
  parts: readonly GroupPart[],
  keys: RunKeys,
  ties?: TieOrder,
): Int32Array | null {
  const n = parts.length;
  if (n > scratch.live.length) scratch = new Scratch(2 * n);
  // Per part: where it is in its rows and where they end; its object, and
  // its rows there (as p.rows[at] gives them); whether it has rows left.
  const { pos, end, obj, live } = scratch;
  const rows: Int32Array[] = new Array(n);
  live.fill(0, 0, n);
  let total = 0;
  for (let c = 0; c < n; c++) {
    const { k, g } = parts[c];
    const p = run[k].p;
    obj[c] = k;
    rows[c] = p.rows;
    pos[c] = p.start[g];
    end[c] = p.start[g + 1];
    total += end[c] - pos[c];
    if (pos[c] < end[c]) {
      if (ties === undefined && keys.missing(k, p.rows[pos[c]])) return null;
      live[c] = 1;
    }
  }
  const sorted = inSequence(keys, n, rows);
  if (sorted !== null) return sorted;
  /** The order of parts c's and d's next rows (NaN: not known). */
  const before = (c: number, d: number): number => {
    const x = keys.compare(obj[c], rows[c][pos[c]], obj[d], rows[d][pos[d]]);
    if (x !== 0) return x;
    if (ties === undefined) return NaN;
    return ties(obj[c], rows[c][pos[c]], obj[d], rows[d][pos[d]]) ?? NaN;
  };
  // The live parts in a binary heap by their next rows: the root's is the
  // smallest, and the second smallest is one of its children's.
  const heap: number[] = [];
  for (let c = 0; c < n; c++) if (live[c] === 1) heap.push(c);
  let unknown = false;
  const less = (c: number, d: number): boolean => {
    const x = before(c, d);
    if (x !== x) unknown = true;
    return x < 0;
  };
  const down = (i: number): void => {
    const size = heap.length;
    for (;;) {
      const l = 2 * i + 1, r = l + 1;
      let m = i;
      if (l < size && less(heap[l], heap[m])) m = l;
      if (r < size && less(heap[r], heap[m])) m = r;
      if (m === i) return;
      const t = heap[i];
      heap[i] = heap[m];
      heap[m] = t;
      i = m;
    }
  };
  for (let i = (heap.length >> 1) - 1; i >= 0; i--) down(i);
  if (unknown) return null;
  const out: number[] = [];
  for (let left = total; left > 0;) {
    // The part with the smallest next row, and the smallest of the others'.
    const best = heap[0];
    let second = heap.length > 1 ? heap[1] : -1;
    if (heap.length > 2 && less(heap[2], second)) second = heap[2];
    if (unknown) return null;
    // Its rows before the others' next one: [pos, stop).
    let stop = end[best];
    const kb = obj[best], rb = rows[best];
    if (second >= 0) {
      const ks = obj[second], bound = rows[second][pos[second]];
      // Galloping by key: the first row whose key is not before the
      // bound's lies in (lo, hi] (keys ascend in pool order, nulls last).
      let lo = pos[best], step = 1, hi = lo + 1;
      for (;;) {
        if (hi >= end[best]) {
          hi = end[best];
          break;
        }
        if (ties === undefined && keys.missing(kb, rb[hi])) return null;
        const d = keys.compare(kb, rb[hi], ks, bound);
        if (d === 0 && ties === undefined) return null;
        if (d >= 0) break;
        lo = hi;
        step *= 2;
        hi = lo + step;
      }
      while (hi - lo > 1) {
        const mid = (lo + hi) >>> 1;
        if (ties === undefined && keys.missing(kb, rb[mid])) return null;
        const d = keys.compare(kb, rb[mid], ks, bound);
        if (d === 0 && ties === undefined) return null;
        if (d < 0) lo = mid;
        else hi = mid;
      }
      stop = hi;
      // Rows with the bound's key come before it as their values' order
      // says; within an object they keep their order, which is not the
      // values', so one by one.
      if (ties !== undefined) {
        while (stop < end[best] && keys.compare(kb, rb[stop], ks, bound) === 0) {
          const t = ties(kb, rb[stop], ks, bound);
          if (t === undefined) return null;
          if (t > 0) break;
          stop++;
        }
      }
    }
    out.push(best, pos[best], stop);
    left -= stop - pos[best];
    pos[best] = stop;
    if (stop < end[best]) {
      if (ties === undefined && keys.missing(kb, rb[stop])) return null;
    } else {
      live[best] = 0;
      heap[0] = heap[heap.length - 1];
      heap.pop();
    }
    if (heap.length > 0) down(0);
    if (unknown) return null;
  }
  return Int32Array.from(out);
}

/** mergeRows' typed arrays, per part, kept from call to call (a merge has a few parts). */
class Scratch {
  readonly pos: Int32Array;
  readonly end: Int32Array;
  readonly obj: Int32Array;
  readonly live: Uint8Array;
  constructor(n: number) {
    this.pos = new Int32Array(n);
    this.end = new Int32Array(n);
    this.obj = new Int32Array(n);
    this.live = new Uint8Array(n);
  }
}

let scratch = new Scratch(16);

/**
 * The parts one after another, as runs (see mergeRows), when each one's rows
 * come before the next one's: the parts in some order, each part's last key
 * before the next part's first; else null. The order tried first is the
 * one the run's last such merge found (its objects' ranks: a run's groups
 * mostly lie in its objects in one order), then the parts' first keys'.
 * The n parts are those mergeRows set up in scratch, their rows in rows.
 * (Objects hold their rows in pool order, nulls last: a part whose last row
 * has a key has keys throughout.)
 */
function inSequence(keys: RunKeys, n: number, rows: Int32Array[]): Int32Array | null {
  const { pos, end, obj, live } = scratch;
  const order: number[] = [];
  const rank = keys.rank;
  for (let c = 0; c < n; c++) {
    if (live[c] === 0) continue;
    if (keys.missing(obj[c], rows[c][end[c] - 1])) return null;
    // Insertion by rank (a group has a few parts).
    let at = order.length;
    while (at > 0 && rank[obj[order[at - 1]]] > rank[obj[c]]) at--;
    order.splice(at, 0, c);
  }
  if (!followOneAnother(keys, order, rows)) {
    // Insertion by first key.
    for (let t = 1; t < order.length; t++) {
      const c = order[t];
      let at = t;
      while (at > 0) {
        const b = order[at - 1];
        if (keys.compare(obj[c], rows[c][pos[c]], obj[b], rows[b][pos[b]]) >= 0) break;
        order[at] = b;
        at--;
      }
      order[at] = c;
    }
    if (!followOneAnother(keys, order, rows)) return null;
    for (let t = 0; t < order.length; t++) rank[obj[order[t]]] = t;
  }
  const out = new Int32Array(3 * order.length);
  for (let t = 0; t < order.length; t++) {
    const c = order[t];
    out[3 * t] = c;
    out[3 * t + 1] = pos[c];
    out[3 * t + 2] = end[c];
  }
  return out;
}

/** Whether each part's last key comes before the next part's first, in this order. */
function followOneAnother(keys: RunKeys, order: number[], rows: Int32Array[]): boolean {
  const { pos, end, obj } = scratch;
  for (let t = 1; t < order.length; t++) {
    const b = order[t - 1], c = order[t];
    if (keys.compare(obj[b], rows[b][end[b] - 1], obj[c], rows[c][pos[c]]) >= 0) return false;
  }
  return true;
}

/**
 * The pool keys of a run's objects, compared row against row in pool order,
 * nulls last: from their columns where every object's keys are one column
 * of strings, or of integers, of one type (as bytes, or numbers), else as
 * values. Made once per run, for all its groups.
 */
export class RunKeys {
  /** Per object: its key column when it is one (of the same type in every object, when kind is not 0). */
  private vectors: (Vector | null)[];
  /** How the columns compare: 1 as bytes, 2 as numbers, 0 not at all (values). */
  private kind: number;
  /**
   * Whether some int column holds values beyond 2^53, which doubles may
   * round alike: equal doubles are then compared exactly.
   */
  private exact: boolean;
  private dir: number;
  /** Per object: its string key column's bytes as a DataView (kind 1), compared four at a time. */
  private views: (DataView | null)[];
  /**
   * Per object: its place in the order the last merge of parts one after
   * another found (inSequence tries that order first).
   */
  readonly rank: Int32Array;

  constructor(private keys: readonly (RowKeys | null)[], private order: KeyOrder) {
    this.dir = order.desc ? -1 : 1;
    this.vectors = keys.map((pk) =>
      pk !== null && pk.col === null && pk.vectors.length === 1 ? pk.vectors[0] : null
    );
    this.kind = columnKind(this.vectors.filter((_, k) => keys[k] !== null));
    this.exact = this.kind === 2 &&
      this.vectors.some((v) => v !== null && (v as NumberVector).big !== null);
    this.views = this.vectors.map((v) =>
      this.kind === 1 && v !== null
        ? new DataView(
          (v as BinaryVector).data.buffer,
          (v as BinaryVector).data.byteOffset,
          (v as BinaryVector).data.byteLength,
        )
        : null
    );
    this.rank = Int32Array.from(keys, (_, k) => k);
  }

  /** Whether row i of object k has no key. */
  missing(k: number, i: number): boolean {
    if (this.kind !== 0) return this.vectors[k]!.state[i] === ABSENT;
    return this.keys[k]!.value(i) === MISSING;
  }

  /** Negative, zero or positive as row i of object a comes before, with, or after row j of b. */
  compare(a: number, i: number, b: number, j: number): number {
    if (this.kind === 0) {
      // (A row without a key as one whose key is null, as a scan takes it.)
      const x = this.keys[a]!.value(i), y = this.keys[b]!.value(j);
      return this.order.compare(x === MISSING ? NULL : x, y === MISSING ? NULL : y);
    }
    const x = this.vectors[a]!, y = this.vectors[b]!;
    const sx = x.state[i], sy = y.state[j];
    if (sx !== VALUE || sy !== VALUE) {
      // Nulls last, in either direction (absent keys as null ones).
      if (sx !== VALUE && sy !== VALUE) return 0;
      return sx === VALUE ? -1 : 1;
    }
    let c: number;
    if (this.kind === 2) {
      const p = (x as NumberVector).f64[i], q = (y as NumberVector).f64[j];
      c = p < q
        ? -1
        : p > q
        ? 1
        : this.exact
        ? compareExact((x as NumberVector).exact(i), (y as NumberVector).exact(j))
        : 0;
    } else {
      c = compareBytes(x as BinaryVector, this.views[a]!, i, y as BinaryVector, this.views[b]!, j);
    }
    return c * this.dir;
  }
}

/** How key columns compare: 1 strings of one type (bytes), 2 ints of one type (numbers), else 0. */
function columnKind(vectors: readonly (Vector | null)[]): number {
  const first = vectors[0];
  if (first === null || first === undefined) return 0;
  if (!vectors.every((v) => v !== null && v.type === first.type)) return 0;
  if (vectors.every((v) => v instanceof BinaryVector && v.isString)) return 1;
  const u = typeUnder(first.type);
  const ints = u.kind === Kind.Primitive && ordersAsInteger(u.id);
  if (ints && vectors.every((v) => v instanceof NumberVector)) return 2;
  return 0;
}

function compareExact(p: bigint, q: bigint): number {
  return p === q ? 0 : p < q ? -1 : 1;
}

/**
 * The byte order of two strings in their columns (UTF-8 bytes order as code
 * points do), four bytes at a time (as big-endian words, which order as
 * their bytes do) while both have four left: keys such as times share long
 * prefixes.
 */
function compareBytes(
  x: BinaryVector,
  vx: DataView,
  i: number,
  y: BinaryVector,
  vy: DataView,
  j: number,
): number {
  let a = x.offsets[i], b = y.offsets[j];
  const la = x.offsets[i + 1] - a, lb = y.offsets[j + 1] - b;
  const n = la < lb ? la : lb;
  const words = a + (n & ~3);
  for (; a < words; a += 4, b += 4) {
    const p = vx.getUint32(a), q = vy.getUint32(b);
    if (p !== q) return p < q ? -1 : 1;
  }
  const dx = x.data, dy = y.data;
  for (const stop = a + (n & 3); a < stop; a++, b++) {
    const d = dx[a] - dy[b];
    if (d !== 0) return d < 0 ? -1 : 1;
  }
  return la === lb ? 0 : la < lb ? -1 : 1;
}

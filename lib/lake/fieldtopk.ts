// `sort [-r] <field> | head N` by any field (the pool key too, after a filter
// the columns run), and `top N <field>` (where its best values tie, its heap
// decides: topheap.ts), from the objects' columns: each object's column of
// the field (one type of number or string throughout the pool) gives its N
// best rows that pass the filter, with every row tied with the Nth (by their
// doubles: 64-bit integers past 2^53, such as times, then compare exactly);
// of those, the N best overall are taken in the sort's order, equal values in
// pool order (the sort is stable over the pool's order), and only they are
// made into values (picks.ts).
//
// Anything the columns cannot settle exactly as the sort operator over the
// pool's rows would gives null, and the caller sorts the rows instead: a
// field of several types, of a type columns do not hold in some record type,
// NaNs, fewer than N values (nulls and missing fields sort last). Tied values
// whose rows have equal pool keys in different objects are ordered as the
// pool orders them, by their encoded bytes.

import { type HeadCut, lookupPath, type Selection, type VectorFilter } from "../query/mod.ts";
import { compareStrings } from "../zed/utf8.ts";
import {
  ID_INT8,
  ID_STRING,
  ID_UINT8,
  isNumber,
  Kind,
  type Type,
  typeUnder,
} from "../zed/types.ts";
import type { Body, Value } from "../zed/value.ts";
import { BinaryVector, DictVector, NumberVector, VALUE, type Vector } from "../zed/vector.ts";
import type { Lake } from "./lake.ts";
import type { DataObject } from "./objects.ts";
import { countWholeRead, inPoolOrder, liveColumns, type Pick, PickedValues } from "./picks.ts";
import type { PoolKey } from "./poolkey.ts";
import type { PoolConfig } from "./pools.ts";
import type { KeyRange } from "./prune.ts";
import type { ScanStats } from "./scan.ts";
import { exactly, heapTopK } from "./topheap.ts";

export interface FieldTopKPlan {
  path: string[];
  reverse: boolean;
  /**
   * The last `limit` values in the sort's order (a tail's) rather than the
   * first: where every row the filter passes has a value (nulls and missing
   * values sort last, so would be the tail), the best in the reverse order.
   */
  last?: boolean;
  limit: number;
  range: KeyRange | null;
  /** The filter over columns, or null when there is no filter. */
  vector: VectorFilter | null;
  /** The top-level fields the query reads, or null for all. */
  fields: string[] | null;
  /**
   * For `top`, whose ties follow its heap: the best `limit` values must
   * differ from each other and from every other value, else null.
   */
  distinct?: boolean;
  /** A cut of fields by name (the field among them) the values are made with. */
  cut?: HeadCut;
}

/**
 * The most values, and tied rows, a top-k from columns holds; more is left to
 * the sort, which spills and counts what it holds against the query's memory.
 */
const MAX_LIMIT = 10_000;
const MAX_CANDIDATES = 200_000;

/** Numbers the sort compares as numbers (int8 and uint8 it compares by their bytes). */
function numeric(id: number): boolean {
  return isNumber(id) && id !== ID_INT8 && id !== ID_UINT8;
}

const EMPTY = new Float64Array(0);

/**
 * A row that may be among the best: its object, row and sort value (a
 * number, exact where big is null, else the double nearest big; or a string).
 */
interface Candidate extends Pick {
  num: number;
  big: bigint | null;
  str: string;
}

/**
 * The values the sort and head give, or null when the columns cannot tell
 * (then nothing has been counted in stats).
 */
export async function fieldTopK(
  lake: Lake,
  pool: PoolConfig,
  key: PoolKey,
  objects: DataObject[],
  plan: FieldTopKPlan,
  stats: ScanStats,
): Promise<Value[] | null> {
  const { path, limit, range } = plan;
  if (limit > MAX_LIMIT) return null;
  // The rows kept are the best in this order (the sort's, or its reverse for a tail).
  const keep = plan.last ? !plan.reverse : plan.reverse;
  const found = await liveColumns(lake, pool, objects, range, plan.vector);
  if (found === null) return null;
  const { live, cols, sels } = found;
  let type: Type | null = null;
  let all: Candidate[] = [];
  let values = 0;
  // For a tail: rows without a value (null or missing), which sort last; how
  // many, and each object's last `limit` of them.
  let lacking = 0;
  const without: Candidate[] = [];
  /** For a top: more tied candidates than are kept, or too few values (its heap decides). */
  let overflow = false;
  for (let i = 0; i < live.length; i++) {
    const c = cols[i], sel = sels[i];
    if (sel !== null && sel.count === 0) continue; // (a log the filter has no rows of)
    const refs = c.columnsOf(path);
    if (refs.length > 1) return null;
    const ref = refs.length === 1 ? refs[0] : null;
    // A record type with the field but no column of it hides its values.
    for (let k = 0; k < c.types.length; k++) {
      if (c.typeCounts[k] === 0 || ref?.covers.includes(k)) continue;
      if (lookupPath(c.types[k], path).kind !== "missing") return null;
    }
    const selected = sel === null ? c.rows : sel.count;
    if (ref === null) {
      if (plan.last) lacking += lastWithout(null, c.rows, sel, i, limit, without);
      continue;
    }
    if (type === null) {
      const u = typeUnder(ref.type);
      if (u.kind !== Kind.Primitive || !(numeric(u.id) || u.id === ID_STRING)) return null;
      type = ref.type;
    } else if (ref.type !== type) return null;
    const v = await c.vector(ref);
    const found = best(v, sel?.all === false ? sel.rows : null, i, limit, keep);
    if (found === null) {
      // (A top's heap takes every row, however many tie: topheap.ts.)
      if (!plan.distinct) return null;
      overflow = true;
      break;
    }
    if (plan.last && found.values < selected) {
      lacking += lastWithout(v, c.rows, sel, i, limit, without);
    }
    values += found.values;
    all = keepBest(all.concat(found.rows), limit, keep);
    if (all.length > MAX_CANDIDATES) {
      if (!plan.distinct) return null;
      overflow = true;
      break;
    }
  }
  // Fewer values than the limit: a top keeps nulls too, as its heap does.
  if (values < limit && plan.distinct) overflow = true;
  if (values < limit && !plan.last && !plan.distinct) return null;
  const made = new PickedValues(lake, pool, key, plan.fields, plan.cut ?? null, stats, false);
  let picks: Pick[] | null;
  if (plan.last) {
    // The last rows without a value in pool order (the sort keeps their order),
    // after the greatest values, as many as are left for them.
    const last = lacking > 0 ? await inPoolOrder(without, live, cols, key, made) : [];
    const wanted = limit - Math.min(lacking, limit);
    const greatest = wanted > 0
      ? await inPoolOrder(all, live, cols, key, made, byValue(plan.reverse))
      : [];
    if (last === null || greatest === null) return null;
    picks = [...greatest.slice(Math.max(0, greatest.length - wanted)), ...last.slice(-limit)];
  } else if (plan.distinct && (overflow || !distinctBest(all, limit, plan.reverse))) {
    // Ties among a top's best: its heap decides which it keeps (topheap.ts).
    picks = await heapTopK(key, live, cols, sels, path, limit);
  } else picks = await inPoolOrder(all, live, cols, key, made, byValue(plan.reverse));
  if (picks === null) return null;
  const out = await made.values(live, cols, picks.slice(0, limit));
  await countWholeRead(stats, objects, live, cols, sels);
  return out;
}

/**
 * An object's rows that may be among the best: its `limit` best selected
 * values and every row whose double ties with the last of them; null for a
 * NaN. Also how many selected rows hold a value.
 */
function best(
  v: Vector,
  sel: Uint8Array | null,
  obj: number,
  limit: number,
  reverse: boolean,
): { rows: Candidate[]; values: number } | null {
  const state = v.state, n = state.length;
  // Per row a number that orders as wanted (reverse: the sort's reverse), least first.
  const order = new Float64Array(n);
  const sign = reverse ? -1 : 1;
  // The sort values: numbers in num, strings in strs (or the entries of a dictionary).
  let num: Float64Array = EMPTY;
  let strs: Body[] | null = null;
  let big: BigInt64Array | BigUint64Array | null = null;
  if (v instanceof NumberVector) {
    // 64-bit integers past 2^53 (times): their doubles order them but for
    // ties, which the candidates' exact values settle (byValue).
    num = v.f64;
    big = v.big;
  } else if (v instanceof DictVector) {
    const entries = v.dict as Body[];
    const index = v.index;
    if (typeof entries[0] === "string") strs = entries;
    else {
      for (const e of entries) if (typeof e !== "number") return null;
      num = new Float64Array(n);
      for (let r = 0; r < n; r++) if (state[r] === VALUE) num[r] = entries[index[r]] as number;
    }
  } else if (v instanceof BinaryVector && v.isString) {
    strs = new Array(n);
    for (let r = 0; r < n; r++) strs[r] = state[r] === VALUE ? v.body(r) : "";
  } else {
    for (let r = 0; r < n; r++) if (state[r] === VALUE) return null;
    return { rows: [], values: 0 };
  }
  const entry = v instanceof DictVector && strs !== null ? v.index : null;
  if (strs === null) {
    for (let r = 0; r < n; r++) {
      if (state[r] !== VALUE) continue;
      if (num[r] !== num[r]) return null;
      order[r] = sign * num[r];
    }
  } else {
    const rank = ranks(strs);
    for (let r = 0; r < n; r++) {
      if (state[r] === VALUE) order[r] = sign * rank[entry === null ? r : entry[r]];
    }
  }
  // The limit-th least, by a max-heap of the least so far.
  const heap = new Float64Array(limit);
  let size = 0, values = 0;
  for (let r = 0; r < n; r++) {
    if (state[r] !== VALUE || (sel !== null && sel[r] !== 1)) continue;
    values++;
    const x = order[r];
    if (size < limit) {
      let i = size++;
      while (i > 0) {
        const up = (i - 1) >> 1;
        if (heap[up] >= x) break;
        heap[i] = heap[up];
        i = up;
      }
      heap[i] = x;
    } else if (x < heap[0]) {
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= limit) break;
        const c = l + 1 < limit && heap[l + 1] > heap[l] ? l + 1 : l;
        if (heap[c] <= x) break;
        heap[i] = heap[c];
        i = c;
      }
      heap[i] = x;
    }
  }
  const bound = size < limit ? Infinity : heap[0];
  const rows: Candidate[] = [];
  for (let r = 0; r < n; r++) {
    if (state[r] !== VALUE || (sel !== null && sel[r] !== 1) || order[r] > bound) continue;
    const str = strs === null ? "" : strs[entry === null ? r : entry[r]] as string;
    if (rows.length === MAX_CANDIDATES) return null;
    rows.push({ obj, row: r, num: strs === null ? num[r] : 0, big: big?.[r] ?? null, str });
  }
  return { rows, values };
}

/**
 * Adds to out an object's last `limit` rows the selection passes (all rows:
 * sel null) that hold no value in v (null: none do); returns how many such
 * rows it has in all.
 */
function lastWithout(
  v: Vector | null,
  rows: number,
  sel: Selection | null,
  obj: number,
  limit: number,
  out: Candidate[],
): number {
  const state = v?.state ?? null;
  const passes = sel?.all === false ? sel.rows : null;
  let count = 0;
  for (let r = rows - 1; r >= 0; r--) {
    if ((passes !== null && passes[r] !== 1) || (state !== null && state[r] === VALUE)) continue;
    if (count++ < limit) out.push({ obj, row: r, num: 0, big: null, str: "" });
  }
  return count;
}

/** Each string's rank in the sort's order of strings (equal strings, equal ranks). */
function ranks(strings: readonly Body[]): Float64Array {
  const idx = Array.from(strings.keys());
  idx.sort((a, b) => compareStrings(strings[a] as string, strings[b] as string));
  const rank = new Float64Array(strings.length);
  for (let i = 1; i < idx.length; i++) {
    const same = strings[idx[i]] === strings[idx[i - 1]];
    rank[idx[i]] = same ? rank[idx[i - 1]] : i;
  }
  return rank;
}

/** Compares candidates' values in the sort's order. */
function byValue(reverse: boolean): (a: Candidate, b: Candidate) => number {
  const cmp = (a: Candidate, b: Candidate) =>
    a.num < b.num
      ? -1
      : a.num > b.num
      ? 1
      : exactly(a.num, a.big, b.num, b.big) || compareStrings(a.str, b.str);
  return reverse ? (a, b) => cmp(b, a) : cmp;
}

/** Whether the best `limit` candidates (and those tied with the last) are `limit` distinct values. */
function distinctBest(rows: Candidate[], limit: number, reverse: boolean): boolean {
  if (rows.length !== limit) return false;
  const cmp = byValue(reverse);
  const sorted = rows.slice().sort(cmp);
  for (let i = 1; i < sorted.length; i++) if (cmp(sorted[i - 1], sorted[i]) === 0) return false;
  return true;
}

/** The `limit` best candidates and every one tied with the last of them. */
function keepBest(rows: Candidate[], limit: number, reverse: boolean): Candidate[] {
  if (rows.length <= limit) return rows;
  const cmp = byValue(reverse);
  rows.sort(cmp);
  let n = limit;
  while (n < rows.length && cmp(rows[n], rows[limit - 1]) === 0) n++;
  return rows.slice(0, n);
}

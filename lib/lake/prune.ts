// What a filter says about the pool key, for skipping data: comparisons of the
// key with literals (`ts >= a and ts < b`, `x == k`), combined through `and`
// and `or`, give a range of keys outside which no value can pass. Anything
// else gives no range. Null keys never pass a comparison with a literal, so
// a range also excludes them.

import { type ast, fieldPathOf, literalValue } from "../query/mod.ts";
import { compareValues } from "../zed/compare.ts";
import { isNumber, underId } from "../zed/types.ts";
import type { Value } from "../zed/value.ts";
import type { KeySpan, SeekEntry } from "./objects.ts";

export interface Bound {
  value: Value;
  inclusive: boolean;
}

/** Keys in [lo, hi] in value order (not pool order); a null bound is open. */
export interface KeyRange {
  lo: Bound | null;
  hi: Bound | null;
}

/** The key range a filter implies, or null when it implies none. */
export function keyRange(e: ast.Expr | null, key: string[]): KeyRange | null {
  if (e === null || e.kind !== "BinaryExpr") return null;
  switch (e.op) {
    case "and": {
      const a = keyRange(e.lhs, key), b = keyRange(e.rhs, key);
      if (a === null || b === null) return a ?? b;
      if (!comparable(a, b)) return a;
      return { lo: tighter(a.lo, b.lo, 1), hi: tighter(a.hi, b.hi, -1) };
    }
    case "or": {
      const a = keyRange(e.lhs, key), b = keyRange(e.rhs, key);
      if (a === null || b === null || !comparable(a, b)) return null;
      const lo = looser(a.lo, b.lo, -1), hi = looser(a.hi, b.hi, 1);
      // `ts < a or ts >= b` bounds nothing.
      return lo === null && hi === null ? null : { lo, hi };
    }
    case "==":
    case "<":
    case "<=":
    case ">":
    case ">=":
      return comparison(e.op, e.lhs, e.rhs, key) ??
        comparison(mirror[e.op], e.rhs, e.lhs, key);
  }
  return null;
}

const mirror: Record<string, string> = { "==": "==", "<": ">", "<=": ">=", ">": "<", ">=": "<=" };

function comparison(op: string, field: ast.Expr, lit: ast.Expr, key: string[]): KeyRange | null {
  if (lit.kind !== "Primitive" || lit.type === "null" || !samePath(field, key)) return null;
  let value: Value;
  try {
    value = literalValue(lit);
  } catch {
    return null;
  }
  switch (op) {
    case "==":
      return { lo: { value, inclusive: true }, hi: { value, inclusive: true } };
    case "<":
    case "<=":
      return { lo: null, hi: { value, inclusive: op === "<=" } };
    default:
      return { lo: { value, inclusive: op === ">=" }, hi: null };
  }
}

/** Whether e is the field path key (`ts`, `this.ts`, `id.orig_h`). */
function samePath(e: ast.Expr, key: string[]): boolean {
  const path = fieldPathOf(e);
  return path !== null && path.length === key.length && path.every((p, i) => p === key[i]);
}

/** Whether two values compare by value (same type, or both numbers). */
function sameKind(a: Value, b: Value): boolean {
  const x = underId(a.type), y = underId(b.type);
  return x === y || (isNumber(x) && isNumber(y));
}

function comparable(a: KeyRange, b: KeyRange): boolean {
  const v = (a.lo ?? a.hi)!.value;
  for (const bound of [a.lo, a.hi, b.lo, b.hi]) {
    if (bound !== null && !sameKind(v, bound.value)) return false;
  }
  return true;
}

function cmp(a: Value, b: Value): number {
  return compareValues(a.type, a.body, b.type, b.body);
}

/** Of two bounds, the one that admits less (dir 1: the greater lower bound). */
function tighter(a: Bound | null, b: Bound | null, dir: number): Bound | null {
  if (a === null || b === null) return a ?? b;
  const c = cmp(a.value, b.value) * dir;
  if (c !== 0) return c > 0 ? a : b;
  return a.inclusive ? b : a;
}

/** Of two bounds, the one that admits more; an open bound admits everything. */
function looser(a: Bound | null, b: Bound | null, dir: number): Bound | null {
  if (a === null || b === null) return null;
  const c = cmp(a.value, b.value) * dir;
  if (c !== 0) return c > 0 ? a : b;
  return a.inclusive ? a : b;
}

/** True when k is below the range's upper bound (or at it, inclusively). */
export function belowHi(k: Value, r: KeyRange): boolean {
  if (r.hi === null) return true;
  const c = cmp(k, r.hi.value);
  return c < 0 || (c === 0 && r.hi.inclusive);
}

export function aboveLo(k: Value, r: KeyRange): boolean {
  if (r.lo === null) return true;
  const c = cmp(k, r.lo.value);
  return c > 0 || (c === 0 && r.lo.inclusive);
}

function rangeKind(r: KeyRange): Value {
  return (r.lo ?? r.hi)!.value;
}

/** Whether an object whose keys span `span` may hold a key in r. */
export function spanMayMatch(span: KeySpan, r: KeyRange): boolean {
  if (span.mixed) return true;
  if (span.lo === null || span.hi === null) return false; // only null keys
  if (!sameKind(span.lo, rangeKind(r))) return true;
  return belowHi(span.lo, r) && aboveLo(span.hi, r);
}

/**
 * The streams of an object (by seek-index entry) that may hold a key in r:
 * [first, last] entry indexes, or null when none can. Stream i holds keys
 * between its entry's key and the next entry's key (nulls come last).
 */
export function seekStreams(
  entries: SeekEntry[],
  desc: boolean,
  r: KeyRange,
): [number, number] | null {
  const kind = rangeKind(r);
  for (const e of entries) {
    if (e.key.body !== null && !sameKind(e.key, kind)) return [0, entries.length - 1];
  }
  let first = -1, last = -1;
  for (let i = 0; i < entries.length; i++) {
    const start = entries[i].key;
    if (start.body === null) break; // streams of null keys match nothing
    const next = i + 1 < entries.length ? entries[i + 1].key : null;
    // The stream's keys lie between start and next (inclusive) in pool order.
    let lo: Value | null = start;
    let hi: Value | null = next !== null && next.body !== null ? next : null;
    if (desc) [lo, hi] = [hi, start];
    const ok = (lo === null || belowHi(lo, r)) && (hi === null || aboveLo(hi, r));
    if (ok) {
      if (first < 0) first = i;
      last = i;
    }
  }
  return first < 0 ? null : [first, last];
}

/**
 * The key range of a filter that is nothing but comparisons of the key with
 * literals joined by `and`: a value passes exactly when its key is in the
 * range. Null for any other filter.
 */
export function exactKeyRange(e: ast.Expr, key: string[]): KeyRange | null {
  if (e.kind !== "BinaryExpr") return null;
  if (e.op === "and") {
    const a = exactKeyRange(e.lhs, key), b = exactKeyRange(e.rhs, key);
    if (a === null || b === null || !comparable(a, b)) return null;
    return { lo: tighter(a.lo, b.lo, 1), hi: tighter(a.hi, b.hi, -1) };
  }
  return ["==", "<", "<=", ">", ">="].includes(e.op) ? keyRange(e, key) : null;
}

/** Whether every key of an object with this span and these ends is in r. */
export function spanWithin(span: KeySpan, first: Value, last: Value, r: KeyRange): boolean {
  if (span.mixed || span.lo === null || span.hi === null) return false;
  if (first.body === null || last.body === null) return false; // has null keys
  if (!sameKind(span.lo, rangeKind(r))) return false;
  return aboveLo(span.lo, r) && belowHi(span.hi, r);
}

/** The keys in both ranges (either may be null: no constraint). */
export function intersectRanges(a: KeyRange | null, b: KeyRange | null): KeyRange | null {
  if (a === null || b === null) return a ?? b;
  if (!comparable(a, b)) return a;
  return { lo: tighter(a.lo, b.lo, 1), hi: tighter(a.hi, b.hi, -1) };
}

/** Whether a key is in a range (null keys never are). */
export function keyInRange(k: Value, r: KeyRange): boolean {
  if (k.body === null) return false;
  return aboveLo(k, r) && belowHi(k, r);
}

/**
 * Whether an object's non-null keys are all of one type that compares by
 * value with the range's bounds (so keyInRange decides the filter exactly).
 */
export function spanComparable(span: KeySpan, r: KeyRange): boolean {
  return !span.mixed && span.lo !== null && (r.lo !== null || r.hi !== null) &&
    sameKind(span.lo, rangeKind(r));
}

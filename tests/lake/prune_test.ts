import assert from "node:assert/strict";
import { parseQuery } from "../../lib/query/parser/parse.ts";
import type * as ast from "../../lib/query/ast.ts";
import {
  exactKeyRange,
  type KeyRange,
  keyRange,
  seekStreams,
  spanMayMatch,
  spanWithin,
} from "../../lib/lake/prune.ts";
import { NULL } from "../../lib/query/runtime/values.ts";
import { TypeInt64, TypeString } from "../../lib/zed/types.ts";
import { Value } from "../../lib/zed/value.ts";
import type { KeySpan, SeekEntry } from "../../lib/lake/objects.ts";

function filter(text: string): ast.Expr {
  const op = parseQuery(text).ops[0];
  if (op.kind !== "OpExpr" && op.kind !== "Where") throw new Error("not a filter");
  return op.expr;
}

const int = (n: number) => new Value(TypeInt64, n);

function show(r: KeyRange | null): string {
  if (r === null) return "none";
  const lo = r.lo === null ? "(" : (r.lo.inclusive ? "[" : "(") + r.lo.value.body;
  const hi = r.hi === null ? ")" : r.hi.value.body + (r.hi.inclusive ? "]" : ")");
  return `${lo},${hi}`;
}

Deno.test("key comparisons give ranges, combined by and/or", () => {
  const k = ["ts"];
  assert.equal(show(keyRange(filter("ts >= 1 and ts < 5"), k)), "[1,5)");
  assert.equal(show(keyRange(filter("ts == 3"), k)), "[3,3]");
  assert.equal(show(keyRange(filter("5 > ts"), k)), "(,5)");
  assert.equal(show(keyRange(filter("ts > 1 and ts > 3 and ts <= 9"), k)), "(3,9]");
  assert.equal(show(keyRange(filter("ts == 1 or ts == 7"), k)), "[1,7]");
  assert.equal(show(keyRange(filter("ts < 1 or x == 7"), k)), "none");
  assert.equal(show(keyRange(filter("ts < 4 and x == 7"), k)), "(,4)");
  assert.equal(show(keyRange(filter("ts != 4"), k)), "none");
  assert.equal(show(keyRange(filter("x > 4"), k)), "none");
  assert.equal(show(keyRange(filter("a.b >= 2"), ["a", "b"])), "[2,)");
  assert.equal(show(keyRange(filter("this.a.b >= 2"), ["a", "b"])), "[2,)");
  assert.equal(show(keyRange(filter("ts == null"), k)), "none");
});

Deno.test("only pure key conjunctions are exact", () => {
  const k = ["ts"];
  assert.equal(show(exactKeyRange(filter("ts >= 1 and ts < 5"), k)), "[1,5)");
  assert.equal(exactKeyRange(filter("ts >= 1 and x < 5"), k), null);
  assert.equal(exactKeyRange(filter("ts == 1 or ts == 2"), k), null);
  assert.equal(exactKeyRange(filter("ts >= 1 and ts < 'a'"), k), null);
});

Deno.test("object spans are pruned or kept", () => {
  const span = (lo: number, hi: number): KeySpan => ({ lo: int(lo), hi: int(hi), mixed: false });
  const r = keyRange(filter("ts >= 10 and ts < 20"), ["ts"])!;
  assert.equal(spanMayMatch(span(0, 9), r), false);
  assert.equal(spanMayMatch(span(0, 10), r), true);
  assert.equal(spanMayMatch(span(19, 30), r), true);
  assert.equal(spanMayMatch(span(20, 30), r), false);
  // Mixed key types are never pruned; all-null keys always are.
  assert.equal(spanMayMatch({ lo: int(0), hi: int(1), mixed: true }, r), true);
  assert.equal(spanMayMatch({ lo: null, hi: null, mixed: false }, r), false);
  // A key of another kind cannot be compared: kept.
  const s = new Value(TypeString, "a");
  assert.equal(spanMayMatch({ lo: s, hi: s, mixed: false }, r), true);
  // Wholly inside, unless the object has null keys.
  assert.equal(spanWithin(span(10, 19), int(10), int(19), r), true);
  assert.equal(spanWithin(span(10, 20), int(10), int(20), r), false);
  assert.equal(spanWithin(span(10, 19), int(10), NULL, r), false);
});

Deno.test("seek streams cover the range, in both orders", () => {
  const entries = (keys: (number | null)[]): SeekEntry[] =>
    keys.map((k, i) => ({ key: k === null ? NULL : int(k), count: i * 10, offset: i * 100 }));
  const r = keyRange(filter("ts >= 25 and ts <= 41"), ["ts"])!;
  // asc: streams start at 0, 10, 20, 30, 40, 50: keys 25..41 are in streams 2..4.
  assert.deepEqual(seekStreams(entries([0, 10, 20, 30, 40, 50]), false, r), [2, 4]);
  // desc: streams start at 50, 40, ...: 41 is in stream 0 (50..40), 25 in stream 2 (30..20).
  assert.deepEqual(seekStreams(entries([50, 40, 30, 20, 10, 0]), true, r), [0, 2]);
  // Past the last entry's key, only the last stream can hold it.
  const far = keyRange(filter("ts > 100"), ["ts"])!;
  assert.deepEqual(seekStreams(entries([0, 10, 20]), false, far), [2, 2]);
  // Below the first key of an ascending object: none.
  const below = keyRange(filter("ts < 0"), ["ts"])!;
  assert.equal(seekStreams(entries([0, 10, 20]), false, below), null);
  // Streams of null keys never match.
  assert.deepEqual(
    seekStreams(entries([0, 10, null]), false, keyRange(filter("ts > 5"), ["ts"])!),
    [
      0,
      1,
    ],
  );
});

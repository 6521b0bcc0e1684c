// A summarize's groups saved on one thread and merged on another
// (savedGroups / mergeGroups, for scans shared out over workers): merging
// the groups of the later values gives what summarizing them next gives.

import assert from "node:assert/strict";
import "../../lib/query/aggregates/mod.ts";
import { lookupAggregate } from "../../lib/query/aggregates/registry.ts";
import { NotRecordable } from "../../lib/query/aggregates/recorder.ts";
import { Summarize, type SummarizeAggregate } from "../../lib/query/ops/summarize.ts";
import { TRUE } from "../../lib/query/runtime/values.ts";
import { TypeString } from "../../lib/zed/types.ts";
import { Value as V } from "../../lib/zed/value.ts";
import { VALUE } from "../../lib/zed/vector.ts";
import { Collector } from "../../lib/query/runtime/op.ts";
import { runInScope, SpillScope } from "../../lib/query/spill/scope.ts";
import type { Value } from "../../lib/zed/value.ts";
import { f, values, zsonOf } from "./ops_helpers.ts";

const INPUT = values(
  Array.from({ length: 300 }, (_, i) => {
    const k = i % 7 === 0 ? "null" : `"k${(i * 13) % 11}"`;
    return `{k:${k},n:${i % 5},s:"${"abc"[i % 3]}"}`;
  }).join("\n"),
);

function agg(name: string, path: string, arg?: string): SummarizeAggregate {
  return { path: [path], def: lookupAggregate(name)!, arg: arg === undefined ? undefined : f(arg) };
}

const AGGS = [
  agg("count", "count"),
  agg("collect", "c", "n"),
  agg("any", "a", "s"),
  agg("and", "d", "n==1"),
  agg("union", "u", "s"),
  agg("or", "o", "n"),
];

function summarize(next = new Collector(), keys = ["k"]): Summarize {
  return new Summarize(next, keys.map((k) => ({ path: [k], expr: f(k) })), AGGS);
}

function output(c: Collector): string[] {
  return c.take().flat().map(zsonOf);
}

/** Summarizes vals in one, and in parts whose groups are merged into the first; both outputs. */
function inParts(vals: Value[], cuts: number[], keys = ["k"]): [string[], string[]] {
  const whole = new Collector();
  const one = summarize(whole, keys);
  one.push(vals);
  one.end();
  const merged = new Collector();
  const first = summarize(merged, keys);
  const bounds = [0, ...cuts, vals.length];
  first.push(vals.slice(0, bounds[1]));
  for (let k = 1; k < bounds.length - 1; k++) {
    const part = summarize(new Collector(), keys);
    part.push(vals.slice(bounds[k], bounds[k + 1]));
    const saved = part.savedGroups();
    assert.ok(saved !== null);
    assert.equal(saved.numbers, null);
    first.mergeGroups(saved.groups);
  }
  first.end();
  return [output(whole), output(merged)];
}

Deno.test("summarize share: merged groups equal one summarize, in first-seen order", () => {
  assert.ok(summarize().merges);
  for (const cuts of [[150], [1, 299], [40, 41, 200], [0, 300]]) {
    const [whole, merged] = inParts(INPUT, cuts);
    assert.equal(whole.length, 12);
    assert.deepEqual(merged, whole, `cuts ${cuts}`);
  }
  // One group (no keys) and two keys.
  const [w1, m1] = inParts(INPUT, [100, 200], []);
  assert.deepEqual(m1, w1);
  const [w2, m2] = inParts(INPUT, [77], ["k", "s"]);
  assert.deepEqual(m2, w2);
});

Deno.test("summarize share: only aggregates that merge exactly say they merge", () => {
  for (const name of ["sum", "avg", "min", "max"]) {
    const op = new Summarize(new Collector(), [], [agg(name, "x", "n")]);
    assert.equal(op.merges, false, name);
  }
});

Deno.test("summarize share: a table that spilled gives no saved groups", () => {
  runInScope(new SpillScope(1), () => {
    const op = summarize();
    op.push(INPUT);
    assert.equal(op.savedGroups(), null);
    op.end();
  });
});

/** Feeds avg's argument as numbers from a column: rows [from, to) of f64 (the values i*0.1), key k. */
function feedNumbers(op: Summarize, from: number, to: number, f64: Float64Array): void {
  const state = new Uint8Array(f64.length).fill(VALUE);
  // Every third row has no value (a null in the column).
  for (let i = 2; i < f64.length; i += 3) state[i] = 1;
  for (let k = 0; k < 4; k++) {
    const aggs = op.groupOf([new V(TypeString, `g${k}`)])!;
    const rows = Int32Array.from({ length: to - from }, (_, r) => from + r).filter((i) =>
      i % 4 === k
    );
    op.feedNumbers(aggs, 0, f64, state, rows, 0, rows.length);
    for (let r = 0; r < rows.length; r++) aggs[1].consume(TRUE);
  }
}

Deno.test("summarize share: numbers recorded for avg are offered after the values before them", () => {
  const f64 = Float64Array.from({ length: 1000 }, (_, i) => i * 0.1 + 1 / (i + 3));
  const aggs = [agg("avg", "avg", "n"), agg("count", "count")];
  const make = (c: Collector) => new Summarize(c, [{ path: ["k"], expr: f("k") }], aggs);
  const whole = new Collector();
  const one = make(whole);
  assert.ok(!one.merges && one.mergesNumbers);
  feedNumbers(one, 0, 1000, f64);
  one.end();
  const expected = output(whole);
  for (const cut of [1, 333, 999]) {
    const merged = new Collector();
    const first = make(merged);
    feedNumbers(first, 0, cut, f64);
    const part = make(new Collector());
    part.recordNumbers();
    feedNumbers(part, cut, 1000, f64);
    const saved = part.savedGroups()!;
    assert.ok(saved.numbers !== null && saved.numbers.length > 0);
    first.mergeGroups(saved.groups, saved.numbers);
    first.end();
    assert.deepEqual(output(merged), expected, `cut at ${cut}`);
  }
  assert.match(expected[0], /avg:/);
  // A value that is not a number from a column cannot be recorded.
  const part = make(new Collector());
  part.recordNumbers();
  assert.throws(() => part.push(values("{k:1,n:2.5}")), NotRecordable);
  // sum does not take numbers: it is not recorded, so it does not merge at all.
  assert.equal(new Summarize(new Collector(), [], [agg("sum", "s", "n")]).mergesNumbers, false);
});

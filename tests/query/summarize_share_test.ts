// A summarize's groups saved on one thread and merged on another
// (savedGroups / mergeGroups, for scans shared out over workers): merging
// the groups of the later values gives what summarizing them next gives.

import assert from "node:assert/strict";
import "../../lib/query/aggregates/mod.ts";
import { lookupAggregate } from "../../lib/query/aggregates/registry.ts";
import { Summarize, type SummarizeAggregate } from "../../lib/query/ops/summarize.ts";
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
  agg("dcount", "d", "s"),
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
    first.mergeGroups(saved);
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

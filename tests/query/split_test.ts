// Queries split after their summarize (split.ts): run over parts of the
// input, the first part's groups taking the others', they answer as one
// pass over the whole input does; queries whose head cannot be split say so.

import assert from "node:assert/strict";
import { ZsonWriter } from "../../lib/formats/zson/writer.ts";
import { SplitQuery } from "../../lib/query/split.ts";
import { lines } from "./helpers.ts";
import { values } from "./ops_helpers.ts";

const INPUT = Array.from(
  { length: 200 },
  (_, i) => `{k:"k${(i * 7) % 9}",n:${i % 6},s:"${i % 13 === 0 ? "needle" : "hay"}"}`,
).join("\n");

/** The query's output lines from parts of INPUT cut at cuts. */
async function inParts(text: string, cuts: number[]): Promise<string[]> {
  const split = SplitQuery.of(text);
  assert.ok(split !== null, text);
  const vals = values(INPUT);
  const bounds = [0, ...cuts, vals.length];
  const runs = bounds.slice(0, -1).map((from, k) => {
    const run = split.part();
    run.push(vals.slice(from, bounds[k + 1]));
    return run;
  });
  assert.equal(runs.reduce((n, r) => n + r.records, 0), vals.length);
  let out = "";
  const writer = new ZsonWriter((c) => {
    out += new TextDecoder().decode(c);
    return Promise.resolve();
  });
  await split.finish(runs[0], runs.slice(1).map((r) => r.saved()!), writer);
  return out.split("\n").filter((l) => l !== "");
}

Deno.test("split query: parts summarized apart and merged answer as one pass", async () => {
  for (
    const q of [
      "count()",
      "count() by k",
      '"needle" | count() by k',
      "n > 2 | where s=='hay' | count() by k, n | sort k, n",
      "collect(n) by k",
      "any(s), and(n==1) by k | sort -r k | head 3",
      "union(n) by s | yield {s, u: len(u)}",
      "c:=count() where n==1",
    ]
  ) {
    const whole = await lines(q, INPUT);
    assert.ok(whole.length > 0, q);
    for (const cuts of [[100], [1, 150], [50, 51, 199]]) {
      assert.deepEqual(await inParts(q, cuts), whole, `${q} cut at ${cuts}`);
    }
  }
});

Deno.test("split query: heads that are not filters and a merging summarize are not split", () => {
  for (
    const q of [
      "sum(n) by k",
      "avg(n)",
      "dcount(n) by k",
      "head 5 | count()",
      "sort n | count() by k",
      "put x:=1 | count()",
      "const c=1 count() by k",
      "yield 1",
      "*",
      "count(",
    ]
  ) {
    assert.equal(SplitQuery.of(q), null, q);
  }
});

// Random pipelines over a pool give what the same operators give when the
// pool performs nothing for them (`fork (=> pass)` before them hides them
// from the planner): whatever the pool reads from columns, reads unmerged,
// decodes only in part or hands on as encoded, the answers are the same.

import assert from "node:assert/strict";
import { keyedPool, lines, loadText, Random, withLake } from "./helpers.ts";

const FILTERS = [
  "n > 3",
  's == "a"',
  "grep(/x1/)",
  "has(r)",
  '"b"',
  "ts < 150",
  "len(arr) > 1",
  "not n == 2",
];

const PER_VALUE = [
  "put z:=n*2",
  "cut ts, n",
  "cut s, arr",
  "rename q:=s",
  "yield {a:n, b:s}",
  "drop s",
  "pass",
  "put r2:=r.x",
];

const ENDS: [string, boolean][] = [
  // [the pipeline's last operators, whether its output order is unspecified]
  ["count()", false],
  ["count() by s", true],
  ["min(n), max(ts) by s", true],
  ["sum(n)", false],
  ["uniq | count()", false],
  ["uniq -c | count()", false],
  ["uniq", false],
  ["uniq | count() by s", true],
  ["uniq -c | sum(count) by c:=count", true],
  ["sort n | head 3", false],
  ["sort -r ts | head 5", false],
  ["tail 4", false],
  ["head 7", false],
  ["over arr | count()", false],
  ["fork ( => count() => max(n) ) | sort this", false],
  ["switch ( case n > 2 => count() default => min(ts) ) | sort this", false],
  ["", false],
];

async function pool(lake: Parameters<typeof keyedPool>[0]) {
  const p = keyedPool(lake, "p", "ts", "asc");
  const row = (i: number) => {
    const ts = Math.floor(i / 2); // ties within and across objects
    const s = ["a", "b", "x1", "a"][i % 4];
    if (i % 11 === 0) return `{ts:${ts},s:"${s}",n:${i % 5},r:{x:${i},y:"y${i % 3}"}}`;
    if (i % 13 === 0) return `{ts:${ts},n:${i % 5}(int32),arr:null([int64])}`;
    if (i % 17 === 0) return `{ts:${ts},s:[1,2]}`; // s of another type
    return `{ts:${ts},s:"${s}",n:${i % 5},arr:[${i % 3},${i % 2}]}`;
  };
  // Three overlapping objects, one apart, and runs of equal values. (No
  // values without a key: an object holding them overlaps every other.)
  for (let k = 0; k < 3; k++) {
    let text = "";
    for (let i = k; i < 300; i += 3) text += row(i) + "\n" + (i % 7 === 0 ? row(i) + "\n" : "");
    await loadText(lake, p, text);
  }
  let apart = "";
  for (let i = 1000; i < 1100; i++) apart += row(i) + "\n";
  await loadText(lake, p, apart);
}

Deno.test("random pipelines over a pool: the same as the operators over its values", async () => {
  await withLake(async (lake) => {
    await pool(lake);
    const r = new Random(20261128);
    let compared = 0;
    for (let i = 0; i < 150; i++) {
      // A leading filter drops values it errs on (as the reference's scans
      // do), where the operator emits the errors: it leads both.
      const lead = r.next() < 0.6 ? `${r.pick(FILTERS)} | ` : "";
      const ops: string[] = [];
      // A filter after it (folded into the pool's source, with the operator's rule).
      if (lead !== "" && r.next() < 0.4) ops.push(r.pick(FILTERS));
      if (r.next() < 0.5) ops.push(r.pick(PER_VALUE));
      const [end, unordered] = r.pick(ENDS);
      if (end !== "") ops.push(end);
      const rest = ops.length === 0 ? "pass" : ops.join(" | ");
      const got = await lines(lake, `from p | ${lead}${rest}`);
      const want = await lines(lake, `from p | ${lead}fork (=> pass) | ${rest}`);
      const q = `${lead}${rest}`;
      assert.deepEqual(unordered ? got.sort() : got, unordered ? want.sort() : want, q);
      compared++;
    }
    assert.equal(compared, 150);
  });
});

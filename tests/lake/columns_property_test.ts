// The column path and the row path give the same results: random filters,
// groupings, heads and sorts over a sample of the Zeek logs (and a few
// fields of other types), in pools of both orders built from overlapping
// loads, each run with columns used and not.

import assert from "node:assert/strict";
import { setUseColumns } from "../../lib/lake/sources.ts";
import type { Lake } from "../../lib/lake/lake.ts";
import { keyedPool, loadText, query, Random, withLake } from "./helpers.ts";

const SAMPLE = new URL("../fixtures/zeek-sample.ndjson.gz", import.meta.url);

async function sampleLines(): Promise<string[]> {
  const bytes = await Deno.readFile(SAMPLE);
  const text = await new Response(
    new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip")),
  ).text();
  return text.split("\n").filter((l) => l !== "");
}

/** A deterministic generator of choices. */
const ATOMS = [
  '_path=="dns"',
  '_path!="ssl"',
  'this["id.resp_p"]==53',
  'this["id.orig_p"] > 40000',
  'this["id.orig_p"] <= 1024',
  "id.resp_p==53",
  "rtt < 0.001",
  "rtt >= 0.01",
  "grep(/google/, query)",
  '"wrccdc"',
  '"WRCCDC.org"',
  "10.47.8.208",
  "grep(*ntp*)",
  "grep(/^C[a-z]/, uid)",
  "has(rtt)",
  "missing(query)",
  "typeof(answers)==<[string]>",
  'proto in ["tcp","udp"]',
  "AA",
  "!RD",
  'ts >= "2018-03-24T17:20:00Z"',
  'ts < "2018-03-24T17:16:00Z"',
  'this["id.orig_h"]=="10.47.1.100"',
  "n > 5",
  "x == null",
  "x != null",
  "is(rtt, <float64>)",
  "typeof(x)!=<float64>",
  "x == 1.5",
  'who == "b"',
  "flag",
  "len(answers) > 1",
  "qtype in [1, 28]",
  // Errors where the field is missing or not a string (dropped by a lifted filter).
  "len(query) > 12",
  'lower(proto)=="tcp"',
  "grep(/goo+/)",
  'grep("NTP")',
];

const CONSUMERS: [string, boolean][] = [
  // [query after the filter, whether its output order is unspecified]
  ["count()", false],
  ["count() by _path", true],
  ["count() by proto, qtype_name", true],
  ["count() by typeof(this), _path", true],
  ['min(this["id.orig_p"]), m:=max(n) by _path', true],
  ['sum(this["id.orig_p"]) by proto', true],
  ["avg(rtt) by qtype_name", true],
  ["min(ts), max(ts) by _path", true],
  ["dcount(uid)", false],
  ["any(query) by _path", true],
  ["collect(qtype) by rcode_name", true],
  ["count() where rtt > 0.001 by _path", true],
  ["sum(n), avg(x), max(who) by flag", true],
  // Arguments and keys that are expressions of one field.
  ["sum(rtt*1000), max(len(query)) by len(_path)", true],
  ["avg(n+1) by lower(proto)", true],
  ["head 7", false],
  ["cut ts,_path | head 50", false],
  ["sort -r ts | head 5", false],
  ["sort ts | head 5", false],
  ["sort -r rtt | head 5", false],
  ["sort -r len(query)+n | head 5", false],
  ["sort rtt*2 | head 7", false],
  ["sort query | head 5", false],
  ["sort -r query | head 40", false],
  ['sort this["id.orig_p"] | head 3', false],
  ["sort -r qtype_name | head 300", false],
  ["sort n | head 2", false],
  ["sort uid | head 4", false],
  ['sort -r this["id.orig_p"] | head 20', false],
  ["tail 5", false],
  ["tail 60", false],
  ["cut ts,_path | tail 7", false],
  ["tail 3 | cut ts,query", false],
  ["yield query | head 5", false],
  ["top 5 rtt", false],
  ["top 3 query", false],
  ['top 20 this["id.orig_p"]', false],
  ["rename q:=query | put z:=len(uid) | head 30", false],
  ["yield quiet(query) | head 9", false],
  ["pass", false],
  // Values made from columns for what follows (unmerged where order does not matter).
  ["cut _path, rtt | count() by _path", true],
  ["yield {p:_path, n:len(answers)} | count() by p, n", true],
  ["over answers | count()", false],
  ["fork ( => count() => max(rtt) by proto ) | sort this", false],
  ["switch ( case rtt > 0.01 => count() default => min(ts) ) | sort this", false],
  ["put z:=rtt*2 | cut ts, z | tail 7", false],
  ["cut ts, query | sort -r ts | head 9", false],
  ["cut query, qtype | sort qtype | head 4", false],
];

function filter(r: Random, depth = 0): string {
  const k = depth >= 2 ? 0 : r.next();
  if (k < 0.55) return r.pick(ATOMS);
  if (k < 0.75) return `${filter(r, depth + 1)} and ${filter(r, depth + 1)}`;
  if (k < 0.9) return `(${filter(r, depth + 1)} or ${filter(r, depth + 1)})`;
  return `not (${filter(r, depth + 1)})`;
}

async function both(lake: Lake, q: string, unordered: boolean): Promise<[string[], string[]]> {
  const run = async (on: boolean) => {
    setUseColumns(on);
    try {
      const lines = (await query(lake, q)).lines;
      return unordered ? lines.sort() : lines;
    } finally {
      setUseColumns(true);
    }
  };
  return [await run(true), await run(false)];
}

Deno.test("columns and rows agree on random filters, groupings, heads and sorts", async () => {
  const lines = await sampleLines();
  // Extra fields of other types, on some records only.
  const withExtras = lines.map((l, i) => {
    if (i % 3 !== 0) return l;
    const extra = `,"n":${i % 11},"x":${i % 4 === 0 ? "null" : (i % 7) / 2},"who":"${
      "abc"[i % 3]
    }","flag":${i % 2 === 0}`;
    return l.slice(0, -1) + extra + "}";
  });
  await withLake(async (lake) => {
    for (const order of ["asc", "desc"] as const) {
      const p = keyedPool(lake, order, "ts", order);
      // Overlapping loads: every third line in each.
      for (let k = 0; k < 3; k++) {
        await loadText(lake, p, withExtras.filter((_, i) => i % 3 === k).join("\n"));
      }
    }
    const r = new Random(20261126);
    let compared = 0;
    for (let i = 0; i < 120; i++) {
      const [consumer, unordered] = r.pick(CONSUMERS);
      // Sometimes a second filter after the first (a `where` operator, which columns narrow too).
      const second = r.next() < 0.3 ? `${filter(r)} | ` : "";
      const q = `from ${r.pick(["asc", "desc"])} | ${filter(r)} | ${second}${consumer}`;
      const [cols, rows] = await both(lake, q, unordered);
      assert.deepEqual(cols, rows, q);
      compared++;
    }
    // Without a filter too.
    for (const [consumer, unordered] of CONSUMERS) {
      for (const pool of ["asc", "desc"]) {
        const q = `from ${pool} | ${consumer}`;
        const [cols, rows] = await both(lake, q, unordered);
        assert.deepEqual(cols, rows, q);
        compared++;
      }
    }
    assert.ok(compared > 150);
    // The column path was taken (nothing read from the objects' rows).
    for (
      const q of [
        '"wrccdc" and _path=="dns" | count()',
        "count() by _path",
        "max(rtt) by qtype_name",
      ]
    ) {
      assert.equal((await query(lake, `from asc | ${q}`)).stats.bytesFetched, 0, q);
    }
  });
});

Deno.test("tests of a field's presence, nullness or type take one outcome per column: times too", async () => {
  await withLake(async (lake) => {
    const p = keyedPool(lake, "p", "ts");
    let text = "";
    for (let i = 0; i < 3000; i++) {
      // Times past 2^53 nanoseconds (bigints in a column); some null, some absent.
      const t = i % 10 === 0
        ? "null(time)"
        : `2018-03-24T17:${String(15 + (i % 40)).padStart(2, "0")}:21.123456789Z`;
      text += i % 7 === 0 ? `{ts:${i},s:"a"}\n` : `{ts:${i},t:${t},s:"b"}\n`;
    }
    await loadText(lake, p, text);
    const counts: [string, number][] = [
      // 429 rows without t (i%7==0); of the 2571 with it, 257 are null (i%10==0).
      ["t == null", 257],
      ["t != null", 2314],
      ["!has(t)", 429],
      ["missing(t)", 429],
      ["is(t, <time>)", 2571],
      ["typeof(t)==<time>", 2571],
      ["typeof(t)!=<time>", 429], // typeof of a missing field is an error type
      ["t > 2018-03-24T17:50:00Z", 321],
      ["t == 2018-03-24T17:16:21.123456789Z", 64],
    ];
    for (const [f, n] of counts) {
      const q = `from p | ${f} | count()`;
      const [cols, rows] = await both(lake, q, false);
      assert.deepEqual(cols, rows, q);
      assert.deepEqual(cols, n === 0 ? [] : [`{count:${n}(uint64)}`], q);
      assert.equal((await query(lake, q)).stats.bytesFetched, 0, q);
    }
  });
});

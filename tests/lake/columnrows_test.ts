// A scan that reads only some fields makes its values from the objects'
// columns, where they hold those fields and the values need no merge: the
// same values and QueryStats as decoding the rows, no row bytes fetched.

import assert from "node:assert/strict";
import { bothPaths, keyedPool, lines, loadText, withLake } from "./helpers.ts";

/** A pool of two objects apart in ts, records of two types, one with a nested record and an array. */
async function twoObjects(lake: Parameters<typeof keyedPool>[0]) {
  const p = keyedPool(lake, "p", "ts", "asc");
  for (const part of [0, 1]) {
    let text = "";
    for (let i = 0; i < 400; i++) {
      const ts = part * 1000 + i;
      text += i % 4 === 3
        ? `{ts:${ts},kind:"b",n:${i},tags:["x${i % 3}","y"]}\n`
        : `{ts:${ts},kind:"a",id:{h:"h${i % 5}",p:${i % 7}},s:"s${i}",n:${i % 11}}\n`;
    }
    await loadText(lake, p, text);
  }
  return p;
}

Deno.test("projected scans made from columns: the rows' values and stats", async () => {
  await withLake(async (lake) => {
    await twoObjects(lake);
    for (
      const q of [
        "over tags | count() by t:=this | sort t",
        'kind=="b" | over tags | count()',
        "yield {k:kind, m:n % 3} | count() by k, m | sort k, m",
        'fork ( => kind=="a" | count() => n > 5 | count() ) | sort count',
        "cut id.h, n | count() by h:=id.h | sort h",
        'kind=="a" | cut s, n | tail 3',
        "n > 8 | put z:=n*2 | cut ts, z | head 1000 | count() by z | sort z",
        "cut ts, s | head 5",
      ]
    ) {
      const { rows, cols } = await bothPaths(lake, `from p | ${q}`);
      assert.deepEqual(cols.lines, rows.lines, q);
      assert.ok(cols.lines.length > 0, q);
      // (A head stops reading where its columns or its rows say.)
      if (q.includes("head")) continue;
      for (const k of ["recordsRead", "bytesRead", "recordsMatched", "bytesMatched"] as const) {
        assert.equal(cols.stats[k], rows.stats[k], `${q}: ${k}`);
      }
      assert.ok(rows.stats.bytesFetched > 0, q);
      assert.equal(cols.stats.bytesFetched, 0, q);
    }
    const { cols } = await bothPaths(lake, "from p | over tags | count()");
    assert.equal(cols.stats.bytesFetched, 0, "no row bytes fetched");
    assert.deepEqual(cols.lines, ["{count:400(uint64)}"]);
    // A few rows of an object are decoded from the rows rather than made from whole columns.
    const few = await bothPaths(lake, 'from p | s=="s5" | cut s, n | count() by s, n');
    assert.deepEqual(few.cols.lines, few.rows.lines);
    assert.deepEqual(few.cols.lines, ['{s:"s5",n:5,count:2(uint64)}']);
    assert.ok(few.cols.stats.bytesFetched > 0);
  });
});

Deno.test("projected scans decode rows where columns cannot make them, or a merge orders them", async () => {
  await withLake(async (lake) => {
    const p = await twoObjects(lake);
    // A map field stays in the rows: that object's values are decoded.
    await loadText(lake, p, '{ts:5000,kind:"c",m:|{"a":1}|}\n{ts:5001,kind:"c",n:1}\n');
    const mapped = await bothPaths(lake, "from p | cut kind, m | count() by kind | sort kind");
    assert.deepEqual(mapped.cols.lines, mapped.rows.lines);
    assert.ok(mapped.cols.stats.bytesFetched > 0);
    // An object overlapping the others: merged in pool order, from rows.
    await loadText(lake, p, '{ts:3,kind:"d",n:1}\n{ts:1003,kind:"d",n:2}\n');
    const merged = await bothPaths(lake, "from p | cut ts, kind | head 8");
    assert.deepEqual(merged.cols.lines, merged.rows.lines);
    assert.ok(merged.cols.lines.includes('{ts:3,kind:"d"}'), merged.cols.text);
    assert.deepEqual(await lines(lake, 'from p | kind=="d" | cut n'), ["{n:1}", "{n:2}"]);
  });
});

// Summaries whose aggregates depend on the order of their values (collect,
// any, union, dcount, sums of floats) over objects whose keys interleave, tie
// across objects, or are absent: fed from columns in pool order, rows with
// equal keys ordered by their values' bytes as the scan's merge orders them
// (keymerge.ts with ties.ts), each answer the rows' own.

import assert from "node:assert/strict";
import type { Lake } from "../../lib/lake/lake.ts";
import { bothPaths, keyedPool, loadText, query, withLake } from "./helpers.ts";

/**
 * Four objects whose keys interleave and tie often (k in 0..19); s strings
 * sharing long prefixes (so the bytes' first 8 do not decide), f floats, v
 * ints; then two objects with rows whose key is null or absent.
 */
async function tiedPool(lake: Lake, name: string, order: "asc" | "desc", nested: boolean) {
  const p = keyedPool(lake, name, "k", order);
  for (let part = 0; part < 4; part++) {
    let text = "";
    for (let i = 0; i < 150; i++) {
      const s = `"${"q".repeat(12)}${(i * 7 + part) % 11}"`;
      const r = nested ? `,r:{a:${i % 3}}` : "";
      text += `{k:${(i * 3 + part) % 20},s:${s}${r},f:${((i % 9) / 4).toFixed(2)},v:${
        part * 1000 + i
      },g:${i % 3}}\n`;
    }
    await loadText(lake, p, text);
  }
  for (let part = 0; part < 2; part++) {
    let text = "";
    for (let i = 0; i < 30; i++) {
      const k = i % 2 === 0 ? "k:null(int64)," : "";
      text += `{${k}s:"${"q".repeat(12)}${(i + part) % 5}",f:${(i / 8).toFixed(3)},v:${
        -i - part * 100
      },g:${i % 3}}\n`;
    }
    await loadText(lake, p, text);
  }
}

const QUERIES = [
  "collect(v)",
  "collect(s) by g | sort g",
  "any(v) by g | sort g",
  "union(s)",
  "dcount(v)",
  "sum(f) by g | sort g",
  "avg(f)",
];

Deno.test("order-sensitive summaries over tied and keyless rows: from columns, as over rows", async () => {
  await withLake(async (lake) => {
    for (const order of ["asc", "desc"] as const) {
      await tiedPool(lake, order, order, false);
      for (const q of QUERIES) {
        const { rows, cols } = await bothPaths(lake, `from ${order} | ${q}`);
        assert.deepEqual(cols.lines, rows.lines, `${order}: ${q}`);
        // No row decoded: the merge's ties were ordered from the columns.
        assert.equal(cols.stats.bytesFetched, 0, `${order}: ${q}`);
        assert.ok(rows.stats.bytesFetched > 0);
      }
    }
  });
});

Deno.test("order-sensitive summaries where the columns cannot order ties: the rows'", async () => {
  await withLake(async (lake) => {
    // A nested record among the fields: ties it would decide are left to the rows.
    await tiedPool(lake, "nested", "asc", true);
    for (const q of QUERIES) {
      const { rows, cols } = await bothPaths(lake, `from nested | ${q}`);
      assert.deepEqual(cols.lines, rows.lines, q);
    }
  });
});

Deno.test("top over objects whose keys interleave and tie: its heap in pool order, from columns", async () => {
  await withLake(async (lake) => {
    for (const order of ["asc", "desc"] as const) {
      await tiedPool(lake, order, order, false);
      // Strings and numbers whose best values tie across objects; nulls (f
      // and v missing nowhere, x everywhere): the heap takes every row.
      for (const filter of ["", "g==1 | "]) {
        for (const top of ["top 3 s", "top 5 f", "top 2 g", "top 4 k", "top 3 x"]) {
          const q = `from ${order} | ${filter}${top}`;
          const { rows, cols } = await bothPaths(lake, q);
          assert.deepEqual(cols.lines, rows.lines, q);
          const op = await query(lake, `from ${order} | ${filter}fork (=> pass) | ${top}`);
          assert.deepEqual(cols.lines, op.lines, q);
          assert.equal(cols.stats.bytesFetched, 0, `${q}: from columns`);
        }
      }
    }
    await tiedPool(lake, "nested", "asc", true);
    for (const top of ["top 3 s", "top 5 f"]) {
      const { rows, cols } = await bothPaths(lake, `from nested | ${top}`);
      assert.deepEqual(cols.lines, rows.lines, top);
    }
  });
});

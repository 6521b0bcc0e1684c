// `sort <field> | tail N` from a pool: the last N values of the stable sort
// over the pool's order, picked from columns (fieldtopk.ts) where they can
// be: the greatest values, and the rows without a value (null or missing,
// which sort last) in pool order. Each answer is the operators' own.

import assert from "node:assert/strict";
import { agreed, bothPaths, keyedPool, lines, loadText, withLake } from "./helpers.ts";
import type { Lake } from "../../lib/lake/lake.ts";

/**
 * Objects that overlap in key (k repeats across them), with x tied often,
 * null or missing in some rows (or none, by the `full` field), a string
 * field s, and a long field that makes the rows much larger than x's column;
 * then a log with no x.
 */
async function tailPool(lake: Lake, name: string, order: "asc" | "desc", parts = 4) {
  const p = keyedPool(lake, name, "k", order);
  // Text LZ4 does not shrink much, so the rows stay large as stored.
  let seed = 1;
  const pad = () => {
    let t = "";
    for (let c = 0; c < 60; c++) t += ((seed = (seed * 48271) % 2147483647) % 36).toString(36);
    return t;
  };
  for (let part = 0; part < parts; part++) {
    let text = "";
    for (let i = 0; i < 300; i++) {
      // (With more parts, each its own range of keys.)
      const k = parts === 4 ? (i * 7 + part * 3) % 101 : part * 1000 + i;
      const n = (i * 13 + part) % 17;
      const x = n === 0 ? "x:null(int64)," : n === 1 ? "" : `x:${(i * 31 + part) % 23},`;
      text += `{k:${k},${x}s:"s${(i + part) % 29}",full:${n > 1},v:${
        part * 1000 + i
      },pad:"${pad()}"}\n`;
    }
    await loadText(lake, p, text);
  }
  // A log without x at all (no column of it), its keys last in the pool of parts.
  let text = "";
  for (let i = 0; i < 50; i++) {
    text += `{k:${parts === 4 ? (i * 3) % 101 : parts * 1000 + i},s:"t${i % 7}",v:${-i}}\n`;
  }
  await loadText(lake, p, text);
}

Deno.test("sort by a field with a tail: the operators' answer, with columns and without", async () => {
  await withLake(async (lake) => {
    for (const order of ["asc", "desc"] as const) {
      await tailPool(lake, order, order);
      for (const filter of ["", "full==true | ", "v % 3 == 0 | ", "full==true and v % 5 == 1 | "]) {
        for (const by of ["x", "-r x", "s", "-r s", "k", "-r k"]) {
          for (const n of [1, 4, 30, 900]) {
            const q = `${filter}sort ${by} | tail ${n}`;
            const got = await agreed(lake, `from ${order} | ${q}`);
            // The operators themselves, nothing pushed to the source.
            assert.deepEqual(got, await lines(lake, `from ${order} | pass | ${q}`), q);
          }
        }
      }
    }
  });
});

Deno.test("sort by a field with a tail reads the field's column, not the rows", async () => {
  await withLake(async (lake) => {
    // Objects of their own ranges of keys: the last values in pool order are in the last.
    await tailPool(lake, "p", "asc", 12);
    // Every row the filter passes has an x: the greatest values, ties in pool order.
    const full = await bothPaths(lake, "from p | full==true | sort x | tail 5");
    assert.deepEqual(full.cols.lines, full.rows.lines);
    assert.deepEqual(full.cols.lines.map((l) => /,x:22,/.test(l)), Array(5).fill(true));
    // Rows without an x sort last: the tail is theirs, in pool order.
    const lacking = await bothPaths(lake, "from p | sort -r x | tail 3");
    assert.deepEqual(lacking.cols.lines, lacking.rows.lines);
    assert.equal(lacking.cols.lines.length, 3);
    for (const r of [full, lacking]) {
      assert.ok(
        r.cols.stats.bytesFetched < r.rows.stats.bytesFetched / 4,
        `${r.cols.stats.bytesFetched} of ${r.rows.stats.bytesFetched} bytes fetched`,
      );
    }
  });
});

Deno.test("tail of many values over objects that overlap: the operator's answer, from columns", async () => {
  await withLake(async (lake) => {
    for (const order of ["asc", "desc"] as const) {
      const p = keyedPool(lake, `many${order}`, "k", order);
      // Objects of different sizes whose keys overlap and tie (some span
      // the others' ranges, some only the end), and rows without a key.
      const shapes = [[0, 3000, 1], [1000, 3000, 2], [2900, 3000, 1], [0, 500, 1], [2000, 2600, 3]];
      for (const [part, [from, to, step]] of shapes.entries()) {
        let text = "";
        for (let k = from; k < to; k += step) text += `{k:${k},part:${part},v:${k % 7}}\n`;
        if (part === 1) text += `{part:${part},v:-1}\n{part:${part},v:-2}\n`;
        await loadText(lake, p, text);
      }
      for (const filter of ["", "v == 3 | "]) {
        for (const n of [1, 40, 299, 1001, 4000, 20000]) {
          const q = `${filter}tail ${n}`;
          const { rows, cols } = await bothPaths(lake, `from many${order} | ${q}`);
          assert.deepEqual(cols.lines, rows.lines, `${order}: ${q}`);
          assert.deepEqual(
            cols.lines,
            await lines(lake, `from many${order} | fork (=> pass) | ${q}`),
            `${order}: ${q}`,
          );
          assert.equal(cols.stats.bytesFetched, 0, `${order}: ${q}: from columns`);
        }
      }
    }
  });
});

// The paths the queries Zui sends take (docs/clients.md): pages of results
// as a head of the values they need, filters added by clicks folded into the
// pool's source, fuse's type from columns, and the histogram's time range
// from min and max over columns — each the same as the operators over rows.

import assert from "node:assert/strict";
import { clearColumnCache, columnCache, openColumns } from "../../lib/lake/columns/mod.ts";
import { tipObjects } from "../../lib/lake/objects.ts";
import { compileQuery } from "../../lib/query/mod.ts";
import { agreed, bothPaths, keyedPool, lines, loadText, query, withLake } from "./helpers.ts";

Deno.test("Zui's pages ({i:count(), v:this} | i > N | head M | yield v) read the first N+M values only", async () => {
  await withLake(async (lake) => {
    for (const order of ["asc", "desc"] as const) {
      const p = keyedPool(lake, order, "ts", order);
      // Overlapping objects: each holds every fourth key.
      for (let part = 0; part < 4; part++) {
        let text = "";
        for (let i = part; i < 2000; i += 4) text += `{ts:${i},v:${i % 7},s:"x${i}"}\n`;
        await loadText(lake, p, text);
      }
      for (
        const filter of [
          "",
          "v % 3 == 0 | ",
          '"x1" | ',
          // A sort or a fuse before the page gives it its first N+M values only.
          "sort -r v | ",
          `sort ${order === "asc" ? "-r " : ""}ts | `,
          "sort s | ",
          "fuse | ",
        ]
      ) {
        for (
          const [cmp, n, m] of [[">", 0, 500], [">", 1000, 50], [">", 1990, 500], [">", 5000, 10], [
            ">=",
            10,
            5,
          ], [">=", 0, 3]] as const
        ) {
          const page = `{ i: count(), v: this} | i ${cmp} ${n} | head ${m} | yield v`;
          const q = `from ${order} | ${filter}${page}`;
          const { rows, cols } = await bothPaths(lake, q);
          assert.deepEqual(cols.lines, rows.lines, q);
          // The operators as they are, nothing pushed to the source nor kept short.
          const whole = await query(
            lake,
            `from ${order} | fork (=> pass) | ${filter}pass | ${page}`,
          );
          assert.deepEqual(cols.lines, whole.lines, q);
          if ((filter === "" || filter.startsWith("sort -r v")) && n + m < 1000) {
            assert.ok(cols.stats.bytesFetched < whole.stats.bytesFetched / 2, q);
          }
        }
      }
    }
    assert.deepEqual(
      await lines(lake, "from asc | {i:count(), v:this} | i > 1000 | head 2 | yield v"),
      ['{ts:1000,v:6,s:"x1000"}', '{ts:1001,v:0,s:"x1001"}'],
    );
  });
});

Deno.test("a page deep in a pool makes only its own values, and counts what it read before them", async () => {
  await withLake(async (lake) => {
    const p = keyedPool(lake, "deep", "ts", "asc");
    // Objects of their own ranges of keys, rows much larger than their keys.
    for (let part = 0; part < 10; part++) {
      let text = "";
      for (let i = 0; i < 300; i++) {
        const n = part * 300 + i;
        text += `{ts:${n},v:${n % 7},s:"${n.toString(36).repeat(20)}"}\n`;
      }
      await loadText(lake, p, text);
    }
    const page = "{i:count(), v:this} | i > 2500 | head 20";
    const bare = await bothPaths(lake, `from deep | ${page} | yield v`);
    assert.deepEqual(bare.cols.lines, bare.rows.lines);
    assert.deepEqual(bare.cols.lines.map((l) => l.slice(0, 8)), [
      ...Array.from({ length: 20 }, (_, k) => `{ts:${2500 + k}`),
    ]);
    // The page with its record kept makes every value up to the page's end.
    // (The columns read to make values: those of the objects holding them.)
    clearColumnCache();
    const skipped = await query(lake, `from deep | ${page} | yield v`);
    const skippedBytes = columnCache.bytes;
    clearColumnCache();
    const numbered = await query(lake, `from deep | ${page}`);
    assert.equal(numbered.lines.length, 20);
    assert.equal(skipped.stats.recordsRead, numbered.stats.recordsRead);
    assert.ok(
      skippedBytes < columnCache.bytes / 3,
      `${skippedBytes} against ${columnCache.bytes} bytes of columns read`,
    );
  });
});

Deno.test("fuse before a head or a page: the fused type from columns, as the operator fuses", async () => {
  await withLake(async (lake) => {
    for (const order of ["asc", "desc"] as const) {
      const p = keyedPool(lake, order, "ts", order);
      // Four objects of overlapping keys and several record types: types that first appear
      // at keys tied across objects, rows without the key, null keys, nested records.
      for (let part = 0; part < 4; part++) {
        let text = "";
        for (let i = part; i < 800; i += 4) {
          const ts = Math.floor(i / 8) * 8; // ties across objects
          text += i % 97 === 0
            ? `{name:"no key ${i}",n:${i}}\n`
            : i % 89 === 0
            ? `{ts:null,z:${i}}\n`
            : i % 5 === part
            ? `{ts:${ts},kind:"p${part}",f${part}:${i},s:"x${i}"}\n`
            : i % 3 === 0
            ? `{ts:${ts},s:"y${i}",r:{a:${i},b:"b"}}\n`
            : `{ts:${ts},s:${i},n:${i % 7}}\n`;
        }
        await loadText(lake, p, text);
      }
      for (
        const filter of ["", "n > 2 | ", 's > "x" | ', "has(r) or has(z) | ", "n > 1 | n < 5 | "]
      ) {
        for (
          const after of [
            "head 1",
            "head 7",
            "{i:count(), v:this} | i > 30 | head 10 | yield v",
            "head 300 | count()",
          ]
        ) {
          const q = `from ${order} | ${filter}fuse | ${after}`;
          const { rows, cols } = await bothPaths(lake, q);
          assert.deepEqual(cols.lines, rows.lines, q);
          // The operators as they are, nothing pushed to the source nor kept short.
          const whole = await query(
            lake,
            `from ${order} | fork (=> pass) | ${filter}fuse | pass | ${after}`,
          );
          assert.deepEqual(cols.lines, whole.lines, q);
          for (const k of ["recordsRead", "bytesRead", "recordsMatched", "bytesMatched"] as const) {
            assert.equal(cols.stats[k], rows.stats[k], `${q}: ${k}`);
          }
        }
      }
    }
    // Only the head's rows (and those of tied first appearances) are decoded.
    const big = keyedPool(lake, "big", "ts", "asc");
    for (let part = 0; part < 4; part++) {
      let text = "";
      for (let i = part; i < 12000; i += 4) {
        text += i % 3 === 0 ? `{ts:${i},a${part}:${i}}\n` : `{ts:${i},s:"v${i}",n:${i % 7}}\n`;
      }
      await loadText(lake, big, text);
    }
    const { rows, cols } = await bothPaths(lake, "from big | fuse | head 3");
    assert.deepEqual(cols.lines, rows.lines);
    assert.ok(
      cols.stats.bytesFetched < rows.stats.bytesFetched / 2,
      `${cols.stats.bytesFetched} of ${rows.stats.bytesFetched}`,
    );
    // A log whose key is an error (no ts, cast to time: no column holds it), in
    // an object of its own or beside other types: the key of an object's first
    // row from its metadata; a later one's only from the rows.
    for (const order of ["asc", "desc"] as const) {
      const errs = keyedPool(lake, `errs${order}`, "ts", order);
      await loadText(
        lake,
        errs,
        big10(0, (i) => `{_path:"scripts",name:"s${i}",ts:error("missing")}`),
      );
      await loadText(lake, errs, big10(1, (i) => `{_path:"conn",ts:${i},n:${i}}`));
      await loadText(
        lake,
        errs,
        big10(
          2,
          (i) => i % 3 ? `{_path:"dns",ts:${i},q:"q${i}"}` : `{_path:"x",ts:error("x${i}")}`,
        ),
      );
      for (const q of [`from errs${order} | fuse | head 5`, `from errs${order} | fuse | tail 3`]) {
        const both = await bothPaths(lake, q);
        assert.deepEqual(both.cols.lines, both.rows.lines, q);
      }
      const first = await bothPaths(lake, `from errs${order} | fuse | head 2`);
      assert.ok(
        first.cols.stats.bytesFetched < first.rows.stats.bytesFetched / 2,
        `errs${order}: ${first.cols.stats.bytesFetched} of ${first.rows.stats.bytesFetched}`,
      );
    }
  });
});

/** Ten thousand records, the (part)th of every three numbers, as text(n) makes them. */
function big10(part: number, text: (n: number) => string): string {
  let out = "";
  for (let i = part; i < 30000; i += 3) out += text(i) + "\n";
  return out;
}

Deno.test("where filters after the lifted one narrow its rows by columns; errors stay the operator's", async () => {
  await withLake(async (lake) => {
    const p = keyedPool(lake, "p", "ts", "asc");
    for (let part = 0; part < 3; part++) {
      let text = "";
      for (let i = part; i < 600; i += 3) {
        text += i % 10 === 0
          ? `{ts:${i},kind:"other",n:${i % 5}}\n` // no s: errors and missing for what reads it
          : `{ts:${i},kind:"${i % 2 === 0 ? "even" : "odd"}",s:"v${i % 7}",n:${i % 5},b:${
            i % 3 === 0
          }(=flag)}\n`;
      }
      await loadText(lake, p, text);
    }
    for (
      const chain of [
        'kind=="even" | s=="v3"',
        'kind=="even" | s=="v3" | n > 1',
        'kind=="odd" | "v2"',
        'n > 2 | s > "v4"',
        'kind!="even" | len(s) > 1', // errors where s is missing: the operator emits them
        "n == 1 | b", // a named bool passes a where, not a lifted filter
        "n == 1 | n", // not a bool: an error per row
        'kind=="even" | nosuch == "x"',
        'kind=="odd" | s=="v1" or len(s) > 5',
        'this.kind=="even" | s=="v3"', // a lifted filter without columns
        'ts < 300 | s=="v1"', // a key range, then another filter
      ]
    ) {
      for (
        const after of [
          "",
          " | count()",
          " | sort -r n, ts | head 7",
          " | head 3",
          " | sort -r ts | head 4",
          " | tail 3",
          " | count() by s | sort s",
        ]
      ) {
        const q = `from p | ${chain}${after}`;
        const { rows, cols } = await bothPaths(lake, q);
        assert.deepEqual(cols.lines, rows.lines, q);
        // (A head reads fewer values from columns than from rows.)
        for (const k of ["recordsRead", "bytesRead", "recordsMatched", "bytesMatched"] as const) {
          if (!after.includes("head")) assert.equal(cols.stats[k], rows.stats[k], `${q}: ${k}`);
        }
        // The operators as they are, nothing lifted.
        assert.deepEqual(cols.lines, await lines(lake, `from p | pass | ${chain}${after}`), q);
      }
    }
    const ranged = 'from p range 10 to 400 | s=="v1" | kind=="odd" | count()';
    assert.deepEqual(
      await agreed(lake, ranged),
      await lines(lake, ranged.replace("| s==", "| pass | s==")),
    );
    // The source's selection: the rows of every filter folded into it, with the lifted
    // one's rows beside them; none (the rows decide) where a later one would emit an error
    // for a row the lifted one passes.
    const selection = async (q: string) => {
      const filter = compileQuery(`from p | ${q}`).sources![0].filter!.vector!;
      const total = { count: 0, rows: 0, lifted: 0, byRows: 0 };
      for (const obj of tipObjects(lake.catalog, p.id, "main")) {
        const sel = await filter.select(openColumns(lake, p.id, obj)!);
        if (sel === null) {
          total.byRows++;
          continue;
        }
        total.count += sel.count;
        total.rows += sel.rows.filter((c) => c === 1).length;
        total.lifted += sel.lifted?.rows.filter((c) => c === 1).length ?? 0;
      }
      return total;
    };
    assert.deepEqual(await selection('kind=="even"'), {
      count: 240,
      rows: 240,
      lifted: 0,
      byRows: 0,
    });
    assert.deepEqual(await selection('kind=="even" | s=="v3"'), {
      count: 34,
      rows: 34,
      lifted: 240,
      byRows: 0,
    });
    // Up to the first operator that is not a filter.
    assert.deepEqual(await selection('kind=="even" | s=="v3" | pass | n==2'), {
      count: 34,
      rows: 34,
      lifted: 240,
      byRows: 0,
    });
    assert.deepEqual(await selection('kind!="even" | len(s) > 1'), {
      count: 0,
      rows: 0,
      lifted: 0,
      byRows: 3,
    });
    // Counts and summaries after folded filters come from the columns.
    for (
      const q of ['kind=="even" | s=="v3" | count()', 'kind=="odd" | n > 2 | count() by s | sort s']
    ) {
      const { rows, cols } = await bothPaths(lake, `from p | ${q}`);
      assert.deepEqual(cols.lines, rows.lines, q);
      assert.equal(cols.stats.bytesFetched, 0, `${q}: from columns`);
    }
  });
});

Deno.test("min and max of integers and times from columns: exact past 2^53, nulls, absent rows", async () => {
  await withLake(async (lake) => {
    const p = keyedPool(lake, "p", "k");
    // Times a nanosecond apart share a double; big int64s too.
    const base = "2018-03-24T17:15:21.1234567";
    let text = "";
    for (let i = 0; i < 300; i++) {
      const t = `${base}${String(10 + ((i * 37) % 90)).padStart(2, "0")}Z`;
      const n = `${9007199254740993n + BigInt((i * 53) % 101)}`;
      const g = ["a", "b", "c"][i % 3];
      text += i % 11 === 0
        ? `{k:${i},g:"${g}"}\n` // no t, no n
        : i % 7 === 0
        ? `{k:${i},g:"${g}",t:null(time),n:null(int64),u:${i}(uint64)}\n`
        : `{k:${i},g:"${g}",t:${t},n:${n},u:${i * 1000}(uint64)}\n`;
    }
    text += '{k:1000,g:"only nulls",t:null(time),n:null(int64)}\n{k:1001,g:"none"}\n';
    await loadText(lake, p, text);
    for (
      const q of [
        "min(t), max(t)",
        "min(n), max(n)",
        "a:=min(t), b:=max(t), c:=min(n), d:=max(n), e:=min(u), f:=max(u) by g | sort g",
        "max(u) by g | sort g",
      ]
    ) {
      const { rows, cols } = await bothPaths(lake, `from p | ${q}`);
      assert.deepEqual(cols.lines, rows.lines, q);
      assert.equal(cols.stats.bytesFetched, 0, `${q}: from columns`);
    }
    assert.deepEqual(await lines(lake, "from p | min(t), max(t)"), [
      `{min:${base}1Z,max:${base}99Z}`, // (a trailing zero is not written)
    ]);
    assert.deepEqual(await lines(lake, "from p | min(n), max(n)"), [
      "{min:9007199254740993,max:9007199254741093}",
    ]);
    assert.deepEqual(
      await lines(lake, 'from p | g=="only nulls" or g=="none" | min(t), max(n) by g | sort g'),
      ['{g:"none",min:null,max:null}', '{g:"only nulls",min:null(time),max:null(int64)}'],
    );
  });
});

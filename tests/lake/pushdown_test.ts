// What a pool source performs itself: sorts by the pool key against its
// order (read from the far end), heads in pool order (from key columns),
// counts and summaries — each the same as the operators would give, and
// counted in QueryStats as the reference counts what it reads.

import assert from "node:assert/strict";
import { setUseColumns } from "../../lib/lake/sources.ts";
import { setQueryMemory, threadMemoryHeld } from "../../lib/query/mod.ts";
import type { Lake } from "../../lib/lake/lake.ts";
import { clearColumnCache, columnCache } from "../../lib/lake/columns/mod.ts";
import {
  agreed,
  bothPaths,
  keyedPool,
  lines,
  loadText,
  query,
  range,
  records,
  withLake,
} from "./helpers.ts";

/**
 * Loads in which keys repeat across objects, with values that differ in
 * their first bytes or not, decided by a string field, a field of another
 * record type, or (nested) only by decoding the values.
 */
/** Arrays that tie on their first elements, differ later or in length, or are empty or null. */
const TIED_LISTS = ['["p","q"]', '["p"]', '["p","q","r"]', "[]", "null([string])", '["p","a"]'];

/** Nanoseconds since the epoch where doubles are 256 apart (a multiple of 512). */
const BIG_TIME = 1521911720600724992n;

/** The time n nanoseconds since the epoch (n within a second after BIG_TIME), as ZSON. */
function timeAt(n: bigint): string {
  return `2018-03-24T17:15:20.${String(n - 1521911720000000000n).padStart(9, "0")}Z`;
}

async function tiedPool(
  lake: Lake,
  name: string,
  order: "asc" | "desc",
  shape: "flat" | "nested" | "list" = "flat",
) {
  const p = keyedPool(lake, name, "k", order);
  for (let part = 0; part < 3; part++) {
    let text = "";
    for (let i = 0; i < 40; i++) {
      const k = i % 13;
      // Same first bytes (a long shared prefix) in half of them.
      const s = i % 2 === 0 ? `"${"p".repeat(20)}${part}${i}"` : `"${part}${i}"`;
      const list = TIED_LISTS[(i + part) % TIED_LISTS.length];
      const first = shape === "nested"
        ? `r:{s:${s}}`
        : shape === "list"
        ? `a:${list},s:${s}`
        : i % 3 === 0
        ? `s:${s},extra:1`
        : `s:${s}`;
      text += `{${first},k:${k},v:${part * 100 + i}}\n`;
    }
    text += `{s:"nokey${part}",v:-1}\n`;
    await loadText(lake, p, text);
  }
  return p;
}

Deno.test("sort by the key against the pool's order, with a head, reads from the far end", async () => {
  await withLake(async (lake) => {
    for (const order of ["asc", "desc"] as const) {
      await tiedPool(lake, order, order);
      for (const dir of ["", "-r "]) {
        for (const n of [1, 3, 10, 200]) {
          const fast = await lines(lake, `from ${order} | sort ${dir}k | head ${n}`);
          const slow = await lines(lake, `from ${order} | yield this | sort ${dir}k | head ${n}`);
          assert.deepEqual(fast, slow, `${order} sort ${dir}k | head ${n}`);
          const filtered = `v % 3 == 0 | sort ${dir}k | head ${n}`;
          assert.deepEqual(
            await lines(lake, `from ${order} | ${filtered}`),
            await lines(lake, `from ${order} | yield this | ${filtered}`),
          );
        }
      }
    }
    // Reading from the far end stops early.
    const p = keyedPool(lake, "many", "ts", "asc");
    for (let part = 0; part < 8; part++) {
      let text = "";
      for (let i = 0; i < 500; i++) text += `{ts:${part * 500 + i},v:${i}}\n`;
      await loadText(lake, p, text);
    }
    // A filter that columns run, or a cut before the sort, picks the rows
    // from the key's column; only those are read.
    for (const dir of ["", "-r "]) {
      for (
        const rest of [
          `v == 7 | sort ${dir}ts | head 3`,
          `v == 7 | cut v,ts | sort ${dir}ts | head 5`,
          `cut ts | sort ${dir}ts | head 700`,
          `v > 490 | cut v | sort ${dir}ts | head 2`,
        ]
      ) {
        const { rows, cols } = await bothPaths(lake, `from many | ${rest}`);
        assert.deepEqual(cols.lines, rows.lines, rest);
        const plain = rest.replace(/ \| sort/, " | pass | sort");
        assert.deepEqual(cols.lines, await lines(lake, `from many | ${plain}`), rest);
      }
    }
    const picked = await bothPaths(lake, "from many | v == 7 | sort -r ts | head 3");
    assert.deepEqual(picked.cols.lines, ["{ts:3507,v:7}", "{ts:3007,v:7}", "{ts:2507,v:7}"]);
    assert.ok(
      picked.cols.stats.bytesFetched < picked.rows.stats.bytesFetched / 4,
      `${picked.cols.stats.bytesFetched} of ${picked.rows.stats.bytesFetched} bytes fetched`,
    );
    const top = await query(lake, "from many | sort -r ts | head 5");
    assert.deepEqual(top.lines.map((l) => l.slice(0, 8)), [
      "{ts:3999",
      "{ts:3998",
      "{ts:3997",
      "{ts:3996",
      "{ts:3995",
    ]);
    assert.ok(top.stats.objectsRead <= 2, `${top.stats.objectsRead} objects read`);
  });
});

Deno.test("head in pool order from key columns: ties between objects in the values' byte order", async () => {
  await withLake(async (lake) => {
    for (const order of ["asc", "desc"] as const) {
      for (const shape of ["flat", "nested", "list"] as const) {
        const name = `${order}_${shape}`;
        await tiedPool(lake, name, order, shape);
        for (
          const q of [
            "head 1",
            "head 5",
            "head 40",
            "head 200",
            "cut s | head 30",
            "v > 50 | head 9",
          ]
        ) {
          await agreed(lake, `from ${name} | ${q}`);
        }
        await agreed(lake, `from ${name} | sort ${order === "asc" ? "" : "-r "}k | head 17`);
        if (shape !== "nested") {
          // Ties decided by fields' columns, arrays of strings among them: no rows decoded.
          const r = await query(lake, `from ${name} | cut s | head 40`);
          assert.equal(r.stats.bytesFetched, 0, `${name}: ties from columns`);
        }
      }
    }
  });
});

Deno.test("head in pool order by time and int64 keys that doubles round alike: in their exact order", async () => {
  // Keys ~1.5e18 apart by 1 ns, interleaved across three objects: doubles
  // are 256 apart there, so the merge tells most neighbours apart exactly.
  const base = BIG_TIME, time = timeAt;
  await withLake(async (lake) => {
    for (const order of ["asc", "desc"] as const) {
      for (const [kind, lit] of [["time", time], ["int", (n: bigint) => String(n)]] as const) {
        const name = `${kind}_${order}`;
        const p = keyedPool(lake, name, "k", order);
        for (let part = 0; part < 3; part++) {
          let text = "";
          for (let i = 0; i < 90; i++) {
            text += `{k:${lit(base + BigInt(3 * i + part))},v:${part}}\n`;
          }
          await loadText(lake, p, text);
        }
        const all = await agreed(lake, `from ${name} | head 270`);
        // Each object's keys are every third: in key order, v cycles 0, 1, 2.
        const parts = range(270).map((n) => String(n % 3));
        assert.deepEqual(
          all.map((l) => /v:(\d)/.exec(l)![1]),
          order === "asc" ? parts : parts.reverse(),
          name,
        );
        const r = await query(lake, `from ${name} | cut k | head 100`);
        assert.equal(r.stats.bytesFetched, 0, `${name}: from the key columns`);
        assert.equal(r.lines.length, 100);
      }
    }
  });
});

Deno.test("a cut of fields by name next to a head is made as the cut operator makes it", async () => {
  await withLake(async (lake) => {
    for (const order of ["asc", "desc"] as const) {
      const p = keyedPool(lake, `cut_${order}`, "ts", order);
      for (let part = 0; part < 3; part++) {
        let text = "";
        for (let i = 0; i < 60; i++) {
          const ts = (i * 7 + part * 3) % 90;
          const q = i % 4 === 0 ? "" : `,query:"q${i % 5}"`;
          const id = i % 6 === 0
            ? "null({h:ip,p:uint16})"
            : `{h:10.0.0.${i % 9},p:${i % 3}(uint16)}`;
          const n = part === 1 ? `n:"${i}"` : `n:${i}`; // another type in one object
          text += `{ts:${ts}${q},id:${id},a:[${i % 3},${i}],${n}}\n`;
        }
        text +=
          `{ts:${part},query:null(string)}\nnull({ts:int64,query:string})\n{query:"nokey"}\n"str"\n`;
        await loadText(lake, p, text);
      }
      for (
        const q of [
          "cut ts,query | head 70",
          "head 200 | cut query,ts,nosuch",
          "cut query | head 1",
          "cut a,n | head 150",
          "cut id | head 100",
          "cut id,ts | head 190",
          "ts > 20 | cut n,query | head 40",
        ]
      ) {
        const fast = await agreed(lake, `from cut_${order} | ${q}`);
        // The operator itself, with nothing pushed to the source.
        assert.deepEqual(fast, await lines(lake, `from cut_${order} | fork (=> pass) | ${q}`), q);
      }
      // Made from the columns: no rows decoded.
      const r = await query(lake, `from cut_${order} | cut ts,query,a | head 20`);
      assert.equal(r.lines.length, 20);
      assert.equal(r.stats.bytesFetched, 0, order);
    }
    // Not a cut by names: the operator runs after the head, as before.
    await assert.rejects(() => query(lake, "from cut_asc | cut a,a | head 1"), /duplicate field/);
    assert.deepEqual(await lines(lake, "from cut_asc | cut x:=ts | head 1"), ["{x:0}"]);
  });
});

Deno.test("a head or tail after per-value operators picks its rows first, unless a value is dropped", async () => {
  await withLake(async (lake) => {
    for (const order of ["asc", "desc"] as const) {
      // Keys tie across objects; some rows have no key, some values are not records.
      const tied = await tiedPool(lake, order, order);
      await loadText(lake, tied, '{k:2,s:error("quiet"),v:7}\nerror("missing")\n');
      for (const n of [1, 3, 10, 41, 200]) {
        for (const end of ["head", "tail"]) {
          for (const filter of ["", "v % 3 == 0 | "]) {
            for (
              const ops of [
                "yield s", // a field some values lack, and an error("quiet") value in one
                "rename t:=s | put w:=v*2",
                "drop extra | yield this",
                "cut x:=s, k",
                "yield quiet(extra)", // drops most values: the rows decide
                "put c:=count() | pass", // running state over the same values
              ]
            ) {
              const q = `from ${order} | ${filter}${ops} | ${end} ${n}`;
              const { rows, cols } = await bothPaths(lake, q);
              assert.deepEqual(cols.lines, rows.lines, q);
              // The operators as they are, nothing pushed to the source.
              const op = await lines(
                lake,
                `from ${order} | ${filter}fork (=> pass) | ${ops} | ${end} ${n}`,
              );
              assert.deepEqual(cols.lines, op, q);
              if (ops.startsWith("yield quiet") && n >= 10) {
                // Values are dropped among the first ten (most lack extra), so
                // the pool is read again by rows: counted once, as the rows count it.
                assert.deepEqual(
                  [cols.stats.recordsRead, cols.stats.bytesRead],
                  [rows.stats.recordsRead, rows.stats.bytesRead],
                  q,
                );
              }
            }
          }
        }
      }
    }
    // Picked first: only the head's rows are decoded.
    const p = keyedPool(lake, "many", "ts", "asc");
    for (let part = 0; part < 8; part++) {
      let text = "";
      for (let i = 0; i < 500; i++) text += `{ts:${part * 500 + i},v:${i},s:"x${i}"}\n`;
      await loadText(lake, p, text);
    }
    for (
      const [end, want] of [
        ["head", ['"x0"', '"x1"', '"x2"']],
        ["tail", ['"x497"', '"x498"', '"x499"']],
      ] as const
    ) {
      const { rows, cols } = await bothPaths(lake, `from many | rename t:=s | yield t | ${end} 3`);
      assert.deepEqual(cols.lines, want);
      assert.deepEqual(cols.lines, rows.lines);
      assert.ok(
        cols.stats.bytesFetched < rows.stats.bytesFetched / 4,
        `${end}: ${cols.stats.bytesFetched} of ${rows.stats.bytesFetched} bytes fetched`,
      );
    }
  });
});

Deno.test("put, rename and drop before a summary read only the fields used, with the same answers", async () => {
  await withLake(async (lake) => {
    const p = keyedPool(lake, "p", "k");
    for (let part = 0; part < 3; part++) {
      let text = "";
      for (let i = 0; i < 50; i++) {
        const s = i % 4 === 0 ? "" : `,s:"s${i % 6}"`;
        const x = i % 5 === 0 ? `,x:"old${i % 2}"` : "";
        const r = i % 3 === 0
          ? `,r:{a:${i},b:"b${i % 2}"}`
          : i % 7 === 0
          ? ",r:null({a:int64})"
          : "";
        text += `{k:${(i * 7 + part) % 40},v:${part * 100 + i}${s}${x}${r},pad:"${
          "z".repeat(i)
        }"}\n`;
      }
      text += `{k:1,s:error("quiet"),v:1}\n"not a record"\n`;
      await loadText(lake, p, text);
    }
    for (
      const q of [
        "put x:=v*2 | sum(x)",
        "put x:=quiet(s) | count() by x | sort x", // a quiet clause keeps the input's x
        "x:=s | count() by x | sort x",
        "rename t:=s | count() by t | sort t",
        "rename x:=s | count() by x, s | sort x, s",
        "drop r | count() by s | sort s",
        "drop r.b | collect(r) by s | sort s",
        "put r.z:=1 | count() by r | sort r",
        "put y:=len(s) | sum(y), max(v) by r.b | sort r.b",
      ]
    ) {
      const projected = await query(lake, `from p | ${q}`);
      // fork hides the fields used, so every field is read.
      const whole = await query(lake, `from p | fork (=> pass) | ${q}`);
      assert.deepEqual(projected.lines, whole.lines, q);
      assert.ok(projected.lines.length > 0, q);
    }
  });
});

Deno.test("a projected scan orders values with tied keys by their whole encodings", async () => {
  await withLake(async (lake) => {
    // Tied on k; the first field (not read by the query) decides: ["p"]
    // encodes before ["p","q"], though "x" sorts before "y".
    const p = keyedPool(lake, "proj", "k", "asc");
    await loadText(lake, p, '{a:["p","q"],s:"x",k:1}');
    await loadText(lake, p, '{a:["p"],s:"y",k:1}');
    for (const q of ["cut s", "cut s | head 2", "k == 1 | cut s"]) {
      assert.deepEqual(await agreed(lake, `from proj | ${q}`), ['{s:"y"}', '{s:"x"}'], q);
    }
  });
});

Deno.test("count() and range counts: metadata, the key column, columns; no values, no count", async () => {
  await withLake(async (lake) => {
    for (const order of ["asc", "desc"] as const) {
      const p = keyedPool(lake, order, "ts", order);
      for (let part = 0; part < 4; part++) {
        let text = "";
        for (let i = part; i < 400; i += 4) text += `{ts:${i},v:${i % 10}}\n`;
        await loadText(lake, p, text);
      }
      for (const f of ["ts >= 100 and ts < 200", "ts > 100 and ts <= 200", "ts == 7", "ts < 0"]) {
        await agreed(lake, `from ${order} | ${f} | count()`);
      }
      assert.deepEqual(await lines(lake, `from ${order} | ts >= 100 and ts < 200 | count()`), [
        "{count:100(uint64)}",
      ]);
      // As the reference: a count of nothing is no output at all.
      assert.deepEqual(await lines(lake, `from ${order} | ts < 0 | count()`), []);
      assert.deepEqual(await lines(lake, `from ${order} | v == 99 | count()`), []);
      assert.deepEqual(await lines(lake, `from ${order} | v == 99 | sum(v)`), []);
    }
  });
});

Deno.test("summaries whose result depends on order read overlapping objects in pool order", async () => {
  await withLake(async (lake) => {
    const p = keyedPool(lake, "p", "ts", "asc");
    // Summed in pool order (ts 1..6) the result is 2; in object order it would be 1.
    await loadText(lake, p, '{ts:1,g:"a",x:1e16}\n{ts:3,g:"a",x:1.}\n{ts:5,g:"a",x:1.}');
    await loadText(lake, p, '{ts:2,g:"a",x:1.}\n{ts:4,g:"a",x:-1e16}\n{ts:6,g:"a",x:1.}');
    assert.deepEqual(await agreed(lake, "from p | sum(x) by g"), ['{g:"a",sum:2.}']);
    assert.deepEqual(await agreed(lake, "from p | s:=sum(x), a:=avg(x)"), [
      "{s:2.,a:0.3333333333333333}",
    ]);
    // A running sum before the summary, and operators the pool does not
    // perform: in pool order too; the same answers unmerged where order
    // does not matter.
    for (
      const rest of [
        "put s:=sum(x) | count() by s | sort s",
        "pass | put s:=sum(x) | count() by s | sort s",
        "cut x | sum(x)",
        'fork ( => g=="a" | count() => x > 0 | max(x) ) | sort this',
        "switch ( case x > 0 => count() default => min(ts) ) | sort this",
        "cut g, x | count() by g, x | sort x",
      ]
    ) {
      assert.deepEqual(
        await agreed(lake, `from p | ${rest}`),
        await lines(lake, `from p | yield this | ${rest}`),
        rest,
      );
    }
    assert.deepEqual(await lines(lake, "from p | put s:=sum(x) | count() by s | sort s"), [
      "{s:0.,count:1(uint64)}",
      "{s:1.,count:1(uint64)}",
      "{s:2.,count:1(uint64)}",
      "{s:10000000000000000.,count:3(uint64)}",
    ]);
    // Groups in one object each (no interleaving) come from columns.
    const q = keyedPool(lake, "q", "ts", "asc");
    await loadText(lake, q, '{ts:1,g:"a",x:1.5}\n{ts:3,g:"a",x:2.5}');
    await loadText(lake, q, '{ts:2,g:"b",x:1.}\n{ts:4,g:"b",x:3.}');
    const r = await query(lake, "from q | avg(x) by g | sort g");
    assert.deepEqual(r.lines, ['{g:"a",avg:2.}', '{g:"b",avg:2.}']);
    assert.equal(r.stats.bytesFetched, 0, "from columns");
  });
});

Deno.test("summaries over objects that share groups come from columns, in pool order", async () => {
  await withLake(async (lake) => {
    for (const order of ["asc", "desc"] as const) {
      // Two overlapping objects (as the parts of a split load). Group a's
      // rows in one come before its rows in the other; group b's interleave,
      // and summed object after object they would give 1 (asc) or 0 (desc).
      const p = keyedPool(lake, `p${order}`, "ts", order);
      await loadText(lake, p, '{ts:1,g:"a",x:1.}\n{ts:2,g:"b",x:1e16}\n{ts:6,g:"b",x:1.}');
      await loadText(lake, p, '{ts:3,g:"b",x:-1e16}\n{ts:7,g:"b",x:1.}\n{ts:8,g:"a",x:2.}');
      for (
        const q of [`from p${order} | s:=sum(x) by g | sort g`, `from p${order} | g=="a" | sum(x)`]
      ) {
        const r = await query(lake, q);
        assert.equal(r.stats.bytesFetched, 0, `${q}: from columns`);
        assert.deepEqual(r.lines, await agreed(lake, q));
      }
      assert.deepEqual((await query(lake, `from p${order} | s:=sum(x) by g | sort g`)).lines, [
        '{g:"a",s:3.}',
        '{g:"b",s:2.}',
      ]);
      // Keys tied across objects leave the order to the whole values: their
      // bytes, which the columns give (ordermerge_test.ts).
      const t = keyedPool(lake, `t${order}`, "ts", order);
      await loadText(lake, t, '{ts:1,g:"a",x:1e16}\n{ts:5,g:"a",x:1.}');
      await loadText(lake, t, '{ts:5,g:"a",x:2.}\n{ts:6,g:"a",x:-1e16}');
      const tq = `from t${order} | s:=sum(x) by g`;
      await agreed(lake, tq);
      assert.equal((await query(lake, tq)).stats.bytesFetched, 0, "ties from columns");
      // A group that gets no value for the sum in either object (group c: no
      // x) is not merged: its tied keys leave the order to nobody.
      const u = keyedPool(lake, `u${order}`, "ts", order);
      await loadText(lake, u, '{ts:1,g:"b",x:1e16}\n{ts:5,g:"c"}\n{ts:6,g:"b",x:1.}');
      await loadText(lake, u, '{ts:3,g:"b",x:-1e16}\n{ts:5,g:"c"}\n{ts:7,g:"b",x:1.}');
      const uq = `from u${order} | s:=sum(x), n:=count() by g | sort g`;
      const ur = await query(lake, uq);
      assert.deepEqual(ur.lines, await agreed(lake, uq));
      assert.deepEqual(ur.lines, ['{g:"b",s:2.,n:4(uint64)}', '{g:"c",s:null,n:2(uint64)}']);
      assert.equal(ur.stats.bytesFetched, 0, `${uq}: from columns`);
      // Time keys one nanosecond apart, equal as doubles: merged exactly
      // (1e16 + 1 is 1e16 in doubles, so the order decides the sum).
      const w = keyedPool(lake, `w${order}`, "ts", order);
      const at = (n: number) => timeAt(BIG_TIME + BigInt(n));
      await loadText(lake, w, `{ts:${at(1)},g:"a",x:1e16}\n{ts:${at(4)},g:"a",x:1.}`);
      await loadText(lake, w, `{ts:${at(2)},g:"a",x:1.}\n{ts:${at(3)},g:"a",x:-1e16}`);
      const wq = `from w${order} | s:=sum(x) by g`;
      const wr = await query(lake, wq);
      assert.deepEqual(wr.lines, await agreed(lake, wq));
      assert.deepEqual(wr.lines, [`{g:"a",s:${order === "asc" ? "1." : "0."}}`]);
      assert.equal(wr.stats.bytesFetched, 0, `${wq}: from columns`);
    }
  });
});

Deno.test("QueryStats count what a query covers, the same from columns as from rows", async () => {
  await withLake(async (lake) => {
    const p = keyedPool(lake, "p", "ts", "asc");
    for (let part = 0; part < 3; part++) {
      let text = "";
      for (let i = part; i < 300; i += 3) text += `{ts:${i},s:"v${i % 7}",n:${i % 5}}\n`;
      await loadText(lake, p, text);
    }
    for (const q of ['s=="v3" | count()', "count() by s", "n > 2 | sum(n)", '"v1" | count()']) {
      setUseColumns(false);
      let rows;
      try {
        rows = (await query(lake, `from p | ${q}`)).stats;
      } finally {
        setUseColumns(true);
      }
      const cols = (await query(lake, `from p | ${q}`)).stats;
      assert.equal(cols.bytesFetched, 0, q);
      for (const k of ["recordsRead", "bytesRead", "recordsMatched", "bytesMatched"] as const) {
        assert.equal(cols[k], rows[k], `${q}: ${k}`);
      }
    }
  });
});

Deno.test("range counts and heads read a few rows of big objects' columns, not the columns", async () => {
  await withLake(async (lake) => {
    for (const [order, key] of [["asc", "ts"], ["desc", "s"]] as const) {
      const p = keyedPool(lake, order, key, order);
      // Two overlapping objects of 20000 rows each; string keys in the desc pool.
      for (let part = 0; part < 2; part++) {
        const text = records(
          range(20000),
          (n) => `{ts:${2 * n + part},s:"k${String(2 * n + part).padStart(6, "0")}",v:${n}}`,
        );
        await loadText(lake, p, text);
      }
      const lo = key === "ts" ? "1000" : '"k001000"', hi = key === "ts" ? "3001" : '"k003001"';
      clearColumnCache();
      const counted = await agreed(
        lake,
        `from ${order} | ${key} >= ${lo} and ${key} < ${hi} | count()`,
      );
      assert.deepEqual(counted, ["{count:2001(uint64)}"]);
      assert.equal(columnCache.bytes, 0, "the key columns were probed, not read");
      clearColumnCache();
      const head = await agreed(lake, `from ${order} | head 3`);
      assert.equal(head.length, 3);
      assert.ok(columnCache.bytes < 2000, `${columnCache.bytes} bytes of columns read for head 3`);
      clearColumnCache();
      await agreed(lake, `from ${order} | cut ${key},v | head 500`);
      assert.ok(
        columnCache.bytes < 40000,
        `${columnCache.bytes} bytes of columns read for head 500`,
      );
    }
  });
});

Deno.test("counts over dictionary columns come from their histograms, with nulls and other types", async () => {
  await withLake(async (lake) => {
    const p = keyedPool(lake, "p", "ts", "asc");
    let text = "";
    for (let i = 0; i < 600; i++) {
      // Strings (a dictionary) with nulls; ints on some rows; rows without s.
      const s = i % 10 === 0 ? "null" : `"v${i % 4}"`;
      text += i % 7 === 0 ? `{ts:${i},other:${i}}\n` : `{ts:${i},s:${s},n:${i % 3}}\n`;
    }
    await loadText(lake, p, text);
    for (
      const q of [
        's=="v1" | count()',
        's!="v1" | count()',
        "has(s) | count()",
        "!has(s) | count()",
        "s==null | count()",
        "n==2 | count()",
        "count() by s",
        "count() by n",
      ]
    ) {
      const { rows, cols } = await bothPaths(lake, `from p | ${q}`);
      assert.deepEqual(cols.lines.sort(), rows.lines.sort(), q);
      assert.equal(cols.stats.bytesFetched, 0, `${q}: from columns`);
      assert.equal(cols.stats.recordsMatched, rows.stats.recordsMatched, `${q}: records`);
      assert.equal(cols.stats.bytesMatched, rows.stats.bytesMatched, `${q}: bytes`);
    }
  });
});

Deno.test("summaries by a dictionary column keep its grouping with it, the same as by rows", async () => {
  await withLake(async (lake) => {
    for (const order of ["asc", "desc"] as const) {
      // Three overlapping objects (groups fed from several, merged in pool
      // order); strings with nulls and rows without s or x.
      const p = keyedPool(lake, `p${order}`, "ts", order);
      for (let part = 0; part < 3; part++) {
        let text = "";
        for (let i = part; i < 900; i += 3) {
          const s = i % 11 === 0 ? "null(string)" : `"v${i % 7}"`;
          text += i % 13 === 0 ? `{ts:${i},other:1}\n` : `{ts:${i},s:${s},x:${i / 10 + 0.1}}\n`;
        }
        await loadText(lake, p, text);
      }
      clearColumnCache();
      for (
        const q of [
          "a:=avg(x) by s",
          "a:=avg(x), n:=count() by s", // the grouping kept by the first
          "x > 40 | a:=avg(x) by s", // rows selected: grouped afresh
          "m:=max(x), t:=sum(x) by s",
          "a:=avg(x) by s",
        ]
      ) {
        const { rows, cols } = await bothPaths(lake, `from p${order} | ${q} | sort s`);
        assert.deepEqual(cols.lines, rows.lines, `${order}: ${q}`);
        assert.equal(cols.stats.bytesFetched, 0, `${order}: ${q}: from columns`);
      }
    }
  });
});

Deno.test("group keys computed from one field come from the columns, as from the rows", async () => {
  await withLake(async (lake) => {
    const p = keyedPool(lake, "p", "ts", "asc");
    let text = "";
    for (let i = 0; i < 500; i++) {
      const iso = new Date(Date.UTC(2018, 2, 24, 17, 0, i * 7)).toISOString();
      const ts = i % 50 === 0 ? "null" : `"${iso}"`;
      const path = ["conn", "dns", "ssl"][i % 3];
      // Strings with nulls, times, a row type without s, another with s an int.
      text += i % 41 === 0
        ? `{ts:${ts},_path:"${path}",s:${i}}\n`
        : i % 17 === 0
        ? `{ts:${ts},_path:"${path}"}\n`
        : `{ts:${ts},_path:"${path}",s:"V${i % 5}",t:${iso}}\n`;
    }
    await loadText(lake, p, text);
    for (
      const q of [
        "count() by time := bucket(time(ts), 1m), group := _path | sort time, group",
        "ts != null | count() by time := bucket(time(ts), 1m), group := _path | sort time, group",
        "count() by lower(s) | sort this",
        "count() by n := len(s) | sort n",
        "count() by h := bucket(t, 1h) | sort h",
        "sum(len(_path)) by k := bucket(time(ts), 5m) | sort k",
        // Zui's histogram: each row's type from its type index.
        "ts != null | count() by time := bucket(time(ts), 1m), group := typeof(this) | sort time, group",
        "count() by typeof(this) | sort this",
        "s != null | count() by typeof(this), _path | sort this",
        "max(s) by t := typeof(this) | sort t",
      ]
    ) {
      const { rows, cols } = await bothPaths(lake, `from p | ${q}`);
      assert.deepEqual(cols.lines, rows.lines, q);
      assert.ok(rows.lines.length > 1, q);
      // Again: the derived codes are remembered per column, and answer the same.
      assert.deepEqual((await query(lake, `from p | ${q}`)).lines, rows.lines, `${q} again`);
      if (!q.startsWith("sum(len")) assert.equal(cols.stats.bytesFetched, 0, `${q}: from columns`);
    }
    // Keys of two fields, or of a function not of its arguments alone, stay on the rows.
    await agreed(lake, "from p | count() by k := _path + s | sort k");
  });
});

Deno.test("aggregates of an expression of fields come from their columns, as from the rows", async () => {
  await withLake(async (lake) => {
    const p = keyedPool(lake, "p", "ts", "asc");
    // Two objects whose keys interleave; x a float, an int or null, missing
    // from a third of the rows; s a string or missing.
    for (let part = 0; part < 2; part++) {
      let text = "";
      for (let i = 0; i < 300; i++) {
        const ts = 2 * i + part;
        const g = ["a", "b", "c"][i % 3];
        const x = i % 3 === 2
          ? ""
          : i % 7 === 0
          ? ",x:null"
          : i % 5 === 0
          ? `,x:${i}`
          : `,x:${i / 8}`;
        const s = i % 4 === 0 ? "" : `,s:"S${i % 11}"`;
        // y: an int, a string or missing.
        const y = i % 6 === 0 ? "" : i % 6 === 1 ? `,y:"${i}"` : `,y:${i % 9}`;
        text += `{ts:${ts},g:"${g}"${x}${s}${y}}\n`;
      }
      await loadText(lake, p, text);
    }
    const fromColumns = [
      "sum(x*1000) by g | sort g",
      "avg(x+1) by g | sort g",
      "s:=sum(x*2), n:=count(x*2)",
      "min(x-1), max(x/2)",
      "count(len(s)>3)",
      "max(len(s)) by g | sort g",
      'avg(x*1000) where g=="a"',
      // Of two fields, each present or not, of one type or two.
      "sum(x+y) by g | sort g",
      "count(y*x), max(len(s)+y)",
      "collect(coalesce(y, x)) by g | sort g",
      // Sums of ints (and of errors where s is missing, which a sum leaves
      // out) in groups the interleaving objects share: in any order alike.
      "sum(len(s)+y) by g | sort g",
      "avg(len(s)*2) by g | sort g",
    ];
    for (const q of [...fromColumns, "sum(coalesce(x, 1.0)) by g | sort g", "dcount(lower(s))"]) {
      const { rows, cols } = await bothPaths(lake, `from p | ${q}`);
      assert.deepEqual(cols.lines, rows.lines, q);
      assert.ok(rows.stats.bytesFetched > 0, q);
      if (fromColumns.includes(q)) assert.equal(cols.stats.bytesFetched, 0, `${q}: from columns`);
    }
    // (As zq: nulls and errors are values; only missing ones are not counted.)
    assert.deepEqual((await query(lake, "from p | s:=sum(x*2), n:=count(x*2)")).lines, [
      "{s:30503.,n:400(uint64)}",
    ]);
    assert.deepEqual((await query(lake, "from p | count(len(s)>3)")).lines, [
      "{count:600(uint64)}",
    ]);
    // Objects whose keys tie: a sum of ints from columns needs no order, and
    // a sum of floats the order of the values' bytes (the columns').
    const t = keyedPool(lake, "t", "ts", "asc");
    for (let part = 0; part < 2; part++) {
      let text = "";
      for (let i = 0; i < 50; i++) {
        text += `{ts:${i},g:"a"${i % 3 ? `,s:"${"s".repeat(i % 4)}"` : ""}}\n`;
      }
      await loadText(lake, t, text);
    }
    for (
      const [q, fromCols] of [["sum(len(s)+1) by g", true], [
        "sum(len(s)*1.5) by g",
        true,
      ]] as const
    ) {
      const r = await bothPaths(lake, `from t | ${q}`);
      assert.deepEqual(r.cols.lines, r.rows.lines, q);
      assert.equal(r.cols.stats.bytesFetched === 0, fromCols, q);
    }
    // A summary the columns cannot feed (of whole values) reads only the rows the filter's columns pass.
    for (const [filter, fetched] of [['g=="zzz"', false], ['g=="a"', true]] as const) {
      const q = `from p | ${filter} | count() by k := len(this) | sort k`;
      const { rows, cols } = await bothPaths(lake, q);
      assert.deepEqual(cols.lines, rows.lines, q);
      assert.equal(cols.stats.bytesFetched > 0, fetched, q);
      assert.ok(rows.stats.bytesFetched > 0, q);
    }
  });
});

Deno.test("a put of one field before a summary: the columns feed the summary of its expression", async () => {
  await withLake(async (lake) => {
    const p = keyedPool(lake, "p", "ts", "asc");
    let text = "";
    for (let i = 0; i < 300; i++) {
      const x = i % 3 === 2 ? "" : i % 7 === 0 ? ",x:null" : `,x:${i / 4}`;
      text += `{ts:${i},g:"${["a", "b"][i % 2]}"${x}}\n`;
    }
    await loadText(lake, p, text);
    // A second object with values that are not records: the put makes them errors.
    const q = keyedPool(lake, "q", "ts", "asc");
    await loadText(lake, q, text);
    await loadText(lake, q, '2\n{ts:1000,x:1.}\n"s"\n');
    const inlined = [
      "put y:=x*1000 | sum(y) by g | sort g",
      "put y:=x+1 | avg(y), count(y)",
      "put x:=x*2 | sum(x) by g | sort g",
      "put k:=coalesce(x, -1.) | count() by k | sort k | head 4",
      'put y:=x*2 | max(y) where g=="b"',
      // A yield of one record: its fields' expressions inlined the same way.
      "yield {y:x*1000, g} | sum(y) by g | sort g",
      "yield {k:coalesce(x, -1.)} | count() by k | sort k | head 4",
    ];
    const onRows = [
      "put y:=quiet(x) | count() by y | sort y | head 3",
      'put y:=x*2 | sum(y) by this["g"] | sort this',
      "put y:=x, z:=x | sum(y)",
      "yield {y:x} | count() by g | sort g", // g is in no yielded record: missing
      "yield {...this, y:x} | sum(y)",
      "yield {y:quiet(x)} | count() by y | sort y",
    ];
    for (const pool of ["p", "q"]) {
      for (const qq of [...inlined, ...onRows]) {
        const { rows, cols } = await bothPaths(lake, `from ${pool} | ${qq}`);
        assert.deepEqual(cols.lines, rows.lines, `${pool}: ${qq}`);
        // (Rows through the put are made from columns too, where they can be.)
        const fromCols = pool === "p" && inlined.includes(qq);
        if (fromCols) assert.equal(cols.stats.bytesFetched, 0, `${pool}: ${qq}: from columns`);
        if (pool === "q") assert.ok(cols.stats.bytesFetched > 0, `${pool}: ${qq}: rows read`);
      }
    }
    // The values that are not records count as errors with a missing k, as the put makes them.
    const ks = await query(lake, "from q | put k:=coalesce(x, -1.) | count() by k");
    assert.ok(ks.lines.includes('{k:error("missing"),count:2(uint64)}'), ks.text);
    // A constant is not a field: the put's field inlined beside it.
    const withConst = await bothPaths(lake, "const k = 2. from p | put y:=x | sum(y*k)");
    assert.deepEqual(withConst.cols.lines, withConst.rows.lines);
    assert.deepEqual(withConst.cols.lines, (await query(lake, "from p | sum(x*2.)")).lines);
  });
});

Deno.test("sort by an expression of fields with a head: from columns, equal to the sort over rows", async () => {
  await withLake(async (lake) => {
    for (const order of ["asc", "desc"] as const) {
      const p = keyedPool(lake, order, "k", order);
      // Three objects whose keys interleave and tie across objects; x an int,
      // a float, null or missing, s a string or missing, y an int.
      for (let part = 0; part < 3; part++) {
        let text = "";
        for (let i = 0; i < 120; i++) {
          const x = i % 5 === 0 ? "" : i % 7 === 0 ? ",x:null" : `,x:${(i * 37 + part) % 23}`;
          const s = i % 3 === 0 ? "" : `,s:"${"q".repeat((i + part) % 9)}"`;
          text += `{k:${(i * 3 + part) % 50}${x}${s},y:${i % 4},v:${part * 1000 + i}}\n`;
        }
        await loadText(lake, p, text);
      }
      const fromColumns = [
        "sort x*2 | head 5",
        "sort -r x*2 | head 5",
        "sort len(s) | head 7",
        "sort -r len(s) | head 300",
        "sort x+y | head 40",
        "sort -r x-y | head 1",
        "y==2 | sort -r len(s)+x | head 6",
        "sort -r len(s) | head 2000",
      ];
      // nulls first, and keys of several number types beside strings, are the rows'.
      const onRows = ["sort -nulls first x*2 | head 5", "sort coalesce(x*1.5, s, y) | head 9"];
      for (const q of [...fromColumns, ...onRows]) {
        const { rows, cols } = await bothPaths(lake, `from ${order} | ${q}`);
        assert.deepEqual(cols.lines, rows.lines, `${order}: ${q}`);
        if (fromColumns.includes(q)) {
          const whole = await lines(lake, `from ${order} | ${q.replace(/ \| head \d+$/, "")}`);
          const n = Number(/head (\d+)$/.exec(q)![1]);
          assert.deepEqual(
            cols.lines,
            whole.slice(0, n),
            `${order}: ${q}: the sort's first values`,
          );
        }
        // Rows decoded only for values tied across objects (ordered by their encodings).
        if (fromColumns.includes(q)) assert.ok(cols.stats.bytesFetched <= rows.stats.bytesFetched);
        else assert.equal(cols.stats.bytesFetched, rows.stats.bytesFetched, `${order}: ${q}`);
      }
      // Distinct keys: nothing decoded but from columns.
      const unique = await bothPaths(lake, `from ${order} | sort -r v*2+y | head 5`);
      assert.deepEqual(unique.cols.lines, unique.rows.lines);
      assert.equal(unique.cols.stats.bytesFetched, 0);
      assert.ok(unique.rows.stats.bytesFetched > 0);
      // A put of the field sorted by: the sort by its expression, the put made
      // of the values picked (an error where the expression has none: missing
      // x or s), as the operators over every value.
      for (
        const q of [
          "put n:=x*2 | sort n | head 5",
          "put n:=len(s) | sort -r n | head 7",
          "put x:=x+y | sort -r x | head 4",
          "y==2 | put n:=len(s)+x | sort -r n | head 6",
          "put n:=x*2 | sort -r n | head 300 | cut n, v",
        ]
      ) {
        const { rows, cols } = await bothPaths(lake, `from ${order} | ${q}`);
        assert.deepEqual(cols.lines, rows.lines, `${order}: ${q}`);
        const op = await lines(lake, `from ${order} | fork (=> pass) | ${q}`);
        assert.deepEqual(cols.lines, op, `${order}: ${q}`);
        // (Ties past the head, or across objects, are ordered by reading rows.)
        if (q.includes("x*2")) continue;
        assert.equal(cols.stats.bytesFetched, 0, `${order}: ${q}: from columns`);
      }
    }
  });
});

Deno.test("a pool's lifted filter drops rows whose result is an error, by rows and by columns", async () => {
  await withLake(async (lake) => {
    const p = keyedPool(lake, "p", "k");
    for (let part = 0; part < 2; part++) {
      let text = "";
      for (let i = 0; i < 40; i++) {
        const k = part * 40 + i;
        if (i % 4 === 0) text += `{k:${k},n:${i}}\n`;
        else if (i % 4 === 1) text += `{k:${k},s:${i},b:true(flag=bool)}\n`;
        else text += `{k:${k},s:"${"abcdef".slice(0, i % 7)}",b:${i % 3 === 0}}\n`;
      }
      await loadText(lake, p, text);
    }
    const expect: [string, string[]][] = [
      // len(missing) and len(an int) are errors: those rows drop.
      ["len(s) > 2 | count()", ["{count:24(uint64)}"]],
      ['lower(s)=="abc" | count()', ["{count:8(uint64)}"]],
      ["len(s) > 2 or n > 30 | count()", ["{count:24(uint64)}"]],
      ["where n > 30 or len(s) > 2 | count()", ["{count:28(uint64)}"]],
      // A named bool is not type bool to the scanner; a plain one is.
      ["where b | count()", ["{count:14(uint64)}"]],
      ["where s | count()", []],
      ["where len(s) > 4 | sort k | head 2", [
        '{k:6,s:"abcdef",b:true}',
        '{k:19,s:"abcde",b:false}',
      ]],
    ];
    for (const [q, want] of expect) {
      const { rows, cols } = await bothPaths(lake, `from p | ${q}`);
      assert.deepEqual(rows.lines, want, `rows: ${q}`);
      assert.deepEqual(cols.lines, want, `columns: ${q}`);
    }
    // After another operator, the filter is an operator: it emits the errors.
    const { rows, cols } = await bothPaths(lake, "from p | pass | len(s) > 2 | count()");
    assert.deepEqual(rows.lines, ["{count:64(uint64)}"]);
    assert.deepEqual(cols.lines, rows.lines);
  });
});

Deno.test("sort by another field with a head: from columns, equal to the sort over rows", async () => {
  await withLake(async (lake) => {
    for (const order of ["asc", "desc"] as const) {
      // k ties across objects (decided by the values' bytes), s and n tie too.
      await tiedPool(lake, order, order);
      const q = (rest: string) => `from ${order} | ${rest}`;
      for (const dir of ["", "-r "]) {
        for (const field of ["v", "s", "this.v", "extra"]) {
          for (const n of [1, 3, 10, 200]) {
            for (const filter of ["", "v % 3 == 0 | "]) {
              const rest = `${filter}sort ${dir}${field} | head ${n}`;
              const { rows, cols } = await bothPaths(lake, q(rest));
              assert.deepEqual(cols.lines, rows.lines, q(rest));
              assert.deepEqual(cols.lines, await lines(lake, q(`yield this | ${rest}`)), q(rest));
            }
          }
        }
      }
    }
    // A cut of fields by name before a sort by one of them: the cut made of the picked rows.
    for (const order of ["asc", "desc"] as const) {
      for (
        const rest of [
          "cut s,v | sort -r v | head 3",
          "cut v | sort v | head 30",
          "cut k,s,nosuch | sort s | head 7",
          "v % 3 == 0 | cut extra,s | sort -r extra | head 2",
          "cut v,s | sort -r v | head 500",
          "cut k,v | sort k | head 4",
        ]
      ) {
        const { rows, cols } = await bothPaths(lake, `from ${order} | ${rest}`);
        assert.deepEqual(cols.lines, rows.lines, rest);
        const plain = rest.replace(/ \| sort/, " | pass | sort");
        assert.deepEqual(cols.lines, await lines(lake, `from ${order} | ${plain}`), rest);
      }
    }
    // Only the picked rows are decoded; the stats count the whole pool read.
    const p = keyedPool(lake, "many", "ts", "asc");
    for (let part = 0; part < 8; part++) {
      let text = "";
      for (let i = 0; i < 500; i++) {
        text += `{ts:${part * 500 + i},v:${(i * 7919) % 1000},s:"${i % 13}"}\n`;
      }
      await loadText(lake, p, text);
    }
    const cut = await bothPaths(lake, "from many | cut s,v | sort -r v | head 3");
    assert.deepEqual(cut.cols.lines, cut.rows.lines);
    assert.equal(cut.cols.stats.bytesFetched, 0, "cut from columns");
    assert.ok(cut.rows.stats.bytesFetched > 0);
    const { rows, cols } = await bothPaths(lake, "from many | sort -r v | head 3");
    assert.deepEqual(cols.lines, rows.lines);
    assert.deepEqual(cols.lines.map((l) => l.replace(/ts:\d+,/, "")), [
      '{v:999,s:"9"}',
      '{v:999,s:"9"}',
      '{v:999,s:"9"}',
    ]);
    assert.equal(cols.stats.recordsRead, 4000);
    assert.equal(cols.stats.recordsRead, rows.stats.recordsRead);
    assert.ok(
      cols.stats.bytesFetched < rows.stats.bytesFetched / 4,
      `${cols.stats.bytesFetched} of ${rows.stats.bytesFetched} bytes fetched`,
    );
  });
});

Deno.test("top by a field from columns where its values are distinct, else by its heap", async () => {
  await withLake(async (lake) => {
    for (const order of ["asc", "desc"] as const) {
      // v is distinct but for three -1s, k and extra tie, s ties in one place.
      await tiedPool(lake, order, order);
      for (const field of ["v", "k", "s", "extra", "this.v"]) {
        for (const n of [1, 3, 10, 117, 200]) {
          for (const filter of ["", "v % 3 == 0 | "]) {
            const q = `from ${order} | ${filter}top ${n} ${field}`;
            const { rows, cols } = await bothPaths(lake, q);
            assert.deepEqual(cols.lines, rows.lines, q);
            const op = await lines(
              lake,
              `from ${order} | ${filter}fork (=> pass) | top ${n} ${field}`,
            );
            assert.deepEqual(cols.lines, op, q);
          }
        }
      }
    }
    // From columns: only the winners are decoded.
    const p = keyedPool(lake, "many", "ts", "asc");
    for (let part = 0; part < 8; part++) {
      let text = "";
      for (let i = 0; i < 500; i++) {
        text += `{ts:${part * 500 + i},v:${(i * 7919) % 4001 + part / 10 + 0.05}}\n`;
      }
      await loadText(lake, p, text);
    }
    const { rows, cols } = await bothPaths(lake, "from many | top 3 v");
    assert.deepEqual(cols.lines, rows.lines);
    assert.equal(cols.lines.length, 3);
    assert.ok(
      cols.stats.bytesFetched < rows.stats.bytesFetched / 4,
      `${cols.stats.bytesFetched} of ${rows.stats.bytesFetched} bytes fetched`,
    );
  });
});

Deno.test("top where its best values tie: its heap run over the columns in pool order", async () => {
  await withLake(async (lake) => {
    for (const order of ["asc", "desc"] as const) {
      // Objects of separate key ranges (days apart), each value repeated in
      // every one (a copy a day): the best values tie across objects; nulls,
      // rows without v, and an int-valued field n.
      const p = keyedPool(lake, `days${order}`, "ts", order);
      for (let day = 0; day < 5; day++) {
        let text = "";
        for (let i = 0; i < 400; i++) {
          const v = i % 37 === 0 ? "null(float64)" : `${(i * 7919) % 97 + 0.5}`;
          text += i % 23 === 0
            ? `{ts:${day * 100000 + i},kind:"other"}\n`
            : `{ts:${day * 100000 + i},kind:"${i % 2 ? "odd" : "even"}",v:${v},n:${i % 11}}\n`;
        }
        await loadText(lake, p, text);
      }
      for (const filter of ["", 'kind=="odd" | ', "n > 4 | "]) {
        for (const top of ["top 1 v", "top 3 v", "top 12 v", "top 7 n", "top 150 n"]) {
          const q = `from days${order} | ${filter}${top}`;
          const { rows, cols } = await bothPaths(lake, q);
          assert.deepEqual(cols.lines, rows.lines, q);
          const op = await lines(lake, `from days${order} | ${filter}fork (=> pass) | ${top}`);
          assert.deepEqual(cols.lines, op, q);
          if (top !== "top 150 n") {
            assert.ok(
              cols.stats.bytesFetched < rows.stats.bytesFetched / 4,
              `${q}: ${cols.stats.bytesFetched} of ${rows.stats.bytesFetched} bytes fetched`,
            );
          }
        }
      }
      // Objects that overlap: the operator, on the rows.
      await loadText(
        lake,
        p,
        `{ts:150,kind:"odd",v:96.5,n:10}\n{ts:200150,kind:"odd",v:96.5,n:3}\n`,
      );
      const q = `from days${order} | kind=="odd" | top 3 v`;
      const { rows, cols } = await bothPaths(lake, q);
      assert.deepEqual(cols.lines, rows.lines, q);
    }
  });
});

Deno.test("sorts and tops by times past 2^53 from columns, equal doubles told apart exactly", async () => {
  await withLake(async (lake) => {
    for (const order of ["asc", "desc"] as const) {
      // t: times a nanosecond or a few apart (one double for several), some
      // equal; a log whose key is an error (no column holds it) that the
      // filters pass nothing of.
      const p = keyedPool(lake, `t${order}`, "ts", order);
      const base = 1521911100000000000n;
      for (let part = 0; part < 3; part++) {
        let text = "";
        for (let i = 0; i < 300; i++) {
          const t = base + BigInt((i * 37) % 101) * 3n + BigInt(part);
          const ts = base + BigInt(part * 1000 + i) * 1000n;
          text += `{ts:${zsonTime(ts)},kind:"${i % 2 ? "odd" : "even"}",t:${zsonTime(t)}}\n`;
        }
        await loadText(lake, p, text);
      }
      await loadText(
        lake,
        p,
        `{ts:error("missing"),kind:"scripts"}\n{ts:error("missing"),kind:"x"}\n`,
      );
      for (const filter of ['kind=="odd" | ', 'kind!="scripts" | ']) {
        for (
          const rest of ["sort -r t | head 3", "sort t | head 5", "top 4 t", "sort -r ts | head 7"]
        ) {
          const q = `from t${order} | ${filter}${rest}`;
          const { rows, cols } = await bothPaths(lake, q);
          assert.deepEqual(cols.lines, rows.lines, q);
          const op = await lines(lake, `from t${order} | ${filter}fork (=> pass) | ${rest}`);
          assert.deepEqual(cols.lines, op, q);
          // (The error-keyed "x" row, which no column holds, keeps a sort by
          // the key on the rows.)
          if (filter.includes("!=") && rest.includes(" ts ")) continue;
          assert.ok(
            cols.stats.bytesFetched < rows.stats.bytesFetched / 4,
            `${q}: ${cols.stats.bytesFetched} of ${rows.stats.bytesFetched} bytes fetched`,
          );
        }
      }
    }
  });
});

/** A time of nanoseconds since 1970 in ZSON. */
function zsonTime(ns: bigint): string {
  const s = ns / 1000000000n, f = ns % 1000000000n;
  return new Date(Number(s) * 1000).toISOString().replace(
    ".000Z",
    `.${String(f).padStart(9, "0")}Z`,
  );
}

Deno.test("tail from columns: the last rows of each object, in pool order, equal to the operator", async () => {
  await withLake(async (lake) => {
    for (const order of ["asc", "desc"] as const) {
      // Keys tie across objects (decided by the values' bytes); some rows have no key.
      await tiedPool(lake, order, order);
      for (const n of [1, 3, 10, 41, 200]) {
        for (const filter of ["", "v % 3 == 0 | ", "k == 4 | "]) {
          for (const rest of [`tail ${n}`, `tail ${n} | cut s,k`, `cut k,v | tail ${n}`]) {
            const q = `from ${order} | ${filter}${rest}`;
            const { rows, cols } = await bothPaths(lake, q);
            assert.deepEqual(cols.lines, rows.lines, q);
            const op = await lines(lake, `from ${order} | ${filter}yield this | ${rest}`);
            assert.deepEqual(cols.lines, op, q);
            assert.equal(cols.stats.recordsRead, rows.stats.recordsRead, q);
          }
        }
      }
    }
    // Only the last rows are decoded.
    const p = keyedPool(lake, "many", "ts", "asc");
    for (let part = 0; part < 8; part++) {
      let text = "";
      for (let i = 0; i < 500; i++) text += `{ts:${(part % 2) * 4000 + part * 500 + i},v:${i}}\n`;
      await loadText(lake, p, text);
    }
    const { rows, cols } = await bothPaths(lake, "from many | tail 3");
    assert.deepEqual(cols.lines, ["{ts:7997,v:497}", "{ts:7998,v:498}", "{ts:7999,v:499}"]);
    assert.deepEqual(cols.lines, rows.lines);
    assert.ok(
      cols.stats.bytesFetched < rows.stats.bytesFetched / 4,
      `${cols.stats.bytesFetched} of ${rows.stats.bytesFetched} bytes fetched`,
    );
  });
});

Deno.test("operators a pool runs itself count against the query's memory, by rows and by columns", async () => {
  await withLake(async (lake) => {
    const p = keyedPool(lake, "p", "ts");
    let text = "";
    for (let i = 0; i < 20_000; i++) text += `{ts:${i},s:"${"x".repeat(80)}"}\n`;
    await loadText(lake, p, text);
    setQueryMemory("1MiB");
    try {
      for (const columns of [true, false]) {
        setUseColumns(columns);
        try {
          // Beyond what columns take on: the operator, in the query's account.
          await assert.rejects(
            query(lake, "from p | tail 1000000"),
            /tail would hold more than the query's 1 MiB/,
          );
        } finally {
          setUseColumns(true);
        }
      }
    } finally {
      setQueryMemory(undefined);
    }
    assert.equal(threadMemoryHeld(), 0);
  });
});

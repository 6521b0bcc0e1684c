// Queries that use index objects (lib/lake/index/terms.ts, lookup.ts,
// indexedscan.ts): objects a field index proves empty are skipped and only
// the streams holding the records it points at are read (the reference's
// lake/ztests/index/query*.yaml), and the results are those of a plain scan.

import assert from "node:assert/strict";
import { updateIndex } from "../../lib/lake/index/apply.ts";
import { forgetFieldIndexes } from "../../lib/lake/index/lookup.ts";
import type { Lake } from "../../lib/lake/lake.ts";
import { createPool } from "../../lib/lake/pools.ts";
import { addRules } from "../../lib/lake/rules.ts";
import type { ScanStats } from "../../lib/lake/scan.ts";
import { keyedPool, lines, loadText, query, range, records, withLake } from "./helpers.ts";

/** The scan counters as the reference's `-s` line shows them, plus objects read and skipped. */
function statsLine(s: ScanStats): string {
  return `{bytes_read:${s.bytesRead},records_read:${s.recordsRead},` +
    `records_matched:${s.recordsMatched}} objects ${s.objectsRead} skipped ${s.objectsSkippedByIndex}`;
}

async function stats(lake: Lake, q: string): Promise<string> {
  return statsLine((await query(lake, q)).stats);
}

Deno.test("queries skip objects an index proves empty (query.yaml)", async () => {
  await withLake(async (lake) => {
    const pool = createPool(lake, { name: "test" });
    addRules(lake.catalog, [{ name: "s", kind: "field", fields: [["s"]] }]);
    // Three loads, three objects.
    await loadText(lake, pool, "{s:127.0.0.1}");
    await loadText(lake, pool, "{s:1}");
    await loadText(lake, pool, '{s:"hello"}');
    assert.equal(
      await stats(lake, "from test | s==127.0.0.1"),
      "{bytes_read:13,records_read:3,records_matched:1} objects 3 skipped 0",
    );
    await updateIndex(lake, pool, "main");
    const cases: [string, string][] = [
      ["s==127.0.0.1", "{bytes_read:5,records_read:1,records_matched:1} objects 1 skipped 2"],
      ["s==1", "{bytes_read:2,records_read:1,records_matched:1} objects 1 skipped 2"],
      ['s=="hello"', "{bytes_read:6,records_read:1,records_matched:1} objects 1 skipped 2"],
      [
        's=="hello" or s==1 or s==127.0.0.1',
        "{bytes_read:13,records_read:3,records_matched:3} objects 3 skipped 0",
      ],
      ['s=="missing"', "{bytes_read:0,records_read:0,records_matched:0} objects 0 skipped 3"],
      // Beyond the reference: `in`, the literal first, and coercion between number types.
      ['s in [1,"x"]', "{bytes_read:2,records_read:1,records_matched:1} objects 1 skipped 2"],
      ["1 == s", "{bytes_read:2,records_read:1,records_matched:1} objects 1 skipped 2"],
      ["s == 1.0", "{bytes_read:2,records_read:1,records_matched:1} objects 1 skipped 2"],
      // An `and` needs one indexed side; an `or` both.
      ["s==1 and !(s==1)", "{bytes_read:2,records_read:1,records_matched:0} objects 1 skipped 2"],
      // (`!=` with a string literal is false for any other type.)
      [
        's==1 or s!="hello"',
        "{bytes_read:13,records_read:3,records_matched:1} objects 3 skipped 0",
      ],
      [
        's=="hello" and s==1',
        "{bytes_read:0,records_read:0,records_matched:0} objects 0 skipped 3",
      ],
    ];
    for (const [filter, want] of cases) {
      assert.equal(await stats(lake, `from test | ${filter}`), want, filter);
    }
    // The cached index objects and the ones read back give the same answers.
    forgetFieldIndexes();
    assert.equal(
      await stats(lake, "from test | s==1"),
      "{bytes_read:2,records_read:1,records_matched:1} objects 1 skipped 2",
    );
  });
});

Deno.test("an index reads only the streams holding the records it points at (query-with-seek.yaml)", async () => {
  await withLake(async (lake) => {
    // Keyed on k with small streams; v == 7 occurs in two neighbouring records.
    const pool = keyedPool(lake, "test", "k", "asc", { seekStride: 64 });
    const text = records(
      range(2000),
      (n) => `{k:${n},v:${n === 1200 || n === 1201 ? 7 : 100 + n}}`,
    );
    await loadText(lake, pool, text);
    const before = await query(lake, "from test | v == 7 | cut k");
    addRules(lake.catalog, [{ name: "v", kind: "field", fields: [["v"]] }]);
    await updateIndex(lake, pool, "main", ["v"]);
    const after = await query(lake, "from test | v == 7 | cut k");
    assert.deepEqual(after.lines, ["{k:1200}", "{k:1201}"]);
    assert.deepEqual(after.lines, before.lines);
    assert.equal(before.stats.recordsRead, 2000);
    assert.ok(after.stats.recordsRead < 100, `read ${after.stats.recordsRead}`);
    assert.ok(after.stats.bytesRead < before.stats.bytesRead / 20);
    // Combined with the pool key's range, and in an object the index does not rule out.
    const both = await query(lake, "from test | v == 7 and k >= 1201 | cut k");
    assert.deepEqual(both.lines, ["{k:1201}"]);
    assert.ok(both.stats.recordsRead < 100);
    const none = await query(lake, "from test | v == 7 and k < 1000");
    assert.deepEqual(none.lines, []);
    assert.equal(none.stats.recordsRead, 0);
  });
});

/** Values of many kinds for s, in one object or several. */
const MIXED = [
  "{k:1,s:1}",
  "{k:2,s:1.0}",
  "{k:3,s:-0.}",
  "{k:4,s:0}",
  "{k:5,s:null(int64)}",
  "{k:6,s:1(uint8)}",
  '{k:7,s:"1"}',
  "{k:8,s:127.0.0.1}",
  "{k:9}",
  "{k:10,s:[1,2]}",
  "{k:11,s:9223372036854775807}",
  "{k:12,s:18446744073709551615(uint64)}",
  '{k:13,s:error("boom")}',
  "{k:14,s:2023-01-01T00:00:00Z}",
  "{k:15,s:NaN}",
  "{k:16,s:true}",
  "{k:17,s:0x01}",
  "{k:18,s:10.0.0.0/8}",
  "{k:19,s:<int64>}",
  '{k:20,s:"x"(=named)}',
];

const FILTERS = [
  "s == 1",
  "s == 0",
  "s == -0.",
  "s == 1.0",
  's == "1"',
  's == "x"',
  "s == 127.0.0.1",
  "s == 9223372036854775807",
  "s == true",
  "s == 0x01",
  "s == 10.0.0.0/8",
  "s == <int64>",
  "s == NaN",
  "s == 2023-01-01T00:00:00Z",
  "s == 1672531200000000000",
  "s == 2",
  "1 == s",
  "s in [1, 2]",
  's in ["1", 127.0.0.1]',
  "s in |[0, true]|",
  "s == 1 or s == 127.0.0.1",
  "s == 1 and k > 3",
  "s == 99 or k == 3",
];

Deno.test("index pruning never changes a query's result (values of every kind)", async () => {
  await withLake(async (lake) => {
    const plain = keyedPool(lake, "plain", "k");
    const indexed = keyedPool(lake, "indexed", "k");
    // One object per value in the indexed pool, so each can be skipped on its own.
    await loadText(lake, plain, MIXED.join("\n"));
    for (const v of MIXED) await loadText(lake, indexed, v);
    addRules(lake.catalog, [{ name: "s", kind: "field", fields: [["s"]] }]);
    await updateIndex(lake, indexed, "main");
    let skipped = 0;
    for (const f of FILTERS) {
      const want = await lines(lake, `from plain | ${f} | sort k`);
      const got = await query(lake, `from indexed | ${f} | sort k`);
      assert.deepEqual(got.lines, want, f);
      skipped += got.stats.objectsSkippedByIndex;
    }
    assert.ok(skipped > FILTERS.length * 10, `skipped ${skipped}`);
  });
});

Deno.test("a nested field rule prunes for its path only", async () => {
  await withLake(async (lake) => {
    const pool = createPool(lake, { name: "test" });
    for (const n of range(4)) await loadText(lake, pool, `{id:{orig_h:10.0.0.${n}},b:${n}}`);
    addRules(lake.catalog, [{ name: "orig", kind: "field", fields: [["id", "orig_h"]] }]);
    await updateIndex(lake, pool, "main");
    const r = await query(lake, "from test | id.orig_h == 10.0.0.2 | yield b");
    assert.deepEqual(r.lines, ["2"]);
    assert.equal(r.stats.objectsSkippedByIndex, 3);
    const other = await query(lake, "from test | b == 2 | yield b");
    assert.equal(other.stats.objectsSkippedByIndex, 0);
    assert.equal(other.stats.objectsRead, 4);
  });
});

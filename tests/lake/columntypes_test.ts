// What a query decides from a column's type alone, without reading the
// column: sum, min and max skip values that are not numbers, a comparison
// with a constant of a kind a column's values never compare with is false,
// and Zui's histogram key bucket(time(ts), span) is worked out from the
// column's arrays. Each answers as the rows do.

import assert from "node:assert/strict";
import { clearColumnCache, columnCache } from "../../lib/lake/columns/mod.ts";
import { parseQuery } from "../../lib/query/mod.ts";
import { timeBucket } from "../../lib/query/planner/pushdown.ts";
import type * as ast from "../../lib/query/ast.ts";
import { agreed, keyedPool, loadText, query, withLake } from "./helpers.ts";

/** A pool whose field x is a long string in some rows, and a number or time in others. */
async function mixedPool(lake: Parameters<Parameters<typeof withLake>[0]>[0]) {
  const p = keyedPool(lake, "p", "ts", "asc");
  let text = "";
  for (let i = 0; i < 3000; i++) {
    const long = `"${"x".repeat(40)}${i}"`;
    const x = i % 4 === 0 ? `${i}` : i % 4 === 1 ? `${i / 4}` : i % 4 === 2 ? long : "null(string)";
    const t = i % 5 === 0 ? `2018-03-24T17:${String(i % 60).padStart(2, "0")}:00Z` : long;
    text += `{ts:${i},g:"${"abc"[i % 3]}",x:${x},t:${t},s:${long}}\n`;
  }
  await loadText(lake, p, text);
}

Deno.test("sum, min and max read only a field's columns of numbers", async () => {
  await withLake(async (lake) => {
    await mixedPool(lake);
    for (
      const q of [
        "min(x), max(x), sum(x) by g | sort g",
        "min(t), max(t)",
        "min(s), max(s), sum(s), count()",
        "avg(x) by g | sort g", // avg reads numeric strings: every column
      ]
    ) await agreed(lake, `from p | ${q}`);
    clearColumnCache();
    const strings = await agreed(lake, "from p | min(s), max(s), sum(s)");
    assert.deepEqual(strings, ["{min:null,max:null,sum:null}"]);
    assert.ok(columnCache.bytes < 30000, `${columnCache.bytes} bytes read for no numbers`);
    clearColumnCache();
    await agreed(lake, "from p | avg(s)");
    assert.ok(columnCache.bytes > 3000 * 40, "avg reads the strings");
  });
});

Deno.test("a comparison with a constant its column never compares with reads nothing", async () => {
  await withLake(async (lake) => {
    await mixedPool(lake);
    for (
      const q of [
        "s >= 2018-03-24T17:25:00Z | count()",
        "t >= 2018-03-24T17:25:00Z | count()",
        "x < 100 | count() by g | sort g",
        'x != "y" | count()',
        "x == 2018-03-24T17:25:00Z or s == 1 | count()",
        "!(s > 1.5) | count()",
      ]
    ) await agreed(lake, `from p | ${q}`);
    clearColumnCache();
    assert.deepEqual(await agreed(lake, "from p | s >= 2018-03-24T17:25:00Z | count()"), []);
    assert.ok(columnCache.bytes < 30000, `${columnCache.bytes} bytes read`);
  });
});

Deno.test("histogram keys bucket(time(f), span) are read as time buckets", () => {
  const key = (q: string) => {
    const op = parseQuery(q).ops[0] as ast.Summarize;
    return timeBucket((op.keys![0] as ast.Assignment).rhs);
  };
  assert.deepEqual(key("count() by t:=bucket(time(ts), 1m)"), { span: 60000000000n, cast: true });
  assert.deepEqual(key("count() by t:=bucket(ts, 2h)"), { span: 7200000000000n, cast: false });
  assert.deepEqual(key("count() by every(5m)"), { span: 300000000000n, cast: false });
  assert.equal(key("count() by t:=bucket(ts, 60)"), null); // a number of seconds: the expression
  assert.equal(key("count() by t:=bucket(duration(ts), 1m)"), null);
  assert.equal(key("count() by t:=bucket(a.b, 1m)"), null);
});

Deno.test("time buckets of time strings over the columns answer as the rows do", async () => {
  await withLake(async (lake) => {
    const p = keyedPool(lake, "p", "n", "asc");
    let text = "";
    for (let i = 0; i < 2000; i++) {
      const sec = 1521911100 + i * 13;
      const iso = new Date(sec * 1000).toISOString().replace(".000", i % 3 ? `.${i}` : "");
      const ts = i % 97 === 0
        ? "null(string)"
        : i % 89 === 0
        ? '"2018-03-24T17:15:20+01:00"'
        : `"${iso}"`;
      text += `{n:${i},_path:"${["conn", "dns"][i % 2]}",ts:${ts},t:${iso}}\n`;
    }
    await loadText(lake, p, text);
    for (
      const q of [
        "count() by time := bucket(time(ts), 1m), group := _path | sort time, group",
        "count() by time := bucket(time(ts), 250ms) | sort time",
        "count() by time := bucket(ts, 1m) | sort this",
        "count() by time := bucket(t, 5m) | sort time",
        "count() by time := bucket(time(t), 1h) | sort time",
        "count() by every(1m), _path | sort this",
        "count() by every(1m) | sort this", // ts a string: an error, as bucket() of a string
      ]
    ) {
      const rows = await agreed(lake, `from p | ${q}`);
      assert.ok(rows.length > 1, q);
    }
  });
});

Deno.test("a filter of what this's type says (len, typeof, nameof, is) reads no column", async () => {
  await withLake(async (lake) => {
    const p = keyedPool(lake, "types", "ts", "asc");
    let text = "";
    for (let i = 0; i < 900; i++) {
      const s = `"${"y".repeat(30)}${i}"`;
      text += i % 3 === 0
        ? `{ts:${i},s:${s}}\n`
        : i % 3 === 1
        ? `{ts:${i},s:${s},n:${i},r:{a:1,b:null(string)}}\n`
        : `{ts:${i},s:${s},n:${i}}(=named)\n`;
    }
    await loadText(lake, p, text);
    const queries = [
      "len(this) > 2 | count()",
      "len(this) == 3 | count()",
      "len(this) + 1 >= 4 and n > 400 | count()",
      "typeof(this) == <{ts:int64,s:string}> | count()",
      'nameof(this) == "named" | count()',
      "is(<named>) | count()",
      "not is(this, <{ts:int64,s:string}>) | count()",
      "len(this) > 2 | cut ts | tail 2",
    ];
    const counts: string[][] = [];
    for (const q of queries) counts.push(await agreed(lake, `from types | ${q}`));
    // (As zq counts them.)
    assert.deepEqual(counts.slice(0, 7).flat(), [
      "{count:600(uint64)}",
      "{count:300(uint64)}",
      "{count:333(uint64)}",
      "{count:300(uint64)}",
      "{count:300(uint64)}",
      "{count:300(uint64)}",
      "{count:600(uint64)}",
    ]);
    clearColumnCache();
    const four = await query(lake, "from types | len(this) == 4 | count()");
    assert.deepEqual(four.lines, ["{count:300(uint64)}"]);
    // No row, and of the columns only the rows' sizes and record types (6 bytes a row).
    assert.equal(four.stats.bytesFetched, 0);
    assert.ok(columnCache.bytes <= 900 * 6, `${columnCache.bytes} bytes of columns read`);
    // The one-argument forms read the whole value: shape(<t>) shapes this.
    assert.deepEqual(
      await agreed(lake, "from types | yield shape(<{ts:int64,s:string}>) | head 1"),
      [`{ts:0,s:"${"y".repeat(30)}0"}`],
    );
    // Values that are not records: the length of a string is its own, read from the rows.
    const q = keyedPool(lake, "mixed", "ts", "asc");
    await loadText(lake, q, '{ts:1,s:"ab"}\n"abc"\n"abcd"\n{ts:2}');
    assert.deepEqual(await agreed(lake, "from mixed | len(this) > 2 | count()"), [
      "{count:2(uint64)}",
    ]);
  });
});

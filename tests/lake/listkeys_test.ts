// Summaries grouped by a field of arrays or sets (of primitives, held in
// list columns): rows with equal lists make one group, from the columns, as
// the rows would group them.

import assert from "node:assert/strict";
import { bothPaths, keyedPool, loadText, withLake } from "./helpers.ts";
import { groupRows } from "../../lib/query/vector/grouping.ts";
import { PathValues } from "../../lib/query/vector/pathvalues.ts";
import type { ColumnarObject } from "../../lib/query/vector/object.ts";
import { ListVector } from "../../lib/zed/vector.ts";
import { TypeString } from "../../lib/zed/types.ts";
import { zctx } from "../../lib/zed/context.ts";
import { stateOf, stringVector } from "../query/vector_helpers.ts";

const LISTS = [
  '["a","b"]',
  '["a"]',
  '["a","b"]',
  "[]",
  "null([string])",
  '["b","a"]',
  '["a:1","b"]',
  '["a","1:b"]',
  '["a",null]',
];
const NUMBERS = ["[1,2]", "[1]", "[]", "[2,1]", "[1,2]", "null([int64])", "[12]", "[1,null]"];
const SETS = ['|["x","y"]|', '|["y"]|', '|["x","y"]|', "|[]|"];

Deno.test("grouped by arrays and sets from list columns, equal lists one group", async () => {
  await withLake(async (lake) => {
    const p = keyedPool(lake, "p", "ts", "asc");
    for (let part = 0; part < 2; part++) {
      let text = "";
      for (let i = 0; i < 300; i++) {
        const k = i + part * 1000;
        const a = LISTS[(i * 7 + part) % LISTS.length];
        const n = NUMBERS[(i * 5) % NUMBERS.length];
        const s = i % 11 === 0 ? "" : `,s:${SETS[i % SETS.length]}`;
        text += `{ts:${k},a:${a},n:${n},v:${i % 13}${s}}\n`;
      }
      await loadText(lake, p, text);
    }
    for (
      const q of [
        "count() by a | sort a",
        "count() by n | sort n",
        "sum(v) by s | sort s",
        "count() by a, n | sort a, n",
        "v > 6 | count() by a | sort a",
      ]
    ) {
      const { rows, cols } = await bothPaths(lake, `from p | ${q}`);
      assert.deepEqual(cols.lines, rows.lines, q);
      assert.equal(cols.stats.bytesFetched, 0, `${q}: from columns`);
    }
    const { cols } = await bothPaths(lake, "from p | count() by a | sort a");
    // ["a","b"] twice among the lists, and "a:1","b" apart from "a","1:b".
    assert.equal(cols.lines.length, LISTS.length - 1);
  });
});

Deno.test("a list column's rows get one code per distinct list", () => {
  // Rows: ["a","b"], ["a"], ["a","b"], [], null, ["a:1","b"], ["a","1:b"], ["a",null].
  const lists: (string | null)[][] = [
    ["a", "b"],
    ["a"],
    ["a", "b"],
    [],
    [],
    ["a:1", "b"],
    ["a", "1:b"],
    ["a", null],
  ];
  const offsets = new Int32Array(lists.length + 1);
  lists.forEach((l, i) => (offsets[i + 1] = offsets[i] + l.length));
  const child = stringVector(lists.flat());
  const state = stateOf(lists.map((_, i) => i === 4 ? null : 1));
  const v = new ListVector(zctx.lookupArray(TypeString), state, offsets, child);
  const o = { rows: lists.length } as ColumnarObject;
  const g = groupRows(o, null, [new PathValues([v], lists.length)], [null], [], [], true, false)!;
  // Six distinct lists and a null.
  assert.equal(g.keys.length, 7);
  // The null first, then each list as it first comes: ["a","b"] twice.
  assert.deepEqual(Array.from(g.start), [0, 1, 3, 4, 5, 6, 7, 8]);
});

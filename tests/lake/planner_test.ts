// What the scan does for the operators after it: counts from metadata, sort
// already satisfied by pool order, fields left undecoded, no merge where
// order does not matter. Each result is checked against the same query with
// the help defeated (an operator in between that changes nothing).

import assert from "node:assert/strict";
import { Lake } from "../../lib/lake/lake.ts";
import { createPool } from "../../lib/lake/pools.ts";
import { load } from "../../lib/lake/load.ts";
import { runLakeQuery } from "../../lib/lake/query.ts";
import { useColumns } from "../../lib/lake/sources.ts";
import type { ScanStats } from "../../lib/lake/scan.ts";
import { openReader } from "../../lib/formats/detect.ts";
import { ByteInput } from "../../lib/formats/io.ts";
import { openWriter } from "../../lib/formats/registry.ts";
import { withDir } from "./helpers.ts";

/** Runs fn with a lake in a temporary directory holding a pool "p" keyed ts with the loads, then removes it. */
async function withLoadedLake(
  order: "asc" | "desc",
  loads: string[],
  threshold: number,
  fn: (lake: Lake) => Promise<void>,
): Promise<void> {
  await withDir(async (dir) => {
    const lake = await Lake.open(dir);
    try {
      const pool = createPool(lake, { name: "p", layout: { order, keys: [["ts"]] }, threshold });
      for (const text of loads) {
        await load(
          lake,
          pool,
          "main",
          await openReader(ByteInput.fromBytes(new TextEncoder().encode(text))),
        );
      }
      await fn(lake);
    } finally {
      lake.close();
    }
  });
}

async function query(lake: Lake, text: string): Promise<[string, ScanStats]> {
  let out = "";
  const w = openWriter("zson", (c) => {
    out += new TextDecoder().decode(c);
    return Promise.resolve();
  }, { pretty: 0 });
  const stats = await runLakeQuery(lake, text, w);
  return [out, stats];
}

/** Records with ts offset..offset+n-1 (times), a path and a value, scrambled or in order. */
function records(n: number, offset = 0, scrambled = true): string {
  const lines = [];
  for (let i = 0; i < n; i++) {
    const k = (scrambled ? (i * 7919) % n : i) + offset;
    lines.push(`{ts:${k * 1000000000},path:"p${k % 3}",v:${k}}`);
  }
  return lines.join("\n");
}

Deno.test("count() comes from metadata, and from a key range partly so", async () => {
  // Three loads of 100 records each, objects of at most ~1 KB.
  await withLoadedLake(
    "desc",
    [records(100), records(100, 100), records(100, 200)],
    1024,
    async (lake) => {
      const [all, s1] = await query(lake, "from p | count()");
      assert.equal(all, "{count:300(uint64)}\n");
      // QueryStats count what the query covered (as the reference, which reads
      // it all); nothing was read from the objects.
      assert.equal(s1.recordsRead, 300);
      assert.equal(s1.bytesFetched, 0);
      const [named] = await query(lake, "from p | n:=count()");
      assert.equal(named, "{n:300(uint64)}\n");
      const range = "ts >= 1970-01-01T00:00:50Z and ts < 1970-01-01T00:02:30Z";
      const [fast, s2] = await query(lake, `from p | ${range} | count()`);
      const [slow] = await query(lake, `from p | ${range} | yield this | count()`);
      assert.equal(fast, "{count:100(uint64)}\n");
      assert.equal(fast, slow);
      assert.ok(s2.recordsRead < 300, `read ${s2.recordsRead}`);
      assert.equal(s2.recordsMatched, 100);
      // A filter that is not only the key is counted by the operators.
      const [mixed, s3] = await query(lake, `from p | ${range} and v > 120 | count()`);
      assert.equal(mixed, "{count:29(uint64)}\n");
      assert.ok(s3.recordsRead > 0);
    },
  );
});

Deno.test("a sort in pool order is not redone, and head stops the scan", async () => {
  for (const order of ["asc", "desc"] as const) {
    // Logs arrive mostly in order: objects overlap little.
    await withLoadedLake(
      order,
      [records(200, 0, false), records(200, 150, false)],
      2048,
      async (lake) => {
        const dir = order === "desc" ? "-r " : "";
        const [fast, s] = await query(lake, `from p | sort ${dir}ts | head 3`);
        const [slow] = await query(lake, `from p | yield this | sort ${dir}ts | head 3`);
        assert.equal(fast, slow);
        assert.ok(s.recordsRead < 400, `${order}: read ${s.recordsRead}`);
        // The other direction is sorted by the operator.
        const other = order === "desc" ? "" : "-r ";
        const [o1] = await query(lake, `from p | sort ${other}ts | head 3`);
        const [o2] = await query(lake, `from p | yield this | sort ${other}ts | head 3`);
        assert.equal(o1, o2);
      },
    );
  }
});

Deno.test("undecoded fields and unmerged objects do not change results", async () => {
  await withLoadedLake(
    "asc",
    [records(150), records(150, 75), records(150, 30)],
    1500,
    async (lake) => {
      const pairs = [
        ["count() by path | sort path", "yield this | count() by path | sort path"],
        ["max(v) by path | sort path", "yield this | max(v) by path | sort path"],
        [
          "v > 100 | min(ts) by path | sort path",
          "v > 100 | yield this | min(ts) by path | sort path",
        ],
        ["cut v | tail 2", "yield this | cut v | tail 2"],
        ["collect(v) by path | sort path", "yield this | collect(v) by path | sort path"],
      ];
      for (const [a, b] of pairs) {
        const [fast] = await query(lake, `from p | ${a}`);
        const [slow] = await query(lake, `from p | ${b}`);
        assert.equal(fast, slow, a);
        assert.notEqual(fast, "", a);
      }
    },
  );
});

Deno.test("range L to U bounds the scan on the pool key", async () => {
  await withLoadedLake("asc", [records(100, 0, false)], 512, async (lake) => {
    const lo = "1970-01-01T00:00:10Z", hi = "1970-01-01T00:00:19Z";
    const [count, s] = await query(lake, `from p range ${lo} to ${hi} | count()`);
    assert.equal(count, "{count:10(uint64)}\n");
    assert.ok(s.recordsRead < 100, `read ${s.recordsRead}`);
    const [vals] = await query(lake, `from p range ${lo} to ${hi} | v > 15 | yield v`);
    assert.equal(vals, "16\n17\n18\n19\n");
  });
});

Deno.test("a pattern source cannot have its own pipeline", async () => {
  await withLoadedLake("asc", [records(3)], 0, async (lake) => {
    await assert.rejects(
      () => query(lake, "from (pool p* => count())"),
      /=> not allowed after pool pattern in 'from' operator/,
    );
  });
});

Deno.test("count() by fields comes from columns and matches the operators' result", async () => {
  const extra = '{ts:1,other:"x"}\n{ts:2,path:null}\n{ts:3,path:1}\n7';
  await withLoadedLake(
    "asc",
    [records(120, 0, false), records(120, 60), extra],
    700,
    async (lake) => {
      const range = "ts >= 1970-01-01T00:00:30Z and ts < 1970-01-01T00:01:40Z";
      const cases = [
        ["count() by path | sort path", "yield this | count() by path | sort path"],
        ["n:=count() by p:=path | sort p", "yield this | n:=count() by p:=path | sort p"],
        ["count() by path, v | count()", "yield this | count() by path, v | count()"],
        [
          `${range} | count() by path | sort path`,
          `${range} | yield this | count() by path | sort path`,
        ],
      ];
      for (let round = 0; round < 2; round++) {
        for (const [a, b] of cases) {
          const [fast, s] = await query(lake, `from p | ${a}`);
          const [slow] = await query(lake, `from p | ${b}`);
          assert.equal(fast, slow, a);
          assert.ok(fast.length > 0);
          if (useColumns()) assert.equal(s.bytesFetched, 0, `${a}: read from columns`);
        }
      }
      // The columns were written with the objects, one Arrow file each.
      const dirs = [...Deno.readDirSync(`${lake.root}/pools`)];
      const data = [...Deno.readDirSync(`${lake.root}/pools/${dirs[0].name}/data`)];
      const columns = [...Deno.readDirSync(`${lake.root}/pools/${dirs[0].name}/columns`)];
      assert.equal(columns.length, data.length);
      assert.ok(columns.every((e) => e.name.endsWith(".arrow")));
    },
  );
});

Deno.test("scan stats count value body bytes, as the reference's QueryStats", async () => {
  await withLoadedLake("asc", ["{x:1}\n{x:300}"], 0, async (lake) => {
    // {x:1} has the record body 02 02 (2 bytes); {x:300} 03 d8 04 (3 bytes).
    const [, all] = await query(lake, "from p | yield this");
    assert.deepEqual([all.bytesRead, all.bytesMatched, all.recordsRead, all.recordsMatched], [
      5,
      5,
      2,
      2,
    ]);
    const [, some] = await query(lake, "from p | x > 1");
    assert.deepEqual([some.bytesRead, some.bytesMatched, some.recordsRead, some.recordsMatched], [
      5,
      3,
      2,
      1,
    ]);
    assert.ok(some.bytesFetched > 5);
  });
});

Deno.test("bytes matched are whole values even when only some fields are decoded", async () => {
  await withLoadedLake(
    "asc",
    [
      '{ts:1,x:1,s:"aaaaaaaaaaaaaaaaaaaa"}\n{ts:2,x:2,s:"bbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"}',
    ],
    0,
    async (lake) => {
      const [, whole] = await query(lake, "from p | x > 1 | yield this");
      const [, some] = await query(lake, "from p | x > 1 | sum(x)");
      assert.equal(whole.bytesMatched, some.bytesMatched);
      assert.equal(whole.bytesRead, some.bytesRead);
      assert.ok(some.bytesMatched > 30);
    },
  );
});

// Data objects (load.ts, objectwriter.ts): splitting at the pool threshold,
// object metadata, and the seek index.

import assert from "node:assert/strict";
import { parseZsonValue } from "../../lib/formats/zson/reader.ts";
import { formatZson } from "../../lib/formats/zson/formatter.ts";
import { encodeBody } from "../../lib/zed/zcode.ts";
import { toBase62 } from "../../lib/lake/ksuid.ts";
import { seekIndex, tipObjects, tipObjectsAt } from "../../lib/lake/objects.ts";
import { getBranch } from "../../lib/lake/branches.ts";
import { keyedPool, lines, loadText, range, records, secs, withLake } from "./helpers.ts";

function bodySize(zson: string): number {
  const v = parseZsonValue(zson);
  return encodeBody(v.type, v.body).length;
}

function zson(v: { type: Parameters<typeof formatZson>[0]; body: unknown }): string {
  return formatZson(v.type, v.body as Parameters<typeof formatZson>[1]);
}

Deno.test("objects: a load is split at the threshold, each object within it", async () => {
  await withLake(async (lake) => {
    const threshold = 200;
    const p = keyedPool(lake, "p", "x", "asc", { threshold });
    // Sorted input with distinct keys and varying sizes: object i holds a
    // contiguous run of the input.
    const input = range(120).map((n) => `{x:${n},s:"${"#".repeat(n % 17)}"}`);
    const r = await loadText(lake, p, input.join("\n"));
    assert.ok(r.objects.length >= 5, `${r.objects.length} objects`);
    assert.equal(r.objects.reduce((n, o) => n + o.count, 0), 120);
    let next = 0;
    for (const o of r.objects) {
      assert.equal(zson(o.first), String(next));
      const run = input.slice(next, next + o.count);
      assert.equal(zson(o.last), String(next + o.count - 1));
      const bytes = run.reduce((n, s) => n + bodySize(s), 0);
      assert.ok(bytes <= threshold, `object of ${bytes} bytes`);
      // Objects are full: the next value would have crossed the threshold.
      if (next + o.count < input.length) {
        assert.ok(bytes + bodySize(input[next + o.count]) > threshold);
      }
      next += o.count;
    }
    assert.deepEqual(await lines(lake, "from p"), input);
    assert.deepEqual(await lines(lake, "from p@main:objects | count()"), [
      `{count:${r.objects.length}(uint64)}`,
    ]);
  });
});

Deno.test("objects: unsorted input splits into sorted objects that merge back in order", async () => {
  await withLake(async (lake) => {
    const p = keyedPool(lake, "p", "x", "desc", { threshold: 64 });
    const keys = range(200).map((n) => (n * 37) % 200);
    const r = await loadText(lake, p, records(keys, (n) => `{x:${n}}`));
    assert.ok(r.objects.length > 5);
    for (const o of r.objects) {
      // desc: the first key is the greatest.
      assert.ok(Number(o.first.body) >= Number(o.last.body));
      assert.equal(zson(o.span.hi!), zson(o.first));
      assert.equal(zson(o.span.lo!), zson(o.last));
    }
    const out = await lines(lake, "from p");
    assert.deepEqual(out, range(200).reverse().map((n) => `{x:${n}}`));
    // Loading in order after a split gives the same objects for the same input.
    assert.equal(tipObjects(lake.catalog, p.id, "main").length, r.objects.length);
  });
});

Deno.test("objects: a value bigger than the threshold is an object by itself", async () => {
  await withLake(async (lake) => {
    const p = keyedPool(lake, "p", "x", "asc", { threshold: 16 });
    const big = `{x:2,s:"${"z".repeat(100)}"}`;
    const r = await loadText(lake, p, ["{x:1}", big, "{x:3}"].join("\n"));
    assert.deepEqual(r.objects.map((o) => o.count), [1, 1, 1]);
    assert.deepEqual(await lines(lake, "from p"), ["{x:1}", big, "{x:3}"]);
    // The default threshold keeps a small load in one object.
    const q = keyedPool(lake, "q", "x");
    const one = await loadText(lake, q, records(range(1000), (n) => `{x:${n}}`));
    assert.equal(one.objects.length, 1);
    assert.equal(one.objects[0].count, 1000);
  });
});

Deno.test("objects: first, last and span of objects with null keys", async () => {
  await withLake(async (lake) => {
    for (const order of ["asc", "desc"] as const) {
      const p = keyedPool(lake, order, "k", order);
      const r = await loadText(lake, p, "{k:5}\n{v:1}\n{k:2}\n{k:null(int64)}\n");
      const o = r.objects[0];
      assert.equal(zson(o.first), order === "asc" ? "2" : "5");
      assert.equal(o.last.body, null);
      assert.equal(zson(o.span.lo!), "2");
      assert.equal(zson(o.span.hi!), "5");
      assert.equal(o.span.mixed, false);
      assert.equal(o.count, 4);
    }
    const only = keyedPool(lake, "nulls", "k");
    const n = await loadText(lake, only, "{v:1}\n{v:2}\n");
    assert.equal(n.objects[0].span.lo, null);
    assert.equal(n.objects[0].span.hi, null);
    const mixed = keyedPool(lake, "mixed", "k");
    const m = await loadText(lake, mixed, '{k:1}\n{k:"a"}\n');
    assert.equal(m.objects[0].span.mixed, true);
  });
});

/** The seek index of the single object of a load, as [key, count, offset] rows. */
async function seekRows(
  order: "asc" | "desc",
  stride: number,
  input: string,
): Promise<{ rows: [string, number, number][]; size: number }> {
  let rows: [string, number, number][] = [];
  let size = 0;
  await withLake(async (lake) => {
    const p = keyedPool(lake, "p", "ts", order, { seekStride: stride });
    const r = await loadText(lake, p, input);
    assert.equal(r.objects.length, 1);
    size = r.objects[0].size;
    rows = seekIndex(lake.catalog, r.objects[0].id).map((e) => [zson(e.key), e.count, e.offset]);
  });
  return { rows, size };
}

const consecutive = [0, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 6, 7, 8]
  .map((s) => `{ts:1970-01-01T00:00:0${s}Z}`).join("\n");

Deno.test("objects: seek index entries as consecutive-ts.yaml (runs of a key are not split)", async () => {
  const desc = await seekRows("desc", 11, consecutive);
  assert.deepEqual(desc.rows, [
    ["1970-01-01T00:00:08Z", 0, 0],
    ["1970-01-01T00:00:06Z", 2, 27],
    ["1970-01-01T00:00:02Z", 10, 78],
    ["1970-01-01T00:00:00Z", 15, 116],
  ]);
  // Ascending: key bytes 0 (0s), 4 (2s), 5 (3s and up); a stream ends once
  // 11 bytes of keys were written and the key changes.
  const asc = await seekRows("asc", 11, consecutive);
  assert.deepEqual(asc.rows.map(([k, c]) => [k, c]), [
    ["1970-01-01T00:00:00Z", 0],
    ["1970-01-01T00:00:03Z", 6],
    ["1970-01-01T00:00:06Z", 13],
  ]);
  assert.equal(asc.rows[0][2], 0);
  assert.ok(asc.rows[1][2] > 0 && asc.rows[2][2] > asc.rows[1][2] && asc.rows[2][2] < asc.size);
});

Deno.test("objects: a large stride gives one entry; a stride of 1 an entry per key change", async () => {
  const one = await seekRows("asc", 65536, consecutive);
  assert.deepEqual(one.rows, [["1970-01-01T00:00:00Z", 0, 0]]);
  // Stride 1: every change of key starts a stream.
  const every = await seekRows("asc", 1, consecutive);
  assert.deepEqual(every.rows.map(([k, c]) => [k, c]), [
    ["1970-01-01T00:00:00Z", 0],
    ["1970-01-01T00:00:02Z", 1],
    ["1970-01-01T00:00:03Z", 6],
    ["1970-01-01T00:00:06Z", 13],
    ["1970-01-01T00:00:07Z", 14],
    ["1970-01-01T00:00:08Z", 15],
  ]);
});

Deno.test("objects: seek entries every seek_stride bytes of keys (8-byte times)", async () => {
  // Times in 2020 are 8 key bytes each: 2048 bytes of keys are 256 values,
  // and the value that reaches the stride starts the next stream.
  const base = 1587513566; // 2020-04-21T23:59:26Z
  const input = records(range(1000), (n) => `{ts:${secs(base + n)},v:${n}}`);
  const { rows } = await seekRows("asc", 2048, input);
  assert.deepEqual(rows.map(([k, c]) => [k, c]), [
    [secs(base), 0],
    [secs(base + 255), 255],
    [secs(base + 511), 511],
    [secs(base + 767), 767],
  ]);
  for (let i = 1; i < rows.length; i++) assert.ok(rows[i][2] > rows[i - 1][2]);
});

Deno.test("objects: ids in the catalog and on disk agree", async () => {
  await withLake(async (lake) => {
    const p = keyedPool(lake, "p", "x", "asc", { threshold: 8 });
    const r = await loadText(lake, p, "{x:1}\n{x:2}\n{x:3}\n");
    const listed = await lines(lake, "from p@main:objects | yield ksuid(id) | sort this");
    assert.deepEqual(listed, r.objects.map((o) => `"${toBase62(o.id)}"`).sort());
  });
});

Deno.test("objects: a tip's objects are kept by commit; a commit's tip is read anew", async () => {
  await withLake(async (lake) => {
    const p = keyedPool(lake, "p", "x");
    await loadText(lake, p, "{x:1}");
    const ids = (os: { id: Uint8Array }[]) => os.map((o) => toBase62(o.id)).sort();
    const at = () => getBranch(lake.catalog, p.id, "main").commit;
    let reads = 0;
    const tip = () => {
      const commit = at();
      return tipObjectsAt(lake.catalog, p.id, "main", commit, () => {
        reads++;
        return true;
      });
    };
    const first = tip();
    assert.deepEqual(ids(first), ids(tipObjects(lake.catalog, p.id, "main")));
    assert.equal(reads, 1);
    // Kept: read once; each caller gets its own array.
    first.pop();
    const again = tip();
    assert.equal(reads, 1);
    assert.equal(again.length, 1);
    // A new commit is a new tip.
    await loadText(lake, p, "{x:2}");
    assert.equal(tip().length, 2);
    assert.equal(reads, 2);
    // A list read while the branch moved on is not kept.
    await loadText(lake, p, "{x:3}");
    const commit = at();
    const moved = () => false;
    assert.equal(tipObjectsAt(lake.catalog, p.id, "main", commit, moved).length, 3);
    let asked = 0;
    tipObjectsAt(lake.catalog, p.id, "main", commit, () => (asked++, true));
    assert.equal(asked, 1);
  });
});

// Scanning pools (scan.ts, prune.ts, sources.ts): pool order across
// objects, pruning whole objects by key span, seeking within objects, early
// stop, and the `from` forms. What a scan read is asserted through the
// ScanStats counters.

import { useColumns } from "../../lib/lake/sources.ts";
import assert from "node:assert/strict";
import { createBranch } from "../../lib/lake/branches.ts";
import type { Lake } from "../../lib/lake/lake.ts";
import type { DataObject } from "../../lib/lake/objects.ts";
import { seekIndex } from "../../lib/lake/objects.ts";
import { createPool, type PoolConfig } from "../../lib/lake/pools.ts";
import {
  keyedPool,
  lines,
  loadText,
  query,
  range,
  records,
  rejection,
  secs,
  withLake,
} from "./helpers.ts";

/** A ts-keyed pool of n values {ts:<i s>,v:i} split into about n/100 objects. */
async function timePool(
  lake: Lake,
  name: string,
  order: "asc" | "desc",
  n = 2000,
): Promise<{ pool: PoolConfig; objects: DataObject[] }> {
  const pool = keyedPool(lake, name, "ts", order, { threshold: 1000 });
  const r = await loadText(lake, pool, records(range(n), (i) => `{ts:${secs(i)},v:${i}}`));
  return { pool, objects: r.objects };
}

/** Objects with a key in [lo, hi) seconds. */
function overlapping(objects: DataObject[], lo: number, hi: number): DataObject[] {
  const ns = (s: number) => s * 1e9;
  return objects.filter((o) =>
    Number(o.span.lo!.body) < ns(hi) && Number(o.span.hi!.body) >= ns(lo)
  );
}

const sum = (os: DataObject[], f: (o: DataObject) => number) => os.reduce((n, o) => n + f(o), 0);

Deno.test("scan: a ts range reads only the objects it overlaps", async () => {
  await withLake(async (lake) => {
    for (const order of ["asc", "desc"] as const) {
      const { objects } = await timePool(lake, order, order);
      assert.ok(objects.length >= 15, `${objects.length} objects`);
      const hit = overlapping(objects, 250, 450);
      assert.ok(hit.length >= 2 && hit.length <= 4);
      const r = await query(lake, `from ${order} | ts >= ${secs(250)} and ts < ${secs(450)}`);
      const want = range(200, 250).map((i) => `{ts:${secs(i)},v:${i}}`);
      assert.deepEqual(r.lines, order === "asc" ? want : want.reverse());
      assert.equal(r.stats.objectsRead, hit.length);
      assert.equal(r.stats.objectsPruned, objects.length - hit.length);
      assert.equal(r.stats.recordsRead, sum(hit, (o) => o.count));
      assert.equal(r.stats.bytesFetched, sum(hit, (o) => o.size));
      assert.equal(r.stats.recordsMatched, 200);
      // A count over the range reads no more than the scan does.
      const c = await query(
        lake,
        `from ${order} | ts >= ${secs(250)} and ts < ${secs(450)} | count()`,
      );
      assert.deepEqual(c.lines, ["{count:200(uint64)}"]);
      assert.ok(c.stats.recordsRead <= r.stats.recordsRead);
      assert.ok(c.stats.objectsPruned >= objects.length - hit.length);
    }
  });
});

/** The number of values a query outputs and its stats (the output is not kept). */
async function scanCount(lake: Lake, q: string) {
  const r = await query(lake, q);
  return { n: r.lines.length, stats: r.stats };
}

Deno.test("scan: other key comparisons prune too; filters on other fields do not", async () => {
  await withLake(async (lake) => {
    const { objects } = await timePool(lake, "p", "asc");
    const total = objects.length;
    const cases: [string, number, number][] = [
      // [filter, expected matches, expected objects read]
      [`ts < ${secs(50)}`, 50, overlapping(objects, 0, 50).length],
      [`${secs(1990)} <= ts`, 10, overlapping(objects, 1990, 2000).length],
      [`ts == ${secs(777)}`, 1, overlapping(objects, 777, 778).length],
      [`ts > ${secs(5000)}`, 0, 0],
      [
        `ts >= ${secs(100)} and ts < ${secs(200)} and v > 150`,
        49,
        overlapping(objects, 100, 200).length,
      ],
      [`v == 5`, 1, total],
      [`ts == ${secs(5)} or v == 7`, 2, total],
    ];
    for (const [filter, matches, read] of cases) {
      const { n, stats } = await scanCount(lake, `from p | ${filter}`);
      assert.equal(n, matches, filter);
      assert.equal(stats.objectsRead, read, filter);
      assert.equal(stats.objectsPruned, total - read, filter);
      assert.equal(stats.recordsMatched, matches, filter);
    }
  });
});

// An `or` of two one-sided ranges (`ts < a or ts >= b`) bounds nothing.
Deno.test({
  name: "scan: an `or` of one-sided key ranges reads everything and finds both ends",
  fn: async () => {
    await withLake(async (lake) => {
      const { objects } = await timePool(lake, "p", "asc");
      const { n, stats } = await scanCount(
        lake,
        `from p | ts < ${secs(10)} or ts >= ${secs(1995)}`,
      );
      assert.equal(n, 15);
      assert.equal(stats.objectsRead + stats.objectsPruned, objects.length);
    });
  },
});

Deno.test("scan: x == k on a keyed pool reads one object", async () => {
  await withLake(async (lake) => {
    const p = keyedPool(lake, "p", "x", "asc", { threshold: 300 });
    const r = await loadText(lake, p, records(range(1000), (n) => `{x:${n},s:"v${n}"}`));
    assert.ok(r.objects.length >= 10);
    const q = await query(lake, "from p | x == 777");
    assert.deepEqual(q.lines, ['{x:777,s:"v777"}']);
    assert.equal(q.stats.objectsRead, 1);
    assert.equal(q.stats.objectsPruned, r.objects.length - 1);
    const holder = r.objects.find((o) =>
      Number(o.first.body) <= 777 && Number(o.last.body) >= 777
    )!;
    assert.equal(q.stats.recordsRead, holder.count);
    assert.equal(q.stats.recordsMatched, 1);
    // A key of another type cannot be pruned by value, and matches nothing.
    const s = await query(lake, 'from p | x == "777"');
    assert.deepEqual(s.lines, []);
  });
});

Deno.test("scan: the seek index limits what is read within an object", async () => {
  await withLake(async (lake) => {
    // As seek-index.yaml: 1000 values in one object, a 2 KB stride, 8-byte
    // time keys: streams start at values 0, 255, 511 and 767.
    const base = 1587513566;
    for (const order of ["asc", "desc"] as const) {
      const p = keyedPool(lake, order, "ts", order, { seekStride: 2048 });
      const loaded = await loadText(
        lake,
        p,
        records(range(1000), (n) => `{ts:${secs(base + n)},v:${n}}`),
      );
      assert.equal(loaded.objects.length, 1);
      const o = loaded.objects[0];
      const entries = seekIndex(lake.catalog, o.id);
      assert.equal(entries.length, 4);

      const one = await query(lake, `from ${order} | ts == ${secs(base + 300)}`);
      assert.deepEqual(one.lines, [`{ts:${secs(base + 300)},v:300}`]);
      assert.equal(one.stats.recordsRead, 256);
      assert.equal(one.stats.recordsMatched, 1);
      assert.equal(one.stats.objectsRead, 1);
      // One stream's bytes: between two seek offsets.
      const streamBytes = entries.slice(1).map((e, i) => e.offset - entries[i].offset);
      streamBytes.push(o.size - entries[3].offset);
      assert.ok(streamBytes.includes(one.stats.bytesFetched), `${one.stats.bytesFetched}`);
      assert.ok(one.stats.bytesFetched < o.size / 3);

      const two = await query(
        lake,
        `from ${order} | ts >= ${secs(base + 300)} and ts <= ${secs(base + 600)}`,
      );
      assert.equal(two.lines.length, 301);
      assert.equal(two.stats.recordsRead, 512);

      // An `or` with a non-key comparison cannot seek by key; the columns
      // find the one matching row, so only its stream is read.
      const all = await query(lake, `from ${order} | ts == ${secs(base + 300)} or foo == "bar"`);
      assert.equal(all.lines.length, 1);
      assert.equal(all.stats.recordsRead, 1000);
      assert.ok(
        useColumns()
          ? streamBytes.includes(all.stats.bytesFetched)
          : all.stats.bytesFetched === o.size,
        `${all.stats.bytesFetched}`,
      );
    }
  });
});

Deno.test("scan: null keys do not stop seeking (seek-index-null.yaml)", async () => {
  await withLake(async (lake) => {
    const base = 1587513566;
    for (const order of ["asc", "desc"] as const) {
      const p = keyedPool(lake, order, "ts", order, { seekStride: 2048 });
      const input = records(range(1000), (n) => `{ts:${secs(base + n)},v:${n}}`) +
        '{ts:null(time),s:"foo-bar",v:1}\n';
      await loadText(lake, p, input);
      const r = await query(
        lake,
        `from ${order} | ts >= ${secs(base + 300)} and ts <= ${secs(base + 302)}`,
      );
      const want = [300, 301, 302].map((n) => `{ts:${secs(base + n)},v:${n}}`);
      assert.deepEqual(r.lines, order === "asc" ? want : want.reverse());
      assert.equal(r.stats.recordsRead, 256);
    }
  });
});

Deno.test("scan: head N stops the scan early", async () => {
  await withLake(async (lake) => {
    const { objects } = await timePool(lake, "p", "asc", 5000);
    const total = sum(objects, (o) => o.size);
    const r = await query(lake, "from p | head 5");
    assert.deepEqual(r.lines, range(5).map((i) => `{ts:${secs(i)},v:${i}}`));
    assert.ok(r.stats.bytesFetched <= objects[0].size * 2, `${r.stats.bytesFetched} of ${total}`);
    assert.ok(r.stats.bytesFetched < total / 10);
    assert.ok(r.stats.recordsRead < 500);
    assert.ok(r.stats.objectsRead <= 2);
    // Without head everything is read (from the columns when they are used).
    const all = await query(lake, "from p | v >= 0 | count()");
    assert.deepEqual(all.lines, ["{count:5000(uint64)}"]);
    assert.equal(all.stats.bytesFetched, useColumns() ? 0 : total);
    assert.equal(all.stats.recordsRead, 5000);
    assert.equal(all.stats.objectsRead, objects.length);
  });
});

Deno.test("scan: overlapping objects from separate loads are merged in pool order", async () => {
  await withLake(async (lake) => {
    for (const order of ["asc", "desc"] as const) {
      const p = keyedPool(lake, order, "x", order);
      await loadText(lake, p, records(range(50).map((n) => 2 * n), (n) => `{x:${n},src:"even"}`));
      await loadText(lake, p, records(range(50).map((n) => 2 * n + 1), (n) => `{x:${n}}`));
      await loadText(lake, p, "{x:1000}\n{x:1001}\n");
      const r = await query(lake, `from ${order} | yield x`);
      const want = [...range(100), 1000, 1001].map(String);
      assert.deepEqual(r.lines, order === "asc" ? want : want.reverse());
      assert.equal(r.stats.objectsRead, 3);
      // Partitions: the two overlapping objects, then the third.
      const parts = await lines(
        lake,
        `from ${order}@main:partitions | yield {First,Last,n:len(Objects)}`,
      );
      assert.deepEqual(
        parts,
        order === "asc"
          ? ["{First:0,Last:99,n:2}", "{First:1000,Last:1001,n:1}"]
          : ["{First:1001,Last:1000,n:1}", "{First:99,Last:0,n:2}"],
      );
    }
  });
});

Deno.test("scan: overlapping loads count every value once (seek-index-overlap.yaml)", async () => {
  await withLake(async (lake) => {
    const base = 1587513566;
    const all = range(1000).map((n) => `{ts:${secs(base + n)},v:${n}}`);
    for (const order of ["asc", "desc"] as const) {
      const p = keyedPool(lake, order, "ts", order, { seekStride: 2048 });
      await loadText(lake, p, all.slice(100).join("\n"));
      await loadText(lake, p, all.slice(0, 250).join("\n"));
      const c = await query(lake, `from ${order} | count()`);
      assert.deepEqual(c.lines, ["{count:1150(uint64)}"]);
      const r = await query(lake, `from ${order} | yield v`);
      assert.equal(r.lines.length, 1150);
      assert.equal(r.stats.recordsRead, 1150);
      assert.equal(r.stats.recordsMatched, 1150);
      // Duplicates come out next to each other.
      const dups = await lines(lake, `from ${order} | ts == ${secs(base + 120)} | yield v`);
      assert.deepEqual(dups, ["120", "120"]);
    }
  });
});

Deno.test("scan: globs and regexps read every matching pool (from-pattern.yaml)", async () => {
  await withLake(async (lake) => {
    for (const name of ["match1", "match2", "nope"]) {
      await loadText(lake, createPool(lake, { name }), `"${name}"\n`);
    }
    assert.deepEqual(await lines(lake, "from * | sort this"), [
      '"match1"',
      '"match2"',
      '"nope"',
    ]);
    assert.deepEqual(await lines(lake, "from match* | sort this"), ['"match1"', '"match2"']);
    assert.deepEqual(await lines(lake, "from /match/ | sort this"), ['"match1"', '"match2"']);
    assert.deepEqual(await lines(lake, "from /^n/"), ['"nope"']);
    assert.deepEqual(await lines(lake, "from (pool /match/) | sort this"), [
      '"match1"',
      '"match2"',
    ]);
    // As in the reference, `:` and `@` are glob characters: the meta is part of the pattern.
    assert.equal(
      await rejection(query(lake, "from m*:branches")),
      "m*:branches: pool matching glob not found",
    );
    assert.equal(
      await rejection(query(lake, "from nomatch*")),
      "nomatch*: pool matching glob not found",
    );
    assert.equal(
      await rejection(query(lake, "from /nomatch/")),
      "nomatch: pool matching regexp not found",
    );
    // A quoted name is a name, not a pattern.
    assert.equal(await rejection(query(lake, "from 'match*'")), "match*: pool not found");
  });
});

Deno.test("scan: a query without from reads the head pool and branch", async () => {
  await withLake(async (lake) => {
    const p = keyedPool(lake, "p", "x");
    await loadText(lake, p, "{x:1}");
    const dev = await loadText(lake, p, "{x:2}");
    createBranch(lake, p, "dev", dev.commit.id);
    await loadText(lake, p, "{x:3}", "dev");
    assert.deepEqual(await lines(lake, "count()", { head: { pool: "p" } }), [
      "{count:2(uint64)}",
    ]);
    assert.deepEqual(await lines(lake, "", { head: { pool: "p", branch: "dev" } }), [
      "{x:1}",
      "{x:2}",
      "{x:3}",
    ]);
    assert.deepEqual(await lines(lake, "from HEAD | x > 1", { head: { pool: "p" } }), ["{x:2}"]);
  });
});

Deno.test("scan: quoted and dotted pool and branch names (dot-in-pool.yaml)", async () => {
  await withLake(async (lake) => {
    const dotted = createPool(lake, { name: "foo.bar" });
    await loadText(lake, dotted, "{a:1}\n");
    assert.deepEqual(await lines(lake, "from foo.bar"), ["{a:1}"]);
    const spaced = createPool(lake, { name: "my pool" });
    const r = await loadText(lake, spaced, "{a:2}\n");
    createBranch(lake, spaced, "dev branch", r.commit.id);
    await loadText(lake, spaced, "{a:3}\n", "dev branch");
    assert.deepEqual(await lines(lake, "from 'my pool'"), ["{a:2}"]);
    assert.deepEqual(await lines(lake, `from "my pool"@'dev branch' | sort a`), ["{a:2}", "{a:3}"]);
    assert.deepEqual(await lines(lake, "from 'my pool'@'dev branch':objects | count()"), [
      "{count:2(uint64)}",
    ]);
  });
});

import assert from "node:assert/strict";
import { LochError } from "../../lib/errors.ts";
import { compact, NOTHING_TO_COMPACT, planCompaction } from "../../lib/lake/compact.ts";
import { commitActions } from "../../lib/lake/commits.ts";
import { deleteObjects } from "../../lib/lake/delete.ts";
import { newKSUID, toBase62, toHex } from "../../lib/lake/ksuid.ts";
import type { Lake } from "../../lib/lake/lake.ts";
import { type DataObject, tipObjects } from "../../lib/lake/objects.ts";
import { PoolKey } from "../../lib/lake/poolkey.ts";
import type { PoolConfig } from "../../lib/lake/pools.ts";
import { groupOverlapping } from "../../lib/lake/scan.ts";
import { dataFiles, keyedPool, lines, loadText, range, records, withLake } from "./helpers.ts";

async function failure(p: Promise<unknown>): Promise<LochError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof LochError, String(e));
    return e;
  }
  throw new Error("expected a rejection");
}

function tip(lake: Lake, pool: PoolConfig): DataObject[] {
  return tipObjects(lake.catalog, pool.id, "main");
}

/** Whether no two of the objects overlap in key span. */
function disjoint(objects: DataObject[], pool: PoolConfig): boolean {
  return groupOverlapping(objects, (o) => o, PoolKey.of(pool)).every((g) => g.length === 1);
}

/** A small deterministic random generator. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

Deno.test("compact named objects (compact.yaml)", async () => {
  await withLake(async (lake) => {
    const p = keyedPool(lake, "p", "ts", "desc");
    const a = await loadText(lake, p, records(range(10), (n) => `{ts:${n}}`));
    const b = await loadText(lake, p, records(range(10), (n) => `{ts:${n},b:true}`));
    const before = await lines(lake, "from p");
    const ids = [a.objects[0].id, b.objects[0].id];
    const c = await compact(lake, p, "main", ids, { author: "me", meta: '"m"' });
    const after = tip(lake, p);
    assert.equal(after.length, 1);
    const [o] = after;
    assert.equal(o.count, 20);
    assert.equal(o.first.body, 9);
    assert.equal(o.last.body, 0);
    assert.deepEqual(await lines(lake, "from p"), before);
    assert.equal(c.author, "me");
    assert.equal(c.meta, '"m"');
    const line = (d: DataObject) =>
      `  ${toBase62(d.id)} ${d.count} records in ${d.size} data bytes\n`;
    assert.equal(
      c.message,
      `compacted 2 objects\n\n${line(a.objects[0])}${line(b.objects[0])}\ncreated 1 object\n\n${
        line(o)
      }`,
    );
    assert.deepEqual(commitActions(lake.catalog, c.id).map((x) => x.kind), [
      "delete",
      "delete",
      "add",
    ]);
    // Time travel to before the compaction still reads the old objects.
    assert.deepEqual(await lines(lake, `from p@${toBase62(b.commit.id)}`), before);
  });
});

Deno.test("compact: argument checks", async () => {
  await withLake(async (lake) => {
    const p = keyedPool(lake, "p", "x");
    const { objects: [o] } = await loadText(lake, p, "{x:1}");
    let e = await failure(compact(lake, p, "main", [o.id]));
    assert.equal(e.message, "compact: two or more source objects required");
    e = await failure(compact(lake, p, "main", [o.id, o.id]));
    assert.equal(e.message, "compact: two or more source objects required");
    const missing = newKSUID();
    e = await failure(compact(lake, p, "main", [o.id, missing]));
    assert.equal(e.kind, "not found");
    assert.equal(e.message, `${toBase62(missing)}: commit object not found`);
    e = await failure(compact(lake, p, "dev", [o.id, missing]));
    assert.equal(e.message, '"dev": branch not found');
    e = await failure(compact(lake, p, "main", "auto"));
    assert.equal(e.kind, "invalid");
    assert.equal(e.message, NOTHING_TO_COMPACT);
    assert.equal((await dataFiles(lake, p)).length, 1, "nothing written");
  });
});

Deno.test("compact keeps content and order; the result is well sized and disjoint", async () => {
  for (const order of ["asc", "desc"] as const) {
    await withLake(async (lake) => {
      const p = keyedPool(lake, "p", "k", order, { threshold: 3000 });
      const rand = rng(order === "asc" ? 7 : 11);
      // Overlapping loads with repeated keys, ties and values without a key.
      for (let l = 0; l < 6; l++) {
        let text = "";
        for (let i = 0; i < 120; i++) {
          const k = Math.floor(rand() * 200);
          text += rand() < 0.03 ? `{n:${l * 1000 + i}}\n` : `{k:${k},n:${i % 5},l:${l}}\n`;
        }
        await loadText(lake, p, text);
      }
      const before = await lines(lake, "from p");
      const objectsBefore = tip(lake, p);
      assert.ok(!disjoint(objectsBefore, p));
      const c = await compact(lake, p, "main", "auto");
      const after = tip(lake, p);
      assert.deepEqual(await lines(lake, "from p"), before, order);
      assert.ok(disjoint(after, p), "no two objects overlap");
      assert.ok(after.length < objectsBefore.length);
      const total = after.reduce((n, o) => n + o.count, 0);
      assert.equal(total, before.length);
      // Every object but the last of the run is near the threshold.
      const sorted = groupOverlapping(after, (o) => o, PoolKey.of(p)).map((g) => g[0]);
      for (const o of sorted.slice(0, -1)) assert.ok(o.count >= 100, `${o.count} values`);
      assert.match(c.message, /^compacted \d+ objects\n/);
      // Compacted already: nothing to do.
      const e = await failure(compact(lake, p, "main", "auto"));
      assert.equal(e.message, NOTHING_TO_COMPACT);
    });
  }
});

Deno.test("compact auto leaves a large object alone and never overlaps it", async () => {
  await withLake(async (lake) => {
    const p = keyedPool(lake, "p", "k", "asc", { threshold: 4000 });
    const small1 = await loadText(lake, p, "{k:1}\n{k:3}\n");
    const small2 = await loadText(lake, p, "{k:2}\n{k:4}\n");
    // Large: more than a quarter of the threshold (incompressible), keys 10..109.
    const rand = rng(3);
    const pad = () =>
      Array.from({ length: 24 }, () => Math.floor(rand() * 16).toString(16)).join("");
    const big = await loadText(lake, p, records(range(100, 10), (n) => `{k:${n},pad:"${pad()}"}`));
    assert.ok(big.objects[0].size > p.threshold / 4);
    assert.equal(big.objects.length, 1);
    const small3 = await loadText(lake, p, "{k:200}\n");
    const small4 = await loadText(lake, p, "{k:201}\n");
    const runs = planCompaction(tip(lake, p), PoolKey.of(p), p.threshold);
    const ids = (os: DataObject[]) => os.map((o) => toHex(o.id)).sort();
    assert.deepEqual(runs.map(ids), [
      ids([small1.objects[0], small2.objects[0]]),
      ids([small3.objects[0], small4.objects[0]]),
    ]);
    const before = await lines(lake, "from p");
    await compact(lake, p, "main", "auto");
    const after = tip(lake, p);
    assert.equal(after.length, 3);
    assert.ok(after.some((o) => toHex(o.id) === toHex(big.objects[0].id)));
    assert.ok(disjoint(after, p));
    assert.deepEqual(await lines(lake, "from p"), before);
  });
});

Deno.test("compact: a source deleted meanwhile is a conflict and leaves no files", async () => {
  await withLake(async (lake) => {
    const p = keyedPool(lake, "p", "x");
    const a = await loadText(lake, p, "{x:1}");
    const b = await loadText(lake, p, "{x:2}");
    const files = await dataFiles(lake, p);
    // Delete one source while the compaction writes (its commit checks the tip).
    const pending = compact(lake, p, "main", [a.objects[0].id, b.objects[0].id]);
    await deleteObjects(lake, p, "main", [b.objects[0].id]);
    const e = await failure(pending);
    assert.equal(e.kind, "conflict");
    assert.match(e.message, /delete of a non-existent data object: write conflict/);
    assert.deepEqual(await dataFiles(lake, p), files);
    assert.deepEqual(await lines(lake, "from p"), ["{x:1}"]);
  });
});

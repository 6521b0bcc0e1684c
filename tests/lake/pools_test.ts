import assert from "node:assert/strict";
import { LochError } from "../../lib/errors.ts";
import { toBase62, toHex } from "../../lib/lake/ksuid.ts";
import type { LakeEvent } from "../../lib/lake/lake.ts";
import {
  createPool,
  DEFAULT_SEEK_STRIDE,
  DEFAULT_THRESHOLD,
  dropPool,
  listPools,
  lookupPool,
  poolById,
  renamePool,
} from "../../lib/lake/pools.ts";
import {
  dataFiles,
  keyedPool,
  lines,
  loadText,
  query,
  rejection,
  thrown,
  withLake,
} from "./helpers.ts";

function errorOf(fn: () => unknown): LochError {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof LochError, `LochError: ${e}`);
    return e;
  }
  throw new Error("expected an exception");
}

Deno.test("pools: defaults are the reference's and a missing layout is stored as sent", async () => {
  await withLake(async (lake) => {
    assert.equal(DEFAULT_THRESHOLD, 524288000);
    assert.equal(DEFAULT_SEEK_STRIDE, 65536);
    const before = BigInt(Date.now()) * 1000000n;
    const p = createPool(lake, { name: "plain" });
    assert.equal(p.threshold, 524288000);
    assert.equal(p.seekStride, 65536);
    assert.deepEqual(p.layout, { order: "asc", keys: null });
    assert.equal(p.id.length, 20);
    assert.ok(p.ts >= before - 1000000n && p.ts <= BigInt(Date.now()) * 1000000n);
    // Zero means "the default", as in the reference.
    const z = createPool(lake, { name: "zero", threshold: 0, seekStride: 0 });
    assert.equal(z.threshold, 524288000);
    assert.equal(z.seekStride, 65536);
    const again = lookupPool(lake.catalog, "plain");
    assert.deepEqual(again, p);
    assert.deepEqual(await lines(lake, "from :pools | name == 'plain' | drop id, ts"), [
      '{name:"plain",layout:{order:"asc"(=order.Which),keys:null(field.List=[field.Path=[string]])}(=order.Layout),seek_stride:65536,threshold:524288000}',
    ]);
  });
});

Deno.test("pools: layout, stride and threshold are stored as sent", async () => {
  await withLake((lake) => {
    const p = createPool(lake, {
      name: "custom",
      layout: { order: "desc", keys: [["id", "orig_h"], ["ts"]] },
      seekStride: 1000,
      threshold: 4096,
    });
    const got = lookupPool(lake.catalog, "custom");
    assert.deepEqual(got.layout, { order: "desc", keys: [["id", "orig_h"], ["ts"]] });
    assert.equal(got.seekStride, 1000);
    assert.equal(got.threshold, 4096);
    assert.deepEqual(got, p);
  });
});

Deno.test("pools: a pool without keys sorts its data by ts", async () => {
  await withLake(async (lake) => {
    const p = createPool(lake, { name: "nokeys" });
    await loadText(lake, p, "{ts:3,v:1}\n{v:2}\n{ts:1,v:3}\n{ts:2,v:4}\n");
    assert.deepEqual(await lines(lake, "from nokeys"), [
      "{ts:1,v:3}",
      "{ts:2,v:4}",
      "{ts:3,v:1}",
      "{v:2}",
    ]);
  });
});

Deno.test("pools: HEAD is refused; names must be unique; any other name is accepted", async () => {
  await withLake((lake) => {
    const head = errorOf(() => createPool(lake, { name: "HEAD" }));
    assert.equal(head.message, 'pool cannot be named "HEAD"');
    assert.equal(head.kind, "invalid");
    createPool(lake, { name: "dup" });
    const dup = errorOf(() => createPool(lake, { name: "dup" }));
    assert.equal(dup.message, "dup: pool already exists");
    assert.equal(dup.kind, "conflict");
    const empty = errorOf(() => createPool(lake, { name: "" }));
    assert.equal(empty.message, "pool name cannot be empty");
    assert.equal(empty.kind, "invalid");
    for (const name of ["with space", "ünïcödé", "a.b", "head"]) createPool(lake, { name });
    assert.deepEqual(listPools(lake.catalog).map((p) => p.name), [
      "a.b",
      "dup",
      "head",
      "with space",
      "ünïcödé",
    ]);
  });
});

Deno.test("pools: a bad sort order is invalid", async () => {
  await withLake((lake) => {
    const e = errorOf(() =>
      createPool(lake, {
        name: "bad",
        layout: { order: "sideways" as "asc", keys: [["x"]] },
      })
    );
    assert.equal(e.kind, "invalid");
    assert.deepEqual(listPools(lake.catalog), []);
  });
});

Deno.test("pools: a new pool has branch main at the nil commit", async () => {
  await withLake(async (lake) => {
    createPool(lake, { name: "p" });
    assert.deepEqual(
      await lines(lake, "from p:branches | yield {name:branch.name,commit:branch.commit}"),
      [
        '{name:"main",commit:0x0000000000000000000000000000000000000000(=ksuid.KSUID)}',
      ],
    );
  });
});

Deno.test("pools: lookup by name, base62 id and 0x-hex id", async () => {
  await withLake(async (lake) => {
    const p = keyedPool(lake, "looked", "x");
    keyedPool(lake, "other", "x");
    await loadText(lake, p, "{x:1}");
    const b62 = toBase62(p.id), hex = toHex(p.id);
    assert.equal(b62.length, 27);
    assert.match(hex, /^0x[0-9a-f]{40}$/);
    for (const ref of ["looked", b62, hex, hex.toUpperCase().replace("0X", "0x")]) {
      assert.deepEqual(lookupPool(lake.catalog, ref), p, ref);
    }
    assert.deepEqual(poolById(lake.catalog, p.id), p);
    // Queries address a pool the same ways.
    for (const ref of ["looked", b62, hex]) {
      assert.deepEqual(await lines(lake, `from ${ref}`), ["{x:1}"], ref);
    }
    assert.equal(thrown(() => lookupPool(lake.catalog, "nope")), "nope: pool not found");
    assert.equal(errorOf(() => lookupPool(lake.catalog, "nope")).kind, "not found");
    // An id of no pool is looked up as an id, not a name.
    const missing = "0x" + "ab".repeat(20);
    const missing62 = toBase62(new Uint8Array(20).fill(0xab));
    assert.equal(thrown(() => lookupPool(lake.catalog, missing)), `${missing62}: pool not found`);
    assert.equal(thrown(() => lookupPool(lake.catalog, missing62)), `${missing62}: pool not found`);
    assert.equal(await rejection(query(lake, "from nope")), "nope: pool not found");
  });
});

Deno.test("pools: a pool whose name looks like an id is found by id only", async () => {
  await withLake((lake) => {
    const a = createPool(lake, { name: "a" });
    const tricky = createPool(lake, { name: toBase62(a.id) });
    assert.deepEqual(lookupPool(lake.catalog, toBase62(a.id)).id, a.id);
    assert.notDeepEqual(tricky.id, a.id);
  });
});

Deno.test("pools: rename, and renaming onto another pool's name is a conflict", async () => {
  await withLake(async (lake) => {
    const events: LakeEvent[] = [];
    lake.subscribe((e) => events.push(e));
    const p1 = createPool(lake, { name: "p1" });
    const p2 = createPool(lake, { name: "p2" });
    await loadText(lake, p2, "{ts:1}");
    renamePool(lake, p2.id, "p3");
    assert.equal(lookupPool(lake.catalog, "p3").name, "p3");
    assert.deepEqual(lookupPool(lake.catalog, "p3").id, p2.id);
    assert.equal(thrown(() => lookupPool(lake.catalog, "p2")), "p2: pool not found");
    assert.deepEqual(await lines(lake, "from p3"), ["{ts:1}"]);
    assert.deepEqual(listPools(lake.catalog).map((p) => p.name), ["p1", "p3"]);
    const e = errorOf(() => renamePool(lake, p1.id, "p3"));
    assert.equal(e.message, "p3: pool already exists");
    assert.equal(e.kind, "conflict");
    assert.equal(lookupPool(lake.catalog, "p1").name, "p1");
    // Renaming to its own name changes nothing.
    renamePool(lake, p1.id, "p1");
    assert.equal(lookupPool(lake.catalog, "p1").name, "p1");
    assert.deepEqual(
      events.filter((e) => e.kind === "pool-update").map((e) => toBase62(e.poolId)),
      [toBase62(p2.id), toBase62(p1.id)],
    );
  });
});

Deno.test("pools: drop removes the pool's files, rows and name", async () => {
  await withLake(async (lake) => {
    const events: string[] = [];
    lake.subscribe((e) => events.push(e.kind));
    const gone = keyedPool(lake, "gone", "x", "asc", { threshold: 10 });
    const kept = keyedPool(lake, "kept", "x");
    await loadText(lake, gone, '{x:1,s:"aaaaaaaaaaaa"}\n{x:2,s:"bbbbbbbbbbbb"}\n');
    await loadText(lake, gone, "{x:3}");
    await loadText(lake, kept, "{x:9}");
    assert.equal((await dataFiles(lake, gone)).length, 3);
    const cat = lake.catalog;
    const count = (table: string, where: string, ...args: Uint8Array[]) =>
      cat.get<{ n: number }>(`SELECT count(*) AS n FROM ${table} WHERE ${where}`, ...args)!.n;
    assert.equal(count("commits", "pool_id = ?", gone.id), 2);
    assert.equal(count("objects", "pool_id = ?", gone.id), 3);

    await dropPool(lake, gone.id);
    assert.deepEqual(await lake.storage.list(lake.poolDir(gone.id)), []);
    for (const t of ["commits", "objects", "branches", "tip_objects"]) {
      assert.equal(count(t, "pool_id = ?", gone.id), 0, t);
    }
    assert.equal(
      count("seek_index", "object_id NOT IN (SELECT id FROM objects)"),
      0,
    );
    assert.equal(count("actions", "commit_id NOT IN (SELECT id FROM commits)"), 0);
    assert.equal(thrown(() => lookupPool(cat, "gone")), "gone: pool not found");
    assert.equal(thrown(() => poolById(cat, gone.id)), `${toBase62(gone.id)}: pool not found`);
    assert.equal(await rejection(query(lake, "from gone")), "gone: pool not found");
    assert.equal(await rejection(query(lake, "from gone@main:objects")), "gone: pool not found");
    assert.equal(
      await rejection(dropPool(lake, gone.id)),
      `${toBase62(gone.id)}: pool not found`,
    );
    // The other pool is untouched, and the name can be used again.
    assert.deepEqual(await lines(lake, "from kept"), ["{x:9}"]);
    assert.equal((await lake.storage.list(`${lake.poolDir(kept.id)}/data`)).length, 1);
    const reborn = createPool(lake, { name: "gone" });
    assert.deepEqual(await lines(lake, "from gone"), []);
    assert.notDeepEqual(reborn.id, gone.id);
    assert.deepEqual(events.filter((k) => k.startsWith("pool")), [
      "pool-new",
      "pool-new",
      "pool-delete",
      "pool-new",
    ]);
  });
});

import assert from "node:assert/strict";
import { LochError } from "../../lib/errors.ts";
import {
  deleteObjects,
  deleteRequest,
  deleteWhere,
  deleteWhereMessage,
  INVALID_WHERE,
} from "../../lib/lake/delete.ts";
import { compact } from "../../lib/lake/compact.ts";
import { toBase62, toHex } from "../../lib/lake/ksuid.ts";
import { tipObjects } from "../../lib/lake/objects.ts";
import { newScanStats } from "../../lib/lake/scan.ts";
import type { Lake } from "../../lib/lake/lake.ts";
import type { PoolConfig } from "../../lib/lake/pools.ts";
import { dataFiles, keyedPool, lines, loadText, range, records, withLake } from "./helpers.ts";

/** The error a promise rejects with (fails when it resolves). */
async function failure(p: Promise<unknown>): Promise<LochError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof LochError, String(e));
    return e;
  }
  throw new Error("expected a rejection");
}

function tipIds(lake: Lake, pool: PoolConfig): string[] {
  return tipObjects(lake.catalog, pool.id, "main").map((o) => toBase62(o.id)).sort();
}

Deno.test("delete by object ids: one commit of deletes; time travel still sees the data", async () => {
  await withLake(async (lake) => {
    const p = keyedPool(lake, "p", "x");
    const a = await loadText(lake, p, "{x:1}");
    const b = await loadText(lake, p, "{x:2}");
    const [oa] = a.objects;
    const c = await deleteObjects(lake, p, "main", [oa.id], { author: "me" });
    assert.equal(c.author, "me");
    assert.equal(c.meta, null);
    assert.equal(
      c.message,
      `deleted 1 data object\n\n  ${toBase62(oa.id)} 1 record in ${oa.size} data bytes\n`,
    );
    assert.deepEqual(await lines(lake, "from p"), ["{x:2}"]);
    assert.deepEqual(await lines(lake, `from p@${toBase62(b.commit.id)}`), ["{x:1}", "{x:2}"]);
    assert.equal((await dataFiles(lake, p)).length, 2, "no file is removed");

    // Deleted already, or never an object: the reference's 404.
    let e = await failure(deleteObjects(lake, p, "main", [oa.id]));
    assert.equal(e.kind, "not found");
    assert.equal(e.message, `${toBase62(oa.id)}: commit object not found`);
    e = await failure(
      deleteRequest(lake, p, "main", { object_ids: ["27aaaaaaaaaaaaaaaaaaaaaaaaa"] }),
    );
    assert.equal(e.message, "27aaaaaaaaaaaaaaaaaaaaaaaaa: commit object not found");
    e = await failure(deleteObjects(lake, p, "nope", [oa.id]));
    assert.equal(e.message, '"nope": branch not found');
  });
});

Deno.test("delete by ids: an id named twice is deleted once", async () => {
  await withLake(async (lake) => {
    const p = keyedPool(lake, "p", "x");
    const { objects: [o] } = await loadText(lake, p, "{x:1}");
    await loadText(lake, p, "{x:2}");
    const c = await deleteObjects(lake, p, "main", [o.id, o.id]);
    assert.match(c.message, /^deleted 1 data object\n/);
    assert.deepEqual(await lines(lake, "from p"), ["{x:2}"]);
  });
});

Deno.test("delete by commit id: the objects that commit added", async () => {
  await withLake(async (lake) => {
    // A tiny threshold: each value becomes its own object.
    const p = keyedPool(lake, "p", "x", "asc", { threshold: 1 });
    const first = await loadText(lake, p, "{x:1}{x:2}{x:3}");
    assert.equal(first.objects.length, 3);
    const second = await loadText(lake, p, "{x:4}");
    // The commit and one of its objects, named together: each object once.
    const c = await deleteObjects(lake, p, "main", [first.commit.id, first.objects[0].id]);
    assert.match(c.message, /^deleted 3 data objects\n/);
    assert.deepEqual(await lines(lake, "from p"), ["{x:4}"]);

    // Its objects are gone now: a conflict naming the object, not a partial delete.
    let e = await failure(deleteObjects(lake, p, "main", [first.commit.id, second.objects[0].id]));
    assert.equal(e.kind, "conflict");
    assert.match(e.message, new RegExp(`^${toBase62(first.commit.id)}: data object \\w{27} added`));
    assert.deepEqual(await lines(lake, "from p"), ["{x:4}"]);

    // A commit that added nothing (the delete itself).
    e = await failure(deleteObjects(lake, p, "main", [c.id]));
    assert.equal(e.kind, "invalid");
    assert.equal(e.message, `${toBase62(c.id)}: commit added no data objects`);
  });
});

Deno.test("delete where: only objects holding matches are rewritten", async () => {
  await withLake(async (lake) => {
    const p = keyedPool(lake, "p", "x");
    await loadText(lake, p, '{x:1,s:"a"}{x:2,s:"b"}{x:3,s:"c"}');
    await loadText(lake, p, '{x:3,s:"d"}{x:4,s:"e"}{x:5,s:"f"}');
    await loadText(lake, p, '{x:6,s:"g"}{x:7,s:"h"}{x:8,s:"i"}');
    const before = tipObjects(lake.catalog, p.id, "main");
    const third = before.find((o) => o.first.body === 6)!;
    const stats = newScanStats();
    const c = await deleteWhere(lake, p, "main", "x <= 4", { meta: "{why:1}" }, { stats });
    // The object with 6..8 is ruled out by its key span, never read.
    assert.equal(stats.objectsPruned, 1);
    assert.equal(stats.objectsRead, 2);
    assert.equal(stats.recordsRead, 6);
    assert.equal(stats.recordsMatched, 5);
    assert.deepEqual(await lines(lake, "from p | cut x"), ["{x:5}", "{x:6}", "{x:7}", "{x:8}"]);
    const after = tipObjects(lake.catalog, p.id, "main");
    assert.equal(after.length, 2);
    assert.ok(after.some((o) => toHex(o.id) === toHex(third.id)), "untouched object kept");
    assert.equal(c.meta, "{why:1}");
    const deleted = before.filter((o) => o !== third).sort((a, b) =>
      (a.first.body as number) - (b.first.body as number)
    );
    const added = after.filter((o) => toHex(o.id) !== toHex(third.id));
    assert.equal(c.message, deleteWhereMessage(deleted, added));
    assert.match(
      c.message,
      /^deleted 2 data objects\n\n.*\n.*\n\nadded 1 data object\n\n.* 1 record in/,
    );

    // A filter on a field that is not the key reads every object but
    // rewrites only the one holding a match.
    const keep = tipIds(lake, p);
    const s2 = newScanStats();
    await deleteWhere(lake, p, "main", 's == "h"', {}, { stats: s2 });
    assert.equal(s2.objectsPruned, 0);
    assert.equal(s2.objectsRead, 2);
    assert.equal(s2.recordsMatched, 1);
    const now = tipIds(lake, p);
    assert.equal(now.filter((id) => keep.includes(id)).length, 1, "one object untouched");
    assert.deepEqual(await lines(lake, "from p | cut x"), ["{x:5}", "{x:6}", "{x:8}"]);
  });
});

Deno.test("delete where: an object all of whose values match leaves no new object", async () => {
  await withLake(async (lake) => {
    const p = keyedPool(lake, "p", "x");
    await loadText(lake, p, "{x:1}{x:2}");
    const { objects: [o2] } = await loadText(lake, p, "{x:5}{x:6}");
    const c = await deleteWhere(lake, p, "main", "x < 3");
    assert.doesNotMatch(c.message, /added/);
    assert.deepEqual(tipIds(lake, p), [toBase62(o2.id)]);
    assert.deepEqual(await lines(lake, "from p"), ["{x:5}", "{x:6}"]);
  });
});

Deno.test("delete where: false, null, missing and errors keep the value", async () => {
  await withLake(async (lake) => {
    const p = keyedPool(lake, "p", "x", "desc");
    await loadText(lake, p, '{x:1,s:"a"}{x:2,s:null(string)}{x:3}{x:4,s:"b"}{x:5,s:1}');
    await deleteWhere(lake, p, "main", 's == "a" or s == "b"');
    assert.deepEqual(await lines(lake, "from p"), ["{x:5,s:1}", "{x:3}", "{x:2,s:null(string)}"]);
    // A field reference that is never there matches nothing (delete-where-missing.yaml).
    const e = await failure(deleteWhere(lake, p, "main", "s==C3UeSqaSOFRReHD68"));
    assert.equal(e.message, "empty transaction");
  });
});

Deno.test("delete where: nothing matched is an invalid empty transaction, nothing written", async () => {
  await withLake(async (lake) => {
    const p = keyedPool(lake, "p", "ts");
    await loadText(lake, p, "{ts:0}");
    const files = await dataFiles(lake, p);
    const tip = tipIds(lake, p);
    for (const where of ["ts > 1", "ts == 0 and ts == 1", "false"]) {
      const e = await failure(deleteWhere(lake, p, "main", where));
      assert.equal(e.kind, "invalid");
      assert.equal(e.message, "empty transaction");
    }
    assert.deepEqual(await dataFiles(lake, p), files);
    assert.deepEqual(tipIds(lake, p), tip);
  });
});

Deno.test("delete where: must be a single filter operation", async () => {
  await withLake(async (lake) => {
    const p = keyedPool(lake, "p", "x");
    await loadText(lake, p, '{x:1,me:"hi"}');
    for (const where of ['me == "hi" | cut me', "cut that", "count()", "yield 1", "x:=1"]) {
      const e = await failure(deleteWhere(lake, p, "main", where));
      assert.equal(e.kind, "invalid", where);
      assert.equal(e.message, INVALID_WHERE, where);
    }
    const e = await failure(deleteWhere(lake, p, "main", "x ==="));
    assert.equal(e.kind, "invalid");
    assert.match(e.message, /^error parsing Zed at column/);
    // Search expressions, `where`, and constants are filters too.
    await deleteWhere(lake, p, "main", "const k = 1 x == k");
    assert.deepEqual(await lines(lake, "from p"), []);
  });
});

Deno.test("delete where: search expressions and a large rewrite keep order", async () => {
  await withLake(async (lake) => {
    const p = keyedPool(lake, "p", "k", "desc", { threshold: 2000 });
    const text = records(
      range(300),
      (n) => `{k:${n % 50},n:${n},tag:"${n % 7 === 0 ? "x" : "y"}"}`,
    );
    await loadText(lake, p, text);
    const want = await lines(lake, 'from p | tag != "x"');
    await deleteWhere(lake, p, "main", '"x"');
    assert.deepEqual(await lines(lake, "from p"), want);
    assert.equal(want.length, 300 - 43);
  });
});

Deno.test("delete request: the reference's validation", async () => {
  await withLake(async (lake) => {
    const p = keyedPool(lake, "p", "x");
    const { objects: [o] } = await loadText(lake, p, "{x:1}{x:2}");
    const cases: [Parameters<typeof deleteRequest>[3], string, string][] = [
      [
        { object_ids: [toBase62(o.id)], where: "x==1" },
        "invalid",
        "object_ids and where cannot both be set",
      ],
      [{}, "invalid", "either object_ids or where must be set"],
      [{ object_ids: [], where: "" }, "invalid", "either object_ids or where must be set"],
      [{ object_ids: ["nope"] }, "invalid", "invalid ID: nope"],
    ];
    for (const [req, kind, msg] of cases) {
      const e = await failure(deleteRequest(lake, p, "main", req));
      assert.equal(e.kind, kind);
      assert.equal(e.message, msg);
    }
    let e = await failure(deleteRequest(lake, p, "dev", { where: "x" }));
    assert.equal(e.message, '"dev": branch not found', "the branch is checked first");
    await deleteRequest(lake, p, "main", { where: "x == 1" });
    assert.deepEqual(await lines(lake, "from p"), ["{x:2}"]);
    const { objects: [o2] } = await loadText(lake, p, "{x:3}");
    await deleteRequest(lake, p, "main", { object_ids: [toHex(o2.id)], where: null });
    assert.deepEqual(await lines(lake, "from p"), ["{x:2}"]);
    e = await failure(deleteRequest(lake, p, "main", { where: "x == 9" }));
    assert.equal(e.message, "empty transaction");
  });
});

Deno.test("delete a compacted object's commit: a conflict", async () => {
  await withLake(async (lake) => {
    const p = keyedPool(lake, "p", "x");
    const a = await loadText(lake, p, "{x:1}");
    await loadText(lake, p, "{x:2}");
    await compact(lake, p, "main", "auto");
    const e = await failure(deleteObjects(lake, p, "main", [a.commit.id]));
    assert.equal(e.kind, "conflict");
    assert.deepEqual(await lines(lake, "from p"), ["{x:1}", "{x:2}"]);
  });
});

// `from pool diff A B`: values added and removed between two points of a
// pool's history, read only from the objects that differ (lib/lake/diff.ts).

import assert from "node:assert/strict";
import { createBranch, getBranch } from "../../lib/lake/branches.ts";
import { compact } from "../../lib/lake/compact.ts";
import { deleteWhere } from "../../lib/lake/delete.ts";
import { toBase62 } from "../../lib/lake/ksuid.ts";
import { mergeBranch } from "../../lib/lake/merge.ts";
import { revertCommit } from "../../lib/lake/revert.ts";
import { keyedPool, lines, loadText, query, rejection, withLake } from "./helpers.ts";
import { post, withServer } from "../service/helpers.ts";
import { TempLake } from "../cli/loch.ts";

Deno.test("diff: loads, deletes by where, merges, reverts; compaction diffs to nothing", async () => {
  await withLake(async (lake) => {
    const p = keyedPool(lake, "p", "x");
    const tip = () => toBase62(getBranch(lake.catalog, p.id, "main").commit);
    await loadText(lake, p, "{x:1}\n{x:2}\n{x:3}");
    const c1 = tip();
    await loadText(lake, p, "{x:4}\n5");
    const c2 = tip();
    assert.deepEqual(await lines(lake, `from p diff ${c1} ${c2}`), [
      '{diff:"added",x:4}',
      '{diff:"added",value:5}',
    ]);
    // The other way round, the same values removed.
    assert.deepEqual(await lines(lake, `from p diff ${c2} ${c1}`), [
      '{diff:"removed",x:4}',
      '{diff:"removed",value:5}',
    ]);
    // Only the objects that differ are read.
    const r = await query(lake, `from p diff ${c1} ${c2} | count()`);
    assert.deepEqual(r.lines, ["{count:2(uint64)}"]);
    assert.equal(r.stats.objectsRead, 1);
    assert.equal(r.stats.recordsRead, 2);

    // A delete by where rewrites an object; what it kept cancels out.
    await deleteWhere(lake, p, "main", "x == 2");
    const c3 = tip();
    assert.deepEqual(await lines(lake, `from p diff ${c2} ${c3}`), ['{diff:"removed",x:2}']);

    // Compaction moves values, changes none.
    await compact(lake, p, "main", "auto");
    const c4 = tip();
    assert.notEqual(c4, c3);
    assert.deepEqual(await lines(lake, `from p diff ${c3} ${c4}`), []);

    // Branches and merges: a branch name is a point too.
    createBranch(lake, p, "dev", getBranch(lake.catalog, p.id, "main").commit);
    await loadText(lake, p, "{x:9}", "dev");
    assert.deepEqual(await lines(lake, "from p diff main dev"), ['{diff:"added",x:9}']);
    await mergeBranch(lake, p, "main", "dev");
    assert.deepEqual(await lines(lake, "from p diff main dev"), []);
    assert.deepEqual(await lines(lake, `from p diff ${c4} main`), ['{diff:"added",x:9}']);

    // A revert removes what the reverted commit added.
    const seven = await loadText(lake, p, "{x:7}\n{x:8}");
    const before = tip();
    await revertCommit(lake, p, "main", seven.commit.id);
    assert.deepEqual(await lines(lake, `from p diff ${before} main`), [
      '{diff:"removed",x:7}',
      '{diff:"removed",x:8}',
    ]);
    // Filters apply after marking.
    assert.deepEqual(await lines(lake, `from p diff ${before} main | x==8 | count()`), [
      "{count:1(uint64)}",
    ]);
    assert.equal(
      await rejection(lines(lake, "from p@main diff main dev")),
      "diff: give a pool and two commits or branches: from P diff A B",
    );
    assert.match(
      await rejection(lines(lake, "from p diff main nosuch")),
      /"nosuch": branch not found/,
    );
  });
});

Deno.test("diff: duplicates count, over HTTP", async () => {
  await withServer(async (s) => {
    await post(s, "/pool", '{"name":"p","layout":{"order":"asc","keys":[["x"]]}}');
    await post(s, "/pool/p/branch/main", "{x:1}\n{x:1}");
    const q = (query: string) =>
      post(s, "/query", JSON.stringify({ query }), { Accept: "application/json" });
    const log = JSON.parse((await q("from p@main:log | has(id) | yield id")).text) as string[];
    const r = await q(`from p diff ${log[0]} main`);
    assert.equal(r.text, "[]\n");
    await post(s, "/pool/p/branch/main", "{x:1}");
    const d = await q(`from p diff ${log[0]} main`);
    assert.equal(d.text, '[{"diff":"added","x":1}]\n');
  });
  // And on the command line.
  const cli = await TempLake.make();
  try {
    await cli.run(["create", "-q", "-orderby", "x:asc", "p"]);
    await cli.run(["load", "-use", "p", await cli.file("a.zson", "{x:1}\n")]);
    await cli.run(["branch", "-use", "p", "dev"]);
    await cli.run(["load", "-use", "p@dev", await cli.file("b.zson", "{x:2}\n")]);
    const r = await cli.run(["query", "-z", "from p diff main dev"]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, '{diff:"added",x:2}\n');
  } finally {
    await cli.remove();
  }
});

import assert from "node:assert/strict";
import { LochError } from "../../lib/errors.ts";
import { commitToBranch, createBranch, getBranch } from "../../lib/lake/branches.ts";
import { type Action, commitActions } from "../../lib/lake/commits.ts";
import { compact } from "../../lib/lake/compact.ts";
import { deleteObjects, deleteWhere } from "../../lib/lake/delete.ts";
import { newKSUID, toBase62, toHex } from "../../lib/lake/ksuid.ts";
import type { Lake } from "../../lib/lake/lake.ts";
import { tipObjects } from "../../lib/lake/objects.ts";
import type { PoolConfig } from "../../lib/lake/pools.ts";
import { mergeBranch } from "../../lib/lake/merge.ts";
import { netEffect, revertCommit } from "../../lib/lake/revert.ts";
import { keyedPool, lines, loadText, withLake } from "./helpers.ts";

async function failure(p: Promise<unknown>): Promise<LochError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof LochError, String(e));
    return e;
  }
  throw new Error("expected a rejection");
}

function tipIds(lake: Lake, pool: PoolConfig, branch = "main"): string[] {
  return tipObjects(lake.catalog, pool.id, branch).map((o) => toBase62(o.id)).sort();
}

Deno.test("revert a load, then revert the revert (revert.yaml, revert-revert.yaml)", async () => {
  await withLake(async (lake) => {
    const p = keyedPool(lake, "p", "a");
    const a = await loadText(lake, p, "{a:1}");
    await loadText(lake, p, "{b:1}");
    const r = await revertCommit(lake, p, "main", a.commit.id, { author: "rev" });
    assert.equal(r.message, `reverted commit ${toBase62(a.commit.id)}`);
    assert.equal(r.author, "rev");
    assert.equal(r.meta, null);
    assert.deepEqual(commitActions(lake.catalog, r.id), [
      { kind: "delete", objectId: a.objects[0].id },
    ]);
    assert.deepEqual(await lines(lake, "from p | sort this"), ["{b:1}"]);
    // Time travel still reads the reverted data.
    assert.deepEqual(await lines(lake, `from p@${toBase62(a.commit.id)}`), ["{a:1}"]);

    const rr = await revertCommit(lake, p, "main", r.id, { body: "again" });
    assert.equal(rr.message, "again");
    assert.deepEqual(await lines(lake, "from p | sort this"), ["{a:1}", "{b:1}"]);
    assert.ok(tipIds(lake, p).includes(toBase62(a.objects[0].id)), "the same object is back");
  });
});

Deno.test("revert a delete by ids and a delete by filter", async () => {
  await withLake(async (lake) => {
    const p = keyedPool(lake, "p", "x");
    await loadText(lake, p, "{x:1}{x:2}{x:3}");
    const { objects: [o] } = await loadText(lake, p, "{x:4}{x:5}");
    const original = tipIds(lake, p);
    const d = await deleteObjects(lake, p, "main", [o.id]);
    await revertCommit(lake, p, "main", d.id);
    assert.deepEqual(tipIds(lake, p), original);

    const w = await deleteWhere(lake, p, "main", "x == 2 or x == 5");
    assert.deepEqual(await lines(lake, "from p"), ["{x:1}", "{x:3}", "{x:4}"]);
    const r = await revertCommit(lake, p, "main", w.id);
    assert.deepEqual(await lines(lake, "from p"), ["{x:1}", "{x:2}", "{x:3}", "{x:4}", "{x:5}"]);
    assert.deepEqual(tipIds(lake, p), original, "the rewritten objects are gone again");
    // The revert's actions: delete what the delete added, add back what it deleted.
    const kinds = commitActions(lake.catalog, r.id).map((a) => a.kind);
    assert.deepEqual(kinds, ["delete", "delete", "add", "add"]);
  });
});

Deno.test("revert: unknown commit, empty commit", async () => {
  await withLake(async (lake) => {
    const p = keyedPool(lake, "p", "x");
    const q = keyedPool(lake, "q", "x");
    const other = await loadText(lake, q, "{x:1}");
    await loadText(lake, p, "{x:1}");
    let e = await failure(revertCommit(lake, p, "main", other.commit.id));
    assert.equal(e.message, `commit not found: ${toBase62(other.commit.id)}`);
    assert.equal(e.kind, "not found", "a 404 (the reference says 500)");
    const id = newKSUID();
    e = await failure(revertCommit(lake, p, "main", id));
    assert.equal(e.message, `commit not found: ${toBase62(id)}`);
    e = await failure(revertCommit(lake, p, "dev", other.commit.id));
    assert.equal(e.message, '"dev": branch not found');

    const empty = await commitToBranch(lake, p.id, "main", () => ({
      author: "",
      message: "nothing",
      meta: null,
      actions: [],
    }));
    e = await failure(revertCommit(lake, p, "main", empty.id));
    assert.equal(e.message, "revert commit is empty");
  });
});

Deno.test("revert conflicts: an added object since deleted; the branch stays", async () => {
  await withLake(async (lake) => {
    const p = keyedPool(lake, "p", "x");
    const a = await loadText(lake, p, "{x:1}");
    await loadText(lake, p, "{x:2}");
    await compact(lake, p, "main", "auto"); // {x:1} now lives in a new object
    const tip = getBranch(lake.catalog, p.id, "main").commit;
    let e = await failure(revertCommit(lake, p, "main", a.commit.id));
    assert.equal(e.kind, "conflict");
    assert.equal(
      e.message,
      `cannot revert commit ${toBase62(a.commit.id)} on branch "main": data object ${
        toBase62(a.objects[0].id)
      } it added is no longer on the branch`,
    );
    assert.equal(toHex(getBranch(lake.catalog, p.id, "main").commit), toHex(tip));
    assert.deepEqual(await lines(lake, "from p"), ["{x:1}", "{x:2}"]);

    // Reverting twice: the second finds nothing left to undo.
    const b = await loadText(lake, p, "{x:3}");
    await revertCommit(lake, p, "main", b.commit.id);
    e = await failure(revertCommit(lake, p, "main", b.commit.id));
    assert.equal(e.kind, "conflict");

    // A deleted object that is back (by reverting the delete) cannot be added again.
    const d = await deleteObjects(lake, p, "main", [tipObjects(lake.catalog, p.id, "main")[0].id]);
    await revertCommit(lake, p, "main", d.id);
    e = await failure(revertCommit(lake, p, "main", d.id));
    assert.match(e.message, /it deleted is on the branch again$/);
  });
});

Deno.test("revert a commit of another branch", async () => {
  await withLake(async (lake) => {
    const p = keyedPool(lake, "p", "x");
    await loadText(lake, p, "{x:1}");
    createBranch(lake, p, "dev", getBranch(lake.catalog, p.id, "main").commit);
    const d = await deleteWhere(lake, p, "dev", "x == 1");
    // On main the object is still there: undoing dev's delete-where means
    // deleting what it added (not on main) — a conflict.
    const e = await failure(revertCommit(lake, p, "main", d.id));
    assert.equal(e.kind, "conflict");
    // On dev it restores the data.
    await revertCommit(lake, p, "dev", d.id);
    assert.deepEqual(await lines(lake, "from p@dev"), ["{x:1}"]);
  });
});

Deno.test("revert index actions (revert-index.yaml)", async () => {
  await withLake(async (lake) => {
    const p = keyedPool(lake, "p", "x");
    const { objects: [o] } = await loadText(lake, p, "{x:1}");
    const rule = newKSUID();
    const indexes = () =>
      lake.catalog.all<{ object_id: Uint8Array }>(
        "SELECT object_id FROM tip_indexes WHERE pool_id = ? AND branch = 'main'",
        p.id,
      ).length;
    const add = await commitToBranch(lake, p.id, "main", () => ({
      author: "indexer",
      message: "index rules applied: r",
      meta: null,
      actions: [{ kind: "add_index", objectId: o.id, ruleId: rule }],
    }));
    assert.equal(indexes(), 1);
    const r = await revertCommit(lake, p, "main", add.id);
    assert.deepEqual(commitActions(lake.catalog, r.id), [
      { kind: "delete_index", objectId: o.id, ruleId: rule },
    ]);
    assert.equal(indexes(), 0);
    await revertCommit(lake, p, "main", r.id);
    assert.equal(indexes(), 1);
  });
});

Deno.test("netEffect: add and delete of one object cancel; the reference's order", () => {
  const [x, y, z, rule] = [newKSUID(), newKSUID(), newKSUID(), newKSUID()];
  const actions: Action[] = [
    { kind: "add_index", objectId: x, ruleId: rule },
    { kind: "add", objectId: x },
    { kind: "add", objectId: y },
    { kind: "delete", objectId: y },
    { kind: "delete", objectId: z },
  ];
  assert.deepEqual(netEffect(actions), [
    { kind: "delete", objectId: z },
    { kind: "add", objectId: x },
    { kind: "add_index", objectId: x, ruleId: rule },
  ]);
});

Deno.test("revert a merge commit, and revert the revert", async () => {
  await withLake(async (lake) => {
    const p = keyedPool(lake, "p", "x");
    const base = await loadText(lake, p, "{x:1}");
    createBranch(lake, p, "dev", base.commit.id);
    await loadText(lake, p, "{x:2}", "dev");
    await deleteWhere(lake, p, "dev", "x == 1");
    await loadText(lake, p, "{x:3}");
    const m = await mergeBranch(lake, p, "main", "dev");
    assert.deepEqual(await lines(lake, "from p"), ["{x:2}", "{x:3}"]);
    const r = await revertCommit(lake, p, "main", m.id);
    assert.deepEqual(await lines(lake, "from p"), ["{x:1}", "{x:3}"]);
    await revertCommit(lake, p, "main", r.id);
    assert.deepEqual(await lines(lake, "from p"), ["{x:2}", "{x:3}"]);
    // Deleting by the merge commit's id deletes the objects it brought.
    await deleteObjects(lake, p, "main", [m.id]);
    assert.deepEqual(await lines(lake, "from p"), ["{x:3}"]);
  });
});

import assert from "node:assert/strict";
import { LochError } from "../../lib/errors.ts";
import {
  commitToBranch,
  createBranch,
  deleteBranch,
  findBranch,
  getBranch,
  listBranches,
  MAX_COMMIT_ATTEMPTS,
} from "../../lib/lake/branches.ts";
import { isNil, newKSUID, NIL_ID, toBase62, toHex } from "../../lib/lake/ksuid.ts";
import { Lake, type LakeEvent } from "../../lib/lake/lake.ts";
import { createPool } from "../../lib/lake/pools.ts";
import { keyedPool, lines, loadText, query, rejection, thrown, withLake } from "./helpers.ts";

Deno.test("branches: a new pool's main is at the nil commit and reads as empty", async () => {
  await withLake(async (lake) => {
    const p = createPool(lake, { name: "p" });
    const main = getBranch(lake.catalog, p.id, "main");
    assert.equal(main.name, "main");
    assert.ok(isNil(main.commit));
    assert.equal(main.ts, p.ts);
    assert.deepEqual(listBranches(lake.catalog, p.id).map((b) => b.name), ["main"]);
    const r = await query(lake, "from p");
    assert.deepEqual(r.lines, []);
    assert.equal(r.stats.objectsRead, 0);
    // The log of an empty branch has only the branch tips.
    assert.deepEqual(await lines(lake, "from p@main:log | yield nameof(this)"), [
      '"lake.BranchTip"',
    ]);
  });
});

Deno.test("branches: create from a branch tip; the branches then diverge", async () => {
  await withLake(async (lake) => {
    const events: LakeEvent[] = [];
    lake.subscribe((e) => events.push(e));
    const p = keyedPool(lake, "p", "x");
    const first = await loadText(lake, p, "{x:1}");
    const tip = getBranch(lake.catalog, p.id, "main").commit;
    assert.deepEqual(tip, first.commit.id);
    const dev = createBranch(lake, p, "dev", tip);
    assert.equal(dev.name, "dev");
    assert.deepEqual(dev.commit, first.commit.id);
    assert.deepEqual(getBranch(lake.catalog, p.id, "dev"), dev);
    assert.deepEqual(await lines(lake, "from p@dev"), ["{x:1}"]);

    await loadText(lake, p, "{x:2}", "dev");
    await loadText(lake, p, "{x:0}", "main");
    assert.deepEqual(await lines(lake, "from p@dev"), ["{x:1}", "{x:2}"]);
    assert.deepEqual(await lines(lake, "from p@main"), ["{x:0}", "{x:1}"]);
    assert.deepEqual(await lines(lake, "from p"), ["{x:0}", "{x:1}"]);
    assert.deepEqual(listBranches(lake.catalog, p.id).map((b) => b.name), ["dev", "main"]);
    assert.deepEqual(
      await lines(lake, "from p:branches | yield branch.name | sort this"),
      ['"dev"', '"main"'],
    );
    assert.deepEqual(
      events.filter((e) => e.kind === "branch-update" || e.kind === "branch-commit")
        .map((e) => `${e.kind} ${(e as { branch: string }).branch}`),
      ["branch-commit main", "branch-update dev", "branch-commit dev", "branch-commit main"],
    );
  });
});

Deno.test("branches: create from an earlier commit id sees that commit's data", async () => {
  await withLake(async (lake) => {
    const p = keyedPool(lake, "p", "x");
    const a = await loadText(lake, p, "{x:1}");
    const b = await loadText(lake, p, "{x:2}");
    await loadText(lake, p, "{x:3}");
    const atA = createBranch(lake, p, "atA", a.commit.id);
    const atB = createBranch(lake, p, "atB", b.commit.id);
    assert.deepEqual(atA.commit, a.commit.id);
    assert.deepEqual(await lines(lake, "from p@atA"), ["{x:1}"]);
    assert.deepEqual(await lines(lake, "from p@atB"), ["{x:1}", "{x:2}"]);
    // A branch at the same commit as another copies its state.
    createBranch(lake, p, "twin", atB.commit);
    assert.deepEqual(await lines(lake, "from p@twin"), ["{x:1}", "{x:2}"]);
    // Loading into a branch made from a commit continues its history.
    const c = await loadText(lake, p, "{x:9}", "atA");
    assert.deepEqual(c.commit.parent, a.commit.id);
    assert.deepEqual(await lines(lake, "from p@atA"), ["{x:1}", "{x:9}"]);
    assert.deepEqual(await lines(lake, "from p"), ["{x:1}", "{x:2}", "{x:3}"]);
  });
});

Deno.test("branches: create from an empty branch, and from an unknown commit", async () => {
  await withLake(async (lake) => {
    const p = createPool(lake, { name: "p" });
    const empty = createBranch(lake, p, "empty", getBranch(lake.catalog, p.id, "main").commit);
    assert.ok(isNil(empty.commit));
    const other = createPool(lake, { name: "other" });
    const elsewhere = await loadText(lake, other, "{x:1}");
    const missing = newKSUID();
    for (const id of [missing, elsewhere.commit.id]) {
      let err: unknown;
      try {
        createBranch(lake, p, "bad", id);
      } catch (e) {
        err = e;
      }
      assert.ok(err instanceof LochError);
      assert.equal(err.kind, "not found");
      assert.equal(err.message, `${toBase62(id)}: commit object not found`);
    }
    assert.equal(findBranch(lake.catalog, p.id, "bad"), undefined);
  });
});

Deno.test("branches: a duplicate branch name is a conflict", async () => {
  await withLake((lake) => {
    const p = createPool(lake, { name: "pool" });
    createBranch(lake, p, "dev", NIL_ID);
    for (const name of ["dev", "main"]) {
      let err: unknown;
      try {
        createBranch(lake, p, name, NIL_ID);
      } catch (e) {
        err = e;
      }
      assert.ok(err instanceof LochError);
      assert.equal(err.kind, "conflict");
      assert.equal(err.message, `pool/${name}: branch already exists`);
    }
    // The same name in another pool is fine.
    createBranch(lake, createPool(lake, { name: "q" }), "dev", NIL_ID);
  });
});

Deno.test("branches: get and delete (main too)", async () => {
  await withLake(async (lake) => {
    const events: string[] = [];
    lake.subscribe((e) => events.push(e.kind));
    const p = keyedPool(lake, "p", "x");
    const loaded = await loadText(lake, p, "{x:1}");
    createBranch(lake, p, "dev", loaded.commit.id);
    assert.equal(
      thrown(() => getBranch(lake.catalog, p.id, "nope")),
      '"nope": branch not found',
    );
    assert.equal(await rejection(query(lake, "from p@nope")), '"nope": branch not found');

    deleteBranch(lake, p.id, "dev");
    assert.equal(findBranch(lake.catalog, p.id, "dev"), undefined);
    assert.equal(await rejection(query(lake, "from p@dev")), '"dev": branch not found');
    assert.equal(thrown(() => deleteBranch(lake, p.id, "dev")), '"dev": branch not found');

    deleteBranch(lake, p.id, "main");
    assert.deepEqual(listBranches(lake.catalog, p.id), []);
    assert.equal(await rejection(query(lake, "from p")), '"main": branch not found');
    assert.equal(await rejection(query(lake, "from p@main")), '"main": branch not found');
    assert.equal(
      await rejection(loadText(lake, p, "{x:2}")),
      '"main": branch not found',
    );
    // The commits stay: time travel still works, and main can be made again.
    assert.deepEqual(await lines(lake, `from p@${toBase62(loaded.commit.id)}`), ["{x:1}"]);
    createBranch(lake, p, "main", loaded.commit.id);
    assert.deepEqual(await lines(lake, "from p"), ["{x:1}"]);
    assert.deepEqual(events.filter((k) => k === "branch-delete"), [
      "branch-delete",
      "branch-delete",
    ]);
  });
});

/**
 * Runs fn with a second Lake on the same directory: a writer outside this
 * Lake's commit queue, as another process would be. (On a catalog that
 * locks branches across processes, PostgreSQL's, the other writer would wait
 * for the commit under way instead: these tests are for SQLite's.)
 */
async function withOtherWriter(lake: Lake, fn: (other: Lake) => Promise<void>): Promise<void> {
  if (lake.catalog.lock !== undefined) return;
  const other = await Lake.open(lake.root, { catalog: lake.catalogURL });
  try {
    await fn(other);
  } finally {
    other.close();
  }
}

Deno.test("branches: a commit retries when another writer moved the tip meanwhile", async () => {
  await withLake((lake) =>
    withOtherWriter(lake, async (other) => {
      const p = keyedPool(lake, "p", "x");
      const cat = lake.catalog;
      let calls = 0;
      let sneaked = NIL_ID;
      const commit = await commitToBranch(lake, p.id, "main", async (tip) => {
        calls++;
        if (calls === 1) {
          assert.ok(isNil(tip));
          sneaked = (await loadText(other, p, "{x:1}")).commit.id;
        } else {
          assert.deepEqual(tip, sneaked);
        }
        return { author: "me", message: "empty", meta: null, actions: [] };
      }, newKSUID);
      assert.equal(calls, 2);
      assert.equal(commit.retries, 1);
      assert.deepEqual(commit.parent, sneaked);
      assert.deepEqual(getBranch(cat, p.id, "main").commit, commit.id);
      assert.deepEqual(await lines(lake, "from p"), ["{x:1}"]);
      assert.deepEqual(
        await lines(lake, "from p@main:log | nameof(this) == 'Commit' | yield retries"),
        ["1(uint8)", "0(uint8)"],
      );
    })
  );
});

Deno.test("branches: a commit gives up after the maximum number of attempts", async () => {
  await withLake((lake) =>
    withOtherWriter(lake, async (other) => {
      const p = keyedPool(lake, "p", "x");
      let calls = 0;
      const msg = await rejection(commitToBranch(lake, p.id, "main", async () => {
        calls++;
        await loadText(other, p, `{x:${calls}}`);
        return { author: "", message: "never", meta: null, actions: [] };
      }, newKSUID));
      assert.equal(
        msg,
        'branch "main": exceeded max update attempts (10) to branch tip: commit failed',
      );
      assert.equal(calls, MAX_COMMIT_ATTEMPTS);
      assert.equal((await lines(lake, "from p")).length, MAX_COMMIT_ATTEMPTS);
      assert.deepEqual(
        await lines(lake, "from p@main:log | message == 'never' | count()"),
        [],
      );
    })
  );
});

Deno.test("branches: commits from one Lake to one branch wait their turn, never retried", async () => {
  await withLake(async (lake) => {
    const p = keyedPool(lake, "p", "x");
    const loads = Array.from({ length: 20 }, (_, i) => loadText(lake, p, `{x:${i}}`));
    const commits = await Promise.all(loads);
    assert.ok(commits.every((c) => c.commit.retries === 0));
    assert.deepEqual(await lines(lake, "from p | count() | yield count"), ["20(uint64)"]);
  });
});

Deno.test("branches: conflicting actions are refused and leave the branch as it was", async () => {
  await withLake(async (lake) => {
    const p = keyedPool(lake, "p", "x");
    const loaded = await loadText(lake, p, "{x:1}");
    const objectId = loaded.objects[0].id;
    const before = getBranch(lake.catalog, p.id, "main").commit;
    const dup = await rejection(commitToBranch(lake, p.id, "main", () => ({
      author: "",
      message: "dup",
      meta: null,
      actions: [{ kind: "add", objectId }],
    }), newKSUID));
    assert.equal(dup, `${toBase62(objectId)}: add of a duplicate data object: write conflict`);
    const missing = newKSUID();
    const del = await rejection(commitToBranch(lake, p.id, "main", () => ({
      author: "",
      message: "del",
      meta: null,
      actions: [{ kind: "delete", objectId: missing }],
    }), newKSUID));
    assert.equal(del, `${toBase62(missing)}: delete of a non-existent data object: write conflict`);
    assert.equal(toHex(getBranch(lake.catalog, p.id, "main").commit), toHex(before));
    assert.deepEqual(await lines(lake, "from p@main:log | nameof(this) == 'Commit' | count()"), [
      "{count:1(uint64)}",
    ]);
  });
});

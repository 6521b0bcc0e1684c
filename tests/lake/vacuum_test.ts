import assert from "node:assert/strict";
import { LochError } from "../../lib/errors.ts";
import { commitToBranch, createBranch, deleteBranch, getBranch } from "../../lib/lake/branches.ts";
import { commitActions, commitChain, getCommit } from "../../lib/lake/commits.ts";
import { compact } from "../../lib/lake/compact.ts";
import { deleteObjects, deleteWhere } from "../../lib/lake/delete.ts";
import { indexObjectPath, recordIndexObject } from "../../lib/lake/index/store.ts";
import { type KSUID, newKSUID, toBase62, toHex } from "../../lib/lake/ksuid.ts";
import type { Lake } from "../../lib/lake/lake.ts";
import { tipObjects } from "../../lib/lake/objects.ts";
import type { PoolConfig } from "../../lib/lake/pools.ts";
import { revertCommit } from "../../lib/lake/revert.ts";
import { vacuum } from "../../lib/lake/vacuum.ts";
import { isS3 } from "../../lib/lake/s3/config.ts";
import { dataFiles, keyedPool, lines, loadText, rejection, withLake } from "./helpers.ts";

/** Whether the lake's storage has a file, or a directory with something in it, at path. */
async function exists(lake: Lake, path: string): Promise<boolean> {
  if ((await lake.storage.stat(path)) !== undefined) return true;
  return (await lake.storage.list(path)).length > 0;
}

/** Writes a file and dates it `ageMs` in the past. */
async function fileAged(path: string, ageMs: number): Promise<void> {
  await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
  await Deno.writeTextFile(path, "x");
  const t = new Date(Date.now() - ageMs);
  await Deno.utime(path, t, t);
}

const HOUR = 3600_000;

/** Binds a (fake) index object to a data object with a commit, as index apply does. */
async function addIndex(lake: Lake, pool: PoolConfig, branch: string, objectId: KSUID) {
  const rule = newKSUID();
  const path = indexObjectPath(lake, pool.id, rule, objectId);
  await lake.storage.createAtomic(path, (sink) => sink.write(new Uint8Array([0])));
  await commitToBranch(lake, pool.id, branch, () => ({
    author: "indexer",
    message: "index rules applied: r",
    meta: null,
    actions: [{ kind: "add_index", objectId, ruleId: rule }],
    record: () => recordIndexObject(lake.catalog, pool.id, rule, objectId, 1),
  }));
  return path;
}

Deno.test("vacuum keeps whatever any branch's history can reach", async () => {
  await withLake(async (lake) => {
    const p = keyedPool(lake, "p", "x");
    const a = await loadText(lake, p, "{x:1}");
    await deleteObjects(lake, p, "main", [a.objects[0].id]);
    await loadText(lake, p, "{x:2}");
    const r = await vacuum(lake, p);
    assert.deepEqual(r, { objects: [], indexes: [], commits: [], orphans: [], paths: [] });
    // The deleted object is still read by time travel.
    assert.deepEqual(await lines(lake, `from p@${toBase62(a.commit.id)}`), ["{x:1}"]);
  });
});

Deno.test("vacuum removes what only a deleted branch had; a dry run lists it", async () => {
  await withLake(async (lake) => {
    const p = keyedPool(lake, "p", "x");
    const base = await loadText(lake, p, "{x:1}");
    createBranch(lake, p, "dev", base.commit.id);
    const dev = await loadText(lake, p, "{x:2}", "dev");
    const devObject = dev.objects[0].id;
    const index = await addIndex(lake, p, "dev", devObject);
    const kept = await addIndex(lake, p, "main", base.objects[0].id);
    // Columns of dev's object, written with it.
    const vectors = lake.columnsPath(p.id, devObject);
    assert.ok(await exists(lake, vectors), "the load wrote columns");
    const devTip = getBranch(lake.catalog, p.id, "dev").commit;
    deleteBranch(lake, p.id, "dev");

    const dry = await vacuum(lake, p, { dryRun: true });
    assert.deepEqual(dry.objects.map(toHex), [toHex(devObject)]);
    assert.equal(dry.indexes.length, 1);
    assert.equal(dry.commits.length, 2);
    assert.deepEqual(dry.paths.sort(), [lake.objectPath(p.id, devObject), index, vectors].sort());
    assert.ok(await exists(lake, lake.objectPath(p.id, devObject)), "a dry run removes nothing");
    assert.deepEqual(await lines(lake, `from p@${toBase62(devTip)}`), ["{x:1}", "{x:2}"]);

    const real = await vacuum(lake, p);
    assert.deepEqual(real.paths.sort(), dry.paths.sort());
    for (const path of real.paths) assert.ok(!(await exists(lake, path)), path);
    assert.ok(await exists(lake, kept), "main's index object stays");
    assert.equal(getCommit(lake.catalog, p.id, devTip), undefined, "dev's commits are gone");
    const count = (sql: string) => lake.catalog.all(sql, devObject).length;
    assert.equal(count("SELECT 1 FROM objects WHERE id = ?"), 0);
    assert.equal(count("SELECT 1 FROM seek_index WHERE object_id = ?"), 0);
    assert.equal(count("SELECT 1 FROM index_objects WHERE object_id = ?"), 0);
    // Time travel to a vacuumed commit: not found rather than partial data.
    assert.match(await rejection(lines(lake, `from p@${toBase62(devTip)}`)), /not found/);
    assert.deepEqual(await lines(lake, "from p"), ["{x:1}"]);
    const again = await vacuum(lake, p);
    assert.equal(again.paths.length, 0);
  });
});

Deno.test("vacuum removes files of crashed writes once they are old", async () => {
  await withLake(async (lake) => {
    // It makes the crashed writes' files itself, in the lake's directory.
    if (isS3(lake.root)) return;
    const p = keyedPool(lake, "p", "x");
    const { objects: [live] } = await loadText(lake, p, "{x:1}");
    const dir = lake.poolDir(p.id);
    const stray = `${dir}/data/${toBase62(newKSUID())}.zng`;
    const young = `${dir}/data/${toBase62(newKSUID())}.zng`;
    const tmpOld = `${lake.objectPath(p.id, live.id)}.tmp-1234`;
    const tmpYoung = `${dir}/data/${toBase62(newKSUID())}.zng.tmp-5678`;
    const colTmp = `${dir}/vectors/${toBase62(live.id)}/78.zng.tmp-1`;
    const colStray = `${dir}/vectors/${toBase62(newKSUID())}/78.zng`;
    const idxStray = `${dir}/index/${toBase62(newKSUID())}/${toBase62(live.id)}.zng`;
    const notOurs = `${dir}/data/README`;
    await fileAged(stray, 2 * HOUR);
    await fileAged(young, 0);
    await fileAged(tmpOld, 2 * HOUR);
    await fileAged(tmpYoung, 0);
    await fileAged(colTmp, 2 * HOUR);
    await fileAged(colStray, 2 * HOUR);
    const colDir = colStray.slice(0, colStray.lastIndexOf("/"));
    await Deno.utime(colDir, new Date(Date.now() - 2 * HOUR), new Date(Date.now() - 2 * HOUR));
    await fileAged(idxStray, 2 * HOUR);
    await fileAged(notOurs, 2 * HOUR);

    const dry = await vacuum(lake, p, { dryRun: true });
    assert.deepEqual(dry.orphans.sort(), [stray, tmpOld, colTmp, colDir, idxStray].sort());
    assert.ok(await exists(lake, stray));
    const r = await vacuum(lake, p);
    assert.deepEqual(r.orphans.sort(), dry.orphans.sort());
    for (const path of r.orphans) assert.ok(!(await exists(lake, path)), path);
    for (const path of [young, tmpYoung, notOurs, lake.objectPath(p.id, live.id)]) {
      assert.ok(await exists(lake, path), path);
    }
    // With no safety age, the young ones go too.
    const now = await vacuum(lake, p, { minAge: -1 });
    assert.deepEqual(now.orphans.sort(), [young, tmpYoung].sort());
    assert.deepEqual(await lines(lake, "from p"), ["{x:1}"]);
  });
});

Deno.test("revert of a commit whose objects were vacuumed fails cleanly", async () => {
  await withLake(async (lake) => {
    const p = keyedPool(lake, "p", "x");
    const base = await loadText(lake, p, "{x:1}");
    createBranch(lake, p, "dev", base.commit.id);
    const dev = await loadText(lake, p, "{x:2}", "dev");
    deleteBranch(lake, p.id, "dev");
    await vacuum(lake, p);
    const e = await rejection(revertCommit(lake, p, "main", dev.commit.id));
    assert.equal(e, `commit not found: ${toBase62(dev.commit.id)}`);
  });
});

// ---- property: vacuum never removes anything reachable ----------------------

/** A small deterministic random generator. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

class Model {
  /** What each commit read when it was made. */
  readonly contents = new Map<string, string[]>();
  readonly branches = new Set(["main"]);
  vacuumed = 0;
  private next = 0;
  private rand: () => number;

  constructor(readonly lake: Lake, readonly pool: PoolConfig, seed: number) {
    this.rand = rng(seed);
  }

  pick<T>(xs: T[]): T {
    return xs[Math.floor(this.rand() * xs.length)];
  }

  int(n: number): number {
    return Math.floor(this.rand() * n);
  }

  branch(): string {
    return this.pick([...this.branches]);
  }

  async remember(commit: KSUID): Promise<void> {
    this.contents.set(toHex(commit), await lines(this.lake, `from p@${toBase62(commit)}`));
  }

  history(branch: string): KSUID[] {
    const tip = getBranch(this.lake.catalog, this.pool.id, branch).commit;
    return commitChain(this.lake.catalog, this.pool.id, tip).map((c) => c.id);
  }

  /** One random operation; those the lake refuses (nothing to do, conflicts) are fine. */
  async step(): Promise<void> {
    const { lake, pool } = this;
    const b = this.branch();
    const op = this.int(10);
    try {
      let commit: KSUID | undefined;
      switch (op) {
        case 0:
        case 1: {
          let text = "";
          for (let i = this.int(12) + 1; i > 0; i--) text += `{k:${this.int(40)},v:${this.next++}}`;
          commit = (await loadText(lake, pool, text, b)).commit.id;
          break;
        }
        case 2: {
          const objects = tipObjects(lake.catalog, pool.id, b);
          if (objects.length === 0) return;
          const ids = [this.pick(objects).id];
          if (this.rand() < 0.3) ids.push(this.pick(this.history(b))); // a commit id
          commit = (await deleteObjects(lake, pool, b, ids)).id;
          break;
        }
        case 3: {
          const where = this.pick([`k < ${this.int(40)}`, `v % 3 == ${this.int(3)}`, "k == 7"]);
          commit = (await deleteWhere(lake, pool, b, where)).id;
          break;
        }
        case 4: {
          const name = `b${this.next++}`;
          createBranch(lake, pool, name, getBranch(lake.catalog, pool.id, b).commit);
          this.branches.add(name);
          return;
        }
        case 5: {
          if (b === "main") return;
          deleteBranch(lake, pool.id, b);
          this.branches.delete(b);
          return;
        }
        case 6: {
          const from = this.history(this.branch());
          if (from.length === 0) return;
          commit = (await revertCommit(lake, pool, b, this.pick(from))).id;
          break;
        }
        case 7: {
          const objects = tipObjects(lake.catalog, pool.id, b);
          const ids = this.rand() < 0.5 || objects.length < 2
            ? "auto"
            : [objects[0].id, objects[objects.length - 1].id];
          commit = (await compact(lake, pool, b, ids)).id;
          break;
        }
        case 8: {
          const objects = tipObjects(lake.catalog, pool.id, b);
          if (objects.length === 0) return;
          await lines(lake, `from p@${b} | count() by k`); // writes columns
          await addIndex(lake, pool, b, this.pick(objects).id);
          commit = getBranch(lake.catalog, pool.id, b).commit;
          break;
        }
        default: {
          const r = await vacuum(lake, pool);
          this.vacuumed += r.objects.length;
          await this.check();
          return;
        }
      }
      await this.remember(commit);
    } catch (e) {
      if (!(e instanceof LochError)) throw e;
      assert.notEqual(e.kind, "internal", `${op}: ${e.message}`);
    }
  }

  /** Every commit of every branch's history reads as it did, and its files are there. */
  async check(): Promise<void> {
    const { lake, pool } = this;
    for (const b of this.branches) {
      for (const id of this.history(b)) {
        const want = this.contents.get(toHex(id));
        assert.ok(want !== undefined, `commit ${toBase62(id)} was remembered`);
        assert.deepEqual(await lines(lake, `from p@${toBase62(id)}`), want, `${b} ${toBase62(id)}`);
        for (const a of commitActions(lake.catalog, id)) {
          if (a.kind === "add_index") {
            assert.ok(await exists(lake, indexObjectPath(lake, pool.id, a.ruleId, a.objectId)));
          }
        }
      }
    }
    // No columns or data files are left for objects the catalog forgot.
    const known = new Set(
      lake.catalog.all<{ id: Uint8Array }>("SELECT id FROM objects WHERE pool_id = ?", pool.id)
        .map((r) => toBase62(r.id)),
    );
    for (const f of await dataFiles(lake, pool)) assert.ok(known.has(f.replace(".zng", "")), f);
    try {
      for await (const e of Deno.readDir(`${lake.poolDir(pool.id)}/vectors`)) {
        assert.ok(known.has(e.name), `vectors/${e.name}`);
      }
    } catch (e) {
      if (!(e instanceof Deno.errors.NotFound)) throw e;
    }
  }
}

Deno.test("property: after vacuum every commit of every branch reads back as before", async () => {
  let vacuumed = 0;
  for (const seed of [1, 2, 3, 4, 5]) {
    await withLake(async (lake) => {
      const pool = keyedPool(lake, "p", "k", seed % 2 === 0 ? "asc" : "desc", { threshold: 60 });
      const m = new Model(lake, pool, seed);
      for (let i = 0; i < 40; i++) await m.step();
      vacuumed += m.vacuumed + (await vacuum(lake, pool)).objects.length;
      await m.check();
    });
  }
  assert.ok(vacuumed > 0, "some runs removed objects");
});

import assert from "node:assert/strict";
import { LochError } from "../../lib/errors.ts";
import { commitToBranch, createBranch, getBranch } from "../../lib/lake/branches.ts";
import {
  type Action,
  commitActions,
  commitPath,
  getCommit,
  mergeBase,
  NIL_ID,
  objectOrigins,
  snapshotAt,
} from "../../lib/lake/commits.ts";
import { deleteWhere } from "../../lib/lake/delete.ts";
import { isNil, type KSUID, newKSUID, toBase62, toHex } from "../../lib/lake/ksuid.ts";
import type { Lake, LakeEvent } from "../../lib/lake/lake.ts";
import { mergeBranch, planMerge } from "../../lib/lake/merge.ts";
import { writeObject } from "../../lib/lake/objectwriter.ts";
import { insertObject, tipObjects } from "../../lib/lake/objects.ts";
import { PoolKey } from "../../lib/lake/poolkey.ts";
import type { PoolConfig } from "../../lib/lake/pools.ts";
import { SortBuffer } from "../../lib/lake/sortbuffer.ts";
import { parseZsonValue } from "../../lib/formats/zson/reader.ts";
import { keyedPool, lines, loadText, withLake } from "./helpers.ts";

// ---- helpers ------------------------------------------------------------------

function tip(lake: Lake, pool: PoolConfig, branch: string): KSUID {
  return getBranch(lake.catalog, pool.id, branch).commit;
}

function branch(lake: Lake, pool: PoolConfig, name: string, from = "main") {
  createBranch(lake, pool, name, tip(lake, pool, from));
}

/** Loads one ZSON value per object (one load each); returns the object ids. */
async function loadEach(lake: Lake, pool: PoolConfig, branchName: string, ...values: string[]) {
  const ids: KSUID[] = [];
  for (const v of values) ids.push((await loadText(lake, pool, v, branchName)).objects[0].id);
  return ids;
}

/** The branch's values in key order. */
function contents(lake: Lake, ref: string): Promise<string[]> {
  return lines(lake, `from ${ref} | sort k`);
}

/** The tip's object ids, as a sorted list of hex ids. */
function tipIds(lake: Lake, pool: PoolConfig, branchName: string): string[] {
  return tipObjects(lake.catalog, pool.id, branchName).map((o) => toHex(o.id)).sort();
}

function hexes(...ids: KSUID[]): string[] {
  return ids.map(toHex).sort();
}

/** Deletes objects by id in one commit (as delete by object ids). */
async function dropObjects(lake: Lake, pool: PoolConfig, branchName: string, ...ids: KSUID[]) {
  await commitToBranch(lake, pool.id, branchName, () => ({
    author: "",
    message: "deleted",
    meta: null,
    actions: ids.map((objectId) => ({ kind: "delete" as const, objectId })),
  }));
}

/**
 * Replaces objects by a new one holding `values` in one commit, as delete by
 * filter and compaction do: the commit deletes the sources and creates the
 * object.
 */
async function rewrite(
  lake: Lake,
  pool: PoolConfig,
  branchName: string,
  sources: KSUID[],
  values: string[],
): Promise<KSUID> {
  const key = PoolKey.of(pool);
  const buf = new SortBuffer();
  for (const text of values) {
    const v = parseZsonValue(text);
    buf.add(v, key.keyOf(v));
  }
  const id = newKSUID();
  const w = await writeObject(
    lake.storage,
    lake.objectPaths(pool.id, id),
    id,
    buf,
    buf.order(key),
    key,
    pool.seekStride,
  );
  await commitToBranch(lake, pool.id, branchName, () => ({
    author: "",
    message: "rewrote",
    meta: null,
    actions: [
      ...sources.map((objectId) => ({ kind: "delete" as const, objectId })),
      { kind: "add" as const, objectId: id },
    ],
    record: () => insertObject(lake.catalog, pool.id, w.object, w.seek),
  }));
  return id;
}

async function indexActions(lake: Lake, pool: PoolConfig, branchName: string, actions: Action[]) {
  await commitToBranch(lake, pool.id, branchName, () => ({
    author: "indexer",
    message: "index rules applied: x",
    meta: null,
    actions,
  }));
}

/** `<rule hex>:<object hex>` of the index objects at a branch's tip (replayed and materialized agree). */
function tipIndexes(lake: Lake, pool: PoolConfig, branchName: string): string[] {
  const replayed = [
    ...snapshotAt(lake.catalog, pool.id, tip(lake, pool, branchName)).indexes.keys(),
  ]
    .sort();
  const stored = lake.catalog.all<{ rule_id: Uint8Array; object_id: Uint8Array }>(
    "SELECT rule_id, object_id FROM tip_indexes WHERE pool_id = ? AND branch = ?",
    pool.id,
    branchName,
  ).map((r) => `${toHex(r.rule_id)}:${toHex(r.object_id)}`).sort();
  assert.deepEqual(stored, replayed);
  return replayed;
}

async function mergeError(p: Promise<unknown>): Promise<LochError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof LochError, String(e));
    return e;
  }
  throw new Error("expected the merge to fail");
}

const EMPTY = 'error merging "child" into "main": difference is empty';

// ---- the commit graph ---------------------------------------------------------

Deno.test("merge: commit paths and fork points", async () => {
  await withLake(async (lake) => {
    const p = keyedPool(lake, "p", "k");
    assert.deepEqual(commitPath(lake.catalog, p.id, NIL_ID), []);
    await loadEach(lake, p, "main", "{k:1}");
    const forked = tip(lake, p, "main");
    branch(lake, p, "child");
    await loadEach(lake, p, "child", "{k:2}");
    await loadEach(lake, p, "main", "{k:3}", "{k:4}");
    const path = commitPath(lake.catalog, p.id, tip(lake, p, "main"));
    assert.equal(path.length, 3);
    assert.deepEqual(path[2], forked);
    assert.deepEqual(getCommit(lake.catalog, p.id, path[0])!.parent, path[1]);
    const cat = lake.catalog;
    assert.deepEqual(mergeBase(cat, p.id, tip(lake, p, "main"), tip(lake, p, "child")), forked);
    assert.deepEqual(mergeBase(cat, p.id, tip(lake, p, "child"), tip(lake, p, "main")), forked);
    assert.deepEqual(mergeBase(cat, p.id, forked, tip(lake, p, "main")), forked);
    assert.ok(isNil(mergeBase(cat, p.id, NIL_ID, tip(lake, p, "main"))));
  });
});

Deno.test("merge: an object's origin is the commit that created it, not a merge", async () => {
  await withLake(async (lake) => {
    const p = keyedPool(lake, "p", "k");
    await loadEach(lake, p, "main", "{k:1}");
    branch(lake, p, "child");
    const [x] = await loadEach(lake, p, "child", "{k:2}");
    const created = tip(lake, p, "child");
    const merged = await mergeBranch(lake, p, "main", "child");
    assert.ok(commitActions(lake.catalog, merged.id).some((a) => toHex(a.objectId) === toHex(x)));
    const origins = objectOrigins(lake.catalog, p.id, [x, newKSUID()]);
    assert.equal(origins.size, 1);
    assert.deepEqual(origins.get(toHex(x)), created);
  });
});

// ---- merging --------------------------------------------------------------------

Deno.test("merge: brings the child's changes; again is empty; the child is not moved", async () => {
  await withLake(async (lake) => {
    const events: LakeEvent[] = [];
    lake.subscribe((e) => events.push(e));
    const p = keyedPool(lake, "p", "k");
    await loadEach(lake, p, "main", "{k:1}");
    branch(lake, p, "child");
    await loadEach(lake, p, "child", "{k:2}");
    await loadEach(lake, p, "main", "{k:3}");
    const childTip = tip(lake, p, "child");
    const mainTip = tip(lake, p, "main");

    const c = await mergeBranch(lake, p, "main", "child", { author: "ann" });
    assert.equal(c.message, 'merged "child" into "main"');
    assert.equal(c.author, "ann");
    assert.equal(c.meta, null);
    assert.deepEqual(c.parent, mainTip);
    assert.deepEqual(tip(lake, p, "main"), c.id);
    assert.deepEqual(commitActions(lake.catalog, c.id).map((a) => a.kind), ["add"]);
    assert.deepEqual(await contents(lake, "p"), ["{k:1}", "{k:2}", "{k:3}"]);
    // The child is where it was.
    assert.deepEqual(tip(lake, p, "child"), childTip);
    assert.deepEqual(await contents(lake, "p@child"), ["{k:1}", "{k:2}"]);
    // The event names the child as the branch and the destination as the parent (as the reference).
    const ev = events.at(-1)!;
    assert.equal(ev.kind, "branch-commit");
    assert.ok(ev.kind === "branch-commit" && ev.branch === "child");
    assert.ok(ev.kind === "branch-commit" && ev.parentBranch === "main");

    const again = await mergeError(mergeBranch(lake, p, "main", "child"));
    assert.equal(again.message, EMPTY);
    assert.equal(again.kind, "invalid");
    const self = await mergeError(mergeBranch(lake, p, "child", "child"));
    assert.equal(self.message, 'error merging "child" into "child": difference is empty');
    assert.deepEqual(tip(lake, p, "main"), c.id);

    // Merging the parent back brings the child up to date.
    const back = await mergeBranch(lake, p, "child", "main", { body: "sync" });
    assert.equal(back.message, "sync");
    assert.deepEqual(await contents(lake, "p@child"), ["{k:1}", "{k:2}", "{k:3}"]);
    assert.deepEqual(tipIds(lake, p, "child"), tipIds(lake, p, "main"));
    assert.equal((await mergeError(mergeBranch(lake, p, "main", "child"))).message, EMPTY);
    assert.equal(
      (await mergeError(mergeBranch(lake, p, "child", "main"))).message,
      'error merging "main" into "child": difference is empty',
    );
  });
});

Deno.test("merge: additions and deletions on both sides are reconciled", async () => {
  await withLake(async (lake) => {
    const p = keyedPool(lake, "p", "k");
    const [a, b, c] = await loadEach(lake, p, "main", "{k:1}", "{k:2}", "{k:3}");
    branch(lake, p, "child");
    // child: deletes a and b, adds d; main: deletes b and c, adds e.
    await dropObjects(lake, p, "child", a, b);
    const [d] = await loadEach(lake, p, "child", "{k:4}");
    await dropObjects(lake, p, "main", b, c);
    const [e] = await loadEach(lake, p, "main", "{k:5}");

    const plan = planMerge(lake.catalog, p.id, tip(lake, p, "child"), tip(lake, p, "main"));
    assert.deepEqual(plan.conflicts, []);
    assert.deepEqual(
      plan.actions.map((x) => `${x.kind} ${toHex(x.objectId)}`),
      [`delete ${toHex(a)}`, `add ${toHex(d)}`],
    );
    await mergeBranch(lake, p, "main", "child");
    // a: deleted by the child; b: deleted by both (no conflict); c: stays deleted; d added; e kept.
    assert.deepEqual(await contents(lake, "p"), ["{k:4}", "{k:5}"]);
    assert.deepEqual(tipIds(lake, p, "main"), hexes(d, e));
    // Replayed state and materialized tip agree (the reference's merge corrupts this).
    assert.deepEqual(
      [...snapshotAt(lake.catalog, p.id, tip(lake, p, "main")).objects.keys()].sort(),
      hexes(d, e),
    );
    assert.equal((await mergeError(mergeBranch(lake, p, "main", "child"))).message, EMPTY);
    // Back into the child: main's e arrives, c goes (main deleted it), nothing else.
    await mergeBranch(lake, p, "child", "main");
    assert.deepEqual(tipIds(lake, p, "child"), hexes(d, e));
  });
});

Deno.test("merge: what the destination deleted stays deleted", async () => {
  await withLake(async (lake) => {
    const p = keyedPool(lake, "p", "k");
    const [a] = await loadEach(lake, p, "main", "{k:1}", "{k:2}");
    branch(lake, p, "child");
    await dropObjects(lake, p, "main", a);
    const [x] = await loadEach(lake, p, "child", "{k:3}");
    await mergeBranch(lake, p, "main", "child");
    assert.deepEqual(await contents(lake, "p"), ["{k:2}", "{k:3}"]);

    // An object that came by a merge and was then deleted is not brought back by the next one.
    await dropObjects(lake, p, "main", x);
    await loadEach(lake, p, "child", "{k:4}");
    const c = await mergeBranch(lake, p, "main", "child");
    assert.deepEqual(commitActions(lake.catalog, c.id).map((a) => a.kind), ["add"]);
    assert.deepEqual(await contents(lake, "p"), ["{k:2}", "{k:4}"]);
    assert.equal((await mergeError(mergeBranch(lake, p, "main", "child"))).message, EMPTY);
    // The child's own deletion of an object main already deleted is no conflict and no action.
    await dropObjects(lake, p, "child", a);
    assert.equal((await mergeError(mergeBranch(lake, p, "main", "child"))).message, EMPTY);
    // And the other way, the child catches up: a and x go.
    await mergeBranch(lake, p, "child", "main");
    assert.deepEqual(await contents(lake, "p@child"), ["{k:2}", "{k:4}"]);
    assert.deepEqual(tipIds(lake, p, "child"), tipIds(lake, p, "main"));
  });
});

Deno.test("merge: fast-forward when the destination did nothing since the fork", async () => {
  await withLake(async (lake) => {
    const p = keyedPool(lake, "p", "k");
    const [a, b] = await loadEach(lake, p, "main", "{k:1}", '{k:2,s:"x"}\n{k:3}');
    branch(lake, p, "child");
    await dropObjects(lake, p, "child", a);
    await rewrite(lake, p, "child", [b], ["{k:3}"]);
    await loadEach(lake, p, "child", "{k:4}");
    const c = await mergeBranch(lake, p, "main", "child");
    assert.deepEqual(
      commitActions(lake.catalog, c.id).map((x) => x.kind),
      ["delete", "delete", "add", "add"],
    );
    assert.deepEqual(await contents(lake, "p"), ["{k:3}", "{k:4}"]);
    assert.deepEqual(tipIds(lake, p, "main"), tipIds(lake, p, "child"));
  });
});

Deno.test("merge: into and from branches without commits", async () => {
  await withLake(async (lake) => {
    const p = keyedPool(lake, "p", "k");
    branch(lake, p, "empty");
    branch(lake, p, "child");
    // An empty child brings nothing (the reference: `no path for nil commit ID`).
    assert.equal(
      (await mergeError(mergeBranch(lake, p, "main", "empty"))).message,
      'error merging "empty" into "main": difference is empty',
    );
    // A destination without commits takes everything (the nil commit is the fork point).
    await loadEach(lake, p, "child", "{k:1}", "{k:2}");
    const c = await mergeBranch(lake, p, "main", "child");
    assert.ok(isNil(c.parent));
    assert.deepEqual(await contents(lake, "p"), ["{k:1}", "{k:2}"]);
    // Unrelated histories (both started from nil) merge like any others.
    await loadEach(lake, p, "empty", "{k:9}");
    await mergeBranch(lake, p, "main", "empty");
    assert.deepEqual(await contents(lake, "p"), ["{k:1}", "{k:2}", "{k:9}"]);
    assert.equal(
      (await mergeError(mergeBranch(lake, p, "main", "nope"))).message,
      '"nope": branch not found',
    );
    assert.equal(
      (await mergeError(mergeBranch(lake, p, "nope", "child"))).kind,
      "not found",
    );
  });
});

Deno.test("merge: a fork point with index objects", async () => {
  await withLake(async (lake) => {
    const p = keyedPool(lake, "p", "k");
    const [a, b] = await loadEach(lake, p, "main", "{k:1}", "{k:2}");
    const rule = newKSUID(), rule2 = newKSUID();
    const ix = (objectId: KSUID, ruleId = rule) => ({ objectId, ruleId });
    await indexActions(lake, p, "main", [
      { kind: "add_index", ...ix(a) },
      { kind: "add_index", ...ix(b) },
    ]);
    branch(lake, p, "child");
    // child: a new object indexed, b's index dropped, a indexed by a second rule.
    const [c] = await loadEach(lake, p, "child", "{k:3}");
    await indexActions(lake, p, "child", [
      { kind: "add_index", ...ix(c) },
      { kind: "delete_index", ...ix(b) },
      { kind: "add_index", ...ix(a, rule2) },
    ]);
    // main: deletes a (its index objects are of no use to main then).
    await dropObjects(lake, p, "main", a);
    const m = await mergeBranch(lake, p, "main", "child");
    assert.deepEqual(
      commitActions(lake.catalog, m.id).map((x) => x.kind),
      ["add", "delete_index", "add_index"],
    );
    const key = (o: KSUID, r = rule) => `${toHex(r)}:${toHex(o)}`;
    assert.deepEqual(tipIndexes(lake, p, "main"), [key(a), key(c)].sort());
    assert.deepEqual(await contents(lake, "p"), ["{k:2}", "{k:3}"]);
    assert.equal((await mergeError(mergeBranch(lake, p, "main", "child"))).message, EMPTY);
    // Back into the child: a goes; its index objects stay as the child has them.
    await mergeBranch(lake, p, "child", "main");
    assert.deepEqual(await contents(lake, "p@child"), ["{k:2}", "{k:3}"]);
  });
});

Deno.test("merge: both branches rewriting the same object is a conflict", async () => {
  await withLake(async (lake) => {
    const p = keyedPool(lake, "p", "k");
    const [a] = await loadEach(lake, p, "main", "{k:1}\n{k:2}\n{k:3}");
    await loadEach(lake, p, "main", "{k:9}");
    branch(lake, p, "child");
    const onChild = await rewrite(lake, p, "child", [a], ["{k:1}", "{k:2}"]);
    const onMain = await rewrite(lake, p, "main", [a], ["{k:2}", "{k:3}"]);
    await loadEach(lake, p, "child", "{k:5}");
    const before = tip(lake, p, "main");
    const err = await mergeError(mergeBranch(lake, p, "main", "child"));
    assert.equal(err.kind, "conflict");
    assert.equal(
      err.message,
      `error merging "child" into "main": both branches changed data object ${toBase62(a)} ` +
        `("child" replaced it with ${toBase62(onChild)}; "main" replaced it with ${
          toBase62(onMain)
        }) (the records: from p:conflicts(child, main); resolve with strategy ours or theirs)`,
    );
    // Nothing was committed.
    assert.deepEqual(tip(lake, p, "main"), before);
    assert.deepEqual(await contents(lake, "p"), ["{k:2}", "{k:3}", "{k:9}"]);
    // The other direction conflicts the same way.
    const back = await mergeError(mergeBranch(lake, p, "child", "main"));
    assert.equal(back.kind, "conflict");
    assert.match(back.message, /^error merging "main" into "child": both branches changed/);
    // Undoing main's rewrite (what a revert of it does) resolves the conflict: the child's wins.
    await commitToBranch(lake, p.id, "main", () => ({
      author: "",
      message: "undo",
      meta: null,
      actions: [{ kind: "delete", objectId: onMain }, { kind: "add", objectId: a }],
    }));
    await mergeBranch(lake, p, "main", "child");
    assert.deepEqual(await contents(lake, "p"), ["{k:1}", "{k:2}", "{k:5}", "{k:9}"]);
  });
});

Deno.test("merge: conflicts as data, and resolved by strategy ours or theirs", async () => {
  await withLake(async (lake) => {
    const p = keyedPool(lake, "p", "k");
    const [a] = await loadEach(lake, p, "main", "{k:1}\n{k:2}\n{k:3}");
    branch(lake, p, "child");
    await rewrite(lake, p, "child", [a], ["{k:1}", "{k:2}"]);
    await rewrite(lake, p, "main", [a], ["{k:2}", "{k:3}"]);
    await loadEach(lake, p, "child", "{k:5}");
    const id = toBase62(a);
    // What each side removed from the object both changed.
    assert.deepEqual(await lines(lake, "from p:conflicts(child, main) | sort side"), [
      `{conflict:"${id}",side:"destination",change:"removed",k:1}`,
      `{conflict:"${id}",side:"source",change:"removed",k:3}`,
    ]);
    assert.deepEqual(await lines(lake, "from p:conflicts(main, main)"), []);
    // ours: main's records stay, the child's other changes come.
    branch(lake, p, "main2");
    await mergeBranch(lake, p, "main", "child", {}, "ours");
    assert.deepEqual(await contents(lake, "p"), ["{k:2}", "{k:3}", "{k:5}"]);
    // theirs: the child's records replace main's.
    await mergeBranch(lake, p, "main2", "child", {}, "theirs");
    assert.deepEqual(await lines(lake, "from p@main2 | sort k"), ["{k:1}", "{k:2}", "{k:5}"]);
    assert.match(
      (await mergeError(mergeBranch(lake, p, "child", "main2", {}, "ours"))).message,
      /difference is empty/,
    );
  });
});

Deno.test("merge: a rewrite against a plain delete is a conflict either way round", async () => {
  await withLake(async (lake) => {
    const p = keyedPool(lake, "p", "k");
    const [a, b] = await loadEach(lake, p, "main", "{k:1}\n{k:2}", "{k:3}\n{k:4}");
    branch(lake, p, "child");
    // The child rewrites a (would resurrect k:1 on main), main deletes it.
    const a2 = await rewrite(lake, p, "child", [a], ["{k:1}"]);
    await dropObjects(lake, p, "main", a);
    // Main rewrites b (would keep k:3 the child deleted), the child deletes it.
    const b2 = await rewrite(lake, p, "main", [b], ["{k:3}"]);
    await dropObjects(lake, p, "child", b);
    const err = await mergeError(mergeBranch(lake, p, "main", "child"));
    assert.equal(err.kind, "conflict");
    const msg = err.message;
    assert.match(msg, /^error merging "child" into "main": both branches changed data objects /);
    assert.ok(
      msg.includes(`${toBase62(a)} ("child" replaced it with ${toBase62(a2)}; "main" deleted it)`),
      msg,
    );
    assert.ok(
      msg.includes(`${toBase62(b)} ("child" deleted it; "main" replaced it with ${toBase62(b2)})`),
      msg,
    );
    assert.deepEqual(await contents(lake, "p"), ["{k:3}"]);
  });
});

Deno.test("merge: plain deletes on both sides, and rewrites that were merged, are no conflict", async () => {
  await withLake(async (lake) => {
    const p = keyedPool(lake, "p", "k");
    const [a, b] = await loadEach(lake, p, "main", "{k:1}\n{k:2}", "{k:3}");
    branch(lake, p, "child");
    await dropObjects(lake, p, "child", b);
    await dropObjects(lake, p, "main", b);
    // A rewrite on main, merged into the child, rewritten again on the child.
    const a1 = await rewrite(lake, p, "main", [a], ["{k:1}", "{k:2}", "{k:2.5}"]);
    await mergeBranch(lake, p, "child", "main");
    assert.deepEqual(tipIds(lake, p, "child"), hexes(a1));
    const a2 = await rewrite(lake, p, "child", [a1], ["{k:2}", "{k:2.5}"]);
    const m = await mergeBranch(lake, p, "main", "child");
    assert.deepEqual(
      commitActions(lake.catalog, m.id).map((x) => `${x.kind} ${toHex(x.objectId)}`),
      [`delete ${toHex(a1)}`, `add ${toHex(a2)}`],
    );
    assert.deepEqual(await contents(lake, "p"), ["{k:2}", "{k:2.5}"]);
    // Re-merging after a rewrite was merged finds nothing (the fork point is still the old one).
    assert.equal((await mergeError(mergeBranch(lake, p, "main", "child"))).message, EMPTY);
    // A rewrite that was later deleted outright counts as a plain delete.
    const [c] = await loadEach(lake, p, "main", "{k:7}\n{k:8}");
    await mergeBranch(lake, p, "child", "main");
    const c1 = await rewrite(lake, p, "child", [c], ["{k:7}"]);
    await dropObjects(lake, p, "child", c1);
    await dropObjects(lake, p, "main", c);
    assert.equal((await mergeError(mergeBranch(lake, p, "main", "child"))).message, EMPTY);
  });
});

Deno.test("merge: objects that arrive by a merge from elsewhere are not taken for rewrites", async () => {
  await withLake(async (lake) => {
    const p = keyedPool(lake, "p", "k");
    const [a] = await loadEach(lake, p, "main", "{k:1}");
    branch(lake, p, "child");
    branch(lake, p, "third");
    // third: deletes a and loads x; merged into main, that is one commit deleting a, adding x.
    await dropObjects(lake, p, "third", a);
    await loadEach(lake, p, "third", "{k:2}");
    const m = await mergeBranch(lake, p, "main", "third");
    assert.deepEqual(commitActions(lake.catalog, m.id).map((x) => x.kind), ["delete", "add"]);
    // The child deletes a as well: no conflict, nothing to do.
    await dropObjects(lake, p, "child", a);
    assert.equal((await mergeError(mergeBranch(lake, p, "main", "child"))).message, EMPTY);
    await loadEach(lake, p, "child", "{k:3}");
    await mergeBranch(lake, p, "main", "child");
    assert.deepEqual(await contents(lake, "p"), ["{k:2}", "{k:3}"]);
  });
});

Deno.test("merge: delete by filter on both branches conflicts; on one merges", async () => {
  await withLake(async (lake) => {
    const p = keyedPool(lake, "p", "k", "asc");
    await loadText(lake, p, "{k:1}\n{k:2}\n{k:3}\n{k:4}");
    await loadText(lake, p, "{k:10}\n{k:11}");
    branch(lake, p, "child");
    branch(lake, p, "solo");
    await deleteWhere(lake, p, "child", "k == 1");
    await deleteWhere(lake, p, "main", "k == 4");
    const err = await mergeError(mergeBranch(lake, p, "main", "child"));
    assert.equal(err.kind, "conflict");
    assert.deepEqual(await contents(lake, "p"), ["{k:1}", "{k:2}", "{k:3}", "{k:10}", "{k:11}"]);
    // A filter delete on one side only merges, in either direction.
    await deleteWhere(lake, p, "solo", "k == 11");
    await mergeBranch(lake, p, "main", "solo");
    assert.deepEqual(await contents(lake, "p"), ["{k:1}", "{k:2}", "{k:3}", "{k:10}"]);
    await mergeBranch(lake, p, "solo", "main");
    assert.deepEqual(await contents(lake, "p@solo"), ["{k:1}", "{k:2}", "{k:3}", "{k:10}"]);
  });
});

Deno.test("merge: time travel on both branches after a merge", async () => {
  await withLake(async (lake) => {
    const p = keyedPool(lake, "p", "k");
    const [a] = await loadEach(lake, p, "main", "{k:1}");
    const fork = tip(lake, p, "main");
    branch(lake, p, "child");
    await loadEach(lake, p, "child", "{k:2}");
    const childBefore = tip(lake, p, "child");
    await dropObjects(lake, p, "main", a);
    await loadEach(lake, p, "main", "{k:3}");
    const mainBefore = tip(lake, p, "main");
    const m = await mergeBranch(lake, p, "main", "child");
    await loadEach(lake, p, "child", "{k:4}");
    const at = (id: KSUID) => contents(lake, `p@${toBase62(id)}`);
    assert.deepEqual(await at(fork), ["{k:1}"]);
    assert.deepEqual(await at(mainBefore), ["{k:3}"]);
    assert.deepEqual(await at(m.id), ["{k:2}", "{k:3}"]);
    assert.deepEqual(await at(childBefore), ["{k:1}", "{k:2}"]);
    assert.deepEqual(await contents(lake, "p@child"), ["{k:1}", "{k:2}", "{k:4}"]);
    assert.deepEqual(await contents(lake, "p@main"), ["{k:2}", "{k:3}"]);
    // The log of main shows the merge commit on top of main's own history.
    assert.deepEqual(
      await lines(lake, "from p@main:log | has(message) | yield message"),
      [
        '"merged \\"child\\" into \\"main\\""',
        ...(await lines(lake, `from p@${toBase62(mainBefore)}:log | has(message) | yield message`)),
      ],
    );
  });
});

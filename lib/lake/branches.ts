// Branches (lake-api.md §8.1–8.4, §9.4): named pointers to commits. Each
// branch keeps the objects of its tip materialized (tip_objects,
// tip_indexes), so reading a tip is one query. A commit to a branch is made
// against the tip it was built from and retried when the tip moved.

import { checkName } from "./names.ts";
import { LochError } from "../errors.ts";
import type { Catalog } from "./catalog/catalog.ts";
import { type Action, type CommitInfo, getCommit, insertCommit, snapshotAt } from "./commits.ts";
import { isNil, type KSUID, newKSUID, NIL_ID, toBase62 } from "./ksuid.ts";
import type { Lake } from "./lake.ts";
import { notFound, type PoolConfig } from "./pools.ts";

export interface BranchConfig {
  /** Creation time, ns since the epoch. */
  ts: bigint;
  name: string;
  commit: KSUID;
}

interface BranchRow {
  name: string;
  ts: number | bigint;
  commit_id: Uint8Array;
}

function fromRow(r: BranchRow): BranchConfig {
  return { ts: BigInt(r.ts), name: r.name, commit: r.commit_id };
}

export function branchNotFound(name: string): LochError {
  return notFound(`${JSON.stringify(name)}: branch not found`);
}

export function findBranch(cat: Catalog, poolId: KSUID, name: string): BranchConfig | undefined {
  const r = cat.get<BranchRow>(
    "SELECT name, ts, commit_id FROM branches WHERE pool_id = ? AND name = ?",
    poolId,
    name,
  );
  return r === undefined ? undefined : fromRow(r);
}

export function getBranch(cat: Catalog, poolId: KSUID, name: string): BranchConfig {
  const b = findBranch(cat, poolId, name);
  if (b === undefined) throw branchNotFound(name);
  return b;
}

export function listBranches(cat: Catalog, poolId: KSUID): BranchConfig[] {
  return cat.all<BranchRow>(
    "SELECT name, ts, commit_id FROM branches WHERE pool_id = ? ORDER BY name",
    poolId,
  ).map(fromRow);
}

/**
 * Creates a branch at a commit of the pool (the nil commit gives an empty
 * branch). Unlike the reference, which stores any id, a commit that is not
 * in the pool is refused: a branch must have a state to read.
 */
export function createBranch(
  lake: Lake,
  pool: PoolConfig,
  name: string,
  commit: KSUID,
): BranchConfig {
  checkName("branch", name);
  const cat = lake.catalog;
  const created = cat.transaction(() => {
    if (findBranch(cat, pool.id, name) !== undefined) {
      throw new LochError("conflict", `${pool.name}/${name}: branch already exists`);
    }
    if (!isNil(commit) && getCommit(cat, pool.id, commit) === undefined) {
      throw notFound(`${toBase62(commit)}: commit object not found`);
    }
    const branch: BranchConfig = { ts: BigInt(Date.now()) * 1000000n, name, commit };
    cat.run(
      "INSERT INTO branches (pool_id, name, ts, commit_id) VALUES (?, ?, ?, ?)",
      pool.id,
      name,
      branch.ts,
      commit,
    );
    materializeTip(cat, pool.id, name, commit);
    return branch;
  });
  lake.emit({ kind: "branch-update", poolId: pool.id, branch: name });
  return created;
}

/** Fills a new branch's tip tables: copied from a branch at that commit, else replayed. */
function materializeTip(cat: Catalog, poolId: KSUID, name: string, commit: KSUID): void {
  if (isNil(commit)) return;
  const twin = cat.get<{ name: string }>(
    "SELECT name FROM branches WHERE pool_id = ? AND commit_id = ? AND name != ?",
    poolId,
    commit,
    name,
  );
  if (twin !== undefined) {
    cat.run(
      `INSERT INTO tip_objects (pool_id, branch, object_id)
       SELECT pool_id, ?, object_id FROM tip_objects WHERE pool_id = ? AND branch = ?`,
      name,
      poolId,
      twin.name,
    );
    cat.run(
      `INSERT INTO tip_indexes (pool_id, branch, rule_id, object_id)
       SELECT pool_id, ?, rule_id, object_id FROM tip_indexes WHERE pool_id = ? AND branch = ?`,
      name,
      poolId,
      twin.name,
    );
    return;
  }
  const snap = snapshotAt(cat, poolId, commit);
  for (const id of snap.objects.values()) {
    cat.run(
      "INSERT INTO tip_objects (pool_id, branch, object_id) VALUES (?, ?, ?)",
      poolId,
      name,
      id,
    );
  }
  for (const { ruleId, objectId } of snap.indexes.values()) {
    cat.run(
      "INSERT INTO tip_indexes (pool_id, branch, rule_id, object_id) VALUES (?, ?, ?, ?)",
      poolId,
      name,
      ruleId,
      objectId,
    );
  }
}

/** Deletes a branch (any branch, main included). */
export function deleteBranch(lake: Lake, poolId: KSUID, name: string): void {
  const cat = lake.catalog;
  cat.transaction(() => {
    getBranch(cat, poolId, name);
    cat.run("DELETE FROM branches WHERE pool_id = ? AND name = ?", poolId, name);
  });
  lake.emit({ kind: "branch-delete", poolId, branch: name });
}

/** What a commit builder returns: the commit's metadata and actions. */
export interface CommitPlan {
  author: string;
  message: string;
  meta: string | null;
  actions: Action[];
  /** Runs in the commit's transaction, before the branch moves (e.g. to record objects). */
  record?: () => void;
}

export const MAX_COMMIT_ATTEMPTS = 10;

/** One branch's part of a commit: where, and how its commit is planned from the tip. */
export interface CommitPart {
  poolId: KSUID;
  branch: string;
  build: (tip: KSUID) => CommitPlan | Promise<CommitPlan>;
  /** How the branch-commit event names the branches (a merge names the child). */
  announce?: { branch: string; parentBranch: string };
}

/**
 * Commits to a branch. Commits to one branch from this process are queued
 * (lake.commits), and so are those of every process sharing a catalog that
 * locks (PostgreSQL), so build() sees the tip the commit will follow unless a
 * writer in another process on a SQLite catalog moves it first; then build()
 * is called again (up to 10 times in all).
 * The commit, its actions and the branch move are one transaction; actions
 * apply strictly to the tip (see Snapshot.apply). A `branch-commit` event
 * follows.
 */
export async function commitToBranch(
  lake: Lake,
  poolId: KSUID,
  branchName: string,
  build: (tip: KSUID) => CommitPlan | Promise<CommitPlan>,
  newId: () => KSUID = newKSUID,
  /** How the branch-commit event names the branches (a merge names the child). */
  announce?: { branch: string; parentBranch: string },
): Promise<CommitInfo> {
  const [commit] = await commitToBranches(
    lake,
    [{ poolId, branch: branchName, build, announce }],
    newId,
  );
  return commit;
}

/**
 * Commits to several branches (of one pool or several) at once: one commit
 * per branch, all in one catalog transaction, so all land or none does; the
 * events follow once it is durable. The branches are taken in one order
 * (their queues, and their locks across processes), so two such commits
 * cannot wait for each other. A tip another writer moved meanwhile makes
 * every part be built again.
 */
export function commitToBranches(
  lake: Lake,
  parts: CommitPart[],
  newId: () => KSUID = newKSUID,
): Promise<CommitInfo[]> {
  const keys = [...new Set(parts.map((p) => `${toBase62(p.poolId)}/${p.branch}`))].sort();
  const locked = async (i: number): Promise<CommitInfo[]> => {
    if (i === keys.length) return await commitAttempts(lake, parts, newId);
    return await lake.commits.run(keys[i], async () => {
      // Processes sharing a catalog that can lock take turns too (PostgreSQL's).
      const release = await lake.catalog.lock?.(`branch ${keys[i]}`);
      try {
        return await locked(i + 1);
      } finally {
        release?.();
      }
    });
  };
  return locked(0);
}

async function commitAttempts(
  lake: Lake,
  parts: CommitPart[],
  newId: () => KSUID,
): Promise<CommitInfo[]> {
  const cat = lake.catalog;
  for (let attempt = 0; attempt < MAX_COMMIT_ATTEMPTS; attempt++) {
    const tips = parts.map((p) => getBranch(cat, p.poolId, p.branch).commit);
    const plans: CommitPlan[] = [];
    for (let i = 0; i < parts.length; i++) plans.push(await parts[i].build(tips[i]));
    const done = cat.transaction(() => {
      const out: CommitInfo[] = [];
      for (let i = 0; i < parts.length; i++) {
        const { poolId, branch } = parts[i];
        const now = getBranch(cat, poolId, branch).commit;
        if (!sameId(now, tips[i])) return undefined;
        const plan = plans[i];
        const commit: CommitInfo = {
          id: newId(),
          parent: tips[i],
          retries: attempt,
          author: plan.author,
          date: BigInt(Date.now()) * 1000000n,
          message: plan.message,
          meta: plan.meta,
        };
        plan.record?.();
        insertCommit(cat, poolId, commit, plan.actions);
        applyToTip(cat, poolId, branch, plan.actions);
        cat.run(
          "UPDATE branches SET commit_id = ? WHERE pool_id = ? AND name = ?",
          commit.id,
          poolId,
          branch,
        );
        out.push(commit);
      }
      return out;
    });
    if (done !== undefined) {
      parts.forEach((p, i) =>
        lake.emit({
          kind: "branch-commit",
          poolId: p.poolId,
          branch: p.announce?.branch ?? p.branch,
          commitId: done[i].id,
          parent: done[i].parent,
          parentBranch: p.announce?.parentBranch,
        })
      );
      return done;
    }
  }
  const names = parts.map((p) => JSON.stringify(p.branch)).join(", ");
  throw new LochError(
    "internal",
    `branch ${names}: exceeded max update attempts (${MAX_COMMIT_ATTEMPTS}) to branch tip: commit failed`,
  );
}

function sameId(a: KSUID, b: KSUID): boolean {
  for (let i = 0; i < 20; i++) if (a[i] !== b[i]) return false;
  return true;
}

function applyToTip(cat: Catalog, poolId: KSUID, branch: string, actions: Action[]): void {
  for (const a of actions) {
    switch (a.kind) {
      case "add":
        // The object must still exist (a vacuum may have removed an unreachable one).
        if (cat.get("SELECT 1 FROM objects WHERE id = ?", a.objectId) === undefined) {
          throw notFound(`${toBase62(a.objectId)}: data object not found`);
        }
        if (
          cat.get(
            "SELECT 1 FROM tip_objects WHERE pool_id = ? AND branch = ? AND object_id = ?",
            poolId,
            branch,
            a.objectId,
          ) !== undefined
        ) {
          throw new LochError(
            "conflict",
            `${toBase62(a.objectId)}: add of a duplicate data object: write conflict`,
          );
        }
        cat.run(
          "INSERT INTO tip_objects (pool_id, branch, object_id) VALUES (?, ?, ?)",
          poolId,
          branch,
          a.objectId,
        );
        break;
      case "delete": {
        const r = cat.run(
          "DELETE FROM tip_objects WHERE pool_id = ? AND branch = ? AND object_id = ?",
          poolId,
          branch,
          a.objectId,
        );
        if (Number(r.changes) === 0) {
          throw new LochError(
            "conflict",
            `${toBase62(a.objectId)}: delete of a non-existent data object: write conflict`,
          );
        }
        break;
      }
      case "add_index":
        cat.run(
          "INSERT INTO tip_indexes (pool_id, branch, rule_id, object_id) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
          poolId,
          branch,
          a.ruleId,
          a.objectId,
        );
        break;
      case "delete_index":
        cat.run(
          "DELETE FROM tip_indexes WHERE pool_id = ? AND branch = ? AND rule_id = ? AND object_id = ?",
          poolId,
          branch,
          a.ruleId,
          a.objectId,
        );
        break;
    }
  }
}

export { NIL_ID };

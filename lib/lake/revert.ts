// Reverting a commit (lake-api.md §8.6): a new commit on a branch that
// undoes what the commit did — its added data and index objects are
// deleted, its deleted ones added back (same ids: the files never went
// away). Reverting a revert therefore re-applies the original.
//
// Unlike the reference, which silently skips whatever it cannot undo, a
// revert whose undoing no longer fits the branch (an added object that has
// since been deleted, e.g. compacted into another; a deleted object that is
// back) fails with a conflict naming the objects, and the branch stays as
// it was: a partial undo would leave data the user meant to remove.

import { LochError } from "../errors.ts";
import { commitToBranch, getBranch } from "./branches.ts";
import { type Action, commitActions, type CommitInfo, getCommit } from "./commits.ts";
import { type KSUID, toBase62, toHex } from "./ksuid.ts";
import type { Lake } from "./lake.ts";
import type { CommitRequest } from "./load.ts";
import type { PoolConfig } from "./pools.ts";

/** Conflicts named in an error before `and N more`. */
const SHOWN_CONFLICTS = 5;

export async function revertCommit(
  lake: Lake,
  pool: PoolConfig,
  branch: string,
  commitId: KSUID,
  commit: CommitRequest = {},
): Promise<CommitInfo> {
  const cat = lake.catalog;
  getBranch(cat, pool.id, branch);
  if (getCommit(cat, pool.id, commitId) === undefined) {
    throw new LochError("not found", `commit not found: ${toBase62(commitId)}`);
  }
  const effect = netEffect(commitActions(cat, commitId));
  if (effect.length === 0) throw new LochError("invalid", "revert commit is empty");
  const message = commit.body || `reverted commit ${toBase62(commitId)}`;
  return await commitToBranch(lake, pool.id, branch, () => {
    const actions = inverse(lake, pool.id, branch, commitId, effect);
    return {
      author: commit.author ?? "",
      message,
      meta: null, // as the reference
      actions,
      record: () => checkStillStored(lake, pool.id, actions),
    };
  });
}

/**
 * What a commit changed, each object once: an add and a delete of the same
 * object within one commit cancel. Ordered as the reference orders a
 * commit's actions: deletes, adds, index deletes, index adds.
 */
export function netEffect(actions: Action[]): Action[] {
  const net = new Map<string, Action>();
  for (const a of actions) {
    const k = actionKey(a);
    const prev = net.get(k);
    if (prev !== undefined && prev.kind !== a.kind) net.delete(k);
    else net.set(k, a);
  }
  return inReferenceOrder([...net.values()]);
}

const RANK = { delete: 0, add: 1, delete_index: 2, add_index: 3 };

/** Actions in the order the reference writes a commit's: deletes, adds, index deletes, index adds. */
function inReferenceOrder(actions: Action[]): Action[] {
  return actions.sort((a, b) => RANK[a.kind] - RANK[b.kind]);
}

function actionKey(a: Action): string {
  const obj = toHex(a.objectId);
  return a.kind === "add" || a.kind === "delete" ? obj : `${toHex(a.ruleId)}:${obj}`;
}

/** The actions undoing effect on the branch's tip; a conflict when some cannot apply. */
function inverse(
  lake: Lake,
  poolId: KSUID,
  branch: string,
  commitId: KSUID,
  effect: Action[],
): Action[] {
  const cat = lake.catalog;
  const hasObject = (id: KSUID) =>
    cat.get(
      "SELECT 1 FROM tip_objects WHERE pool_id = ? AND branch = ? AND object_id = ?",
      poolId,
      branch,
      id,
    ) !== undefined;
  const hasIndex = (rule: KSUID, id: KSUID) =>
    cat.get(
      "SELECT 1 FROM tip_indexes WHERE pool_id = ? AND branch = ? AND rule_id = ? AND object_id = ?",
      poolId,
      branch,
      rule,
      id,
    ) !== undefined;
  const out: Action[] = [];
  const conflicts: string[] = [];
  const name = (a: Action) =>
    a.kind === "add" || a.kind === "delete"
      ? `data object ${toBase62(a.objectId)}`
      : `index object ${toBase62(a.ruleId)}:${toBase62(a.objectId)}`;
  for (const a of effect) {
    switch (a.kind) {
      case "add":
        if (hasObject(a.objectId)) out.push({ kind: "delete", objectId: a.objectId });
        else conflicts.push(`${name(a)} it added is no longer on the branch`);
        break;
      case "delete":
        if (!hasObject(a.objectId)) out.push({ kind: "add", objectId: a.objectId });
        else conflicts.push(`${name(a)} it deleted is on the branch again`);
        break;
      case "add_index":
        if (hasIndex(a.ruleId, a.objectId)) {
          out.push({ kind: "delete_index", objectId: a.objectId, ruleId: a.ruleId });
        } else conflicts.push(`${name(a)} it added is no longer on the branch`);
        break;
      case "delete_index":
        if (!hasIndex(a.ruleId, a.objectId)) {
          out.push({ kind: "add_index", objectId: a.objectId, ruleId: a.ruleId });
        } else conflicts.push(`${name(a)} it deleted is on the branch again`);
        break;
    }
  }
  if (conflicts.length > 0) {
    let list = conflicts.slice(0, SHOWN_CONFLICTS).join("; ");
    if (conflicts.length > SHOWN_CONFLICTS) {
      list += ` (and ${conflicts.length - SHOWN_CONFLICTS} more)`;
    }
    throw new LochError(
      "conflict",
      `cannot revert commit ${toBase62(commitId)} on branch ${JSON.stringify(branch)}: ${list}`,
    );
  }
  return inReferenceOrder(out);
}

/**
 * Inside the commit's transaction: every data object added back must still
 * be stored (a vacuum may have removed an object no branch could reach).
 */
function checkStillStored(lake: Lake, poolId: KSUID, actions: Action[]): void {
  const cat = lake.catalog;
  for (const a of actions) {
    if (
      a.kind === "add" &&
      cat.get("SELECT 1 FROM objects WHERE id = ? AND pool_id = ?", a.objectId, poolId) ===
        undefined
    ) {
      throw new LochError(
        "not found",
        `${toBase62(a.objectId)}: data object no longer stored (vacuumed)`,
      );
    }
  }
}

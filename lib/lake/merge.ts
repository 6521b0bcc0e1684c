// Merging a branch into another (lake-api.md §8.5): one commit on the
// destination bringing the source's changes since their fork point (their
// most recent common commit). Objects are immutable and keep their ids
// across branches, so a merge moves object ids, never data.
//
// The reference diffs the source against the destination as of the fork
// and so ignores what the destination did since (it re-adds objects the
// destination deleted, emits deletes that corrupt the branch, and fails
// whenever the fork point had index objects). Here each side's state is
// compared with what the other side has *seen* since the fork (the fork
// snapshot plus every object it added since, including those that came by
// earlier merges — commits have one parent, so the fork point never moves):
//
//   source has X, destination never saw X       → add X
//   destination has X, source saw X and lost it → delete X
//   destination saw X and lost it, source has X → X stays deleted
//   both lost X                                 → nothing
//   both have X, or only one side ever saw it   → nothing
//
// Index objects (keyed by rule and data object) follow the same rules; an
// index object is added only if its data object is in the result.
//
// The one real conflict is both sides changing the same records: a side
// replaced an object both had seen (delete by filter, compaction) with new
// objects the other side has never seen, while the other side deleted that
// object too (plainly, or replacing it in its own way). Taking either
// side's objects would resurrect or duplicate records, so the merge fails
// with a conflict naming the objects and the destination stays as it was.
// Which objects replaced which is read from the commit that created each
// object (objectOrigins): it deleted the objects its values came from. At
// commit granularity this is conservative — an object created alongside
// others by one commit counts all that commit's deletions as its sources.

import { invalid, LochError } from "../errors.ts";
import { quoteGoString } from "../zed/goquote.ts";
import { commitToBranch, getBranch } from "./branches.ts";
import {
  type Action,
  commitActions,
  type CommitInfo,
  commitPath,
  commonAncestor,
  objectOrigins,
  replayCommits,
  Snapshot,
} from "./commits.ts";
import { isNil, type KSUID, parseID, toBase62, toHex } from "./ksuid.ts";
import type { Catalog } from "./catalog/catalog.ts";
import type { Lake } from "./lake.ts";
import type { CommitRequest } from "./load.ts";
import type { PoolConfig } from "./pools.ts";

/** Conflicting objects named in an error before `and N more`. */
const SHOWN_CONFLICTS = 5;

/**
 * Merges branch `child` into branch `parent` of a pool: a commit on parent
 * (author and message from the request; default message
 * `merged "<child>" into "<parent>"`; meta null, as the reference). The
 * child is not moved. Nothing to bring (including a branch merged into
 * itself, or an empty child) → invalid `error merging …: difference is
 * empty`; both sides changed the same records → conflict.
 */
/** How a merge resolves conflicts: the parent's records kept ("ours") or the child's ("theirs"). */
export type MergeStrategy = "ours" | "theirs";

export async function mergeBranch(
  lake: Lake,
  pool: PoolConfig,
  parent: string,
  child: string,
  commit: CommitRequest = {},
  /** How conflicts resolve: refused (409, the default), the parent's records kept, or the child's. */
  strategy?: MergeStrategy,
): Promise<CommitInfo> {
  const cat = lake.catalog;
  getBranch(cat, pool.id, child);
  getBranch(cat, pool.id, parent);
  const fail = `error merging ${quoteGoString(child)} into ${quoteGoString(parent)}`;
  const message = commit.body || `merged ${quoteGoString(child)} into ${quoteGoString(parent)}`;
  return await commitToBranch(
    lake,
    pool.id,
    parent,
    (tip) => {
      const source = getBranch(cat, pool.id, child).commit;
      const plan = resolve(planMerge(cat, pool.id, source, tip), strategy);
      if (plan.conflicts.length > 0) {
        throw new LochError(
          "conflict",
          `${fail}: ${
            conflictText(plan.conflicts, child, parent)
          } (the records: from ${pool.name}:conflicts(${child}, ${parent}); resolve with strategy ours or theirs)`,
        );
      }
      if (plan.actions.length === 0) throw invalid(`${fail}: difference is empty`);
      return { author: commit.author ?? "", message, meta: null, actions: plan.actions };
    },
    undefined,
    { branch: child, parentBranch: parent },
  );
}

/**
 * A plan with its conflicts resolved by a strategy: `ours` keeps the
 * destination's records (the source's replacements are not added); `theirs`
 * takes the source's (they are added, and the destination's replacements
 * deleted). Without one, the plan as it is.
 */
function resolve(plan: MergePlan, strategy: MergeStrategy | undefined): MergePlan {
  if (strategy === undefined || plan.conflicts.length === 0) return plan;
  const theirs = new Set(plan.conflicts.flatMap((c) => c.source.map(toHex)));
  const ours = new Set(plan.conflicts.flatMap((c) => c.destination.map(toHex)));
  if (strategy === "ours") {
    const actions = plan.actions.filter((a) =>
      !(a.kind === "add" && theirs.has(toHex(a.objectId))) &&
      !(a.kind === "add_index" && theirs.has(toHex(a.objectId)))
    );
    return { actions, conflicts: [] };
  }
  const deleted = new Set(
    plan.actions.filter((a) => a.kind === "delete").map((a) => toHex(a.objectId)),
  );
  const extra: Action[] = [...ours]
    .filter((k) => !deleted.has(k))
    .map((k) => ({ kind: "delete", objectId: parseID(k) }));
  return { actions: [...extra, ...plan.actions], conflicts: [] };
}

/** A -strategy (or ?strategy=) value: ours, theirs, or none. */
export function mergeStrategy(s: unknown): MergeStrategy | undefined {
  if (s === undefined || s === null || s === "") return undefined;
  if (s === "ours" || s === "theirs") return s;
  throw new LochError("invalid", `merge strategy must be ours or theirs: ${String(s)}`);
}

/** An object both sides changed, and the objects now holding its values on each side. */
export interface MergeConflict {
  object: KSUID;
  /** The source's objects (new to the destination) holding its values; none: deleted. */
  source: KSUID[];
  /** The destination's objects (new to the source) holding its values; none: deleted. */
  destination: KSUID[];
}

export interface MergePlan {
  /** Deletes, adds, index deletes, index adds (the reference's order). */
  actions: Action[];
  conflicts: MergeConflict[];
}

/** A branch's history since the fork point: its state, and every id it has held since. */
interface Side {
  live: Snapshot;
  seen: Set<string>;
  seenIndexes: Set<string>;
}

/** The commit that would bring source's changes onto destination (both commit ids). */
export function planMerge(
  cat: Catalog,
  poolId: KSUID,
  source: KSUID,
  destination: KSUID,
): MergePlan {
  const srcPath = commitPath(cat, poolId, source);
  const dstPath = commitPath(cat, poolId, destination);
  const base = commonAncestor(dstPath, srcPath);
  // The fork snapshot, replayed from the root along the destination's path.
  const baseAt = isNil(base) ? dstPath.length : dstPath.findIndex((id) => sameId(id, base));
  const baseSnap = replayCommits(cat, new Snapshot(), dstPath.slice(baseAt).reverse());
  const src = since(cat, baseSnap, srcPath, base);
  const dst = since(cat, baseSnap, dstPath, base);
  const del: Action[] = [];
  const add: Action[] = [];
  const delIndex: Action[] = [];
  const addIndex: Action[] = [];
  const newInSource: string[] = [];
  const newInDestination: string[] = [];
  for (const [key, id] of src.live.objects) {
    if (!dst.seen.has(key)) {
      add.push({ kind: "add", objectId: id });
      newInSource.push(key);
    }
  }
  for (const [key, id] of dst.live.objects) {
    if (src.live.objects.has(key)) continue;
    if (src.seen.has(key)) del.push({ kind: "delete", objectId: id });
    else newInDestination.push(key);
  }
  const gone = new Set(del.map((a) => toHex(a.objectId)));
  const added = new Set(newInSource);
  const inResult = (key: string) => added.has(key) || (dst.live.objects.has(key) && !gone.has(key));
  for (const [key, ix] of src.live.indexes) {
    if (!dst.seenIndexes.has(key) && inResult(toHex(ix.objectId))) {
      addIndex.push({ kind: "add_index", objectId: ix.objectId, ruleId: ix.ruleId });
    }
  }
  for (const [key, ix] of dst.live.indexes) {
    if (!src.live.indexes.has(key) && src.seenIndexes.has(key)) {
      delIndex.push({ kind: "delete_index", objectId: ix.objectId, ruleId: ix.ruleId });
    }
  }
  return {
    actions: [...del, ...add, ...delIndex, ...addIndex],
    conflicts: findConflicts(cat, poolId, src, dst, newInSource, newInDestination),
  };
}

/** Replays a branch's commits after the fork point onto the fork snapshot. */
function since(cat: Catalog, base: Snapshot, path: KSUID[], forkPoint: KSUID): Side {
  const at = isNil(forkPoint) ? path.length : path.findIndex((id) => sameId(id, forkPoint));
  const seen = new Set(base.objects.keys());
  const seenIndexes = new Set(base.indexes.keys());
  const live = replayCommits(cat, base.clone(), path.slice(0, at).reverse(), (a) => {
    if (a.kind === "add") seen.add(toHex(a.objectId));
    else if (a.kind === "add_index") seenIndexes.add(`${toHex(a.ruleId)}:${toHex(a.objectId)}`);
  });
  return { live, seen, seenIndexes };
}

/**
 * Objects both sides have seen that one side deleted while the other side
 * carried their values into objects the first side has never seen.
 */
function findConflicts(
  cat: Catalog,
  poolId: KSUID,
  src: Side,
  dst: Side,
  newInSource: string[],
  newInDestination: string[],
): MergeConflict[] {
  const common = (key: string) => src.seen.has(key) && dst.seen.has(key);
  // Without a commonly seen object that a side lost, nothing can conflict.
  let srcLost = false, dstLost = false;
  for (const key of src.seen) {
    if (!dst.seen.has(key)) continue;
    if (!src.live.objects.has(key)) srcLost = true;
    if (!dst.live.objects.has(key)) dstLost = true;
  }
  const fromSource = dstLost ? newInSource : [];
  const fromDestination = srcLost ? newInDestination : [];
  if (fromSource.length === 0 && fromDestination.length === 0) return [];
  const lineage = new Lineage(cat, poolId, common);
  lineage.trace([...fromSource, ...fromDestination]);
  const byObject = new Map<string, MergeConflict>();
  const note = (x: string, other: Side, side: "source" | "destination") => {
    for (const z of lineage.commonSources(x)) {
      if (other.live.objects.has(z)) continue;
      let c = byObject.get(z);
      if (c === undefined) {
        c = { object: parseID(z), source: [], destination: [] };
        byObject.set(z, c);
      }
      c[side].push(parseID(x));
    }
  };
  for (const x of fromSource) note(x, dst, "source");
  for (const x of fromDestination) note(x, src, "destination");
  return [...byObject.values()];
}

/**
 * Where objects' values came from: each object's sources are the objects
 * deleted by the commit that created it. Traced back through objects only
 * one side has seen, up to objects both sides have seen.
 */
class Lineage {
  private sources = new Map<string, string[]>();
  private deletes = new Map<string, string[]>();

  constructor(
    private cat: Catalog,
    private poolId: KSUID,
    private common: (key: string) => boolean,
  ) {}

  /** Finds the sources of objects, and of their sources, back to common objects. */
  trace(keys: string[]): void {
    let todo = keys.filter((k) => !this.sources.has(k));
    while (todo.length > 0) {
      const origins = objectOrigins(this.cat, this.poolId, todo.map((k) => parseID(k)));
      const next: string[] = [];
      for (const key of todo) {
        const origin = origins.get(key);
        const parents = origin === undefined ? [] : this.deletedBy(origin);
        this.sources.set(key, parents);
        for (const p of parents) {
          if (!this.common(p) && !this.sources.has(p) && !next.includes(p)) next.push(p);
        }
      }
      todo = next;
    }
  }

  /** The commonly seen objects an object's values came from. */
  commonSources(key: string): Set<string> {
    const out = new Set<string>();
    const visited = new Set<string>();
    const stack = [...(this.sources.get(key) ?? [])];
    while (stack.length > 0) {
      const k = stack.pop()!;
      if (visited.has(k)) continue;
      visited.add(k);
      if (this.common(k)) out.add(k);
      else stack.push(...(this.sources.get(k) ?? []));
    }
    return out;
  }

  private deletedBy(commit: KSUID): string[] {
    const key = toHex(commit);
    let out = this.deletes.get(key);
    if (out === undefined) {
      out = commitActions(this.cat, commit)
        .filter((a) => a.kind === "delete")
        .map((a) => toHex(a.objectId));
      this.deletes.set(key, out);
    }
    return out;
  }
}

function conflictText(conflicts: MergeConflict[], child: string, parent: string): string {
  const side = (name: string, ids: KSUID[]) =>
    ids.length === 0
      ? `${quoteGoString(name)} deleted it`
      : `${quoteGoString(name)} replaced it with ${ids.map(toBase62).join(", ")}`;
  const shown = conflicts.slice(0, SHOWN_CONFLICTS).map((c) =>
    `${toBase62(c.object)} (${side(child, c.source)}; ${side(parent, c.destination)})`
  );
  let text = `both branches changed data object${conflicts.length === 1 ? "" : "s"} ` +
    shown.join(", ");
  if (conflicts.length > SHOWN_CONFLICTS) {
    text += `, and ${conflicts.length - SHOWN_CONFLICTS} more`;
  }
  return text;
}

function sameId(a: KSUID, b: KSUID): boolean {
  for (let i = 0; i < 20; i++) if (a[i] !== b[i]) return false;
  return true;
}

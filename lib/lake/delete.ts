// Deleting data from a branch (lake-api.md §8.7, §8.8): by data-object ids
// or commit ids (a commit id stands for the objects that commit added), or
// by a filter. Deleting by id only records Delete actions; deleting by
// filter rewrites each object holding a matching value as a new object
// without those values, and leaves every other object as it is. Nothing is
// removed from disk: time travel still sees the old objects (see vacuum.ts).

import { requestMeta } from "./load.ts";
import { invalid, LochError } from "../errors.ts";
import { type ast, type Expr, OpCompiler, parseQuery, Scope } from "../query/mod.ts";
import { TypeBool, typeUnder } from "../zed/types.ts";
import type { Value } from "../zed/value.ts";
import { type CommitPlan, commitToBranch, getBranch } from "./branches.ts";
import { type Action, commitActions, type CommitInfo, getCommit } from "./commits.ts";
import { type KSUID, newKSUID, parseID, toBase62, toHex } from "./ksuid.ts";
import type { Lake } from "./lake.ts";
import type { CommitRequest } from "./load.ts";
import { writeObject, type WrittenObject } from "./objectwriter.ts";
import { type DataObject, getObjects, insertObject, tipObjects } from "./objects.ts";
import { PoolKey } from "./poolkey.ts";
import { notFound, type PoolConfig } from "./pools.ts";
import { type KeyRange, keyRange, spanMayMatch } from "./prune.ts";
import { newScanStats, PoolScan, type ScanStats } from "./scan.ts";
import { SortBuffer } from "./sortbuffer.ts";

/** Object lines listed in a generated message before `...` (as the reference). */
const MESSAGE_OBJECTS = 10;

export const INVALID_WHERE = "invalid delete where query: must be a single filter operation";

export function plural(n: number): string {
  return n === 1 ? "" : "s";
}

/**
 * `  <id> <n> records in <size> data bytes` per object, as the reference
 * prints them in commit messages: from the object at index `max` on, each
 * line is followed by `  ...` (its quirk, kept so messages read the same).
 */
export function objectLines(objects: DataObject[], max = MESSAGE_OBJECTS): string {
  let s = "";
  objects.forEach((o, k) => {
    s += `  ${toBase62(o.id)} ${o.count} record${plural(o.count)} in ${o.size} data bytes\n`;
    if (k >= max) s += "  ...\n";
  });
  return s;
}

/** Whether a data object is in a branch's tip. */
export function onTip(lake: Lake, poolId: KSUID, branch: string, objectId: KSUID): boolean {
  return lake.catalog.get(
    "SELECT 1 FROM tip_objects WHERE pool_id = ? AND branch = ? AND object_id = ?",
    poolId,
    branch,
    objectId,
  ) !== undefined;
}

/** Removes object files that no commit came to name. */
export async function removeWritten(lake: Lake, pool: PoolConfig, written: WrittenObject[]) {
  for (const w of written) {
    await lake.removeObjectFiles(pool.id, w.object.id);
  }
  written.length = 0;
}

// ---- by id ----------------------------------------------------------------

/**
 * Deletes data objects from a branch. Each id is a data object on the
 * branch's tip, or a commit of the pool standing for every data object it
 * added (all of which must still be on the tip). An id named twice, or an
 * object named both directly and through its commit, is deleted once.
 */
export async function deleteObjects(
  lake: Lake,
  pool: PoolConfig,
  branch: string,
  ids: KSUID[],
  commit: CommitRequest = {},
): Promise<CommitInfo> {
  getBranch(lake.catalog, pool.id, branch);
  return await commitToBranch(
    lake,
    pool.id,
    branch,
    planDeleteObjects(lake, pool, branch, ids, commit),
  );
}

/** The commit plan of deleteObjects (for commitToBranch and multi-branch commits). */
export function planDeleteObjects(
  lake: Lake,
  pool: PoolConfig,
  branch: string,
  ids: KSUID[],
  commit: CommitRequest,
): () => CommitPlan {
  if (ids.length === 0) throw invalid("no data object IDs specified");
  return () => {
    const objects = resolveTargets(lake, pool, branch, ids);
    return {
      author: commit.author ?? "",
      message: commit.body ||
        `deleted ${objects.length} data object${plural(objects.length)}\n\n` +
          objectLines(objects),
      meta: null, // the reference ignores the request's meta here
      actions: objects.map((o): Action => ({ kind: "delete", objectId: o.id })),
    };
  };
}

/** The tip objects the ids name, each once, in the order first named. */
function resolveTargets(lake: Lake, pool: PoolConfig, branch: string, ids: KSUID[]): DataObject[] {
  const cat = lake.catalog;
  const seen = new Set<string>();
  const out: KSUID[] = [];
  const take = (id: KSUID) => {
    const k = toHex(id);
    if (!seen.has(k)) {
      seen.add(k);
      out.push(id);
    }
  };
  for (const id of ids) {
    if (onTip(lake, pool.id, branch, id)) {
      take(id);
      continue;
    }
    if (getCommit(cat, pool.id, id) === undefined) {
      throw notFound(`${toBase62(id)}: commit object not found`);
    }
    const added = commitActions(cat, id).filter((a) => a.kind === "add");
    if (added.length === 0) throw invalid(`${toBase62(id)}: commit added no data objects`);
    for (const a of added) {
      if (!onTip(lake, pool.id, branch, a.objectId)) {
        throw new LochError(
          "conflict",
          `${toBase62(id)}: data object ${
            toBase62(a.objectId)
          } added by this commit is not on branch ${JSON.stringify(branch)}`,
        );
      }
      take(a.objectId);
    }
  }
  return getObjects(cat, out);
}

// ---- by filter ------------------------------------------------------------

/** A delete-where filter: its predicate and the pool-key range outside which nothing matches. */
export interface DeleteFilter {
  pred: Expr;
  range: KeyRange | null;
}

/**
 * Compiles the text of a delete-where: one filter operation (a search, a
 * `where`, or a boolean expression), else INVALID_WHERE. Parse errors are
 * the parser's.
 */
export function compileDeleteFilter(where: string, key: PoolKey): DeleteFilter {
  const seq = parseQuery(where);
  if (seq.ops.length !== 1) throw invalid(INVALID_WHERE);
  const c = new OpCompiler();
  const scope = new Scope().enter();
  for (const decl of seq.consts) c.declare(decl, scope);
  const op = seq.ops[0];
  let e: ast.Expr;
  if (op.kind === "Where" || op.kind === "Search") e = op.expr;
  else if (op.kind === "OpExpr" && c.isFilterExpr(op.expr, scope)) e = op.expr;
  else throw invalid(INVALID_WHERE);
  // With constants in scope a name may not be a field: no key range then.
  const range = seq.consts.length === 0 ? keyRange(e, key.path) : null;
  return { pred: c.exprs.compile(e, scope), range };
}

/** Whether the predicate's result deletes the value: exactly true (not false, null or an error). */
function matches(r: Value): boolean {
  return r.body === true && (r.type === TypeBool || typeUnder(r.type) === TypeBool);
}

export interface DeleteWhereOptions {
  /** Receives the counters of the reads (objects pruned by key, objects and values read). */
  stats?: ScanStats;
}

/**
 * Deletes the values the filter matches. Objects whose key span the
 * filter's key range rules out are not read; each object read that holds a
 * match is deleted and, unless every value matched, replaced by a new
 * object of its other values (in the same order); other objects stay. No
 * match anywhere → `empty transaction` (invalid). One commit.
 */
export async function deleteWhere(
  lake: Lake,
  pool: PoolConfig,
  branch: string,
  where: string,
  commit: CommitRequest = {},
  opts: DeleteWhereOptions = {},
): Promise<CommitInfo> {
  getBranch(lake.catalog, pool.id, branch);
  const written: WrittenObject[] = [];
  try {
    const build = planDeleteWhere(lake, pool, branch, where, commit, opts, written);
    return await commitToBranch(lake, pool.id, branch, build);
  } catch (e) {
    await removeWritten(lake, pool, written);
    throw e;
  }
}

/**
 * The commit plan of deleteWhere: the objects it writes go to written (the
 * caller removes them if the commit fails).
 */
export function planDeleteWhere(
  lake: Lake,
  pool: PoolConfig,
  branch: string,
  where: string,
  commit: CommitRequest,
  opts: DeleteWhereOptions,
  written: WrittenObject[],
): () => Promise<CommitPlan> {
  const cat = lake.catalog;
  const key = PoolKey.of(pool);
  const filter = compileDeleteFilter(where, key);
  const meta = requestMeta(commit.meta);
  const stats = opts.stats ?? newScanStats();
  return async () => {
    await removeWritten(lake, pool, written); // from an attempt whose tip moved
    const deleted: DataObject[] = [];
    for (const o of tipInPoolOrder(lake, pool, branch, key)) {
      if (filter.range !== null && !spanMayMatch(o.span, filter.range)) {
        stats.objectsPruned++;
        continue;
      }
      const rest = await withoutMatches(lake, pool, key, o, filter.pred, stats);
      if (rest === null) continue;
      deleted.push(o);
      if (rest.length > 0) {
        const id = newKSUID();
        const order = Uint32Array.from({ length: rest.length }, (_, i) => i);
        written.push(
          await writeObject(
            lake.storage,
            lake.objectPaths(pool.id, id),
            id,
            rest,
            order,
            key,
            pool.seekStride,
          ),
        );
      }
    }
    if (deleted.length === 0) throw invalid("empty transaction");
    const added = written.map((w) => w.object);
    return {
      author: commit.author ?? "",
      message: commit.body || deleteWhereMessage(deleted, added),
      meta,
      actions: [
        ...deleted.map((o): Action => ({ kind: "delete", objectId: o.id })),
        ...added.map((o): Action => ({ kind: "add", objectId: o.id })),
      ],
      record: () => {
        for (const w of written) insertObject(cat, pool.id, w.object, w.seek);
      },
    };
  };
}

/** The tip's objects by first key in pool order, for a deterministic rewrite. */
function tipInPoolOrder(lake: Lake, pool: PoolConfig, branch: string, key: PoolKey) {
  return tipObjects(lake.catalog, pool.id, branch).sort((a, b) => key.compare(a.first, b.first));
}

/**
 * Reads an object: null when no value matches, else a buffer of the values
 * that do not match, in object order.
 */
async function withoutMatches(
  lake: Lake,
  pool: PoolConfig,
  key: PoolKey,
  o: DataObject,
  pred: Expr,
  stats: ScanStats,
): Promise<SortBuffer | null> {
  const read = newScanStats();
  const scan = new PoolScan(lake, pool, key, [o], { range: null, filter: null, stats: read });
  const keep = new SortBuffer();
  let matched = 0;
  try {
    for (let b = await scan.read(); b !== null; b = await scan.read()) {
      for (let i = 0; i < b.length; i++) {
        const v = b[i];
        if (matches(pred(v))) matched++;
        else keep.add(v, key.keyOf(v));
      }
    }
  } finally {
    await scan.close();
  }
  stats.objectsRead += read.objectsRead;
  stats.bytesRead += read.bytesRead;
  stats.recordsRead += read.recordsRead;
  stats.recordsMatched += matched;
  if (matched === 0) return null;
  return keep;
}

/** The reference's message: the deleted objects, then any added ones. */
export function deleteWhereMessage(deleted: DataObject[], added: DataObject[]): string {
  let s = `deleted ${deleted.length} data object${plural(deleted.length)}\n\n` +
    objectLines(deleted);
  if (added.length > 0) {
    s += `\nadded ${added.length} data object${plural(added.length)}\n\n` +
      objectLines(added, MESSAGE_OBJECTS - deleted.length);
  }
  return s;
}

// ---- the service's request --------------------------------------------------

export interface DeleteRequest {
  object_ids?: string[] | null;
  where?: string | null;
}

/**
 * A delete request as the service takes it (api.DeleteRequest), checked in
 * the reference's order: the branch, then ids xor where (both →
 * `object_ids and where cannot both be set`; neither → `either object_ids or
 * where must be set`), then each id (`invalid ID: <s>`).
 */
export async function deleteRequest(
  lake: Lake,
  pool: PoolConfig,
  branch: string,
  req: DeleteRequest,
  commit: CommitRequest = {},
): Promise<CommitInfo> {
  getBranch(lake.catalog, pool.id, branch);
  const ids = req.object_ids ?? [];
  if (ids.length > 0) {
    if (req.where) throw invalid("object_ids and where cannot both be set");
    return await deleteObjects(lake, pool, branch, ids.map(parseID), commit);
  }
  if (!req.where) throw invalid("either object_ids or where must be set");
  return await deleteWhere(lake, pool, branch, req.where, commit);
}

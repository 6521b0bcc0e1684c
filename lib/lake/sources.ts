// `from` sources over a lake (lake-api.md §12.2): a pool (by name or id, at a
// branch or a commit), pool-name globs and regexps (one scan per match), and
// meta-queries. Each opens as a reader that applies the source's filter.

import { LochError } from "../errors.ts";
import { ConcatReader, type ValueReader } from "../formats/io.ts";
import type * as ast from "../query/ast.ts";
import type { SourcePlan } from "../query/compiler/compile.ts";
import { filterOne } from "../query/ops/where.ts";
import { openFileSource } from "../query/sources.ts";
import type { Expr } from "../query/runtime/expr.ts";
import { globToRegexp } from "../query/expr/glob.ts";
import { compileRegexp } from "../query/expr/regexp.ts";
import type { Batch, Value } from "../zed/value.ts";
import { findBranch, getBranch } from "./branches.ts";
import { getCommit, snapshotAt } from "./commits.ts";
import { toBase62, tryParseID } from "./ksuid.ts";
import type { Lake } from "./lake.ts";
import { commitMeta, type CommitView, lakeMeta, poolMeta } from "./meta.ts";
import { getObjects, tipObjects } from "./objects.ts";
import { PoolKey } from "./poolkey.ts";
import { listPools, lookupPool, notFound, type PoolConfig } from "./pools.ts";
import { exactKeyRange, intersectRanges, keyInRange, type KeyRange, keyRange } from "./prune.ts";
import { FALSE, TRUE } from "../query/runtime/values.ts";
import { CountScan } from "./count.ts";
import { GroupCountScan } from "./groupcount.ts";
import type { DataObject } from "./objects.ts";
import { ID_INT8, ID_UINT8, underId } from "../zed/types.ts";
import { newScanStats, PoolScan, type ScanStats } from "./scan.ts";
import { IndexedPoolScan } from "./index/indexedscan.ts";
import { tipIndexes } from "./index/store.ts";
import { indexTerms } from "./index/terms.ts";

/** The pool and branch `from HEAD` (and a query without `from`) reads. */
export interface Head {
  pool: string;
  branch?: string;
}

export interface SourceOptions {
  head?: Head;
  /** Scans add what they read here. */
  stats?: ScanStats;
  /** Whether `file` sources may read local files (the CLI) or not (the service; the default). */
  allowFiles?: boolean;
}

/** The reader for a compiled query's source. */
export function openLakeSource(
  lake: Lake,
  plan: SourcePlan,
  opts: SourceOptions = {},
): ValueReader {
  const src = plan.source;
  switch (src.kind) {
    case "Pool":
      return openPoolSource(lake, src, plan, opts);
    case "Pass":
      return new ValuesReader([], null);
    case "File":
    case "HTTP":
      return openFileSource(src, plan.filter, { allowFiles: opts.allowFiles ?? false });
  }
}

function openPoolSource(
  lake: Lake,
  src: ast.PoolSource,
  plan: SourcePlan,
  opts: SourceOptions,
): ValueReader {
  if (src.at !== null) {
    throw new LochError("internal", "TBD: at clause in from operator needs to use time");
  }
  const filter = plan.filter?.pred ?? null;
  const { pool: name, commit, meta } = src.spec;
  if (name === null) {
    if (meta === null) throw new LochError("internal", "pool name missing");
    return new ValuesReader(lakeMeta(lake, meta), filter);
  }
  const pools = resolvePools(lake, name, opts.head);
  const branchDefault = name.kind === "String" && name.text === "HEAD"
    ? opts.head?.branch || "main"
    : "main";
  const stats = opts.stats ?? newScanStats();
  const readers = pools.map((pool) => {
    if (commit === null && meta !== null) {
      return new ValuesReader(poolMeta(lake, pool, meta), filter);
    }
    const view = resolveCommit(lake, pool, commit ?? branchDefault);
    if (meta !== null) return new ValuesReader(commitMeta(lake, view, meta), filter);
    const key = PoolKey.of(pool);
    const f = plan.filter;
    const bounds = rangeClause(plan);
    const pred = bounds === null ? filter : boundedFilter(key, bounds, filter);
    if (pools.length === 1) {
      const count = countScan(lake, view, key, plan, bounds, pred, stats);
      if (count !== null) return count;
      const groups = groupCountScan(lake, view, key, plan, bounds, pred, stats);
      if (groups !== null) return groups;
      markSorted(plan, key, view.objects);
    }
    const range = f !== null && f.fieldsOnly ? keyRange(f.ast, key.path) : null;
    const scanOpts = {
      range: intersectRanges(range, bounds),
      filter: pred,
      fields: plan.fields,
      ordered: plan.ordered,
      stats,
    };
    // Field indexes may skip objects (or parts) for equality terms.
    const terms = f !== null && f.fieldsOnly && view.indexes.length > 0 ? indexTerms(f.ast) : null;
    if (terms !== null) {
      return new IndexedPoolScan(lake, pool, key, view.objects, view.indexes, terms, scanOpts);
    }
    return new PoolScan(lake, pool, key, view.objects, scanOpts);
  });
  return readers.length === 1 ? readers[0] : new ConcatReader(readers);
}

/** A count from metadata when the plan's count follows no filter or an exact key range. */
function countScan(
  lake: Lake,
  view: CommitView,
  key: PoolKey,
  plan: SourcePlan,
  bounds: KeyRange | null,
  pred: Expr | null,
  stats: ScanStats,
): CountScan | null {
  if (plan.count === null) return null;
  const range = exactRange(plan, key, bounds);
  if (range === undefined) return null;
  plan.count.bySource = true;
  return new CountScan(lake, view.pool, key, view.objects, range, pred, plan.count.field, stats);
}

/** The key range within which a filter (and range clause) passes exactly every value, if any. */
function exactRange(
  plan: SourcePlan,
  key: PoolKey,
  bounds: KeyRange | null,
): KeyRange | null | undefined {
  const f = plan.filter;
  if (f === null) return bounds;
  // (With a range clause too, the filter's own range is not the whole story.)
  if (!f.fieldsOnly || bounds !== null) return undefined;
  return exactKeyRange(f.ast, key.path) ?? undefined;
}

/** `count() by fields` from columns, where the filter allows. */
function groupCountScan(
  lake: Lake,
  view: CommitView,
  key: PoolKey,
  plan: SourcePlan,
  bounds: KeyRange | null,
  pred: Expr | null,
  stats: ScanStats,
): GroupCountScan | null {
  const g = plan.groupCount;
  if (g === null) return null;
  const range = exactRange(plan, key, bounds);
  if (range === undefined) return null;
  const scan = GroupCountScan.make(
    lake,
    view.pool,
    key,
    view.objects,
    range,
    pred,
    g.fields,
    g.make,
    stats,
  );
  if (scan !== null) g.bySource = true;
  return scan;
}

/** `range L to U` as a key range (inclusive). */
function rangeClause(plan: SourcePlan): KeyRange | null {
  const r = plan.range;
  if (r === null || (r.lower === null && r.upper === null)) return null;
  return {
    lo: r.lower === null ? null : { value: r.lower, inclusive: true },
    hi: r.upper === null ? null : { value: r.upper, inclusive: true },
  };
}

/** The filter with values whose keys are outside the bounds dropped first. */
function boundedFilter(key: PoolKey, bounds: KeyRange, filter: Expr | null): Expr {
  return (v) => {
    if (!keyInRange(key.keyOf(v), bounds)) return FALSE;
    return filter === null ? TRUE : filter(v);
  };
}

/**
 * Marks the plan's sort as done when the scan's order is the one it asks
 * for: the pool key, in the pool's direction, nulls last. (Not for int8 or
 * uint8 keys, which sort compares numerically but pool order byte-wise.)
 */
function markSorted(plan: SourcePlan, key: PoolKey, objects: DataObject[]): void {
  const s = plan.sort;
  if (s === null || s.nullsFirst || s.reverse !== key.desc) return;
  if (s.path.length !== key.path.length || s.path.some((p, i) => p !== key.path[i])) return;
  for (const o of objects) {
    for (const k of [o.span.lo, o.span.hi]) {
      if (k === null) continue;
      const id = underId(k.type);
      if (id === ID_INT8 || id === ID_UINT8) return;
    }
  }
  s.bySource = true;
}

/** The pools a `from` names: one by name or id, HEAD, or every match of a pattern. */
function resolvePools(lake: Lake, name: ast.PoolName, head: Head | undefined): PoolConfig[] {
  const cat = lake.catalog;
  switch (name.kind) {
    case "String":
      if (name.text === "HEAD") {
        if (!head?.pool) throw new LochError("internal", "pool name missing");
        return [lookupPool(cat, head.pool)];
      }
      return [lookupPool(cat, name.text)];
    case "Glob": {
      const re = globToRegexp(name.pattern);
      const pools = listPools(cat).filter((p) => re.test(p.name));
      if (pools.length === 0) {
        throw new LochError("internal", `${name.pattern}: pool matching glob not found`);
      }
      return pools;
    }
    case "Regexp": {
      const re = compileRegexp(name.pattern);
      const pools = listPools(cat).filter((p) => re.test(p.name));
      if (pools.length === 0) {
        throw new LochError("internal", `${name.pattern}: pool matching regexp not found`);
      }
      return pools;
    }
  }
}

/**
 * `pool@x`: x is a commit of the pool when it is an id of one, else a branch
 * name (the branch's tip).
 */
export function resolveCommit(lake: Lake, pool: PoolConfig, commitish: string): CommitView {
  const cat = lake.catalog;
  const id = tryParseID(commitish);
  if (id !== undefined && getCommit(cat, pool.id, id) !== undefined) {
    const snap = snapshotAt(cat, pool.id, id);
    return {
      pool,
      commit: id,
      objects: getObjects(cat, [...snap.objects.values()]),
      indexes: [...snap.indexes.values()],
    };
  }
  const branch = findBranch(cat, pool.id, commitish);
  if (branch === undefined && id !== undefined) {
    throw notFound(`${toBase62(id)}: commit object not found`);
  }
  const b = branch ?? getBranch(cat, pool.id, commitish);
  return {
    pool,
    commit: b.commit,
    objects: tipObjects(cat, pool.id, b.name),
    indexes: tipIndexes(cat, pool.id, b.name),
  };
}

/** Values already in hand (meta-query results), filtered. */
class ValuesReader implements ValueReader {
  constructor(private values: Value[] | null, private filter: Expr | null) {}

  read(): Promise<Batch | null> {
    const vals = this.values;
    this.values = null;
    if (vals === null) return Promise.resolve(null);
    const pred = this.filter;
    let out = vals;
    if (pred !== null) {
      out = [];
      for (const v of vals) {
        const r = filterOne(v, pred(v));
        if (r !== undefined) out.push(r);
      }
    }
    return Promise.resolve(out.length > 0 ? out : null);
  }
}

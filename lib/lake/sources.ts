// `from` sources over a lake (lake-api.md §12.2): a pool (by name or id, at a
// branch or a commit), pool-name globs and regexps (one scan per match), and
// meta-queries. Each opens as a reader that applies the source's filter.

import { LochError } from "../errors.ts";
import { ConcatReader, type ValueReader } from "../formats/io.ts";
import {
  type ast,
  compileRegexp,
  globToRegexp,
  NO_ACCESS,
  openFileSource,
  type SourceAccess,
  type SourcePlan,
} from "../query/mod.ts";
import { findBranch, getBranch } from "./branches.ts";
import { commitChain, getCommit, snapshotAt } from "./commits.ts";
import { formatTime, parseTime } from "../zed/time.ts";
import { bytesEqual } from "../zed/bytes.ts";
import { toBase62, tryParseID } from "./ksuid.ts";
import type { Lake } from "./lake.ts";
import { commitMeta, type CommitView, lakeMeta, poolMeta } from "./meta.ts";
import { getObjects, tipObjectsAt } from "./objects.ts";
import { listPools, lookupPool, notFound, type PoolConfig } from "./pools.ts";
import { DiffReader } from "./diff.ts";
import { ConflictsReader } from "./conflicts.ts";
import type { ShareContext } from "./share.ts";
import { newScanStats, type ScanStats } from "./scan.ts";
import { tipIndexes } from "./index/store.ts";

import { PoolReading, ValuesReader } from "./poolreading.ts";

export { setUseColumns, useColumns } from "./poolreading.ts";

/** The pool and branch `from HEAD` (and a query without `from`) reads. */
export interface Head {
  pool: string;
  branch?: string;
}

export interface SourceOptions {
  head?: Head;
  /** Scans add what they read here. */
  stats?: ScanStats;
  /** What `file` and `get` sources may read (default: nothing; the CLI: everything). */
  access?: SourceAccess;
  /** Stops what sources do on their own (sorting, summarizing) when aborted. */
  signal?: AbortSignal;
  /** Numbers the scans that can be shared out, and whom they may ask (share.ts). */
  sharing?: ShareContext;
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
      return openFileSource(src, plan.filter, opts.access ?? NO_ACCESS, opts.signal);
  }
}

function openPoolSource(
  lake: Lake,
  src: ast.PoolSource,
  plan: SourcePlan,
  opts: SourceOptions,
): ValueReader {
  const at = atTime(src.at);
  const filter = plan.filter?.pred ?? null;
  const { pool: name, commit, meta } = src.spec;
  if (at !== undefined && (name === null || (commit === null && meta !== null))) {
    throw new LochError("invalid", "at: time travel is for a branch or commit of a pool");
  }
  if (
    src.diff !== undefined &&
    (name === null || commit !== null || meta !== null || at !== undefined)
  ) {
    throw new LochError(
      "invalid",
      "diff: give a pool and two commits or branches: from P diff A B",
    );
  }
  if (name === null) {
    // Client faults are 4xx here (Zed answers 500).
    if (meta === null) throw new LochError("invalid", "pool name missing");
    return new ValuesReader(lakeMeta(lake, meta), filter);
  }
  const pools = resolvePools(lake, name, opts.head);
  const branchDefault = name.kind === "String" && name.text === "HEAD"
    ? opts.head?.branch || "main"
    : "main";
  const stats = opts.stats ?? newScanStats();
  const readers = pools.map((pool): ValueReader => {
    if (meta === "conflicts" && commit === null) {
      return new ConflictsReader(lake, pool, src.spec.meta_args ?? [], filter, stats);
    }
    if (src.diff !== undefined) {
      const [a, b] = src.diff;
      const from = resolveCommit(lake, pool, a), to = resolveCommit(lake, pool, b);
      return new DiffReader(lake, from, to, filter, stats, opts.signal);
    }
    if (commit === null && meta !== null) {
      return new ValuesReader(poolMeta(lake, pool, meta), filter);
    }
    const view = at === undefined
      ? resolveCommit(lake, pool, commit ?? branchDefault)
      : resolveCommitAt(lake, pool, commit ?? branchDefault, at);
    if (meta !== null) return new ValuesReader(commitMeta(lake, view, meta), filter);
    return new PoolReading(lake, view, plan, stats, opts.signal, opts.sharing).open();
  });
  return readers.length === 1 ? readers[0] : new ConcatReader(readers);
}
/** The pools a `from` names: one by name or id, HEAD, or every match of a pattern. */
function resolvePools(lake: Lake, name: ast.PoolName, head: Head | undefined): PoolConfig[] {
  const cat = lake.catalog;
  switch (name.kind) {
    case "String":
      if (name.text === "HEAD") {
        if (!head?.pool) throw new LochError("invalid", "pool name missing");
        return [lookupPool(cat, head.pool)];
      }
      return [lookupPool(cat, name.text)];
    case "Glob": {
      const re = globToRegexp(name.pattern);
      const pools = listPools(cat).filter((p) => re.test(p.name));
      if (pools.length === 0) {
        throw new LochError("not found", `${name.pattern}: pool matching glob not found`);
      }
      return pools;
    }
    case "Regexp": {
      const re = compileRegexp(name.pattern);
      const pools = listPools(cat).filter((p) => re.test(p.name));
      if (pools.length === 0) {
        throw new LochError("not found", `${name.pattern}: pool matching regexp not found`);
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
    objects: tipObjectsAt(
      cat,
      pool.id,
      b.name,
      b.commit,
      () => {
        const now = findBranch(cat, pool.id, b.name)?.commit;
        return now !== undefined && bytesEqual(now, b.commit);
      },
    ),
    indexes: tipIndexes(cat, pool.id, b.name),
  };
}

/**
 * The time of an `at` clause in nanoseconds (undefined without one). Zed
 * takes only a commit id there and refuses it ("TBD"); a time is loch's.
 */
function atTime(at: string | null): bigint | undefined {
  if (at === null) return undefined;
  const t = parseTime(at);
  if (t === undefined) {
    throw new LochError("invalid", "TBD: at clause in from operator needs to use time");
  }
  return BigInt(t.ns);
}

/**
 * `pool@x at T`: x as it was at time T, by the dates of its commits: the
 * newest commit of x's history made at or before T. A time before x's
 * first commit is an error.
 */
export function resolveCommitAt(
  lake: Lake,
  pool: PoolConfig,
  commitish: string,
  at: bigint,
): CommitView {
  const now = resolveCommit(lake, pool, commitish);
  const cat = lake.catalog;
  const then = commitChain(cat, pool.id, now.commit).find((c) => BigInt(c.date) <= at);
  if (then === undefined) {
    throw new LochError(
      "invalid",
      `${pool.name}@${commitish}: nothing was committed at or before ${formatTime(at)}`,
    );
  }
  if (sameBytes(then.id, now.commit)) return now;
  const snap = snapshotAt(cat, pool.id, then.id);
  return {
    pool,
    commit: then.id,
    objects: getObjects(cat, [...snap.objects.values()]),
    indexes: [...snap.indexes.values()],
  };
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

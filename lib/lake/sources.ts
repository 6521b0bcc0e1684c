// `from` sources over a lake (lake-api.md §12.2): a pool (by name or id, at a
// branch or a commit), pool-name globs and regexps (one scan per match), and
// meta-queries. Each opens as a reader that applies the source's filter.

import { LochError } from "../errors.ts";
import { ConcatReader, type ValueReader } from "../formats/io.ts";
import {
  type ast,
  compileRegexp,
  type Expr,
  FALSE,
  globToRegexp,
  type HeadCut,
  LimitReader,
  NO_ACCESS,
  openFileSource,
  type OpFactory,
  OpReader,
  type Pushdown,
  scanKeeps,
  type SourceAccess,
  type SourcePlan,
  TRUE,
  type VectorFilter,
} from "../query/mod.ts";
import type { Batch, Value } from "../zed/value.ts";
import { findBranch, getBranch } from "./branches.ts";
import { commitChain, getCommit, snapshotAt } from "./commits.ts";
import { formatTime, parseTime } from "../zed/time.ts";
import { bytesEqual } from "../zed/bytes.ts";
import { toBase62, tryParseID } from "./ksuid.ts";
import type { Lake } from "./lake.ts";
import { commitMeta, type CommitView, lakeMeta, poolMeta } from "./meta.ts";
import { getObjects, tipObjectsAt } from "./objects.ts";
import { PoolKey } from "./poolkey.ts";
import { listPools, lookupPool, notFound, type PoolConfig } from "./pools.ts";
import {
  exactKeyRange,
  intersectRanges,
  keyInRange,
  type KeyRange,
  keyRange,
  spanMayMatch,
} from "./prune.ts";
import { CountScan } from "./count.ts";
import { DiffReader } from "./diff.ts";
import { ConflictsReader } from "./conflicts.ts";
import { SummarizeScan } from "./summarize.ts";
import type { ShareContext } from "./share.ts";
import { TopKScan } from "./topk.ts";
import { HeadScan } from "./head.ts";
import { fieldTopK } from "./fieldtopk.ts";
import { tailFromColumns } from "./tail.ts";
import { openColumns } from "./columns/mod.ts";
import type { DataObject } from "./objects.ts";
import { ID_INT8, ID_UINT8, underId } from "../zed/types.ts";
import { newScanStats, PoolScan, type ScanOptions, type ScanStats } from "./scan.ts";
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

/** How one pool's snapshot is read for a plan: its filter, and its pushdown carried out. */
class PoolReading {
  private key: PoolKey;
  /** The `range L to U` clause's bounds. */
  private bounds: KeyRange | null;
  /** The filter, with values outside the range clause dropped first. */
  private pred: Expr | null;
  /** Keys outside this range cannot pass. */
  private range: KeyRange | null;
  /** The filter over columns (not with a range clause, which it does not see). */
  private vector: VectorFilter | null;

  constructor(
    private lake: Lake,
    private view: CommitView,
    private plan: SourcePlan,
    private stats: ScanStats,
    private signal: AbortSignal | undefined,
    private sharing: ShareContext | undefined,
  ) {
    this.key = PoolKey.of(view.pool);
    const f = plan.filter;
    this.bounds = rangeClause(plan);
    const pred = f?.pred ?? null;
    this.pred = this.bounds === null ? pred : boundedFilter(this.key, this.bounds, pred);
    const range = f !== null && f.fieldsOnly ? keyRange(f.ast, this.key.path) : null;
    this.range = intersectRanges(range, this.bounds);
    this.vector = this.bounds === null && useColumns() ? f?.vector ?? null : null;
  }

  open(): ValueReader {
    const p = this.plan.pushdown;
    switch (p?.kind) {
      case "count":
        return this.count(p.field);
      case "summarize":
        return new SummarizeScan(
          this.lake,
          this.view.pool,
          this.key,
          this.view.objects,
          {
            make: p.make,
            vector: useColumns() ? p.vector : null,
            orderFree: p.orderFree,
            range: this.range,
            filter: this.pred,
            vectorFilter: this.vector,
            fields: this.plan.fields,
          },
          this.stats,
          this.signal,
          this.sharing,
        );
      case "sort":
        return this.sort(p);
      case "head":
        return this.head(p.limit, p.cut);
      case "tail":
        if (
          this.bounds !== null || !useColumns() ||
          (this.plan.filter !== null && this.vector === null)
        ) {
          return new OpReader(this.scan(true), p.make, this.signal);
        }
        return new TopKReader(
          this,
          p.make,
          () =>
            tailFromColumns(this.lake, this.view.pool, this.key, this.view.objects, {
              limit: p.limit,
              range: this.range,
              vector: this.vector,
              fields: this.plan.fields,
              cut: p.cut,
            }, this.stats),
        );
    }
    return this.scan(this.plan.ordered);
  }

  /** The first n values in pool order (cut, when given). */
  private head(n: number, cut: HeadCut | null = null): ValueReader {
    if (this.bounds !== null || !useColumns()) {
      const first = new LimitReader(this.scan(true), n);
      return cut === null ? first : new OpReader(first, cut.make, this.signal);
    }
    return new HeadScan(this.lake, this.view.pool, this.key, this.view.objects, {
      limit: n,
      range: this.range,
      filter: this.pred,
      vector: this.vector,
      fields: this.plan.fields,
      cut,
    }, this.stats);
  }

  /** The values that pass the filter, in pool order unless unordered. */
  private scan(ordered: boolean): ValueReader {
    const { lake, view, plan } = this;
    const f = plan.filter;
    const opts: ScanOptions = {
      range: this.range,
      filter: this.pred,
      fields: plan.fields,
      ordered,
      stats: this.stats,
    };
    if (this.vector !== null) {
      opts.vector = { filter: this.vector, columns: (o) => openColumns(lake, view.pool.id, o) };
    }
    // Field indexes may skip objects (or parts) for equality terms.
    const terms = f !== null && f.fieldsOnly && view.indexes.length > 0 ? indexTerms(f.ast) : null;
    if (terms !== null) {
      return new IndexedPoolScan(
        lake,
        view.pool,
        this.key,
        view.objects,
        view.indexes,
        terms,
        opts,
      );
    }
    return new PoolScan(lake, view.pool, this.key, view.objects, opts);
  }

  private count(field: string): ValueReader {
    const f = this.plan.filter;
    // The filter passes exactly the keys of a range (or everything), so metadata can count.
    let exact: KeyRange | null | undefined = undefined;
    if (f === null) exact = this.bounds;
    else if (f.fieldsOnly && this.bounds === null) {
      exact = exactKeyRange(f.ast, this.key.path) ?? undefined;
    }
    return new CountScan(
      this.lake,
      this.view.pool,
      this.key,
      this.view.objects,
      {
        exact,
        range: this.range,
        filter: this.pred,
        vector: this.vector,
        fields: this.plan.fields,
      },
      field,
      this.stats,
      this.sharing,
      this.signal,
    );
  }

  private sort(p: Pushdown & { kind: "sort" }): ValueReader {
    const key = this.key;
    const onKey = p.path.length === key.path.length && p.path.every((x, i) => x === key.path[i]);
    const numericOrder = this.view.objects.every(comparesAsPoolOrder);
    if (onKey && numericOrder && !p.nullsFirst) {
      if (p.reverse === key.desc) {
        // The pool's own order.
        return p.limit === null ? this.scan(true) : this.head(p.limit);
      }
      if (p.limit !== null && p.limit > 0 && this.bounds === null) {
        return new TopKReader(this, p.make, async () => {
          const topk = this.topK(p);
          const first = await topk.read();
          return topk.found ? first ?? [] : null;
        });
      }
    }
    if (
      !onKey && p.limit !== null && p.limit > 0 && !p.nullsFirst && this.bounds === null &&
      useColumns() && (this.plan.filter === null || this.vector !== null)
    ) {
      return new TopKReader(this, p.make, () => this.fieldTopK(p));
    }
    return new OpReader(this.scan(true), p.make, this.signal);
  }

  /** A top-k by a field from columns: the values, or null when the columns cannot tell. */
  fieldTopK(p: Pushdown & { kind: "sort" }): Promise<Value[] | null> {
    return fieldTopK(this.lake, this.view.pool, this.key, this.view.objects, {
      path: p.path,
      reverse: p.reverse,
      limit: p.limit!,
      range: this.range,
      vector: this.vector,
      fields: this.plan.fields,
    }, this.stats);
  }

  /** The top-k read, falling back to a full sort when it comes up short. */
  topK(p: Pushdown & { kind: "sort" }): TopKScan {
    const live = this.range === null
      ? this.view.objects
      : this.view.objects.filter((o) => spanMayMatch(o.span, this.range!));
    return new TopKScan(
      this.lake,
      this.view.pool,
      this.key,
      live,
      p.limit!,
      this.pred,
      this.stats,
    );
  }

  /** The operators made by make over the pool's values in pool order. */
  sorted(make: OpFactory): ValueReader {
    return new OpReader(this.scan(true), make, this.signal);
  }
}

/**
 * A top-k read (by the pool key, or by a field from columns) or a tail from
 * columns; the operators over all the values instead when it cannot tell
 * (fewer values with keys, columns that do not).
 */
class TopKReader implements ValueReader {
  private inner: ValueReader | null = null;
  constructor(
    private reading: PoolReading,
    /** The operators to run over the pool's values instead. */
    private make: OpFactory,
    private find: () => Promise<Value[] | null>,
  ) {}

  async read(): Promise<Batch | null> {
    if (this.inner === null) {
      const found = await this.find();
      this.inner = found !== null ? new ValuesReader(found, null) : this.reading.sorted(this.make);
    }
    return await this.inner.read();
  }

  close(): Promise<void> {
    return this.inner?.close?.() ?? Promise.resolve();
  }
}

/**
 * Whether the sort orders the object's keys as the pool does: not for mixed
 * key types, nor for int8 or uint8 keys (which sort compares numerically but
 * pool order byte-wise).
 */
function comparesAsPoolOrder(o: DataObject): boolean {
  if (o.span.mixed) return false;
  for (const k of [o.span.lo, o.span.hi]) {
    if (k === null) continue;
    const id = underId(k.type);
    if (id === ID_INT8 || id === ID_UINT8) return false;
  }
  return true;
}

/** Whether queries use objects' columns (LOCH_COLUMNS=off turns them off, for comparison). */
export function useColumns(): boolean {
  return columnsSetting;
}

let columnsSetting = Deno.env.get("LOCH_COLUMNS") !== "off";

/** Turns the use of columns by queries on or off (tests compare both paths). */
export function setUseColumns(on: boolean): void {
  columnsSetting = on;
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
        if (scanKeeps(pred(v))) out.push(v);
      }
    }
    return Promise.resolve(out.length > 0 ? out : null);
  }
}

// How one pool's snapshot is read for a query's source plan: its filter
// (with a range clause), and the pushdown the planner gave it carried out by
// the cheapest means each object has — a count, a summary, a sort (by the
// pool key from the far end, or by another field from columns), a head or a
// tail — else a scan in pool order. sources.ts resolves which snapshot.

import type { ValueReader } from "../formats/io.ts";
import {
  BatchesReader,
  CAST,
  constShaper,
  type Expr,
  FALSE,
  FILL,
  type HeadCut,
  type HeadThrough,
  LimitReader,
  type OpFactory,
  OpReader,
  ORDER,
  type Pushdown,
  scanKeeps,
  type SourcePlan,
  TRUE,
  type VectorFilter,
} from "../query/mod.ts";
import type { Batch, Value } from "../zed/value.ts";
import type { Lake } from "./lake.ts";
import type { CommitView } from "./meta.ts";
import { PoolKey } from "./poolkey.ts";
import {
  exactKeyRange,
  intersectRanges,
  keyInRange,
  type KeyRange,
  keyRange,
  spanMayMatch,
} from "./prune.ts";
import { CountScan } from "./count.ts";
import { SummarizeScan } from "./summarize.ts";
import type { ShareContext } from "./share.ts";
import { TopKScan } from "./topk.ts";
import { HeadScan } from "./head.ts";
import { derivedTopK } from "./derivedtopk.ts";
import { fieldTopK } from "./fieldtopk.ts";
import { tailFromColumns } from "./tail.ts";
import { openColumns } from "./columns/mod.ts";
import { fusedType } from "./fusetypes.ts";
import { countWholeRead, liveColumns, PickedValues } from "./picks.ts";
import type { DataObject } from "./objects.ts";
import { ID_INT8, ID_UINT8, underId } from "../zed/types.ts";
import { PoolScan, type ScanOptions, type ScanStats } from "./scan.ts";
import { IndexedPoolScan } from "./index/indexedscan.ts";
import { indexTerms } from "./index/terms.ts";

/** How one pool's snapshot is read for a plan: its filter, and its pushdown carried out. */
export class PoolReading {
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
    this.thens = f?.thens ?? null;
  }

  /** The `where` filters folded after the filter (SourcePlan), or null. */
  private thens: Expr[] | null;

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
            before: p.before ?? null,
            vector: useColumns() ? p.vector : null,
            orderFree: p.orderFree,
            range: this.range,
            filter: this.pred,
            thens: this.thens,
            vectorFilter: this.vector,
            fields: this.plan.fields,
            rowsFromColumns: useColumns(),
          },
          this.stats,
          this.signal,
          this.sharing,
        );
      case "sort":
        return this.sort(p);
      case "top":
        return this.top(p);
      case "head":
        return p.through
          ? this.headThrough(p.limit, p.through)
          : this.head(p.limit, p.cut, p.skip ?? 0);
      case "fuse":
        if (!this.columnsSelect()) return this.sorted(p.make);
        return new TopKReader(this, p.make, () => this.fuseFromColumns(p.limit));
      case "tail":
        return this.tail(p.limit, p.cut, p.make, p.through);
    }
    return this.scan(this.plan.ordered);
  }

  /**
   * The last n values in pool order (cut, when given; through: what the
   * per-value operators make of them), else make over the pool in order.
   */
  private tail(
    n: number,
    cut: HeadCut | null,
    make: OpFactory,
    through: HeadThrough | undefined,
  ): ValueReader {
    if (!this.columnsSelect()) {
      return new OpReader(this.scan(true), make, this.signal);
    }
    const last = () =>
      tailFromColumns(this.lake, this.view.pool, this.key, this.view.objects, {
        limit: n,
        range: this.range,
        vector: this.vector,
        fields: this.plan.fields,
        cut,
      }, this.stats);
    return new TopKReader(
      this,
      make,
      through === undefined ? last : () => this.madeThrough(last, through),
    );
  }

  /** Whether columns can pick the rows the filter passes (no range clause, a column filter if any). */
  private columnsSelect(): boolean {
    return this.bounds === null && useColumns() &&
      (this.plan.filter === null || this.vector !== null);
  }

  /** The first n values in pool order (cut, when given), less the first skip of them. */
  private head(n: number, cut: HeadCut | null = null, skip = 0): ValueReader {
    if (this.bounds !== null || !useColumns()) {
      const first = new LimitReader(this.scan(true), n, skip);
      return cut === null ? first : new OpReader(first, cut.make, this.signal);
    }
    return new HeadScan(this.lake, this.view.pool, this.key, this.view.objects, {
      limit: n,
      skip,
      range: this.range,
      filter: this.pred,
      thens: this.thens,
      vector: this.vector,
      fields: this.plan.fields,
      cut,
    }, this.stats);
  }

  /**
   * The first n values the per-value operators make: those of the first n
   * in pool order (picked as for a head) where none is dropped, else the
   * operators and the head over the pool's values in order.
   */
  private headThrough(n: number, through: HeadThrough): ValueReader {
    if (this.bounds !== null || !useColumns() || n > MAX_HEAD_THROUGH) {
      return this.sorted(through.whole);
    }
    return new TopKReader(
      this,
      through.whole,
      () => this.madeThrough(() => drain(this.head(n)), through),
    );
  }

  /**
   * What the per-value operators make of the values picked (a head's or a
   * tail's): null when the pick cannot be made, or one of its values is
   * dropped (then the stats start over, as the pool is read again).
   */
  private async madeThrough(
    pick: () => Promise<Value[] | null>,
    through: HeadThrough,
  ): Promise<Value[] | null> {
    const before = { ...this.stats };
    const picked = await pick();
    if (picked === null) return null;
    const made = await drain(
      new OpReader(new BatchesReader([picked]), through.make, this.signal),
    );
    if (made.length === picked.length) return made;
    Object.assign(this.stats, before);
    return null;
  }

  /**
   * What `fuse` makes of the first n values: their fused type from the
   * columns (fusetypes.ts), each of the n values the head picks shaped to
   * it; null when the columns cannot tell the type.
   */
  private async fuseFromColumns(n: number): Promise<Value[] | null> {
    const { lake, view } = this;
    const found = await liveColumns(lake, view.pool, view.objects, this.range, this.vector);
    if (found === null) return null;
    const { live, cols, sels } = found;
    const made = new PickedValues(lake, view.pool, this.key, null, null, this.stats, false);
    const firstKeys = live.map((o) => o.first);
    const fused = await fusedType(
      this.key,
      cols,
      sels,
      firstKeys,
      (rows) => made.encodings(live, rows),
    );
    if (fused === null) return null;
    let out: Value[] = [];
    if (fused !== undefined) {
      // The fuse reads every value: the stats count them all, not the head's.
      const before = { ...this.stats };
      const first = await drain(this.head(n));
      Object.assign(this.stats, before);
      const shaper = constShaper(CAST | FILL | ORDER, fused);
      out = first.map((v) => shaper.shape(v));
    }
    await countWholeRead(this.stats, view.objects, live, cols, sels);
    return out;
  }

  /** The values that pass the filter, in pool order unless unordered. */
  private scan(ordered: boolean): ValueReader {
    const { lake, view, plan } = this;
    const f = plan.filter;
    // Values that go where their encodings serve (a ZNG writer, uniq) are
    // decoded only for the fields read.
    const encoded = plan.encoded;
    const opts: ScanOptions = {
      range: this.range,
      filter: this.pred,
      thens: this.thens,
      fields: plan.fields,
      ordered,
      stats: this.stats,
      encoded,
    };
    const columns = (o: DataObject) => openColumns(lake, view.pool.id, o);
    if (this.vector !== null) opts.vector = { filter: this.vector, columns };
    if (useColumns() && plan.fields !== null && encoded === undefined) opts.columns = columns;
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
    else if (f.fieldsOnly && this.bounds === null && this.thens === null) {
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
        thens: this.thens,
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
    if (p.last) {
      // `sort <field> | tail N`: by the key in the pool's direction, the pool's last N.
      if (onKey && numericOrder && !p.nullsFirst && p.reverse === key.desc) {
        return this.tail(p.limit!, null, p.make, undefined);
      }
      if (!p.nullsFirst && p.limit! > 0 && this.columnsSelect() && p.cut === undefined) {
        return new TopKReader(this, p.make, () => this.fieldTopK(p));
      }
      return new OpReader(this.scan(true), p.make, this.signal);
    }
    // A filter that columns run picks the rows of a top-k by any field,
    // the key included, without reading the rows that do not pass.
    const columnsPick = this.plan.filter !== null && this.vector !== null;
    if (onKey && numericOrder && !p.nullsFirst) {
      if (p.reverse === key.desc) {
        // The pool's own order (a cut before the sort is made of those values).
        const values = p.limit === null ? this.scan(true) : this.head(p.limit);
        return p.cut === undefined ? values : new OpReader(values, p.make, this.signal);
      }
      // (Not past folded filters: a value they make an error of has no key.)
      if (
        p.limit !== null && p.limit > 0 && this.bounds === null && this.thens === null &&
        !columnsPick && p.cut === undefined
      ) {
        return new TopKReader(this, p.make, async () => {
          const topk = this.topK(p);
          const first = await topk.read();
          return topk.found ? first ?? [] : null;
        });
      }
    }
    // (A cut before the sort is made of the rows the field top-k picks.)
    if (
      (!onKey || columnsPick || p.cut !== undefined) && p.limit !== null && p.limit > 0 &&
      !p.nullsFirst && this.bounds === null && useColumns() &&
      (this.plan.filter === null || this.vector !== null)
    ) {
      return new TopKReader(this, p.make, () => this.fieldTopK(p));
    }
    return new OpReader(this.scan(true), p.make, this.signal);
  }

  /** `top N <field>`: from columns where its N values are distinct, else the operator. */
  private top(p: Pushdown & { kind: "top" }): ValueReader {
    if (!this.columnsSelect()) {
      return this.sorted(p.make);
    }
    return new TopKReader(
      this,
      p.make,
      () =>
        fieldTopK(this.lake, this.view.pool, this.key, this.view.objects, {
          path: p.path,
          reverse: true,
          limit: p.limit,
          range: this.range,
          vector: this.vector,
          fields: this.plan.fields,
          distinct: true,
        }, this.stats),
    );
  }

  /** A top-k by a field from columns: the values, or null when the columns cannot tell. */
  async fieldTopK(p: Pushdown & { kind: "sort" }): Promise<Value[] | null> {
    const d = p.derive;
    if (d !== undefined) {
      const picked = await derivedTopK(this.lake, this.view.pool, this.key, this.view.objects, {
        expr: d.expr,
        exprFields: d.fields,
        reverse: p.reverse,
        nullsFirst: p.nullsFirst,
        limit: p.limit!,
        range: this.range,
        vector: this.vector,
        fields: this.plan.fields,
      }, this.stats);
      if (picked === null || d.put === undefined) return picked;
      return await drain(new OpReader(new BatchesReader([picked]), d.put, this.signal));
    }
    return await fieldTopK(this.lake, this.view.pool, this.key, this.view.objects, {
      path: p.path,
      reverse: p.reverse,
      last: p.last,
      limit: p.limit!,
      range: this.range,
      vector: this.vector,
      fields: this.plan.fields,
      cut: p.cut,
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

/** Heads over this many go through the operators as they are (the picks are held at once). */
const MAX_HEAD_THROUGH = 10_000;

/** Every value of a reader, which is then closed. */
async function drain(r: ValueReader): Promise<Value[]> {
  const out: Value[] = [];
  try {
    for (let b = await r.read(); b !== null; b = await r.read()) for (const v of b) out.push(v);
  } finally {
    await r.close?.();
  }
  return out;
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

/** Values already in hand (meta-query results), filtered. */
export class ValuesReader implements ValueReader {
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

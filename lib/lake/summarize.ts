// A summarize the planner pushed into a pool source: the source builds the
// query's summarize, feeds it the values that pass the filter, ends it and
// hands out what it emits. Objects whose columns hold the keys and
// arguments feed it from columns (vector/summarize.ts); the others feed it
// their rows. Objects go in pool order, a run of overlapping ones at a time.
// When an aggregate depends on the order of its values (float sums), a
// group with rows in several overlapping objects must get them in pool
// order: its rows are merged by the pool key from the columns; only where
// keys tie across objects (the whole values decide) is the run read as
// rows, merged in pool order, as without columns.

import type { ValueReader } from "../formats/io.ts";
import {
  buildPausing,
  Collector,
  type Expr,
  maybeYield,
  NotRecordable,
  type Op,
  type OpFactory,
  type PreparedGroups,
  Summarize,
  type VectorFilter,
  type VectorSummarize,
} from "../query/mod.ts";
import { LochError } from "../errors.ts";
import type { Batch } from "../zed/value.ts";
import { type ObjectColumns, openColumns } from "./columns/mod.ts";
import { tieOrder } from "./poolorder.ts";
import type { Lake } from "./lake.ts";
import type { DataObject } from "./objects.ts";
import type { PoolKey } from "./poolkey.ts";
import type { PoolConfig } from "./pools.ts";
import { type KeyRange, spanMayMatch } from "./prune.ts";
import { matchedOf } from "./picks.ts";
import {
  countObjectRead,
  groupOverlapping,
  newScanStats,
  PoolScan,
  type ScanStats,
} from "./scan.ts";
import {
  addStats,
  bytesToRead,
  objectsNamed,
  readShared,
  type ShareableScan,
  type ShareContext,
  type SharedPart,
} from "./share.ts";

export interface SummarizePlan {
  make: OpFactory;
  /** A per-value operator rows go through before the summarize (a put), or null. */
  before: OpFactory | null;
  vector: VectorSummarize | null;
  orderFree: boolean;
  range: KeyRange | null;
  filter: Expr | null;
  /** `where` filters folded after the filter (ScanOptions.thens). */
  thens?: readonly Expr[] | null;
  vectorFilter: VectorFilter | null;
  fields: string[] | null;
  /** Whether rows of the fields read are made from columns where they can be (ScanOptions.columns). */
  rowsFromColumns: boolean;
}

export class SummarizeScan implements ValueReader, ShareableScan {
  private out: Batch[] | null = null;

  constructor(
    private lake: Lake,
    private pool: PoolConfig,
    private key: PoolKey,
    private objects: DataObject[],
    private plan: SummarizePlan,
    private stats: ScanStats,
    private signal?: AbortSignal,
    private sharing?: ShareContext,
  ) {
    this.source = sharing?.register(this) ?? -1;
  }

  /** Its number among the query's shareable scans (share.ts). */
  private readonly source: number;

  async read(): Promise<Batch | null> {
    if (this.out === null) this.out = await this.run();
    return this.out.shift() ?? null;
  }

  private async run(): Promise<Batch[]> {
    const collector = new Collector();
    const op = this.makeOp(collector);
    const runs = groupOverlapping(this.live(this.objects, this.stats), (o) => o, this.key);
    await readShared(
      // (Numbers are recorded from columns only: without them only merging aggregates share.)
      op.merges || (op.mergesNumbers && this.plan.vector !== null)
        ? this.sharing?.helpers ?? null
        : null,
      this.source,
      runs,
      (o) => bytesToRead(o, this.plan.fields),
      (objects) => this.feed(objects, op, this.stats),
      (part) => {
        op.mergeGroups(part.data, part.numbers);
        addStats(this.stats, part.stats);
      },
    );
    await op.end();
    return collector.take();
  }

  /**
   * The groups of the objects named, their states saved, for another
   * thread to merge (ShareableScan); null when an object is not in this
   * snapshot or the groups spilled.
   */
  async partial(ids: Set<string>): Promise<SharedPart | null> {
    const objects = objectsNamed(this.objects, ids);
    if (objects === null) return null;
    const op = this.makeOp(new Collector());
    if (!op.merges) op.recordNumbers();
    const stats = newScanStats();
    try {
      await this.feed(objects, op, stats);
    } catch (e) {
      // A value that is no number from a column: the asking thread reads these objects.
      if (e instanceof NotRecordable) return null;
      throw e;
    }
    const saved = op.savedGroups();
    return saved === null ? null : { data: saved.groups, numbers: saved.numbers, stats };
  }

  private makeOp(collector: Collector): Summarize {
    const op = buildPausing(maybeYield, () => this.plan.make(collector));
    if (!(op instanceof Summarize)) {
      throw new LochError("internal", "summarize pushdown without a summarize operator");
    }
    return op;
  }

  /** The objects whose keys may be in the plan's range (the others counted as pruned). */
  private live(objects: DataObject[], stats: ScanStats): DataObject[] {
    const r = this.plan.range;
    if (r === null) return objects;
    const live: DataObject[] = [];
    for (const o of objects) {
      if (!spanMayMatch(o.span, r)) stats.objectsPruned++;
      else live.push(o);
    }
    return live;
  }

  /** Feeds op the objects' values, a run of overlapping objects at a time. */
  private async feed(objects: DataObject[], op: Summarize, stats: ScanStats): Promise<void> {
    // Where rows go to reach op: op, or the plan's operator before it (per
    // value, it is never ended: op's end is the source's).
    const before = this.plan.before;
    const into = before === null ? op : buildPausing(maybeYield, () => before(op));
    for (const run of groupOverlapping(objects, (o) => o, this.key)) {
      this.signal?.throwIfAborted();
      if (!(await this.fromColumns(run, op, stats))) await this.fromRows(run, into, stats);
      await maybeYield();
    }
  }

  /** Feeds a run of objects from their columns; false (having fed nothing) when it cannot. */
  private async fromColumns(run: DataObject[], op: Summarize, stats: ScanStats): Promise<boolean> {
    const vs = this.plan.vector;
    const vf = this.plan.vectorFilter;
    if (vs === null || !op.direct || (this.plan.filter !== null && vf === null)) return false;
    const prepared: PreparedGroups[] = [];
    const opened: { o: ObjectColumns; p: PreparedGroups }[] = [];
    const matched: [number, number][] = [];
    for (const o of run) {
      const cols = openColumns(this.lake, this.pool.id, o);
      if (cols === null) return false;
      let rows: Uint8Array | null = null;
      if (vf !== null) {
        const sel = await vf.select(cols);
        if (sel === null) return false;
        rows = sel.all ? null : sel.rows;
        matched.push(await matchedOf(o, cols, sel));
      } else matched.push([o.count, o.bytes]);
      const p = await vs.prepare(cols, rows);
      if (p === null) return false;
      prepared.push(p);
      opened.push({ o: cols, p });
    }
    // A group with rows in several objects gets them merged by the pool key
    // (runs of one object's rows; all of them at once where none interleave).
    if (run.length > 1 && vs.orderSensitive && vs.conflicts(prepared)) {
      const cols = opened.map((x) => x.o);
      const ties = () => tieOrder(cols, new Map(cols.map((c, k) => [k, c.rows])), this.key.desc);
      if (!(await vs.commitMerged(opened, this.key.path, this.key, op, ties))) return false;
    } else prepared.forEach((p) => vs.commit(p, op));
    run.forEach((o, k) => {
      stats.objectsRead++;
      countObjectRead(stats, o);
      stats.recordsMatched += matched[k][0];
      stats.bytesMatched += matched[k][1];
    });
    return true;
  }

  /** Pushes a run of objects' rows into the summarize (through the operator before it, if any). */
  private async fromRows(run: DataObject[], into: Op, stats: ScanStats): Promise<void> {
    const vf = this.plan.vectorFilter;
    const columns = (o: DataObject) => openColumns(this.lake, this.pool.id, o);
    const scan = new PoolScan(this.lake, this.pool, this.key, run, {
      range: this.plan.range,
      filter: this.plan.filter,
      thens: this.plan.thens,
      fields: this.plan.fields,
      ordered: !this.plan.orderFree,
      stats,
      // Rows the filter's columns rule out are not read (an object none pass, not at all).
      vector: vf === null ? undefined : { filter: vf, columns },
      columns: this.plan.rowsFromColumns && this.plan.fields !== null ? columns : undefined,
    });
    try {
      for (let b = await scan.read(); b !== null; b = await scan.read()) {
        this.signal?.throwIfAborted();
        into.push(b);
        await maybeYield();
      }
    } finally {
      await scan.close();
    }
  }
}

// `count()` over a pool, reading as little as it can: with no filter, or a
// filter that is exactly a key range, an object whose keys all lie in the
// range contributes its record count from metadata. Any other object the
// filter may match is counted from its columns when they can tell which rows
// pass, and from its rows (the parts the seek index allows) otherwise.

import type { ValueReader } from "../formats/io.ts";
import type { Expr, VectorFilter } from "../query/mod.ts";
import { zctx } from "../zed/context.ts";
import { TypeUint64 } from "../zed/types.ts";
import { type Batch, Value } from "../zed/value.ts";
import { VALUE } from "../zed/vector.ts";
import { columnProbe, type ObjectColumns, openColumns } from "./columns/mod.ts";
import type { Lake } from "./lake.ts";
import type { DataObject } from "./objects.ts";
import type { PoolKey } from "./poolkey.ts";
import type { PoolConfig } from "./pools.ts";
import {
  aboveLo,
  belowHi,
  type KeyRange,
  spanComparable,
  spanMayMatch,
  spanWithin,
} from "./prune.ts";
import { countObjectRead, newScanStats, PoolScan, type ScanStats } from "./scan.ts";
import {
  addStats,
  bytesToRead,
  objectsNamed,
  readShared,
  type ShareableScan,
  type ShareContext,
  type SharedPart,
} from "./share.ts";

export interface CountPlan {
  /** The filter's key range when the filter is exactly that range (or no filter: null). */
  exact: KeyRange | null | undefined;
  /** Keys outside this range cannot match. */
  range: KeyRange | null;
  filter: Expr | null;
  /** `where` filters folded after the filter (ScanOptions.thens). */
  thens?: readonly Expr[] | null;
  vector: VectorFilter | null;
  /** The fields the filter reads (the others need not be decoded), or null for all. */
  fields: string[] | null;
}

export class CountScan implements ValueReader, ShareableScan {
  private done = false;

  constructor(
    private lake: Lake,
    private pool: PoolConfig,
    private key: PoolKey,
    private objects: DataObject[],
    private plan: CountPlan,
    private field: string,
    private stats: ScanStats,
    private sharing?: ShareContext,
    private signal?: AbortSignal,
  ) {
    this.source = sharing?.register(this) ?? -1;
  }

  /** Its number among the query's shareable scans (share.ts). */
  private readonly source: number;

  /** Whether the count can come from the catalog alone for some objects (fromMetadataOnly may hold). */
  get metadataShaped(): boolean {
    return this.plan.exact !== undefined;
  }

  /**
   * True when the count comes from the catalog alone: no filter, or one that
   * is exactly a key range every object lies within or outside of.
   */
  fromMetadataOnly(): boolean {
    const { exact, range } = this.plan;
    if (exact === undefined) return false;
    for (const o of this.objects) {
      if (range !== null && !spanMayMatch(o.span, range)) continue;
      if (exact !== null && !spanWithin(o.span, o.first, o.last, exact)) return false;
    }
    return true;
  }

  async read(): Promise<Batch | null> {
    if (this.done) return null;
    this.done = true;
    const { exact, range } = this.plan;
    const stats = this.stats;
    let count = 0;
    const toRead: DataObject[][] = [];
    for (const o of this.objects) {
      if (range !== null && !spanMayMatch(o.span, range)) {
        stats.objectsPruned++;
        continue;
      }
      if (exact !== undefined && (exact === null || spanWithin(o.span, o.first, o.last, exact))) {
        // Every value passes: the catalog knows how many.
        count += o.count;
        countObjectRead(stats, o);
        stats.recordsMatched += o.count;
        stats.bytesMatched += o.bytes;
        continue;
      }
      toRead.push([o]);
    }
    await readShared(
      this.sharing?.helpers ?? null,
      this.source,
      toRead,
      (o) => bytesToRead(o, this.plan.fields),
      async (objects) => void (count += await this.countRead(objects, stats)),
      (part) => {
        count += new Float64Array(part.data.buffer, part.data.byteOffset, 1)[0];
        addStats(stats, part.stats);
      },
    );
    // As the reference: no values, no count.
    if (count === 0) return null;
    const t = zctx.lookupRecordOf([this.field], [TypeUint64]);
    return [new Value(t, [count])];
  }

  /** The count over the objects named, for another thread (ShareableScan). */
  async partial(ids: Set<string>): Promise<SharedPart | null> {
    const objects = objectsNamed(this.objects, ids);
    if (objects === null) return null;
    const stats = newScanStats();
    const count = await this.countRead(objects, stats);
    return { data: new Uint8Array(new Float64Array([count]).buffer), numbers: null, stats };
  }

  /** How many values of objects (none all in the exact range) pass the filter. */
  private async countRead(objects: DataObject[], stats: ScanStats): Promise<number> {
    const { exact, range, filter, vector } = this.plan;
    let count = 0;
    const rows: DataObject[] = [];
    for (const o of objects) {
      this.signal?.throwIfAborted();
      if (exact !== undefined && exact !== null && spanComparable(o.span, exact)) {
        // The object is sorted by the key: the rows in range are one run of it.
        const cols = openColumns(this.lake, this.pool.id, o);
        const run = cols === null ? null : await keyRun(cols, this.key, exact);
        if (run !== null) {
          const [from, to] = run;
          stats.objectsRead++;
          count += to - from;
          countObjectRead(stats, o);
          stats.recordsMatched += to - from;
          stats.bytesMatched += await cols!.runBytes(from, to, o.bytes);
          continue;
        }
      }
      const cols = vector === null ? null : openColumns(this.lake, this.pool.id, o);
      const found = cols === null ? null : await vector!.count(cols);
      if (found === null) {
        rows.push(o);
        continue;
      }
      stats.objectsRead++;
      count += found.count;
      countObjectRead(stats, o);
      stats.recordsMatched += found.matched.count;
      stats.bytesMatched += found.matched.bytes;
    }
    if (rows.length > 0) {
      const scan = new PoolScan(this.lake, this.pool, this.key, rows, {
        range,
        filter,
        thens: this.plan.thens,
        fields: this.plan.fields,
        ordered: false,
        stats,
      });
      for (let b = await scan.read(); b !== null; b = await scan.read()) {
        this.signal?.throwIfAborted();
        count += b.length;
      }
    }
    return count;
  }
}

/**
 * The rows [from, to) of an object whose keys are in a range, found by
 * binary search on its key column (the object is in key order, null and
 * missing keys last); null when the key is not one column of one type.
 */
async function keyRun(
  cols: ObjectColumns,
  key: PoolKey,
  r: KeyRange,
): Promise<[number, number] | null> {
  const refs = cols.columnsOf(key.path);
  if (refs.length !== 1) return null;
  // A few rows of the key column are read, rather than all of it.
  let at = columnProbe(cols, refs[0]);
  if (at === undefined) {
    const v = await cols.vector(refs[0]);
    at = (i) => v.state[i] === VALUE ? new Value(v.type, v.body(i)) : null;
  }
  const probe = at;
  // Rows with keys come first.
  const end = firstTrue(0, cols.rows, (i) => probe(i) === null);
  // In pool order the range's keys are a run: [a, b).
  const desc = key.desc;
  const a = firstTrue(0, end, (i) => desc ? belowHi(probe(i)!, r) : aboveLo(probe(i)!, r));
  const b = firstTrue(a, end, (i) => desc ? !aboveLo(probe(i)!, r) : !belowHi(probe(i)!, r));
  return [a, b];
}

/** The first i in [lo, hi) for which pred (false, then true) holds; hi if none. */
function firstTrue(lo: number, hi: number, pred: (i: number) => boolean): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (pred(mid)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

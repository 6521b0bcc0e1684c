// `count()` over a pool without reading what the catalog already knows: with
// no filter, or a filter that is exactly a key range, an object whose keys
// all lie in the range contributes its record count from metadata; only the
// objects that straddle the range are read (the parts the seek index
// allows) and their matching values counted.

import type { ValueReader } from "../formats/io.ts";
import type { Expr } from "../query/runtime/expr.ts";
import { zctx } from "../zed/context.ts";
import { TypeUint64 } from "../zed/types.ts";
import { type Batch, Value } from "../zed/value.ts";
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
import { column } from "./vectors.ts";
import { PoolScan, type ScanStats } from "./scan.ts";

export class CountScan implements ValueReader {
  private done = false;

  constructor(
    private lake: Lake,
    private pool: PoolConfig,
    private key: PoolKey,
    private objects: DataObject[],
    /** The filter's exact key range, or null when there is no filter. */
    private range: KeyRange | null,
    private filter: Expr | null,
    private field: string,
    private stats: ScanStats,
  ) {}

  async read(): Promise<Batch | null> {
    if (this.done) return null;
    this.done = true;
    let count = 0;
    const partial: DataObject[] = [];
    const r = this.range;
    for (const o of this.objects) {
      if (r === null || spanWithin(o.span, o.first, o.last, r)) count += o.count;
      else if (spanMayMatch(o.span, r)) partial.push(o);
      else this.stats.objectsPruned++;
    }
    const scanned: DataObject[] = [];
    for (const o of partial) {
      const n = await this.countByColumn(o);
      if (n === null) scanned.push(o);
      else count += n;
    }
    if (scanned.length > 0) {
      const scan = new PoolScan(this.lake, this.pool, this.key, scanned, {
        range: r,
        filter: this.filter,
        fields: [],
        stats: this.stats,
      });
      for (let b = await scan.read(); b !== null; b = await scan.read()) count += b.length;
    }
    const t = zctx.lookupRecordOf([this.field], [TypeUint64]);
    return [new Value(t, [count])];
  }

  /**
   * The values of an object whose keys are in the range, counted from the
   * key's column: null when the key is nested or its values do not all
   * compare with the range by value. The object is sorted by the key, so
   * its column's dictionary lists the keys in pool order (nulls and missing
   * keys last) and the indexes never decrease: two binary searches find the
   * keys in range, two more the values that have them.
   */
  private async countByColumn(o: DataObject): Promise<number | null> {
    const r = this.range!;
    if (this.key.path.length !== 1 || !spanComparable(o.span, r)) return null;
    const col = await column(this.lake, this.pool, this.key, o, this.key.path[0]);
    const keyType = o.span.lo!.type;
    const dict = col.dict;
    let m = 0;
    while (m < dict.length && dict[m].type === keyType && dict[m].body !== null) m++;
    const desc = this.key.desc;
    // In pool order the range's keys are a run: [a, b) of the dictionary.
    const a = firstTrue(0, m, (d) => desc ? belowHi(dict[d], r) : aboveLo(dict[d], r));
    const b = firstTrue(a, m, (d) => desc ? !aboveLo(dict[d], r) : !belowHi(dict[d], r));
    const index = col.index;
    const n = firstTrue(0, index.length, (i) => index[i] >= b) -
      firstTrue(0, index.length, (i) => index[i] >= a);
    return n;
  }
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

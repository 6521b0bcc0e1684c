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
import { type KeyRange, spanMayMatch, spanWithin } from "./prune.ts";
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
    if (partial.length > 0) {
      const scan = new PoolScan(this.lake, this.pool, this.key, partial, {
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
}

// `count() by f, ...` over a pool from columns (vectors.ts): for each object
// whose values all pass the filter (no filter, or an exact key range that
// covers the object), the key columns are counted per distinct key and the
// counts handed to the query's own summarize; objects that straddle the range
// are scanned and their values pushed to it as usual. The summarize makes the
// output, so it is the same as without columns.

import type { ValueReader } from "../formats/io.ts";
import { Summarize } from "../query/ops/summarize.ts";
import type { Expr } from "../query/runtime/expr.ts";
import { Collector, type OpFactory } from "../query/runtime/op.ts";
import type { Batch, Value } from "../zed/value.ts";
import type { Lake } from "./lake.ts";
import type { DataObject } from "./objects.ts";
import type { PoolKey } from "./poolkey.ts";
import type { PoolConfig } from "./pools.ts";
import { type KeyRange, spanMayMatch, spanWithin } from "./prune.ts";
import { PoolScan, type ScanStats } from "./scan.ts";
import { column } from "./vectors.ts";

export class GroupCountScan implements ValueReader {
  private out: Batch[] | null = null;

  private constructor(
    private lake: Lake,
    private pool: PoolConfig,
    private key: PoolKey,
    private objects: DataObject[],
    private range: KeyRange | null,
    private filter: Expr | null,
    private fields: string[],
    private summarize: Summarize,
    private collector: Collector,
    private stats: ScanStats,
  ) {}

  /** A scan for the plan's summarize, or null when it is not one columns can feed. */
  static make(
    lake: Lake,
    pool: PoolConfig,
    key: PoolKey,
    objects: DataObject[],
    range: KeyRange | null,
    filter: Expr | null,
    fields: string[],
    make: OpFactory,
    stats: ScanStats,
  ): GroupCountScan | null {
    const collector = new Collector();
    const op = make(collector);
    if (!(op instanceof Summarize) || !op.countsOnly) return null;
    return new GroupCountScan(
      lake,
      pool,
      key,
      objects,
      range,
      filter,
      fields,
      op,
      collector,
      stats,
    );
  }

  async read(): Promise<Batch | null> {
    if (this.out === null) this.out = await this.run();
    return this.out.shift() ?? null;
  }

  private async run(): Promise<Batch[]> {
    const r = this.range;
    const partial: DataObject[] = [];
    for (const o of this.objects) {
      if (r === null || spanWithin(o.span, o.first, o.last, r)) await this.countObject(o);
      else if (spanMayMatch(o.span, r)) partial.push(o);
      else this.stats.objectsPruned++;
    }
    if (partial.length > 0) {
      const scan = new PoolScan(this.lake, this.pool, this.key, partial, {
        range: r,
        filter: this.filter,
        fields: this.fields,
        ordered: false,
        stats: this.stats,
      });
      for (let b = await scan.read(); b !== null; b = await scan.read()) this.summarize.push(b);
    }
    await this.summarize.end();
    return this.collector.take();
  }

  /** Counts an object's values per distinct combination of its key columns. */
  private async countObject(o: DataObject): Promise<void> {
    const cols = [];
    for (const f of this.fields) cols.push(await column(this.lake, this.pool, this.key, o, f));
    if (cols.length === 1) {
      const [col] = cols;
      const counts = new Uint32Array(col.dict.length);
      const index = col.index;
      for (let i = 0; i < index.length; i++) counts[index[i]]++;
      for (let d = 0; d < counts.length; d++) {
        if (counts[d] > 0) this.summarize.addCounted([col.dict[d]], counts[d]);
      }
      return;
    }
    // Several keys: count each combination of dictionary indexes.
    const combos = new Map<string, number>();
    const first = new Map<string, number>();
    for (let i = 0; i < o.count; i++) {
      let k = "";
      for (const c of cols) k += c.index[i] + ",";
      const n = combos.get(k);
      if (n === undefined) {
        combos.set(k, 1);
        first.set(k, i);
      } else combos.set(k, n + 1);
    }
    for (const [k, n] of combos) {
      const i = first.get(k)!;
      const keys: Value[] = cols.map((c) => c.dict[c.index[i]]);
      this.summarize.addCounted(keys, n);
    }
  }
}

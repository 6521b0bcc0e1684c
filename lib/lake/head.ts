// The first N values of a pool in pool order (`head N`, a sort the pool's
// order already satisfies, with its head), found from the objects' key
// columns: within a run of overlapping objects, the key columns are merged
// (restricted to the rows the filter passes, by the filter's columns) to
// pick the N rows, and only those are made into values — from the columns
// when the query reads only fields they hold, else decoded from the objects'
// seek streams holding them, the other rows skipped undecoded.
//
// Equal keys in different objects come out in the order of the values'
// encoded bytes, which columns do not know: a run where the merge meets such
// a tie, like one whose columns cannot answer, is read from its rows (merged
// as a scan merges) for the rest of the values.

import type { ValueReader } from "../formats/io.ts";
import { type Expr, type HeadCut, LimitReader, OpReader, type VectorFilter } from "../query/mod.ts";
import type { Batch, Value } from "../zed/value.ts";
import type { Vector } from "../zed/vector.ts";
import { type ObjectColumns, openColumns } from "./columns/mod.ts";
import { Cursor, CursorHeap, cursorOrder, sharedPrefix } from "./headmerge.ts";
import { RowTies } from "./ties.ts";
import type { Lake } from "./lake.ts";
import type { DataObject } from "./objects.ts";
import { type Pick, PickedValues } from "./picks.ts";
import type { PoolKey } from "./poolkey.ts";
import type { PoolConfig } from "./pools.ts";
import { type KeyRange, spanMayMatch } from "./prune.ts";
import { groupOverlapping, PoolScan, type ScanStats } from "./scan.ts";

/** Rows whose keys are read at first from each object of a run, before the merge needs more. */
const FIRST_KEYS = 256;

export interface HeadPlan {
  limit: number;
  /** How many of the first values are passed over (counted, never made); none when absent. */
  skip?: number;
  range: KeyRange | null;
  filter: Expr | null;
  /** `where` filters folded after the filter (ScanOptions.thens). */
  thens?: readonly Expr[] | null;
  vector: VectorFilter | null;
  /** The top-level fields the query reads, or null for all. */
  fields: string[] | null;
  /** A cut the scan performs on the values (absent or null: none). */
  cut?: HeadCut | null;
}

export class HeadScan implements ValueReader {
  private out: Value[] | null = null;
  private rest: ValueReader | null = null;
  private picked: PickedValues;

  constructor(
    private lake: Lake,
    private pool: PoolConfig,
    private key: PoolKey,
    private objects: DataObject[],
    private plan: HeadPlan,
    private stats: ScanStats,
  ) {
    this.picked = new PickedValues(lake, pool, key, plan.fields, plan.cut ?? null, stats);
  }

  async read(): Promise<Batch | null> {
    if (this.out === null) {
      this.out = await this.run();
      if (this.out.length > 0) return this.out;
    }
    if (this.rest !== null) return await this.rest.read();
    return null;
  }

  async close(): Promise<void> {
    await this.rest?.close?.();
  }

  /** The values found from columns; the rest (if columns could not answer) left to this.rest. */
  private async run(): Promise<Value[]> {
    const { limit, range } = this.plan;
    const live = this.objects.filter((o) => {
      if (range !== null && !spanMayMatch(o.span, range)) {
        this.stats.objectsPruned++;
        return false;
      }
      return true;
    });
    const runs = groupOverlapping(live, (o) => o, this.key);
    const out: Value[] = [];
    // Values found so far (those passed over among them), and those yet to pass over.
    let found = 0;
    let skip = this.plan.skip ?? 0;
    for (let k = 0; k < runs.length && found < limit; k++) {
      const picked = await this.fromColumns(runs[k], limit - found, skip);
      if (picked === null) {
        // From here on, the rows.
        const scan = new PoolScan(this.lake, this.pool, this.key, runs.slice(k).flat(), {
          range,
          filter: this.plan.filter,
          thens: this.plan.thens,
          fields: this.plan.fields,
          ordered: true,
          stats: this.stats,
          // Objects whose columns can select their rows still read only those.
          vector: this.plan.vector === null ? undefined : {
            filter: this.plan.vector,
            columns: (o) => openColumns(this.lake, this.pool.id, o),
          },
        });
        const first = new LimitReader(scan, limit - found, skip);
        const cut = this.plan.cut;
        this.rest = cut ? new OpReader(first, cut.make) : first;
        break;
      }
      found += picked.found;
      skip -= picked.found - picked.values.length;
      for (let i = 0; i < picked.values.length; i++) out.push(picked.values[i]);
    }
    return out;
  }

  /**
   * The first `need` values of a run of objects (how many found, and those
   * made: all but the first `skip`), or null when the columns cannot tell.
   */
  private async fromColumns(
    run: DataObject[],
    need: number,
    skip: number,
  ): Promise<{ found: number; values: Value[] } | null> {
    const cols: ObjectColumns[] = [];
    const keys: (Vector | null)[] = [];
    const grows: (((n: number) => Vector) | null)[] = [];
    const sels: (Uint8Array | null)[] = [];
    for (const o of run) {
      const c = openColumns(this.lake, this.pool.id, o);
      if (c === null) return null;
      const refs = c.columnsOf(this.key.path);
      if (refs.length > 1) return null; // keys of several types
      // Without a filter, an object gives at most `need` rows (more only on
      // ties), and most give few: its first rows' keys are read, and more as
      // the merge reaches them (Cursor.advance).
      const prefix = this.plan.filter === null ? Math.min(need + 1, FIRST_KEYS) : c.rows;
      keys.push(refs.length === 0 ? null : await c.prefixVector(refs[0], prefix));
      grows.push(refs.length === 0 ? null : (n: number) => c.prefixVectorNow(refs[0], n));
      let sel: Uint8Array | null = null;
      if (this.plan.filter !== null) {
        if (this.plan.vector === null) return null;
        const s = await this.plan.vector.select(c);
        if (s === null) return null;
        if (!s.all) sel = s.rows;
      }
      cols.push(c);
      sels.push(sel);
    }
    const picks = await this.merge(run, cols, keys, grows, sels, need);
    const values = await this.picked.values(run, cols, picks, Math.min(skip, picks.length));
    return { found: picks.length, values };
  }

  /**
   * The rows that come first in pool order. Equal keys in different objects
   * are ordered by the values' encoded bytes, for which those rows are
   * decoded (all such rows at once, after the merge).
   */
  private async merge(
    run: DataObject[],
    cols: ObjectColumns[],
    keys: (Vector | null)[],
    grows: (((n: number) => Vector) | null)[],
    sels: (Uint8Array | null)[],
    need: number,
  ): Promise<Pick[]> {
    const cmp = cursorOrder(keys, this.key);
    const skip = sharedPrefix(run);
    let cursors: Cursor[] = [];
    run.forEach((o, i) => {
      const c = new Cursor(i, o.count, keys[i], sels[i], grows[i]);
      c.skip = skip;
      if (c.advance()) cursors.push(c);
    });
    let heap = new CursorHeap(cursors, cmp);
    const picks: Pick[] = [];
    /** Runs of picks [start, end) with one key from several objects. */
    const ties: [number, number][] = [];
    while (picks.length < need && heap.size > 0) {
      const top = heap.top();
      const tied = heap.equalToTop();
      if (tied.length === 0) {
        picks.push({ obj: top.obj, row: top.row });
        if (top.advance()) heap.fix();
        else heap.pop();
        continue;
      }
      // Every row with this key, from each tied object (all of them, so
      // their order can be settled before the head is cut).
      const start = picks.length;
      for (const c of [top, ...tied]) {
        const first = { ...c } as Cursor;
        do picks.push({ obj: c.obj, row: c.row }); while (c.advance() && cmp(c, first) === 0);
      }
      ties.push([start, picks.length]);
      cursors = heap.all().filter((c) => c.row < c.rows);
      heap = new CursorHeap(cursors, cmp);
    }
    if (ties.length > 0) await this.orderTies(run, cols, picks, ties);
    return picks.slice(0, need);
  }

  /**
   * Sorts each run of tied picks by the encoded bytes of their values (in
   * pool direction): by the bytes' prefixes and sizes the columns keep where
   * those decide, else by the values, decoded for the runs that need them.
   */
  private async orderTies(
    run: DataObject[],
    cols: ObjectColumns[],
    picks: Pick[],
    ties: [number, number][],
  ) {
    // Per object, the rows up to its last tied one.
    const upTo = new Map<number, number>();
    for (const [a, b] of ties) {
      for (let i = a; i < b; i++) {
        const { obj, row } = picks[i];
        upTo.set(obj, Math.max(upTo.get(obj) ?? 0, row + 1));
      }
    }
    // By the bytes' prefixes, else the fields' columns.
    const byColumns = await RowTies.of(cols, upTo, this.key.desc);
    const undecided: [number, number][] = [];
    for (const [a, b] of ties) {
      let open = false;
      const sorted = picks.slice(a, b).sort((x, y) => {
        const c = byColumns.compare(x.obj, x.row, y.obj, y.row);
        if (c === undefined) {
          open = true;
          return 0;
        }
        return c;
      });
      if (open) undecided.push([a, b]);
      else for (let i = a; i < b; i++) picks[i] = sorted[i - a];
    }
    if (undecided.length === 0) return;
    const tied: Pick[] = [];
    for (const [a, b] of undecided) for (let i = a; i < b; i++) tied.push(picks[i]);
    const enc = await this.picked.encodings(run, tied);
    for (const [a, b] of undecided) {
      const sorted = picks.slice(a, b).sort((x, y) =>
        this.key.compareTies(enc.get(x)!, enc.get(y)!)
      );
      for (let i = a; i < b; i++) picks[i] = sorted[i - a];
    }
  }
}

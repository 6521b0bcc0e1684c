// Rows picked from a run of objects (by object and row number), made into
// values: from the columns when the query reads only fields they hold (or a
// cut of top-level fields they hold), else decoded from the seek streams
// holding them, the other rows skipped undecoded. Heads (head.ts) and top-k
// sorts by a field (fieldtopk.ts) pick their rows from columns this way.

import { ZngDecoder } from "../formats/zng/reader.ts";
import {
  Collector,
  type HeadCut,
  MISSING,
  type Selection,
  type VectorFilter,
} from "../query/mod.ts";
import { Value } from "../zed/value.ts";
import { VALUE, type Vector } from "../zed/vector.ts";
import { encodeBody } from "../zed/zcode.ts";
import {
  cutFromColumns,
  type ObjectColumns,
  openColumns,
  valuesFromColumns,
} from "./columns/mod.ts";
import type { Lake } from "./lake.ts";
import { type DataObject, seekIndex } from "./objects.ts";
import type { PoolKey } from "./poolkey.ts";
import type { PoolConfig } from "./pools.ts";
import { type KeyRange, spanMayMatch } from "./prune.ts";
import { projection } from "./objectstreams.ts";
import { countObjectRead, type ScanStats } from "./scan.ts";

/**
 * The rows of picks from `from` on, by object, in pick order; with at, each
 * one's place in its object's list (at[n - from] for pick n).
 */
function rowsByObject(
  picks: readonly Pick[],
  from: number,
  at?: Uint32Array,
): Map<number, number[]> {
  const byObj = new Map<number, number[]>();
  for (let n = from; n < picks.length; n++) {
    const p = picks[n];
    let rows = byObj.get(p.obj);
    if (rows === undefined) byObj.set(p.obj, rows = []);
    if (at !== undefined) at[n - from] = rows.length;
    rows.push(p.row);
  }
  return byObj;
}

/** A picked row: its object (index into the run) and row number. */
export interface Pick {
  obj: number;
  row: number;
}

export class PickedValues {
  constructor(
    private lake: Lake,
    private pool: PoolConfig,
    private key: PoolKey,
    /** The top-level fields the query reads, or null for all. */
    private fields: string[] | null,
    /** A cut of top-level fields the values are made with, or null. */
    private cut: HeadCut | null,
    private stats: ScanStats,
    /** Whether values() counts the picked rows as read (else the caller counts). */
    private countsRead = true,
  ) {}

  /**
   * The picked rows as values, in pick order; the first `skip` picks are
   * not made (but counted as read, as all are).
   */
  async values(
    run: DataObject[],
    cols: ObjectColumns[],
    picks: readonly Pick[],
    skip = 0,
  ): Promise<Value[]> {
    /** Each made pick's place in its object's list of rows. */
    const at = new Uint32Array(Math.max(0, picks.length - skip));
    const byObj = rowsByObject(picks, skip, at);
    const found = new Map<number, Value[]>();
    const cut = this.cut;
    for (const [i, rows] of byObj) {
      // The values of rows, in their order (cut, when the scan cuts them).
      const vals = cut === null
        ? (await this.fromColumnValues(cols[i], rows)) ??
          (await this.fromRows(run[i], rows, true))
        : (await cutFromColumns(cols[i], rows, cut.names, MISSING)) ??
          cutValues(cut, await this.fromRows(run[i], rows, true));
      found.set(i, vals);
    }
    if (this.countsRead) {
      for (const [i, rows] of skip === 0 ? byObj : rowsByObject(picks, 0)) {
        const sizes = await cols[i].sizesPrefix(rows.reduce((m, r) => Math.max(m, r), 0) + 1);
        let bytes = 0;
        for (let n = 0; n < rows.length; n++) bytes += sizes[rows[n]];
        this.stats.recordsRead += rows.length;
        this.stats.recordsMatched += rows.length;
        this.stats.bytesRead += bytes;
        this.stats.bytesMatched += bytes;
        this.stats.objectsRead++;
      }
    }
    const out: Value[] = new Array(at.length);
    for (let n = skip; n < picks.length; n++) {
      out[n - skip] = found.get(picks[n].obj)![at[n - skip]];
    }
    return out;
  }

  /**
   * Rows made from columns, as a scan that decodes only the fields the query
   * reads makes them (the others null); null when the columns cannot.
   */
  private async fromColumnValues(c: ObjectColumns, rows: number[]): Promise<Value[] | null> {
    const fields = this.fields;
    let want: Set<string> | null = null;
    if (fields !== null) {
      want = new Set(fields);
      if (this.key.path.length > 0) want.add(this.key.path[0]);
    }
    return await valuesFromColumns(c, rows, want);
  }

  /**
   * Rows decoded from the seek streams holding them (only the fields the
   * query reads, when projected), the others skipped undecoded.
   */
  async fromRows(o: DataObject, rows: number[], projected: boolean): Promise<Value[]> {
    const entries = seekIndex(this.lake.catalog, o.id);
    const first = rows[0], last = rows[rows.length - 1];
    let s0 = 0, s1 = entries.length - 1;
    for (let s = 0; s < entries.length; s++) {
      if (entries[s].count <= first) s0 = s;
      if (entries[s].count <= last) s1 = s;
    }
    const offset = entries.length === 0 ? 0 : entries[s0].offset;
    const end = s1 + 1 < entries.length ? entries[s1 + 1].offset : o.size;
    const firstRow = entries.length === 0 ? 0 : entries[s0].count;
    const mask = new Uint8Array(o.count);
    for (const r of rows) mask[r] = 1;
    const dec = new ZngDecoder(undefined, {
      project: projected ? projection(this.fields, this.key) : undefined,
      select: { rows: mask, first: firstRow },
    });
    const out: Value[] = [];
    const path = this.lake.objectPath(this.pool.id, o.id);
    const storage = this.lake.storage;
    if (storage.readSync !== undefined) {
      // A small read: at once, without the overhead of asynchronous file reads.
      const bytes = new Uint8Array(end - offset);
      const n = storage.readSync(path, offset, bytes);
      this.stats.bytesFetched += n;
      dec.feed(bytes.subarray(0, n), true);
      drain(dec, out);
      return out;
    }
    for await (const chunk of storage.readRange(path, offset, end - offset)) {
      this.stats.bytesFetched += chunk.length;
      dec.feed(chunk);
      drain(dec, out);
      if (out.length >= rows.length) break;
    }
    if (out.length < rows.length) {
      dec.feed(new Uint8Array(0), true);
      drain(dec, out);
    }
    return out;
  }

  /** The encoded bodies of picked rows (whole values, decoded for this), by pick. */
  async encodings<T extends Pick>(
    run: DataObject[],
    picks: Iterable<T>,
  ): Promise<Map<T, Uint8Array>> {
    const byObj = new Map<number, T[]>();
    for (const p of picks) {
      let list = byObj.get(p.obj);
      if (list === undefined) byObj.set(p.obj, list = []);
      list.push(p);
    }
    const enc = new Map<T, Uint8Array>();
    for (const [o, list] of byObj) {
      list.sort((x, y) => x.row - y.row);
      const vals = await this.fromRows(run[o], list.map((p) => p.row), false);
      list.forEach((p, k) => enc.set(p, encodeBody(vals[k].type, vals[k].body)));
    }
    return enc;
  }
}

/** What a cut makes of values (one each). */
function cutValues(cut: HeadCut, vals: Value[]): Value[] {
  const collector = new Collector();
  cut.make(collector).push(vals);
  return collector.take().flat();
}

function drain(dec: ZngDecoder, out: Value[]): void {
  for (;;) {
    const r = dec.next();
    if (r === null || r === undefined) return;
    if (Array.isArray(r)) { for (const v of r) out.push(v); }
  }
}

/**
 * Picked rows in the order cmp gives them (none: all equal), equal ones in
 * pool order: by pool key (nulls last), equal keys within an object by row,
 * and in different objects by their values' encoded bytes (decoded for those
 * only). Null when an object's keys are in columns of several types.
 */
export async function inPoolOrder<T extends Pick>(
  rows: T[],
  live: DataObject[],
  cols: ObjectColumns[],
  key: PoolKey,
  made: PickedValues,
  cmp: (a: T, b: T) => number = () => 0,
): Promise<T[] | null> {
  const upTo = new Map<number, number>();
  for (const c of rows) upTo.set(c.obj, Math.max(upTo.get(c.obj) ?? 0, c.row + 1));
  const keyVectors = new Map<number, Vector | null>();
  for (const [o, n] of upTo) {
    const refs = cols[o].columnsOf(key.path);
    if (refs.length > 1) return null;
    keyVectors.set(o, refs.length === 0 ? null : await cols[o].prefixVector(refs[0], n));
  }
  const keyOf = new Map<T, Value | null>();
  for (const c of rows) {
    const v = keyVectors.get(c.obj)!;
    keyOf.set(c, v === null || v.state[c.row] !== VALUE ? null : new Value(v.type, v.body(c.row)));
  }
  const byKey = (a: T, b: T) => {
    const c = cmp(a, b);
    if (c !== 0) return c;
    const ka = keyOf.get(a)!, kb = keyOf.get(b)!;
    if (ka === null || kb === null) {
      if (ka !== kb) return ka === null ? 1 : -1;
    } else {
      const k = key.compare(ka, kb);
      if (k !== 0) return k;
    }
    return 0;
  };
  const sorted = rows.slice().sort((a, b) => byKey(a, b) || a.obj - b.obj || a.row - b.row);
  // Runs of equal value and key from several objects: ordered by their encodings.
  const tied: T[] = [];
  for (let i = 0; i < sorted.length;) {
    let j = i + 1;
    while (j < sorted.length && byKey(sorted[i], sorted[j]) === 0) j++;
    if (sorted[j - 1].obj !== sorted[i].obj) { for (let k = i; k < j; k++) tied.push(sorted[k]); }
    i = j;
  }
  if (tied.length === 0) return sorted;
  // The tied rows' encodings, then the sort again with them.
  const enc = await made.encodings(live, tied);
  return rows.slice().sort((a, b) => {
    const c = byKey(a, b);
    if (c !== 0) return c;
    if (a.obj !== b.obj) return key.compareTies(enc.get(a)!, enc.get(b)!);
    return a.row - b.row;
  });
}

/** The objects rows are picked from, their columns, and the rows the filter passes in each. */
export interface LiveColumns {
  /** The objects whose keys may be in range. */
  live: DataObject[];
  cols: ObjectColumns[];
  /** Per live object, the rows its filter passes (null: every row). */
  sels: (Selection | null)[];
}

/**
 * The objects of objects within range, with their columns and the rows the
 * filter's columns pass; null when one has no columns, or its columns cannot
 * tell which rows pass.
 */
export async function liveColumns(
  lake: Lake,
  pool: PoolConfig,
  objects: DataObject[],
  range: KeyRange | null,
  vector: VectorFilter | null,
): Promise<LiveColumns | null> {
  const live = objects.filter((o) => range === null || spanMayMatch(o.span, range));
  const cols: ObjectColumns[] = [];
  const sels: (Selection | null)[] = [];
  for (const o of live) {
    const c = openColumns(lake, pool.id, o);
    if (c === null) return null;
    const sel = vector === null ? null : await vector.select(c);
    if (vector !== null && sel === null) return null;
    cols.push(c);
    sels.push(sel);
  }
  return { live, cols, sels };
}

/**
 * Counts the live objects of objects (the others pruned) as read whole (an
 * operator that needs every value, such as sort or tail, reads them all), and
 * the rows their selections pass as matched.
 */
export async function countWholeRead(
  stats: ScanStats,
  objects: DataObject[],
  live: DataObject[],
  cols: ObjectColumns[],
  sels: (Selection | null)[],
): Promise<void> {
  stats.objectsPruned += objects.length - live.length;
  for (let i = 0; i < live.length; i++) {
    const o = live[i], sel = sels[i];
    stats.objectsRead++;
    countObjectRead(stats, o);
    const [count, bytes] = await matchedOf(o, cols[i], sel);
    stats.recordsMatched += count;
    stats.bytesMatched += bytes;
  }
}

/**
 * What QueryStats count as matched of an object whose rows a selection
 * passes (null: all): the rows of the lifted filter (where filters folded
 * after it narrowed them, its own rows), and their size.
 */
export async function matchedOf(
  o: DataObject,
  cols: ObjectColumns,
  sel: Selection | null,
): Promise<[number, number]> {
  const matched = sel?.lifted ?? sel;
  if (matched === null || matched.all) return [o.count, o.bytes];
  return [matched.count, await cols.selectedBytes(matched.rows)];
}

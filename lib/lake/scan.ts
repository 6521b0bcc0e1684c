// Reading a snapshot of a pool (lake-api.md §12.2, §15.3): values come out in
// pool-key order. Objects whose key spans cannot meet the key range of the
// query's leading filter are skipped, and within an object only the streams
// the seek index says may hold such keys are read. Objects whose spans
// overlap are merged; the others are read one after another. The leading
// filter is applied here, per object, so what was read and what matched are
// counted: from an object's columns when they can tell which rows pass (only
// the streams holding those rows are then read), else value by value.

import type { ValueReader } from "../formats/io.ts";
import { type EncodedValues, type Expr, throughFilters, type VectorFilter } from "../query/mod.ts";
import type { Batch, Value } from "../zed/value.ts";
import type { Lake } from "./lake.ts";
import { ColumnRows, type ObjectColumns } from "./columns/mod.ts";
import { type DataObject, type SeekEntry, seekIndex } from "./objects.ts";
import {
  ColumnStream,
  ConcatStream,
  MergeStream,
  noFields,
  type ObjectPart,
  ObjectStream,
  type Projection,
  projection,
  type Stream,
} from "./objectstreams.ts";
import type { PoolKey } from "./poolkey.ts";
import { type KeyRange, seekStreams, spanMayMatch } from "./prune.ts";
import type { PoolConfig } from "./pools.ts";

/**
 * What scans read, as the reference reports it in QueryStats: value bytes
 * are the sizes of the values' encoded bodies (not the compressed bytes on
 * disk, which bytesFetched counts).
 */
export interface ScanStats {
  /** Body bytes of the values decoded. */
  bytesRead: number;
  /** Body bytes of the values that passed the filter. */
  bytesMatched: number;
  /** Values decoded. */
  recordsRead: number;
  /** Values that passed the filter. */
  recordsMatched: number;
  /** Bytes read from data object files. */
  bytesFetched: number;
  /** Objects read (whole or in part). */
  objectsRead: number;
  /** Objects skipped because no key in them can match, or (also) their indexes say none can. */
  objectsPruned: number;
  /** Objects skipped because their field indexes prove no record can pass the filter. */
  objectsSkippedByIndex: number;
}

export function newScanStats(): ScanStats {
  return {
    bytesRead: 0,
    bytesMatched: 0,
    recordsRead: 0,
    recordsMatched: 0,
    bytesFetched: 0,
    objectsRead: 0,
    objectsPruned: 0,
    objectsSkippedByIndex: 0,
  };
}

export interface ScanOptions {
  /** Keys outside this range need not be read. */
  range: KeyRange | null;
  /** Applied to every value read, as `where` would. */
  filter: Expr | null;
  /**
   * `where` filters folded into the source after its filter (SourcePlan):
   * the values it passes go through them, in pool order, as through their
   * operators.
   */
  thens?: readonly Expr[] | null;
  /** Top-level fields to decode (others read as null); null for all. */
  fields?: string[] | null;
  /** False when the consumer does not care about order: overlapping objects are not merged. */
  ordered?: boolean;
  /**
   * The positions of an object's records that may pass the filter (first,
   * last), when an index knows them: only the streams holding those are read.
   */
  records?: (o: DataObject) => [number, number] | undefined;
  /**
   * The filter over columns, and the columns of an object (null when it has
   * none): objects whose columns can tell which rows pass read only the
   * streams holding those; the others have the filter applied to their values.
   */
  vector?: { filter: VectorFilter; columns: (o: DataObject) => ObjectColumns | null };
  /**
   * The columns of an object (null when it has none), to make the values of
   * a projected scan from rather than decode them, where they can.
   */
  columns?: (o: DataObject) => ObjectColumns | null;
  /** Values carry their encoded bodies (EncodedValue), decoded only for `fields` (see EncodedValues). */
  encoded?: EncodedValues;
  stats?: ScanStats;
}

/** Rows selected from fewer than one in this many of a part's are decoded, not made from columns. */
const SPARSE = 16;

export class PoolScan implements ValueReader {
  readonly stats: ScanStats;
  private groups: ObjectPart[][];
  private g = 0;
  private current: Stream | null = null;
  private project: Projection | undefined;

  constructor(
    private lake: Lake,
    private pool: PoolConfig,
    private key: PoolKey,
    objects: DataObject[],
    private opts: ScanOptions,
  ) {
    this.stats = opts.stats ?? newScanStats();
    this.project = projection(opts.fields, key);
    this.groups = groupOverlapping(this.plan(objects), (p) => p.object, key);
  }

  /** The parts of the objects that may hold matching keys (and records an index points at). */
  private plan(objects: DataObject[]): ObjectPart[] {
    const r = this.opts.range;
    const records = this.opts.records;
    const parts: ObjectPart[] = [];
    for (const o of objects) {
      const rows = records?.(o);
      if (r === null && rows === undefined) {
        parts.push({ object: o, offset: 0, length: o.size, firstRow: 0, rows: null });
        continue;
      }
      if (r !== null && !spanMayMatch(o.span, r)) {
        this.stats.objectsPruned++;
        continue;
      }
      const entries = seekIndex(this.lake.catalog, o.id);
      let streams: [number, number] | null = r === null || o.span.mixed || entries.length === 0
        ? [0, entries.length - 1]
        : seekStreams(entries, this.key.desc, r);
      if (streams !== null && rows !== undefined && entries.length > 0) {
        streams = intersectStreams(streams, recordStreams(entries, rows));
      }
      if (streams === null) {
        this.stats.objectsPruned++;
        continue;
      }
      parts.push(streamsPart(o, entries, streams));
    }
    return parts;
  }

  /**
   * A part narrowed to the streams holding the rows its object's columns
   * pass, counted as read; null when none pass. Unchanged when the columns
   * cannot tell.
   */
  private async selected(p: ObjectPart): Promise<ObjectPart | null> {
    const v = this.opts.vector!;
    const o = p.object;
    const cols = v.columns(o);
    const sel = cols === null ? null : await v.filter.select(cols);
    if (sel === null) return p;
    const entries = seekIndex(this.lake.catalog, o.id);
    const end = p.firstRow + partRows(p, entries);
    this.stats.objectsRead++;
    this.stats.recordsRead += end - p.firstRow;
    this.stats.bytesRead += await cols!.selectedBytes(null, p.firstRow, end);
    const rows = sel.rows;
    let first = -1, last = -1;
    for (let i = p.firstRow; i < end; i++) {
      if (rows[i] === 1) {
        if (first < 0) first = i;
        last = i;
      }
    }
    // Matched: what the lifted filter passes (Selection.lifted, where later
    // filters narrowed the rows: the bytes of those they dropped count here,
    // the rows read count theirs as they are decoded, in ObjectStream).
    const matched = sel.lifted?.rows ?? rows;
    const sizes = sel.lifted === undefined ? null : await cols!.sizes();
    for (let i = p.firstRow; i < end; i++) {
      if (matched[i] !== 1) continue;
      this.stats.recordsMatched++;
      if (sizes !== null && rows[i] !== 1) this.stats.bytesMatched += sizes[i];
    }
    if (first < 0) return null;
    if (entries.length === 0) return { ...p, rows };
    const narrowed = streamsPart(o, entries, recordStreams(entries, [first, last]));
    return { ...narrowed, rows };
  }

  async read(): Promise<Batch | null> {
    for (;;) {
      if (this.current === null) {
        if (this.g >= this.groups.length) return null;
        let group = this.groups[this.g++];
        if (this.opts.vector !== undefined && this.opts.filter !== null) {
          const kept: ObjectPart[] = [];
          for (const p of group) {
            const q = await this.selected(p);
            if (q !== null) kept.push(q);
          }
          group = kept;
          if (group.length === 0) continue;
        } else this.stats.objectsRead += group.length;
        // Merged values are ordered by their encoded bodies where keys tie,
        // which projected values no longer give: the decoder keeps them.
        const merged = group.length > 1 && this.opts.ordered !== false;
        const raws = merged;
        const streams: Stream[] = [];
        for (const p of group) {
          streams.push(
            (!merged && await this.columnStream(p)) ||
              new ObjectStream(
                this.lake,
                this.pool,
                p,
                this.stats,
                this.projectionOf(p, merged),
                this.opts.filter,
                raws,
                this.opts.encoded !== undefined,
              ),
          );
        }
        this.current = streams.length === 1
          ? streams[0]
          : this.opts.ordered === false
          ? new ConcatStream(streams)
          : new MergeStream(
            streams.map((stream, k) => ({ stream, first: group[k].object.first })),
            this.key,
          );
      }
      let batch = await this.current.next();
      if (batch === null) {
        await this.current.close();
        this.current = null;
        continue;
      }
      const thens = this.opts.thens;
      if (thens != null && thens.length > 0) {
        batch = throughFilters(batch, thens);
        if (batch.length === 0) continue;
      }
      return batch;
    }
  }

  /**
   * What to decode of a part's values: the fields the scan reads, or none
   * where values go out as they are encoded and nothing looks at their
   * fields (no merge orders them by key, no filter is applied to them).
   */
  private projectionOf(p: ObjectPart, merged: boolean): Projection | undefined {
    const o = this.opts;
    const unread = o.encoded !== undefined && o.encoded.after.length === 0 && !merged &&
      (p.rows !== null || o.filter === null) && (o.thens == null || o.thens.length === 0);
    return unread ? noFields : this.project;
  }

  /**
   * The part's values made from its object's columns, when the scan reads
   * only some fields and the columns hold them (and, with a filter, selected
   * the rows); else null. (Merged values are decoded: their ties are ordered
   * by their encodings.)
   */
  private async columnStream(p: ObjectPart): Promise<ColumnStream | null> {
    const fields = this.opts.fields;
    if (this.opts.columns === undefined || fields == null) return null;
    // (A filter the columns did not run is applied to decoded values.)
    if (p.rows === null && this.opts.filter !== null) return null;
    const cols = this.opts.columns(p.object);
    if (cols === null) return null;
    const want = new Set(fields);
    if (this.key.path.length > 0) want.add(this.key.path[0]);
    const end = p.firstRow + partRows(p, seekIndex(this.lake.catalog, p.object.id));
    const sel = p.rows;
    let n = 0;
    if (sel === null) n = end - p.firstRow;
    else for (let i = p.firstRow; i < end; i++) n += sel[i];
    // A few rows are decoded from the streams holding them rather than
    // read from whole columns.
    if (n * SPARSE < end - p.firstRow) return null;
    const rows = new Int32Array(n);
    if (sel === null) { for (let i = 0; i < n; i++) rows[i] = p.firstRow + i; }
    else {
      for (let i = p.firstRow, k = 0; i < end; i++) if (sel[i] === 1) rows[k++] = i;
    }
    const made = await ColumnRows.open(cols, want, end);
    if (!(await made.prepare(rows))) return null;
    return new ColumnStream(made, rows, await cols.sizes(), this.stats, sel !== null);
  }

  async close(): Promise<void> {
    await this.current?.close();
    this.current = null;
    this.g = this.groups.length;
  }
}

/** The part of an object from seek stream first to last. */
function streamsPart(o: DataObject, entries: SeekEntry[], [first, last]: [number, number]) {
  const offset = entries.length === 0 ? 0 : entries[first].offset;
  const end = last + 1 < entries.length ? entries[last + 1].offset : o.size;
  const firstRow = entries.length === 0 ? 0 : entries[first].count;
  return { object: o, offset, length: end - offset, firstRow, rows: null };
}

/** How many rows a part holds. */
function partRows(p: ObjectPart, entries: SeekEntry[]): number {
  const end = p.offset + p.length;
  for (const e of entries) if (e.offset >= end) return e.count - p.firstRow;
  return p.object.count - p.firstRow;
}

/**
 * Counts a whole object as read without decoding it (its columns or metadata
 * answered for it), as the reference, which reads it, counts it.
 */
export function countObjectRead(stats: ScanStats, o: DataObject): void {
  stats.recordsRead += o.count;
  stats.bytesRead += o.bytes;
}

/** The streams (first, last seek entry) that hold the records at positions rows[0]..rows[1]. */
function recordStreams(entries: SeekEntry[], rows: [number, number]): [number, number] {
  let first = 0, last = 0;
  for (let i = 1; i < entries.length; i++) {
    if (entries[i].count <= rows[0]) first = i;
    if (entries[i].count <= rows[1]) last = i;
  }
  return [first, last];
}

function intersectStreams(a: [number, number], b: [number, number]): [number, number] | null {
  const first = Math.max(a[0], b[0]), last = Math.min(a[1], b[1]);
  return first > last ? null : [first, last];
}

/**
 * Items in pool order, grouped so that those whose objects' key spans
 * overlap are in one group (to be merged). An object with null keys reaches
 * to the end.
 */
export function groupOverlapping<T>(
  items: T[],
  objectOf: (item: T) => DataObject,
  key: PoolKey,
): T[][] {
  const sorted = items.slice().sort((a, b) => key.compare(objectOf(a).first, objectOf(b).first));
  const groups: T[][] = [];
  let end: Value | null = null;
  for (const item of sorted) {
    const o = objectOf(item);
    const last = groups[groups.length - 1];
    if (last !== undefined && end !== null && key.compare(o.first, end) <= 0) {
      last.push(item);
      if (key.compare(o.last, end) > 0) end = o.last;
    } else {
      groups.push([item]);
      end = o.last;
    }
  }
  return groups;
}

// Reading a snapshot of a pool (lake-api.md §12.2, §15.3): values come out in
// pool-key order. Objects whose key spans cannot meet the key range of the
// query's leading filter are skipped, and within an object only the streams
// the seek index says may hold such keys are read. Objects whose spans
// overlap are merged; the others are read one after another. The leading
// filter is applied here, per object, so what was read and what matched are
// counted: from an object's columns when they can tell which rows pass (only
// the streams holding those rows are then read), else value by value.

import { BATCH_SIZE, type ValueReader } from "../formats/io.ts";
import { ZngDecoder } from "../formats/zng/reader.ts";
import { type Expr, maybeYield, scanKeeps, type VectorFilter } from "../query/mod.ts";
import { recordOf, type Type } from "../zed/types.ts";
import type { Batch, Value } from "../zed/value.ts";
import { encodeBody } from "../zed/zcode.ts";
import type { Lake } from "./lake.ts";
import type { ObjectColumns } from "./columns/mod.ts";
import { type DataObject, type SeekEntry, seekIndex } from "./objects.ts";
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

/** The part of an object to read. */
interface ObjectPart {
  object: DataObject;
  offset: number;
  length: number;
  /** The object's row number at offset. */
  firstRow: number;
  /** The rows that pass the filter, from columns (1 per passing row), or null. */
  rows: Uint8Array | null;
}

export interface ScanOptions {
  /** Keys outside this range need not be read. */
  range: KeyRange | null;
  /** Applied to every value read, as `where` would. */
  filter: Expr | null;
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
  stats?: ScanStats;
}

/** Which fields a projection decodes, by position, per record type (undefined: all). */
export type Projection = (t: Type) => ReadonlySet<number> | undefined;

/** A projection to the named top-level fields (plus the pool key's), or undefined for all. */
export function projection(
  fields: string[] | null | undefined,
  key: PoolKey,
): Projection | undefined {
  if (fields === null || fields === undefined) return undefined;
  const want = new Set(fields);
  if (key.path.length > 0) want.add(key.path[0]);
  const cache = new Map<Type, ReadonlySet<number> | undefined>();
  return (t) => {
    if (cache.has(t)) return cache.get(t);
    const rt = recordOf(t);
    let positions: Set<number> | undefined;
    if (rt !== undefined) {
      positions = new Set();
      rt.fields.forEach((f, i) => {
        if (want.has(f.name)) positions!.add(i);
      });
      if (positions.size === rt.fields.length) positions = undefined;
    }
    cache.set(t, positions);
    return positions;
  };
}

/** The values of one part of an object that pass the filter, batch by batch. */
class ObjectStream {
  private chunks: AsyncIterator<Uint8Array>;
  private decoder: ZngDecoder;
  private ended = false;
  /** Body bytes already added to the stats. */
  private counted = 0;
  /** The encoded bodies of the values next() returned last, when kept. */
  raws: Uint8Array[] | null = null;

  constructor(
    lake: Lake,
    pool: PoolConfig,
    private part: ObjectPart,
    private stats: ScanStats,
    project: Projection | undefined,
    /** Applied to values when the part has no row selection. */
    private filter: Expr | null,
    /** Keep the values' encoded bodies (for a merge's ties, when projected). */
    private keepRaws = false,
  ) {
    const sizes = filter !== null || part.rows !== null;
    // With a row selection, the rows that do not pass are skipped undecoded.
    const select = part.rows === null ? undefined : { rows: part.rows, first: part.firstRow };
    this.decoder = new ZngDecoder(undefined, { project, sizes, select, raws: keepRaws });
    const path = lake.objectPath(pool.id, part.object.id);
    this.chunks = lake.storage.readRange(path, part.offset, part.length)[Symbol.asyncIterator]();
  }

  async next(): Promise<Value[] | null> {
    for (;;) {
      const r = this.decoder.next();
      if (r === null) return null;
      if (Array.isArray(r)) {
        const out = this.pass(r);
        if (out.length > 0) return out;
        // Batches the filter drops entirely never reach the runner, which
        // would otherwise give the event loop its turns.
        await maybeYield();
        continue;
      }
      if (r !== undefined) continue; // control frames do not occur in data objects
      if (this.ended) {
        this.decoder.feed(new Uint8Array(0), true);
        continue;
      }
      const c = await this.chunks.next();
      if (c.done) {
        this.ended = true;
        this.decoder.feed(new Uint8Array(0), true);
      } else {
        this.stats.bytesFetched += c.value.length;
        this.decoder.feed(c.value);
      }
    }
  }

  /** Counts a decoded batch and returns what of it passes the filter. */
  private pass(batch: Value[]): Value[] {
    const stats = this.stats;
    const rows = this.part.rows;
    const body = this.decoder.bodyBytes;
    const read = body - this.counted;
    this.counted = body;
    const raws = this.keepRaws ? this.decoder.raws : null;
    this.raws = raws;
    if (rows !== null) {
      // Only the selected rows were decoded; read and matched were counted from the columns.
      const sizes = this.decoder.sizes;
      for (let i = 0; i < batch.length; i++) stats.bytesMatched += sizes[i];
      return batch;
    }
    stats.recordsRead += batch.length;
    stats.bytesRead += read;
    const pred = this.filter;
    if (pred === null) {
      stats.recordsMatched += batch.length;
      stats.bytesMatched += read;
      return batch;
    }
    const out: Value[] = [];
    const kept: Uint8Array[] | null = raws === null ? null : [];
    this.raws = kept;
    const sizes = this.decoder.sizes;
    for (let i = 0; i < batch.length; i++) {
      if (!scanKeeps(pred(batch[i]))) continue;
      out.push(batch[i]);
      stats.recordsMatched++;
      kept?.push(raws![i]);
      stats.bytesMatched += sizes[i];
    }
    return out;
  }

  async close(): Promise<void> {
    await this.chunks.return?.();
  }
}

/** A value source that is either one stream or a merge of several. */
interface Stream {
  next(): Promise<Value[] | null>;
  close(): Promise<void>;
  /** The encoded bodies of the values next() returned last, where the stream keeps them. */
  readonly raws?: Uint8Array[] | null;
}

/** Streams one after another. */
class ConcatStream implements Stream {
  private i = 0;
  constructor(private streams: Stream[]) {}
  async next(): Promise<Value[] | null> {
    while (this.i < this.streams.length) {
      const b = await this.streams[this.i].next();
      if (b !== null) return b;
      await this.streams[this.i++].close();
    }
    return null;
  }
  async close(): Promise<void> {
    for (; this.i < this.streams.length; this.i++) await this.streams[this.i].close();
  }
}

/** A stream's position: its current batch and the value at hand. */
class Cursor {
  batch: Value[] = [];
  /** The batch's encoded bodies, where its stream keeps them (projected values are partial). */
  raws: Uint8Array[] | null = null;
  i = 0;
  key!: Value;
  /** The value's encoded body, made when a tie needs it. */
  private enc: Uint8Array | null = null;
  constructor(readonly stream: Stream) {}
  get value(): Value {
    return this.batch[this.i];
  }
  /** Moves to value i of the batch. */
  at(i: number, key: Value): void {
    this.i = i;
    this.key = key;
    this.enc = null;
  }
  encoded(): Uint8Array {
    if (this.raws !== null) return this.raws[this.i];
    if (this.enc === null) {
      const v = this.batch[this.i];
      this.enc = encodeBody(v.type, v.body);
    }
    return this.enc;
  }
}

/**
 * Merges streams that are each in pool order into one in pool order. A
 * stream is opened only when the merge reaches its first key, and a batch
 * is handed out whenever more input must be read, so a consumer that stops
 * early (head) stops the reading too.
 */
class MergeStream implements Stream {
  private heap: Cursor[] = [];
  private opened = 0;
  /** A cursor whose batch ran out; it is refilled before the next comparison. */
  private stale: Cursor | null = null;

  /** streams must be sorted by their first keys, in pool order. */
  constructor(
    private streams: { stream: Stream; first: Value }[],
    private key: PoolKey,
  ) {}

  private less(a: Cursor, b: Cursor): boolean {
    const c = this.key.compare(a.key, b.key);
    if (c !== 0) return c < 0;
    return this.key.compareTies(a.encoded(), b.encoded()) < 0;
  }

  /** Loads the cursor's next value, reading if needed; false when its stream is done. */
  private async advance(c: Cursor): Promise<boolean> {
    let i = c.i + 1;
    while (i >= c.batch.length) {
      const b = await c.stream.next();
      if (b === null) return false;
      c.batch = b;
      c.raws = c.stream.raws ?? null;
      i = 0;
    }
    c.at(i, this.key.keyOf(c.batch[i]));
    return true;
  }

  /** Puts an advanced cursor back in place, or drops it when its stream ended. */
  private settle(c: Cursor, more: boolean): void {
    const heap = this.heap;
    if (more) {
      this.siftDown(heap.indexOf(c));
      return;
    }
    const last = heap.pop()!;
    const at = heap.indexOf(c);
    if (last !== c && at >= 0) {
      heap[at] = last;
      this.siftDown(at);
    } else if (last !== c) {
      heap[0] = last;
      this.siftDown(0);
    }
  }

  async next(): Promise<Value[] | null> {
    if (this.stale !== null) {
      const c = this.stale;
      this.stale = null;
      this.settle(c, await this.advance(c));
    }
    const heap = this.heap, key = this.key, streams = this.streams;
    const out: Value[] = [];
    for (;;) {
      while (
        this.opened < streams.length &&
        (heap.length === 0 || key.compare(streams[this.opened].first, heap[0].key) <= 0)
      ) {
        const c = new Cursor(streams[this.opened++].stream);
        c.i = -1;
        if (await this.advance(c)) this.push(c);
      }
      if (heap.length === 0) return out.length > 0 ? out : null;
      if (out.length >= BATCH_SIZE) return out;
      const top = heap[0];
      out.push(top.value);
      const i = top.i + 1;
      if (i < top.batch.length) {
        top.at(i, key.keyOf(top.batch[i]));
        this.siftDown(0);
      } else {
        // Reading more is next: hand out what is here first.
        this.stale = top;
        return out;
      }
    }
  }

  private push(c: Cursor): void {
    const heap = this.heap;
    heap.push(c);
    let i = heap.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.less(heap[i], heap[p])) break;
      [heap[i], heap[p]] = [heap[p], heap[i]];
      i = p;
    }
  }

  private siftDown(i: number): void {
    const heap = this.heap;
    for (;;) {
      const l = 2 * i + 1, r = l + 1;
      let m = i;
      if (l < heap.length && this.less(heap[l], heap[m])) m = l;
      if (r < heap.length && this.less(heap[r], heap[m])) m = r;
      if (m === i) return;
      [heap[i], heap[m]] = [heap[m], heap[i]];
      i = m;
    }
  }

  async close(): Promise<void> {
    for (const s of this.streams) await s.stream.close();
  }
}

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
    if (first < 0) return null;
    let matched = 0;
    for (let i = first; i <= last; i++) matched += rows[i];
    this.stats.recordsMatched += matched;
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
        const streams = group.map((p) =>
          new ObjectStream(
            this.lake,
            this.pool,
            p,
            this.stats,
            this.project,
            this.opts.filter,
            raws,
          )
        );
        this.current = streams.length === 1
          ? streams[0]
          : this.opts.ordered === false
          ? new ConcatStream(streams)
          : new MergeStream(
            streams.map((stream, k) => ({ stream, first: group[k].object.first })),
            this.key,
          );
      }
      const batch = await this.current.next();
      if (batch === null) {
        await this.current.close();
        this.current = null;
        continue;
      }
      return batch;
    }
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

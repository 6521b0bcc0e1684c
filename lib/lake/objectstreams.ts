// Reading the values of objects in pool-key order, for a pool scan
// (scan.ts): one part of an object decoded batch by batch, with the scan's
// filter and projection, and several such streams merged by the pool key
// where their objects' spans overlap (ties in the key ordered by the values'
// encoded bodies, as the reference orders them).

import { BATCH_SIZE } from "../formats/io.ts";
import { ZngDecoder } from "../formats/zng/reader.ts";
import { type Expr, maybeYield, scanKeeps } from "../query/mod.ts";
import { recordOf, type Type } from "../zed/types.ts";
import type { Value } from "../zed/value.ts";
import { encodeBody } from "../zed/zcode.ts";
import type { ColumnRows } from "./columns/mod.ts";
import type { Lake } from "./lake.ts";
import type { DataObject } from "./objects.ts";
import type { PoolKey } from "./poolkey.ts";
import type { PoolConfig } from "./pools.ts";
import type { ScanStats } from "./scan.ts";

/** The part of an object to read. */
export interface ObjectPart {
  object: DataObject;
  offset: number;
  length: number;
  /** The object's row number at offset. */
  firstRow: number;
  /** The rows that pass the filter, from columns (1 per passing row), or null. */
  rows: Uint8Array | null;
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

const NO_FIELDS: ReadonlySet<number> = new Set();

/**
 * A projection decoding no field of records (their encoded bodies are what
 * is wanted of them, and nothing looks at their fields).
 */
export const noFields: Projection = (t) => recordOf(t) === undefined ? undefined : NO_FIELDS;

/** The values of one part of an object that pass the filter, batch by batch. */
export class ObjectStream {
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
    /** Values carry their encoded bodies (EncodedValue). */
    encoded = false,
  ) {
    const sizes = filter !== null || part.rows !== null;
    // With a row selection, the rows that do not pass are skipped undecoded.
    const select = part.rows === null ? undefined : { rows: part.rows, first: part.firstRow };
    this.decoder = new ZngDecoder(undefined, { project, sizes, select, raws: keepRaws, encoded });
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

/**
 * The rows of one part of an object made from its columns rather than
 * decoded (the fields the query reads, the others null, as a projected
 * ObjectStream makes them), batch by batch: the rows its columns selected,
 * or every row where there is no filter.
 */
export class ColumnStream implements Stream {
  private at = 0;

  constructor(
    private made: ColumnRows,
    /** The rows to make, in order. */
    private rows: Int32Array,
    /** Every row's body size. */
    private sizes: Uint32Array,
    private stats: ScanStats,
    /** Whether the rows were counted as read and matched when the columns selected them. */
    private selected: boolean,
  ) {}

  next(): Promise<Value[] | null> {
    const rows = this.rows, from = this.at;
    if (from >= rows.length) return Promise.resolve(null);
    const to = Math.min(rows.length, from + BATCH_SIZE);
    this.at = to;
    let bytes = 0;
    for (let i = from; i < to; i++) bytes += this.sizes[rows[i]];
    const stats = this.stats;
    stats.bytesMatched += bytes;
    if (!this.selected) {
      stats.recordsRead += to - from;
      stats.bytesRead += bytes;
      stats.recordsMatched += to - from;
    }
    return Promise.resolve(this.made.make(rows, from, to));
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

/** A value source that is either one stream or a merge of several. */
export interface Stream {
  next(): Promise<Value[] | null>;
  close(): Promise<void>;
  /** The encoded bodies of the values next() returned last, where the stream keeps them. */
  readonly raws?: Uint8Array[] | null;
}

/** Streams one after another. */
export class ConcatStream implements Stream {
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
export class MergeStream implements Stream {
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

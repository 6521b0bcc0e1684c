// The ZNG frame layer (formats.md §4.1): walks frames in a byte buffer,
// applies typedefs, decompresses LZ4 payloads and decodes each values frame
// into values. Synchronous and input-agnostic: when the buffer ends mid-frame
// it reports how many bytes it needs, and the caller feeds more.
//
// Errors and end-of-input handling follow the reference reader, including
// its leniencies: input that ends exactly where a frame's length or payload
// would start ends the stream quietly.

import { invalid } from "../../errors.ts";
import { uvarintLength } from "../../zed/bytes.ts";
import type { Type } from "../../zed/types.ts";
import { EncodedValue, Value } from "../../zed/value.ts";
import type { EncodedSink } from "../io.ts";
import { BodyChecker } from "./checker.ts";
import { BodyDecoder, MALFORMED, malformed } from "./decoder.ts";
import { decompressBlock } from "./lz4.ts";
import { StreamTypes } from "./typedefs.ts";

export const FRAME_TYPES = 0;
export const FRAME_VALUES = 1;
export const FRAME_CONTROL = 2;
export const EOS = 0xff;
/** The reference's default limit on frame and value sizes (1 GiB). */
export const MAX_FRAME = 1024 * 1024 * 1024;

/** What step() found. */
export const NEED = 0;
export const VALUES = 1;
export const CONTROL = 2;
export const END = 3;

/** A control message from a control frame (the lake API sends these). */
export class ZngControl {
  constructor(
    /** 0 ZNG, 1 JSON, 2 ZSON, 3 string, 4 binary. */
    readonly format: number,
    readonly bytes: Uint8Array,
  ) {}

  get text(): string {
    return new TextDecoder().decode(this.bytes);
  }
}

export interface ScannerOptions {
  /** Check set order and enum indexes, as auto-detection does. */
  validate?: boolean;
  /** Largest frame accepted (the CLI's -readmax); default 1 GiB. */
  max?: number;
  /**
   * Projection pushdown: for a record type, the positions of the fields to
   * decode; the others are skipped and read as null. Undefined decodes all.
   */
  project?: (t: Type) => ReadonlySet<number> | undefined;
  /** Keep each value's body size (see ZngScanner.sizes). */
  sizes?: boolean;
  /**
   * Keep each value's encoded body (see ZngScanner.raws): what a merge
   * orders tied values by, when a projection leaves their decoded values
   * incomplete.
   */
  raws?: boolean;
  /**
   * Values carry their encoded bodies (EncodedValue; nulls excepted), for a
   * writer that writes them as they are.
   */
  encoded?: boolean;
  /**
   * Decode only some values: those whose number (counting from `first` for
   * the first value read) has rows[number] === 1; the others are skipped
   * undecoded (and not counted in bodyBytes).
   */
  select?: { rows: Uint8Array; first: number };
}

const EMPTY: Uint8Array = new Uint8Array(0);
/** A null's tag, handed over for every null (whatever bytes its tag took). */
const NULL_TAG = new Uint8Array(1);

/**
 * The most values decoded at a time from a frame of their own (a decoder's
 * batch once it has this many): a head or a merge that needs a few values of
 * each of many objects decodes little more than that, and a scan's operators
 * take batches that stay in the young generation (full scans ran no slower).
 */
export const ZNG_BATCH = 256;

export class ZngScanner {
  private buf: Uint8Array = EMPTY;
  private pos = 0;
  private eof = false;
  private types: StreamTypes;
  private body = new BodyDecoder();
  private max: number;
  /** Values of the frame step() returned VALUES for. */
  values: Value[] = [];
  /** The control message step() returned CONTROL for. */
  control: ZngControl | null = null;
  /** After NEED: bytes past the unconsumed start of the buffer the next step needs. */
  need = 0;
  /** Total size of the bodies of the values decoded so far (query stats count these). */
  bodyBytes = 0;
  /** With opts.sizes: the body size of each value in `values`. */
  sizes: number[] = [];
  private keepSizes: boolean;
  /** With opts.raws: the encoded body of each value in `values` (empty for null). */
  raws: Uint8Array[] = [];
  private keepRaws: boolean;
  private encodedValues: boolean;
  /** With opts.select: which values to decode, and the number of the next one. */
  private selected: Uint8Array | null;
  private row: number;
  /** The rest of a values frame decoded in batches: its buffer and what is left of it. */
  private pendBuf: Uint8Array = EMPTY;
  private pendPos = 0;
  private pendEnd = 0;
  /** Set by setSink: values go there undecoded, checked a batch at a time. */
  private sink: EncodedSink | null = null;
  private checker = new BodyChecker();
  /** The batch checked and not yet all handed over: its buffer, types and tag-to-end ranges. */
  private readyBuf: Uint8Array = EMPTY;
  private readyTypes: Type[] = [];
  private readyFrom: number[] = [];
  private readyTo: number[] = [];
  private readyNext = 0;

  constructor(opts: ScannerOptions = {}) {
    this.types = new StreamTypes(opts.validate ?? false, opts.project);
    this.max = opts.max ?? MAX_FRAME;
    this.keepSizes = opts.sizes ?? false;
    this.keepRaws = opts.raws ?? false;
    this.encodedValues = opts.encoded ?? false;
    this.selected = opts.select?.rows ?? null;
    this.row = opts.select?.first ?? 0;
  }

  /** Bytes fed but not yet consumed. */
  get buffered(): number {
    return this.buf.length - this.pos;
  }

  /**
   * From the next values on (none read yet), hands values to sink undecoded
   * instead of decoding them into `values`: each batch is checked whole as
   * decoding would check it (a bad value fails its batch before any of it is
   * handed over), then handed over until the sink is full.
   */
  setSink(sink: EncodedSink): void {
    this.sink = sink;
  }

  /** Appends input; eof says no more will follow. */
  feed(chunk: Uint8Array, eof = false): void {
    if (this.pos >= this.buf.length) {
      this.buf = chunk;
    } else if (chunk.length > 0) {
      const rest = this.buf.length - this.pos;
      const b = new Uint8Array(rest + chunk.length);
      b.set(this.buf.subarray(this.pos));
      b.set(chunk, rest);
      this.buf = b;
    } else {
      this.buf = this.buf.subarray(this.pos);
    }
    this.pos = 0;
    if (eof) this.eof = true;
  }

  /** Processes frames up to the next values or control frame, the end, or a need for input. */
  step(): number {
    try {
      return this.frames();
    } catch (e) {
      // Absurdly nested types overflow the stack; report them as bad input.
      if (e instanceof RangeError) throw invalid(MALFORMED);
      throw e;
    }
  }

  private needs(n: number): number {
    this.need = n;
    return NEED;
  }

  private frames(): number {
    if (this.sink !== null) {
      if (this.readyNext < this.readyTypes.length) {
        this.handOver();
        return VALUES;
      }
      if (this.pendPos < this.pendEnd) {
        this.checkBatch(this.pendBuf, this.pendPos, this.pendEnd, true);
        this.handOver();
        return VALUES;
      }
    }
    if (this.pendPos < this.pendEnd) {
      this.values = this.decodeValues(this.pendBuf, this.pendPos, this.pendEnd, true);
      return VALUES;
    }
    for (;;) {
      const buf = this.buf, len = buf.length, start = this.pos;
      let p = start;
      if (p >= len) return this.eof ? END : this.needs(1);
      const code = buf[p++];
      if (code === EOS) {
        this.types.reset();
        this.pos = p;
        continue;
      }
      if ((code & 0x80) !== 0) throw invalid("zngio: encountered wrong version bit in framing");
      const kind = (code >> 4) & 3;
      if (kind === 3) throw invalid("unknown ZNG message frame type: 3");
      // The frame length: a uvarint of its high bits.
      const hi = this.uvarint(p);
      if (hi < 0) return this.short(hi, p - start);
      p = this.at;
      const size = hi * 16 + (code & 0xf);
      let payload: Uint8Array;
      let from: number, to: number;
      if ((code & 0x40) === 0) {
        if (size > this.max) {
          throw this.tooBig(exactUvarint(buf, start + 1) * 16n + BigInt(code & 0xf));
        }
        if (len - p < size) {
          if (!this.eof) return this.needs(p - start + size);
          if (len === p) return END;
          throw invalid("truncated input");
        }
        payload = buf;
        from = p;
        to = p + size;
        this.pos = to;
      } else {
        if (p >= len) return this.eof ? END : this.needs(p - start + 1);
        const format = buf[p++];
        const usizeAt = p;
        const usize = this.uvarint(p);
        if (usize < 0) return this.short(usize, p - start);
        p = this.at;
        if (usize > this.max) throw this.tooBig(exactUvarint(buf, usizeAt));
        const n = size - 1 - uvarintLength(usize);
        if (n < 0) throw malformed();
        if (n > this.max) {
          throw invalid(`large value of ${n} bytes exceeds maximum read buffer`);
        }
        let zsrc: Uint8Array;
        if (len - p < n) {
          if (!this.eof) return this.needs(p - start + n);
          if (len !== p) throw malformed();
          zsrc = EMPTY;
          this.pos = len;
        } else {
          zsrc = buf.subarray(p, p + n);
          this.pos = p + n;
        }
        payload = decompress(format, zsrc, usize);
        from = 0;
        to = usize;
      }
      switch (kind) {
        case FRAME_TYPES:
          this.types.decode(payload, from, to);
          continue;
        case FRAME_VALUES:
          if (this.sink !== null) {
            this.checkBatch(payload, from, to, payload !== buf);
            this.handOver();
            return VALUES;
          }
          if (payload !== buf) {
            // A frame of its own (decompressed): decoded a batch at a time.
            this.pendBuf = payload;
            this.pendEnd = to;
            this.values = this.decodeValues(payload, from, to, true);
          } else this.values = this.decodeValues(payload, from, to, false, Infinity);
          return VALUES;
        default:
          if (to === from) throw malformed();
          this.control = new ZngControl(payload[from], payload.slice(from + 1, to));
          return CONTROL;
      }
    }
  }

  private tooBig(size: bigint): Error {
    // The reference holds sizes in a Go int, which wraps.
    const n = BigInt.asIntN(64, size);
    if (n < 0n) return malformed();
    return invalid(`zngio: frame length (${n}) exceeds maximum allowed (${this.max})`);
  }

  /** Handles a uvarint that ran off the buffer (-1) or overflowed (-2). */
  private short(status: number, have: number): number {
    if (status === -2) throw invalid("binary: varint overflows a 64-bit integer");
    if (!this.eof) return this.needs(have + 11);
    // Nothing of it at the end of the input is a quiet end, as in the reference.
    if (this.at === -1) return END;
    throw invalid("unexpected EOF");
  }

  /** Position after the last uvarint read; -1 when it had no bytes at all. */
  private at = 0;

  /** Reads a uvarint at p in the buffer: -1 when truncated, -2 on overflow. */
  private uvarint(p: number): number {
    const buf = this.buf, len = buf.length;
    if (p >= len) {
      this.at = -1;
      return -1;
    }
    let n = 0, scale = 1;
    for (let k = 0; k < 10; k++) {
      if (p >= len) {
        this.at = p;
        return -1;
      }
      const c = buf[p++];
      if (k === 9 && c > 1) return -2;
      n += (c & 0x7f) * scale;
      if (c < 0x80) {
        this.at = p;
        return n;
      }
      scale *= 128;
    }
    return -2;
  }

  /**
   * The values of a frame, buf[p, end); `fresh` when buf is the frame's own
   * (decompressed) bytes. Up to `most` of them: a fresh frame's rest is left
   * pending for the next step (a head or a merge that needs a few values of a
   * frame decodes no more than a batch).
   */
  private decodeValues(
    buf: Uint8Array,
    p: number,
    end: number,
    fresh: boolean,
    most = ZNG_BATCH,
  ): Value[] {
    const body = this.body;
    const types = this.types;
    body.setBuffer(buf);
    const out: Value[] = [];
    const sizes: number[] | null = this.keepSizes ? [] : null;
    // Views of a frame's own bytes; copies of the input's, whose buffer is not the frame's.
    const raws: Uint8Array[] | null = this.keepRaws ? [] : null;
    const selected = this.selected;
    let n = 0;
    while (p < end && n < most) {
      this.valueHead(buf, p, end);
      const id = this.headId;
      let tag = this.headTag;
      p = this.headEnd;
      let len = tag - 1;
      if (len > end - p) {
        // A body missing entirely at the end of the frame reads as null (as in the reference).
        if (p !== end) throw malformed();
        tag = 0;
        len = 0;
      }
      const t = types.valueType(id);
      if (t === undefined) throw invalid(`zngio: type ID ${id} not in context`);
      if (selected !== null && selected[this.row++] !== 1) {
        // A null (tag 0) has no body to skip.
        if (tag !== 0) p += len;
        continue;
      }
      n++;
      if (tag === 0) {
        out.push(new Value(t, null));
        sizes?.push(0);
        raws?.push(EMPTY);
        continue;
      }
      const decoded = body.decode(types.valuePlan(id), p, len);
      if (raws === null && !this.encodedValues) out.push(new Value(t, decoded));
      else {
        const raw = fresh ? buf.subarray(p, p + len) : buf.slice(p, p + len);
        raws?.push(raw);
        out.push(this.encodedValues ? new EncodedValue(t, decoded, raw) : new Value(t, decoded));
      }
      sizes?.push(len);
      this.bodyBytes += len;
      p += len;
    }
    if (sizes !== null) this.sizes = sizes;
    if (raws !== null) this.raws = raws;
    if (fresh) this.pendPos = p;
    return out;
  }

  /** What valueHead read: the value's type id and tag, where its tag starts, and where it ends. */
  private headId = 0;
  private headTag = 0;
  private headTagAt = 0;
  private headEnd = 0;

  /** Reads the type id and tag of the value at buf[p] (before end). */
  private valueHead(buf: Uint8Array, p: number, end: number): void {
    let id = buf[p++];
    if (id > 0x7f) {
      id = readUvarint(buf, p - 1, end);
      if (id < 0) {
        if (id === -2) throw invalid("binary: varint overflows a 64-bit integer");
        throw invalid("unexpected EOF");
      }
      p = uvarintEnd;
    }
    if (p >= end) throw malformed();
    this.headTagAt = p;
    let tag = buf[p++];
    if (tag > 0x7f) {
      tag = readUvarint(buf, p - 1, end);
      if (tag < 0) throw malformed();
      p = uvarintEnd;
    }
    this.headId = id;
    this.headTag = tag;
    this.headEnd = p;
  }

  /**
   * Checks the values of a frame, buf[p, end), as decodeValues would decode
   * them (a fresh frame a batch at a time, its rest left pending), noting
   * each one's type and where its tag and body are, for handOver.
   */
  private checkBatch(buf: Uint8Array, p: number, end: number, fresh: boolean): void {
    const types = this.types, checker = this.checker;
    checker.setBuffer(buf);
    const ts: Type[] = [], from: number[] = [], to: number[] = [];
    const most = fresh ? ZNG_BATCH : Infinity;
    let n = 0;
    while (p < end && n < most) {
      this.valueHead(buf, p, end);
      const id = this.headId, tag = this.headTag, tagAt = this.headTagAt;
      p = this.headEnd;
      const len = tag - 1;
      const t = types.valueType(id);
      if (len > end - p) {
        // A body missing entirely at the end of the frame reads as null (as in the reference).
        if (p !== end) throw malformed();
        if (t === undefined) throw invalid(`zngio: type ID ${id} not in context`);
        n++;
        ts.push(t);
        from.push(-1);
        to.push(-1);
        continue;
      }
      if (t === undefined) throw invalid(`zngio: type ID ${id} not in context`);
      n++;
      ts.push(t);
      if (tag === 0) {
        from.push(-1);
        to.push(-1);
        continue;
      }
      checker.check(types.valuePlan(id), p, len);
      from.push(tagAt);
      to.push(p + len);
      this.bodyBytes += len;
      p += len;
    }
    this.readyBuf = buf;
    this.readyTypes = ts;
    this.readyFrom = from;
    this.readyTo = to;
    this.readyNext = 0;
    if (fresh) {
      this.pendBuf = buf;
      this.pendPos = p;
      this.pendEnd = end;
    }
  }

  /** Hands the checked batch's values to the sink, pausing once it is full. */
  private handOver(): void {
    const sink = this.sink as EncodedSink;
    const buf = this.readyBuf, ts = this.readyTypes, from = this.readyFrom, to = this.readyTo;
    while (this.readyNext < ts.length) {
      const k = this.readyNext++;
      if (from[k] < 0) sink.add(ts[k], NULL_TAG, 0, 1);
      else sink.add(ts[k], buf, from[k], to[k]);
      if (sink.full()) return;
    }
  }
}

let uvarintEnd = 0;

/** A uvarint at buf[p] (before end), setting uvarintEnd: -1 if truncated, -2 on overflow. */
function readUvarint(buf: Uint8Array, p: number, end: number): number {
  let n = 0, scale = 1;
  for (let k = 0; k < 10; k++) {
    if (p >= end) return -1;
    const c = buf[p++];
    if (k === 9 && c > 1) return -2;
    n += (c & 0x7f) * scale;
    if (c < 0x80) {
      uvarintEnd = p;
      return n;
    }
    scale *= 128;
  }
  return -2;
}

/** The uvarint at buf[p] exactly (for messages about huge values). */
function exactUvarint(buf: Uint8Array, p: number): bigint {
  let n = 0n, shift = 0n;
  for (;;) {
    const c = buf[p++];
    n |= BigInt(c & 0x7f) << shift;
    if (c < 0x80) return BigInt.asUintN(64, n);
    shift += 7n;
  }
}

function decompress(format: number, src: Uint8Array, size: number): Uint8Array {
  if (format !== 0) throw invalid(`zngio: unknown compression format 0x${format.toString(16)}`);
  // A block expands at most about 255 times, so a larger claimed size cannot
  // be met: decode into what is possible rather than allocating the claim.
  const out = new Uint8Array(Math.min(size, src.length * 255 + 64));
  const n = decompressBlock(src, out);
  if (n < 0) throw invalid("zngio: lz4: invalid source or destination buffer too short");
  if (n !== size) throw invalid(`zngio: got ${n} uncompressed bytes, expected ${size}`);
  return out;
}

// ZNG input: the async reader over a ByteInput, a synchronous decoder for
// bytes already in memory (the lake's data objects), and the format detector.
//
// A values frame is decoded whole before any of its values are handed out, so
// a bad value anywhere in a frame fails the frame, as in the reference. Values
// of consecutive frames are gathered into batches of up to BATCH_SIZE; a
// control frame ends a batch so controls stay in order with values.

import { messageOf } from "../../errors.ts";
import type { Batch, Value } from "../../zed/value.ts";
import {
  BATCH_SIZE,
  type ByteInput,
  type Detection,
  type EncodedSink,
  type ValueReader,
} from "../io.ts";
import {
  CONTROL,
  END,
  NEED,
  type ScannerOptions,
  VALUES,
  ZNG_BATCH,
  type ZngControl,
  ZngScanner,
} from "./scanner.ts";

export { ZngControl } from "./scanner.ts";

/**
 * Batches and control messages from ZNG bytes fed to it. next() returns
 * undefined when it needs more input (never after the input is marked ended).
 */
export class ZngDecoder {
  private scanner: ZngScanner;
  private pending: Value[] = [];
  private pendingSizes: number[] = [];
  private pendingRaws: Uint8Array[] = [];
  private taken = 0;
  /** With opts.sizes: the body sizes of the values of the batch next() returned last. */
  sizes: number[] = [];
  /** With opts.raws: the encoded bodies of the values of the batch next() returned last. */
  raws: Uint8Array[] = [];
  private stashed: ZngControl | null = null;
  private failure: unknown = null;
  private ended = false;
  /** next() has been called: values may be pending, so the encoded mode is closed. */
  private decoding = false;

  constructor(bytes?: Uint8Array, opts: ScannerOptions = {}) {
    this.scanner = new ZngScanner(opts);
    if (bytes !== undefined) this.scanner.feed(bytes, true);
  }

  /** Appends input; `eof` marks the end of it. */
  feed(chunk: Uint8Array, eof = false): void {
    this.scanner.feed(chunk, eof);
  }

  /** Total size of the bodies of the values decoded so far. */
  get bodyBytes(): number {
    return this.scanner.bodyBytes;
  }

  /** Bytes the decoder needs beyond what it holds to make progress. */
  get needed(): number {
    return Math.max(1, this.scanner.need - this.scanner.buffered);
  }

  /**
   * Hands values to sink undecoded (ZngScanner.setSink) until it is full or
   * a batch is handed over (true), or the input ends (false); a control
   * message goes to onControl; undefined when input is needed. Only before
   * next() is first called.
   */
  nextEncoded(
    sink: EncodedSink,
    onControl?: (c: ZngControl) => void,
  ): boolean | undefined {
    if (this.decoding) throw new Error("ZngDecoder: values were decoded already");
    if (this.failure !== null) throw this.failure;
    this.scanner.setSink(sink);
    for (;;) {
      let r: number;
      try {
        r = this.scanner.step();
      } catch (e) {
        this.failure = e;
        throw e;
      }
      switch (r) {
        case VALUES:
          return true;
        case CONTROL:
          onControl?.(this.scanner.control as ZngControl);
          continue;
        case END:
          return false;
        case NEED:
          return undefined;
      }
    }
  }

  /** The next batch or control message, null at the end, undefined when input is needed. */
  next(): Batch | ZngControl | null | undefined {
    this.decoding = true;
    if (this.failure !== null) throw this.failure;
    if (this.stashed !== null) {
      const c = this.stashed;
      this.stashed = null;
      return c;
    }
    let batch: Value[] | null = null;
    this.sizes = [];
    this.raws = [];
    for (;;) {
      const pending = this.pending;
      if (this.taken < pending.length) {
        const room = BATCH_SIZE - (batch === null ? 0 : batch.length);
        const n = Math.min(room, pending.length - this.taken);
        if (batch === null && this.taken === 0 && n === pending.length) {
          batch = pending;
          this.sizes = this.pendingSizes;
          this.raws = this.pendingRaws;
        } else {
          if (batch === null) batch = [];
          for (let i = 0; i < n; i++) batch.push(pending[this.taken + i]);
          const ps = this.pendingSizes, pr = this.pendingRaws;
          if (ps.length > 0) { for (let i = 0; i < n; i++) this.sizes.push(ps[this.taken + i]); }
          if (pr.length > 0) { for (let i = 0; i < n; i++) this.raws.push(pr[this.taken + i]); }
        }
        this.taken += n;
        if (batch.length >= ZNG_BATCH) return batch;
        continue;
      }
      if (this.ended) return batch;
      let r: number;
      try {
        r = this.scanner.step();
      } catch (e) {
        this.failure = e;
        if (batch === null) throw e;
        return batch;
      }
      switch (r) {
        case VALUES:
          this.pending = this.scanner.values;
          this.pendingSizes = this.scanner.sizes;
          this.pendingRaws = this.scanner.raws;
          this.taken = 0;
          continue;
        case CONTROL: {
          const c = this.scanner.control as ZngControl;
          if (batch === null) return c;
          this.stashed = c;
          return batch;
        }
        case END:
          this.ended = true;
          continue;
        case NEED:
          return batch === null ? undefined : batch;
      }
    }
  }
}

/** All values of ZNG bytes (every stream, control frames skipped). */
export function decodeZng(bytes: Uint8Array, opts: ScannerOptions = {}): Value[] {
  const d = new ZngDecoder(bytes, opts);
  const out: Value[] = [];
  for (;;) {
    const r = d.next();
    if (r === null || r === undefined) return out;
    if (Array.isArray(r)) { for (const v of r) out.push(v); }
  }
}

export interface ZngReaderOpts extends ScannerOptions {
  /** Receives control messages, in order, when read() skips them. */
  onControl?: (c: ZngControl) => void;
}

export class ZngReader implements ValueReader {
  private decoder: ZngDecoder;

  constructor(private input: ByteInput, private opts: ZngReaderOpts = {}) {
    this.decoder = new ZngDecoder(undefined, opts);
  }

  /** The next batch of values; control messages go to opts.onControl. */
  async read(): Promise<Batch | null> {
    for (;;) {
      const r = await this.readPayload();
      if (r === null || Array.isArray(r)) return r;
      this.opts.onControl?.(r);
    }
  }

  /** Hands values to sink undecoded (ValueReader.readEncoded). */
  async readEncoded(sink: EncodedSink): Promise<boolean> {
    for (;;) {
      const r = this.decoder.nextEncoded(sink, this.opts.onControl);
      if (r !== undefined) return r;
      await this.fill(this.decoder.needed);
    }
  }

  /** The next batch or control message, or null at the end. */
  async readPayload(): Promise<Batch | ZngControl | null> {
    for (;;) {
      const r = this.decoder.next();
      if (r !== undefined) return r;
      await this.fill(this.decoder.needed);
    }
  }

  /** Feeds at least `want` more bytes as one chunk (fewer, then none, at the end of the input). */
  private async fill(want: number): Promise<void> {
    const [chunk, eof] = await this.input.readAtLeast(want);
    this.decoder.feed(chunk, eof);
  }
}

/**
 * Whether the input starts with ZNG: the reference reads one value with
 * validation on. `bytes` is a prefix of the input (all of it when eof).
 */
export function detectZng(_text: string, eof: boolean, bytes: Uint8Array): Detection {
  const d = new ZngDecoder(undefined, { validate: true });
  d.feed(bytes, eof);
  try {
    for (;;) {
      const r = d.next();
      if (r === undefined) return { ok: "more" };
      if (r === null || Array.isArray(r)) return { ok: true };
    }
  } catch (e) {
    return { ok: false, error: messageOf(e) };
  }
}

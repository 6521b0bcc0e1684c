// ZNG output with the reference writer's policy (formats.md §4.8), so the
// bytes match `zq -f zng`: typedefs and values accumulate in two buffers that
// are written as one types frame and one values frame when either reaches the
// frame threshold (and at end of stream); frames are LZ4-compressed when that
// makes them smaller; each stream ends with 0xff; empty output is no bytes.

import { ByteWriter, uvarintLength } from "../../zed/bytes.ts";
import { encodeUtf8 } from "../../zed/utf8.ts";
import type { Type } from "../../zed/types.ts";
import { type Batch, EncodedValue, type Value } from "../../zed/value.ts";
import { appendTagged } from "../../zed/zcode.ts";
import type { Sink, ValueWriter } from "../io.ts";
import { compressBlock } from "./lz4.ts";
import { EOS, FRAME_CONTROL, FRAME_TYPES, FRAME_VALUES } from "./scanner.ts";
import { TypeEncoder } from "./typedefs.ts";

/** The reference's default frame threshold (-zngframethresh). */
export const DEFAULT_FRAME_THRESHOLD = 512 * 1024;

export interface ZngWriterOptions {
  /** LZ4-compress frames (-zngcompress); default true. */
  compress?: boolean;
  /** Buffered bytes that trigger writing frames; default 524288. */
  frameThreshold?: number;
}

/** Control message formats (the first byte of a control frame). */
export const CONTROL_ZNG = 0;
export const CONTROL_JSON = 1;
export const CONTROL_ZSON = 2;
export const CONTROL_STRING = 3;
export const CONTROL_BINARY = 4;

/** The synchronous encoder: frames accumulate in `out` until taken. */
export class ZngEncoder {
  private types = new TypeEncoder();
  private values = new ByteWriter(1 << 16);
  private out = new ByteWriter(1 << 16);
  private zbuf = new Uint8Array(0);
  private compress: boolean;
  private threshold: number;
  /** Bytes written so far, and the count at the last end of stream. */
  private position = 0;
  private flushed = 0;

  constructor(opts: ZngWriterOptions = {}) {
    this.compress = opts.compress ?? true;
    this.threshold = opts.frameThreshold ?? DEFAULT_FRAME_THRESHOLD;
  }

  write(v: Value): void {
    const values = this.values;
    values.uvarint(this.types.idOf(v.type));
    if (v instanceof EncodedValue) {
      // Its body as read (only some fields of it decoded).
      values.uvarint(v.encoded.length + 1);
      values.bytes(v.encoded);
    } else appendTagged(values, v.type, v.body);
    if (values.pos >= this.threshold || this.types.out.pos >= this.threshold) this.flush();
  }

  /** Writes a value already encoded as its tag and body (the lake's sort buffers hold these). */
  writeTagged(type: Type, tagged: Uint8Array): void {
    const values = this.values;
    values.uvarint(this.types.idOf(type));
    values.bytes(tagged);
    if (values.pos >= this.threshold || this.types.out.pos >= this.threshold) this.flush();
  }

  writeBatch(batch: Batch): void {
    for (let i = 0; i < batch.length; i++) this.write(batch[i]);
  }

  /** Writes a control frame (after flushing, to keep order); body is sent as is. */
  writeControl(body: Uint8Array | string, format: number): void {
    this.flush();
    const b = typeof body === "string" ? encodeUtf8(body) : body;
    const payload = new Uint8Array(b.length + 1);
    payload[0] = format;
    payload.set(b, 1);
    this.frame(FRAME_CONTROL, payload);
  }

  /** Writes the buffered typedefs and values as frames. */
  flush(): void {
    const types = this.types.out;
    this.frame(FRAME_TYPES, types.view());
    this.frame(FRAME_VALUES, this.values.view());
    types.reset();
    this.values.reset();
  }

  /** Flushes, ends the stream with 0xff if it has any bytes, and forgets its types. */
  endStream(): void {
    this.flush();
    if (this.flushed !== this.position) {
      this.out.byte(EOS);
      this.position++;
      this.flushed = this.position;
    }
    this.types.reset();
  }

  /** Bytes written so far (for seekable stream offsets after endStream). */
  get offset(): number {
    return this.position;
  }

  /** Bytes produced since the last take. */
  get pending(): number {
    return this.out.pos;
  }

  /** Takes the bytes produced since the last take. */
  take(): Uint8Array {
    const b = this.out.view().slice();
    this.out.reset();
    return b;
  }

  private frame(kind: number, payload: Uint8Array): void {
    const size = payload.length;
    if (size === 0) return;
    const out = this.out;
    const start = out.pos;
    if (this.compress) {
      if (this.zbuf.length < size) this.zbuf = new Uint8Array(Math.max(size, 1 << 16));
      const n = compressBlock(payload, this.zbuf.subarray(0, size));
      if (n > 0) {
        const zlen = n + 1 + uvarintLength(size);
        out.byte((kind << 4) | (zlen & 0xf) | 0x40);
        out.uvarint(Math.floor(zlen / 16));
        out.byte(0);
        out.uvarint(size);
        out.bytes(this.zbuf.subarray(0, n));
        this.position += out.pos - start;
        return;
      }
    }
    out.byte((kind << 4) | (size & 0xf));
    out.uvarint(Math.floor(size / 16));
    out.bytes(payload);
    this.position += out.pos - start;
  }
}

/** One complete ZNG stream of values (empty input gives no bytes). */
export function encodeZng(values: Value[], opts: ZngWriterOptions = {}): Uint8Array {
  const e = new ZngEncoder(opts);
  e.writeBatch(values);
  e.endStream();
  return e.take();
}

export class ZngWriter implements ValueWriter {
  private encoder: ZngEncoder;

  constructor(private sink: Sink, opts: ZngWriterOptions = {}) {
    this.encoder = new ZngEncoder(opts);
  }

  async write(batch: Batch): Promise<void> {
    this.encoder.writeBatch(batch);
    await this.drain();
  }

  async writeControl(body: Uint8Array | string, format: number): Promise<void> {
    this.encoder.writeControl(body, format);
    await this.drain();
  }

  /** Ends the current stream; later values start a new one (type ids from 30 again). */
  async endStream(): Promise<void> {
    this.encoder.endStream();
    await this.drain();
  }

  /**
   * Writes buffered values now (the reference only does so at the threshold or
   * end of stream, so this changes frame boundaries; for streaming responses).
   */
  async flush(): Promise<void> {
    this.encoder.flush();
    await this.drain();
  }

  async end(): Promise<void> {
    this.encoder.endStream();
    await this.drain();
  }

  private async drain(): Promise<void> {
    if (this.encoder.pending > 0) await this.sink(this.encoder.take());
  }
}

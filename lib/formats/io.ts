// The plumbing every format shares: byte input with push-back (for format
// detection), incremental text input for text formats, and the reader and
// writer interfaces. Readers produce batches of values; writers consume
// batches and emit byte chunks to a sink, so files and HTTP responses stream.

import type { Batch } from "../zed/value.ts";
import type { Type } from "../zed/types.ts";
import { textEncoder } from "../zed/utf8.ts";

/** Values per batch that readers aim for. */
export const BATCH_SIZE = 1000;

export interface ValueReader {
  /** The next batch (never empty), or null at the end of the input. */
  read(): Promise<Batch | null>;
  /** Releases what the reader holds (files) when it is not read to the end. */
  close?(): Promise<void>;
  /**
   * A JSON reader that has read nothing: the bytes under it, which a load
   * may read itself (putting back, with ByteInput.unread, what it leaves
   * for this reader); else null.
   */
  jsonInput?(): Promise<ByteInput | null>;
  /** The readers this one reads one after another, where it is a concatenation. */
  parts?(): readonly ValueReader[];
  /** An error met reading the bytes of jsonInput(), as this reader's own errors read. */
  nameError?(e: unknown): unknown;
  /**
   * For a reader of encoded values (ZNG) that has read nothing: hands what
   * follows to sink still encoded, checked as decoding would check it,
   * until the sink is full or a batch is handed over (true) or the input
   * ends (false). Errors are the ones read() would throw, at the same values.
   * Null (on a first call only): this reader's values are to be read().
   */
  readEncoded?(sink: EncodedSink): Promise<boolean | null>;
}

/** Where readEncoded() hands values (a load's sort buffer). */
export interface EncodedSink {
  /** A value of type t whose tag and body are buf[from, to) (the tag is the body's length + 1, or 0). */
  add(t: Type, buf: Uint8Array, from: number, to: number): void;
  /** Whether it wants no more for now. */
  full(): boolean;
}

export interface ValueWriter {
  write(batch: Batch): Promise<void>;
  /** Writes any trailer and flushes. */
  end(): Promise<void>;
}

/** Where writers send bytes. */
export type Sink = (chunk: Uint8Array) => Promise<void>;

/** A stream of byte chunks with push-back, named for error messages. */
export class ByteInput {
  private pending: Uint8Array[] = [];
  private done = false;

  constructor(
    private source: AsyncIterator<Uint8Array>,
    /** How errors name this input, e.g. `stdio:stdin` or a file path. */
    readonly name: string,
  ) {}

  static fromBytes(b: Uint8Array, name = "bytes"): ByteInput {
    const it = (async function* () {
      if (b.length > 0) yield b;
    })();
    return new ByteInput(it, name);
  }

  static fromStream(s: ReadableStream<Uint8Array>, name: string): ByteInput {
    return new ByteInput(s[Symbol.asyncIterator](), name);
  }

  /** Reads a file in large chunks (a file's readable stream gives 64 KiB ones). */
  static fromFile(file: Deno.FsFile, name: string, chunkSize = 1 << 20): ByteInput {
    const it = (async function* () {
      try {
        for (;;) {
          const buf = new Uint8Array(chunkSize);
          const n = await file.read(buf);
          if (n === null) return;
          yield n === chunkSize ? buf : buf.subarray(0, n);
        }
      } finally {
        file.close();
      }
    })();
    return new ByteInput(it, name);
  }

  /** The next chunk, or null at the end. */
  async read(): Promise<Uint8Array | null> {
    const p = this.pending.pop();
    if (p !== undefined) return p;
    if (this.done) return null;
    for (;;) {
      const r = await this.source.next();
      if (r.done) {
        this.done = true;
        return null;
      }
      if (r.value.length > 0) return r.value;
    }
  }

  /**
   * At least `want` bytes as one chunk (fewer only at the end of the input),
   * and whether the input has ended.
   */
  async readAtLeast(want: number): Promise<[Uint8Array, boolean]> {
    const chunks: Uint8Array[] = [];
    let got = 0;
    let eof = false;
    while (got < want) {
      const c = await this.read();
      if (c === null) {
        eof = true;
        break;
      }
      chunks.push(c);
      got += c.length;
    }
    return [concatBytes(chunks, got), eof];
  }

  /** Pushes a chunk back so the next read returns it. */
  unread(chunk: Uint8Array): void {
    if (chunk.length > 0) this.pending.push(chunk);
  }

  /** Stops the underlying source early (e.g. after `head`). */
  async cancel(): Promise<void> {
    this.pending = [];
    if (!this.done) {
      this.done = true;
      await this.source.return?.();
    }
  }
}

/**
 * Text decoded incrementally from a ByteInput. Readers parse `text` from
 * `pos`; when a value runs past the end they call more(), which drops the
 * consumed text and appends at least as much again (so re-parsing a value
 * that spans chunks stays linear), then parse that value again.
 */
export class TextInput {
  text = "";
  pos = 0;
  eof = false;
  /** Newlines in text already dropped, for error line numbers. */
  private linesBefore = 0;
  // A byte-order mark is kept as a character, as the reference's readers see it.
  private decoder = new TextDecoder("utf-8", { ignoreBOM: true });

  constructor(readonly input: ByteInput, private minChunk = 1 << 20) {}

  /** Appends more text; false when the input is exhausted and nothing was added. */
  async more(): Promise<boolean> {
    if (this.eof) return false;
    if (this.pos > 0) {
      this.linesBefore += countNewlines(this.text, 0, this.pos);
      this.text = this.text.slice(this.pos);
      this.pos = 0;
    }
    const want = Math.max(this.minChunk, this.text.length);
    const parts: string[] = [];
    let got = 0;
    while (got < want) {
      const chunk = await this.input.read();
      if (chunk === null) {
        const tail = this.decoder.decode();
        if (tail.length > 0) parts.push(tail);
        this.eof = true;
        break;
      }
      got += chunk.length;
      parts.push(this.decoder.decode(chunk, { stream: true }));
    }
    // One join builds a flat string; appending would make a cons string,
    // which parsers index noticeably slower.
    const before = this.text.length;
    parts.unshift(this.text);
    this.text = parts.join("");
    return this.text.length > before || !this.eof;
  }

  /** 1-based line number of an offset into text. */
  lineOf(offset: number): number {
    return this.linesBefore + countNewlines(this.text, 0, offset) + 1;
  }
}

export function countNewlines(s: string, from: number, to: number): number {
  let n = 0;
  for (let i = s.indexOf("\n", from); i >= 0 && i < to; i = s.indexOf("\n", i + 1)) n++;
  return n;
}

/**
 * Thrown by a text parser that reached the end of its buffer in the middle of
 * a value; the reader fetches more text and parses the value again.
 */
/**
 * How a text reader ends: at the end of input, or on an error. An error met
 * after some values of a batch waits: the values go out first, the error with
 * the next read, which ends the reader.
 */
export class ReadEnd {
  /** No more values (the input ended, or the error was thrown). */
  done = false;
  private failure: unknown = null;

  /** At the start of a read: throws a waiting error; true when the reader has ended. */
  ended(): boolean {
    if (this.failure !== null) {
      const f = this.failure;
      this.failure = null;
      this.done = true;
      throw f;
    }
    return this.done;
  }

  /** An error with batch in hand: throws it now if the batch is empty, else keeps it and returns the batch. */
  fail(err: unknown, batch: Batch): Batch {
    if (batch.length === 0) {
      this.done = true;
      throw err;
    }
    this.failure = err;
    return batch;
  }
}

export class NeedMore extends Error {
  constructor() {
    super("unexpected end of input");
  }
}

/**
 * Tries the start of the input as one format: `text` is the prefix decoded as
 * UTF-8, `bytes` the same prefix raw (binary formats use it), `eof` true when
 * the prefix is the whole input.
 */
export type Detector = (text: string, eof: boolean, bytes: Uint8Array) => Detection;

/** What a detector concluded from a prefix of the input. */
export type Detection =
  | { ok: true }
  | { ok: false; error: string }
  /** The prefix ended before the detector could decide. */
  | { ok: "more" };

/** Accumulates text and sends it to a sink as UTF-8 in large chunks. */
export class TextSink {
  private parts: string[] = [];
  private size = 0;

  constructor(private sink: Sink, private threshold = 1 << 16) {}

  /** Appends text; flushes when enough has accumulated. */
  async write(s: string): Promise<void> {
    this.parts.push(s);
    this.size += s.length;
    if (this.size >= this.threshold) await this.flush();
  }

  /** Appends text without flushing (the caller flushes at a batch boundary). */
  push(s: string): void {
    this.parts.push(s);
    this.size += s.length;
  }

  get pending(): number {
    return this.size;
  }

  async flush(): Promise<void> {
    if (this.size === 0 && this.parts.length === 0) return;
    const s = this.parts.length === 1 ? this.parts[0] : this.parts.join("");
    this.parts = [];
    this.size = 0;
    if (s.length > 0) await this.sink(textEncoder.encode(s));
  }

  /** Flushes if enough text has accumulated. */
  async maybeFlush(): Promise<void> {
    if (this.size >= this.threshold) await this.flush();
  }

  /**
   * Runs a batch's formatting (which pushes text), then flushes if enough has
   * accumulated. If it throws, what it pushed before is still sent (as the
   * reference writes the values before a bad one), then the error goes on.
   */
  async pushing(format: () => void): Promise<void> {
    try {
      format();
    } catch (e) {
      await this.flush();
      throw e;
    }
    await this.maybeFlush();
  }
}

/** Chunks as one array (the chunk itself when there is one). */
export function concatBytes(chunks: Uint8Array[], size: number): Uint8Array {
  if (chunks.length === 1) return chunks[0];
  const out = new Uint8Array(size);
  let off = 0;
  for (const c of chunks) {
    out.set(c, off);
    off += c.length;
  }
  return out;
}

/** Readers one after another, as one input; each is closed when done. */
export class ConcatReader implements ValueReader {
  private i = 0;
  constructor(private readers: ValueReader[]) {}

  async read(): Promise<Batch | null> {
    while (this.i < this.readers.length) {
      const b = await this.readers[this.i].read();
      if (b !== null) return b;
      await this.readers[this.i].close?.();
      this.i++;
    }
    return null;
  }

  async close(): Promise<void> {
    for (; this.i < this.readers.length; this.i++) await this.readers[this.i].close?.();
  }

  parts(): readonly ValueReader[] {
    return this.readers;
  }
}

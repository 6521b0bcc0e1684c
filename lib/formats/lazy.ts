// Readers and writers whose modules load on first use: Parquet's (hyparquet)
// and Arrow's (apache-arrow) would otherwise sit in the heap of every thread,
// 5–18 MB each, though most servers never see a Parquet or Arrow body.

import type { Batch } from "../zed/value.ts";
import type { ByteInput, Sink, ValueReader, ValueWriter } from "./io.ts";

/** Loads a module and makes a reader of input with it. */
export type ReaderLoader = (input: ByteInput) => Promise<ValueReader>;
/** Loads a module and makes a writer to sink with it. */
export type WriterLoader = (sink: Sink) => Promise<ValueWriter>;

class LazyReader implements ValueReader {
  private reader: Promise<ValueReader> | undefined;

  constructor(private readonly input: ByteInput, private readonly load: ReaderLoader) {}

  async read(): Promise<Batch | null> {
    this.reader ??= this.load(this.input);
    return (await this.reader).read();
  }

  async close(): Promise<void> {
    if (this.reader !== undefined) await (await this.reader).close?.();
  }
}

class LazyWriter implements ValueWriter {
  private writer: Promise<ValueWriter> | undefined;

  constructor(private readonly sink: Sink, private readonly load: WriterLoader) {}

  private open(): Promise<ValueWriter> {
    this.writer ??= this.load(this.sink);
    return this.writer;
  }

  async write(batch: Batch): Promise<void> {
    await (await this.open()).write(batch);
  }

  async end(): Promise<void> {
    await (await this.open()).end();
  }
}

/** An input format's reader whose module loads on its first read. */
export const lazyReader = (load: ReaderLoader) => (input: ByteInput): ValueReader =>
  new LazyReader(input, load);

/** An output format's writer whose module loads on its first write. */
export const lazyWriter = (load: WriterLoader) => (sink: Sink): ValueWriter =>
  new LazyWriter(sink, load);

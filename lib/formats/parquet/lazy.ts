// Parquet's reader and writer, and hyparquet under them, are loaded on first
// use: most servers never see a Parquet body, and the modules would otherwise
// sit in the heap of every thread (a dozen MB each).

import type { Batch } from "../../zed/value.ts";
import type { ByteInput, Sink, ValueReader, ValueWriter } from "../io.ts";

export class LazyParquetReader implements ValueReader {
  private reader: ValueReader | undefined;

  constructor(private readonly input: ByteInput) {}

  async read(): Promise<Batch | null> {
    if (this.reader === undefined) {
      const { ParquetReader } = await import("./reader.ts");
      this.reader = new ParquetReader(this.input);
    }
    return this.reader.read();
  }
}

export class LazyParquetWriter implements ValueWriter {
  private writer: ValueWriter | undefined;

  constructor(private readonly sink: Sink) {}

  private async open(): Promise<ValueWriter> {
    if (this.writer === undefined) {
      const { ParquetWriter } = await import("./writer.ts");
      this.writer = new ParquetWriter(this.sink);
    }
    return this.writer;
  }

  async write(batch: Batch): Promise<void> {
    await (await this.open()).write(batch);
  }

  async end(): Promise<void> {
    await (await this.open()).end();
  }
}

// ZSON output: one formatted value per line (`-z` is tab 0, `-Z` tab 4).

import type { Batch } from "../../zed/value.ts";
import { type Sink, TextSink, type ValueWriter } from "../io.ts";
import { ZsonFormatter } from "./formatter.ts";

export interface ZsonWriterOptions {
  /** Indent width; 0 writes each value on one line with no spaces. */
  pretty?: number;
  /** Keep definitions of matching type names across values (zq's -persist). */
  persist?: RegExp;
}

export class ZsonWriter implements ValueWriter {
  private out: TextSink;
  private formatter: ZsonFormatter;

  constructor(sink: Sink, opts: ZsonWriterOptions = {}) {
    this.out = new TextSink(sink);
    this.formatter = new ZsonFormatter(opts.pretty ?? 0, opts.persist);
  }

  async write(batch: Batch): Promise<void> {
    const f = this.formatter;
    await this.out.pushing(() => {
      for (const v of batch) this.out.push(f.format(v.type, v.body) + "\n");
    });
  }

  async end(): Promise<void> {
    await this.out.flush();
  }
}

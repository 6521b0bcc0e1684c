// ZSON output: one formatted value per line (`-z` is tab 0, `-Z` tab 4),
// written as UTF-8 straight into a buffer handed to the sink in large chunks.

import type { Batch } from "../../zed/value.ts";
import type { Sink, ValueWriter } from "../io.ts";
import { ByteBuffer } from "../json/bytebuf.ts";
import { ZsonFormatter } from "./formatter.ts";

export interface ZsonWriterOptions {
  /** Indent width; 0 writes each value on one line with no spaces. */
  pretty?: number;
  /** Keep definitions of matching type names across values (zq's -persist). */
  persist?: RegExp;
}

/** Output is handed to the sink once this much has accumulated. */
const FLUSH_AT = 1 << 16;

export class ZsonWriter implements ValueWriter {
  // Small for a query answering a few values; FLUSH_AT and a value at most.
  private out = new ByteBuffer(1 << 12);
  private formatter: ZsonFormatter;

  constructor(private sink: Sink, opts: ZsonWriterOptions = {}) {
    this.formatter = new ZsonFormatter(opts.pretty ?? 0, opts.persist);
  }

  async write(batch: Batch): Promise<void> {
    const f = this.formatter, out = this.out;
    let mark = out.pos;
    try {
      for (let i = 0; i < batch.length; i++) {
        mark = out.pos;
        const v = batch[i];
        f.formatInto(v.type, v.body, out);
        out.byte(0x0a);
        if (out.pos >= FLUSH_AT) await this.flush();
      }
    } catch (e) {
      // The values before a bad one are still sent, then the error goes on.
      out.pos = mark;
      await this.flush();
      throw e;
    }
  }

  async end(): Promise<void> {
    await this.flush();
  }

  /** Hands what is buffered to the sink (also between batches, by a caller that must send now). */
  async flush(): Promise<void> {
    if (this.out.pos > 0) await this.sink(this.out.take());
  }
}

// JSON output (formats.md §5.2): one JSON value per line (`-j`, `-f json`,
// `-f ndjson`), or with `array: true` the lake API's single JSON array
// (`[v,v,...]\n`, `[]\n` when there are no values).

import type { Type } from "../../zed/types.ts";
import type { Batch } from "../../zed/value.ts";
import type { Sink, ValueWriter } from "../io.ts";
import { ByteBuffer } from "./bytebuf.ts";
import { type Encoder, encoderOf, unsupportedError, UnsupportedFloat } from "./encode.ts";

export interface JsonWriterOptions {
  /** Write one JSON array of all values instead of one value per line. */
  array?: boolean;
}

/** Output is handed to the sink once this much has accumulated. */
const FLUSH_AT = 1 << 16;

export class JsonWriter implements ValueWriter {
  // Grows as a batch needs (a query answering a few values allocates little).
  private out = new ByteBuffer(1 << 14);
  private array: boolean;
  /** Whether the array form has written its `[`. */
  private opened = false;
  private lastType: Type | null = null;
  private lastEncoder: Encoder | null = null;

  constructor(private sink: Sink, opts: JsonWriterOptions = {}) {
    this.array = opts.array ?? false;
  }

  async write(batch: Batch): Promise<void> {
    const out = this.out;
    let i = 0;
    let mark = out.pos;
    try {
      for (; i < batch.length; i++) {
        const v = batch[i];
        mark = out.pos;
        if (this.array) out.byte(this.opened ? 44 : 91);
        this.encoder(v.type)(v.body, out);
        if (this.array) this.opened = true;
        else out.byte(10);
      }
    } catch (e) {
      if (!(e instanceof UnsupportedFloat)) throw e;
      // The values before the bad one are written, as the reference does.
      out.pos = mark;
      await this.flush();
      throw unsupportedError(batch[i].type, batch[i].body);
    }
    if (out.pos >= FLUSH_AT) await this.flush();
  }

  async end(): Promise<void> {
    if (this.array) this.out.ascii(this.opened ? "]\n" : "[]\n");
    await this.flush();
  }

  private encoder(t: Type): Encoder {
    if (t !== this.lastType) {
      this.lastType = t;
      this.lastEncoder = encoderOf(t);
    }
    return this.lastEncoder!;
  }

  private async flush(): Promise<void> {
    if (this.out.pos > 0) await this.sink(this.out.take());
  }
}

// The runtime shape of a query: operators pull batches from their parents.
// A batch moves through synchronous work in one step; awaits happen only at
// I/O and between batches, so long queries never starve the event loop.

import type { ValueReader, ValueWriter } from "../formats/io.ts";
import type { Batch } from "../zed/value.ts";

export interface Operator {
  /** The next non-empty batch, or null when the operator is done. */
  pull(): Promise<Batch | null>;
  /** Tells upstream that no more batches are wanted (e.g. after `head`). */
  done?(): Promise<void>;
}

/** Reads its inputs one after another. */
export class ReaderSource implements Operator {
  private i = 0;
  constructor(private readers: ValueReader[]) {}

  async pull(): Promise<Batch | null> {
    while (this.i < this.readers.length) {
      const b = await this.readers[this.i].read();
      if (b !== null) return b;
      this.i++;
    }
    return null;
  }
}

/** A source of the given values, in one batch. */
export class ValuesSource implements Operator {
  constructor(private values: Batch) {}
  pull(): Promise<Batch | null> {
    const v = this.values;
    this.values = [];
    return Promise.resolve(v.length > 0 ? v : null);
  }
}

/** Pulls every batch from op and writes it; the writer is ended even on failure. */
export async function drain(op: Operator, writer: ValueWriter): Promise<void> {
  try {
    for (let b = await op.pull(); b !== null; b = await op.pull()) await writer.write(b);
  } finally {
    await writer.end();
  }
}

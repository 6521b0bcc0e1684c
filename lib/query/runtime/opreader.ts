// Operators run over a reader, as a reader: what a source does when the
// planner gave it operators to perform (planner/pushdown.ts) and it has no
// better way to do them than the operators themselves.

import type { ValueReader } from "../../formats/io.ts";
import type { Batch } from "../../zed/value.ts";
import { Collector, type Op, type OpFactory } from "./op.ts";
import { buildPausing, maybeYield } from "./turns.ts";

export class OpReader implements ValueReader {
  private collector = new Collector();
  private head: Op | null = null;
  private out: Batch[] = [];
  private ended = false;

  constructor(
    private input: ValueReader,
    private make: OpFactory,
    private signal?: AbortSignal,
  ) {}

  async read(): Promise<Batch | null> {
    // Built at the first read, within the query's run: what the operators
    // hold is counted in its scope (sources are opened before it starts).
    // End-of-input work (a sort's) takes turns with the event loop.
    const head = this.head ??= buildPausing(maybeYield, () => this.make(this.collector));
    for (;;) {
      if (this.out.length === 0) this.out = this.collector.take();
      const b = this.out.shift();
      if (b !== undefined) return b;
      if (this.ended) return null;
      this.signal?.throwIfAborted();
      const batch = head.done ? null : await this.input.read();
      if (batch === null) {
        await head.end();
        this.ended = true;
        continue;
      }
      head.push(batch);
      await maybeYield();
    }
  }

  close(): Promise<void> {
    return this.input.close?.() ?? Promise.resolve();
  }
}

/** The first n values of a reader; it stops reading once it has them. */
export class LimitReader implements ValueReader {
  /** Values [skip, n) of input: its first n, less the first skip of those. */
  constructor(private input: ValueReader, private n: number, private skip = 0) {}

  async read(): Promise<Batch | null> {
    for (;;) {
      if (this.n <= 0) return null;
      let b = await this.input.read();
      if (b === null) return null;
      if (b.length > this.n) b = b.slice(0, this.n);
      this.n -= b.length;
      if (this.skip === 0) return b;
      if (this.skip >= b.length) {
        this.skip -= b.length;
        continue;
      }
      b = b.slice(this.skip);
      this.skip = 0;
      return b;
    }
  }

  close(): Promise<void> {
    return this.input.close?.() ?? Promise.resolve();
  }
}

/** Batches already in hand, read one at a time. */
export class BatchesReader implements ValueReader {
  constructor(private batches: Batch[]) {}
  read(): Promise<Batch | null> {
    return Promise.resolve(this.batches.shift() ?? null);
  }
}

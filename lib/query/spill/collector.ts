// The end of a query run's operator graph. Operators emit synchronously, so
// an operator that flushes a lot at once (a sort at its end, a summarize of
// many groups) would leave all of it here before the writer gets any; past
// the memory budget the batches go to a spill file instead and are read
// back, in order, as the writer takes them.

import { BATCH_SIZE } from "../../formats/io.ts";
import type { Batch, Value } from "../../zed/value.ts";
import { Collector } from "../runtime/op.ts";
import { type RunWriter, SpillFile } from "./file.ts";
import { batchSize } from "./size.ts";
import { currentScope } from "./scope.ts";

/** Values held before the size of what is held is estimated at all. */
const CHECK_AFTER = 16 * BATCH_SIZE;

export class SpillingCollector extends Collector {
  private held = 0;
  /** Whether the size of what is held is counted (once held passed CHECK_AFTER). */
  private counting = false;
  /** Estimated bytes held, in the query's account. */
  private readonly mem = currentScope().use("the query's output");
  private file: SpillFile | null = null;
  private writer: RunWriter | null = null;

  constructor(private readonly budget: number) {
    super();
  }

  override push(batch: Batch): void {
    if (this.writer !== null) {
      for (let i = 0; i < batch.length; i++) this.writer.write(batch[i]);
      return;
    }
    this.batches.push(batch);
    this.held += batch.length;
    if (this.held <= CHECK_AFTER) return;
    if (!this.counting) {
      this.counting = true;
      for (const b of this.batches) this.mem.add(batchSize(b));
    } else {
      this.mem.add(batchSize(batch));
    }
    if (this.mem.shouldSpill(this.budget)) this.spill();
  }

  /** Takes what was collected, in order: batches held, then those spilled, read back. */
  *drain(): Generator<Batch> {
    const file = this.file, writer = this.writer;
    const held = this.take();
    this.held = 0;
    this.counting = false;
    this.mem.clear();
    this.file = null;
    this.writer = null;
    if (file === null) {
      yield* held;
      return;
    }
    try {
      writer!.close();
      const r = file.reader();
      let out: Value[] = [];
      for (let v = r.next(); v !== undefined; v = r.next()) {
        out.push(v);
        if (out.length >= BATCH_SIZE) {
          yield out;
          out = [];
        }
      }
      if (out.length > 0) yield out;
    } finally {
      file.remove();
    }
  }

  private spill(): void {
    this.mem.clear();
    this.file = SpillFile.create();
    this.writer = this.file.writer();
    for (const b of this.take()) for (let i = 0; i < b.length; i++) this.writer.write(b[i]);
  }
}

// `tail [N]`: the last N values (N = 0 means 1), emitted at the end of input.

import type { Batch, Value } from "../../zed/value.ts";
import { type Op, Unary } from "../runtime/op.ts";
import type { Ended } from "../runtime/work.ts";
import { currentScope } from "../spill/scope.ts";
import { batchSize } from "../spill/size.ts";

export class Tail extends Unary {
  private readonly limit: number;
  private held: Value[] = [];
  /** Estimated bytes of held, in the query's account. */
  private readonly mem = currentScope().use("tail");

  constructor(next: Op, n: number) {
    super(next);
    this.limit = n === 0 ? 1 : n;
  }

  push(batch: Batch): void {
    const held = this.held;
    for (let i = 0; i < batch.length; i++) held.push(batch[i]);
    this.mem.add(batchSize(batch));
    // Trim in bulk, so the cost per value stays constant.
    if (held.length >= 2 * this.limit + 1024) {
      this.held = held.slice(held.length - this.limit);
      this.mem.clear();
      this.mem.add(batchSize(this.held));
    }
    this.mem.check();
  }

  override end(): Ended {
    const held = this.held;
    this.held = [];
    this.mem.clear();
    return this.finish(this.emitSlices(held, Math.max(0, held.length - this.limit)));
  }
}

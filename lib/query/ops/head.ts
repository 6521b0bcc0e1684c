// `head [N]`: the first N values (N = 0 means 1). Once it has passed N values
// it reports done, so the source can stop reading, and ignores anything more.

import type { Batch } from "../../zed/value.ts";
import { type Op, Unary } from "../runtime/op.ts";

export class Head extends Unary {
  private readonly limit: number;
  private count = 0;

  constructor(next: Op, n: number) {
    super(next);
    this.limit = n === 0 ? 1 : n;
  }

  push(batch: Batch): void {
    const remaining = this.limit - this.count;
    if (remaining <= 0) return;
    if (batch.length <= remaining) {
      this.count += batch.length;
      this.next.push(batch);
    } else {
      this.count = this.limit;
      this.next.push(batch.slice(0, remaining));
    }
  }

  override get done(): boolean {
    return this.count >= this.limit || this.next.done;
  }
}

// Operators with several inputs (join, merge) receive each input through a
// port that buffers it; the operator runs once every port has ended.

import type { Batch, Value } from "../../zed/value.ts";
import type { Op } from "../runtime/op.ts";
import { pauseForNew } from "../runtime/turns.ts";
import { type Ended, finishWork, type Work } from "../runtime/work.ts";

export abstract class MultiInput {
  readonly ports: Op[];
  protected inputs: Value[][];
  private open: number;
  private readonly pause = pauseForNew();

  constructor(protected readonly next: Op, count: number) {
    this.inputs = Array.from({ length: count }, () => []);
    this.open = count;
    this.ports = this.inputs.map((buf) => ({
      push: (batch: Batch) => {
        for (const v of batch) buf.push(v);
      },
      end: (): Ended => {
        if (--this.open > 0) return;
        return finishWork(this.run(), this.pause, this.next);
      },
      get done() {
        return false;
      },
    }));
  }

  /** Produces the output from the buffered inputs (see runtime/work.ts). */
  protected abstract run(): Work;
}

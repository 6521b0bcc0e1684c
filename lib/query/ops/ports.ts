// Operators with several inputs (join, merge) receive each input through a
// port that buffers it; the operator runs once every port has ended.

import type { Batch, Value } from "../../zed/value.ts";
import type { Op } from "../runtime/op.ts";

export abstract class MultiInput {
  readonly ports: Op[];
  protected inputs: Value[][];
  private open: number;

  constructor(protected readonly next: Op, count: number) {
    this.inputs = Array.from({ length: count }, () => []);
    this.open = count;
    this.ports = this.inputs.map((buf) => ({
      push: (batch: Batch) => {
        for (const v of batch) buf.push(v);
      },
      end: () => {
        if (--this.open === 0) {
          this.run();
          this.next.end();
        }
      },
      get done() {
        return false;
      },
    }));
  }

  /** Produces the output from the buffered inputs. */
  protected abstract run(): void;

  /** Pushes values downstream in batches. */
  protected emit(vals: Value[]): void {
    for (let i = 0; i < vals.length && !this.next.done; i += 1000) {
      this.next.push(vals.slice(i, i + 1000));
    }
  }
}

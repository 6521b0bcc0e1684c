// Operators. A compiled query is a graph of operators that values are pushed
// through, one batch at a time, synchronously; only the source that feeds the
// graph awaits (reading input). Fan-out (fork, switch) pushes to several
// children; fan-in (combine) is several parents pushing to one child.
//
// An operator that wants no more input (head, after its N values) reports
// done; the source stops reading once every path reports done.

import type { Batch } from "../../zed/value.ts";

export interface Op {
  /** Takes a non-empty batch. Batches are never modified once pushed. */
  push(batch: Batch): void;
  /** The input has ended: emit anything held, then end the children. */
  end(): void;
  /** True when no further input can change this operator's output. */
  readonly done: boolean;
}

/** An operator with one child, passing end and done through. */
export abstract class Unary implements Op {
  constructor(protected readonly next: Op) {}
  abstract push(batch: Batch): void;
  end(): void {
    this.next.end();
  }
  get done(): boolean {
    return this.next.done;
  }
  /** Pushes a batch downstream if it has values. */
  protected emit(out: Batch): void {
    if (out.length > 0) this.next.push(out);
  }
}

/**
 * A reusable description of an operator: compiled expressions plus the
 * knowledge of how to make a fresh instance (with fresh state) in front of a
 * given child. Lateral subqueries instantiate their pipeline once per value.
 */
export type OpFactory = (next: Op) => Op;

/** Where a pipeline's output lands: batches collected for the driver to write. */
export class Collector implements Op {
  batches: Batch[] = [];
  ended = false;
  done = false;
  push(batch: Batch): void {
    this.batches.push(batch);
  }
  end(): void {
    this.ended = true;
  }
  /** Takes the collected batches. */
  take(): Batch[] {
    const b = this.batches;
    this.batches = [];
    return b;
  }
}

/** Passes values through unchanged. */
export class Pass extends Unary {
  push(batch: Batch): void {
    this.next.push(batch);
  }
}

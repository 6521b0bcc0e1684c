// Operators. A compiled query is a graph of operators that values are pushed
// through, one batch at a time, synchronously; the source that feeds the
// graph awaits (reading input). Fan-out (fork, switch) pushes to several
// children; fan-in (combine) is several parents pushing to one child.
//
// An operator that wants no more input (head, after its N values) reports
// done; the source stops reading once every path reports done.
//
// end() may take long (a sort sorts and emits everything then). An operator
// built to pause (turns.ts: the query runner builds its graph so) does that
// work in slices and returns a promise, which the caller awaits before it
// ends or pushes anything else; built otherwise, it ends synchronously and
// returns nothing. Operators that pass end on return what their children's
// end() returns, and end several children one after another.

import type { Batch, Value } from "../../zed/value.ts";
import { BATCH_SIZE } from "../../formats/io.ts";
import { type Pause, pauseForNew } from "./turns.ts";
import { type Ended, finishWork, type Work } from "./work.ts";

export interface Op {
  /** Takes a non-empty batch. Batches are never modified once pushed. */
  push(batch: Batch): void;
  /**
   * The input has ended: emit anything held, then end the children. A
   * promise when the work pauses (see above); the caller awaits it.
   */
  end(): Ended;
  /** True when no further input can change this operator's output. */
  readonly done: boolean;
}

/** An operator with one child, passing end and done through. */
export abstract class Unary implements Op {
  /** What end-of-input work awaits between slices; null to run it straight through. */
  protected readonly pause: Pause | null = pauseForNew();
  constructor(protected readonly next: Op) {}
  abstract push(batch: Batch): void;
  end(): Ended {
    return this.next.end();
  }
  get done(): boolean {
    return this.next.done;
  }
  /** Pushes a batch downstream if it has values. */
  protected emit(out: Batch): void {
    if (out.length > 0) this.next.push(out);
  }
  /** Sends what pull returns until it returns undefined or the child is done, a batch per pause. */
  protected *emitPulled(pull: () => Value | undefined): Work {
    let out: Value[] = [];
    for (let v = pull(); v !== undefined && !this.next.done; v = pull()) {
      out.push(v);
      if (out.length >= BATCH_SIZE) {
        this.next.push(out);
        out = [];
        yield;
      }
    }
    if (out.length > 0 && !this.next.done) this.next.push(out);
  }

  /** Sends vals[from..] on, a batch per pause, until the child is done. */
  protected *emitSlices(vals: Value[], from = 0): Work {
    for (let i = from; i < vals.length && !this.next.done; i += BATCH_SIZE) {
      this.next.push(vals.slice(i, i + BATCH_SIZE));
      yield;
    }
  }

  /** Runs end-of-input work (pausing if built to), then ends the child. */
  protected finish(work: Work): Ended {
    return finishWork(work, this.pause, this.next);
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

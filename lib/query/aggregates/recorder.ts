// Recording an aggregate's numbers instead of aggregating them: for a
// summarize whose groups go to another thread (Summarize.recordNumbers),
// where an aggregate that depends on the order of its values must get them
// there, after the values before them.

import { TypeUint64 } from "../../zed/types.ts";
import { Value } from "../../zed/value.ts";
import { VALUE } from "../../zed/vector.ts";
import type { Aggregator } from "./registry.ts";

/** A summarize that records numbers met a value it cannot record (see recordNumbers). */
export class NotRecordable extends Error {
  constructor() {
    super("summarize: a value other than a number from a column cannot be recorded");
  }
}

/**
 * Stands in for an aggregate whose result depends on the order of its
 * values (a float sum) in a summarize whose groups go to another thread:
 * it keeps the numbers offered from columns, in order, for that thread to
 * offer its own aggregate after the values before them (mergeGroups).
 */
export class NumberRecorder implements Aggregator {
  numbers = new Float64Array(16);
  length = 0;

  consume(v: Value): void {
    // Nulls are ignored by the aggregates that take numbers (Aggregator.consumeNumbers).
    if (v.body !== null) throw new NotRecordable();
  }

  consumeNumbers(f64: Float64Array, state: Uint8Array, rows: Int32Array, from: number, to: number) {
    if (this.length + (to - from) > this.numbers.length) {
      const grown = new Float64Array(Math.max(this.numbers.length * 2, this.length + to - from));
      grown.set(this.numbers.subarray(0, this.length));
      this.numbers = grown;
    }
    let n = this.length;
    const out = this.numbers;
    for (let r = from; r < to; r++) {
      const i = rows[r];
      // (As the aggregates that take numbers: rows without a value are not offered.)
      if (state[i] === VALUE) out[n++] = f64[i];
    }
    this.length = n;
  }

  result(): Value {
    throw new NotRecordable();
  }

  /** How many numbers it kept (the numbers themselves go apart: savedGroups). */
  save(out: Value[]): void {
    out.push(new Value(TypeUint64, this.length));
  }
}

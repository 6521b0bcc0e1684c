// avg: the mean of the non-null values convertible to float (numbers, times,
// durations and numeric strings), as float64; null(float64) when there were none.

import { TypeFloat64, TypeUint64 } from "../../zed/types.ts";
import { Value } from "../../zed/value.ts";
import { VALUE } from "../../zed/vector.ts";
import { toFloat } from "../expr/coerce.ts";
import { type Aggregator, registerAggregate } from "./registry.ts";

const NULL_FLOAT64 = new Value(TypeFloat64, null);

class Avg implements Aggregator {
  private sum = 0;
  private count = 0;
  consume(v: Value): void {
    if (v.body === null) return;
    const f = toFloat(v);
    if (f === undefined) return;
    this.sum += f;
    this.count++;
  }
  consumeNumbers(f64: Float64Array, state: Uint8Array, rows: Int32Array, from: number, to: number) {
    let sum = this.sum, count = this.count;
    for (let r = from; r < to; r++) {
      const i = rows[r];
      if (state[i] !== VALUE) continue;
      sum += f64[i];
      count++;
    }
    this.sum = sum;
    this.count = count;
  }
  result(): Value {
    return this.count > 0 ? new Value(TypeFloat64, this.sum / this.count) : NULL_FLOAT64;
  }
  save(out: Value[]): void {
    out.push(new Value(TypeFloat64, this.sum), new Value(TypeUint64, this.count));
  }
  /** (Not mergeable: float sums depend on the order of the additions.) */
  restore(state: readonly Value[]): void {
    this.sum = state[0].body as number;
    this.count = Number(state[1].body);
  }
}

registerAggregate("avg", { min: 1, max: 1, make: () => new Avg() });

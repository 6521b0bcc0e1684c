// min() and max() of a column of integers, times or durations over a group's
// rows, found in one loop over the column's doubles. An aggregate fed only
// the extreme value (or a null, where the rows hold only nulls) ends as it
// would fed every value: all are of the one type, so nothing is coerced, and
// min and max do not depend on order. Doubles order 64-bit integers as they
// are ordered, only not strictly past 2^53: there the rows tied at the
// extreme double are compared exactly. (Floats keep the per-value path: a
// NaN makes the result depend on where it falls.)

import { NULL_ROW, type NumberVector, VALUE } from "../../zed/vector.ts";
import { Value } from "../../zed/value.ts";
import { ID_TIME } from "../../zed/types.ts";
import { typeId } from "../expr/coerce.ts";

/** Whether the column's values are integers, times or durations. */
export function integerColumn(v: NumberVector): boolean {
  return typeId(v.type) <= ID_TIME;
}

/**
 * The one value that stands for rows[from, to) of v in a min (max false) or
 * max: the extreme value, a null when they hold only nulls, or null when they
 * hold neither (absent rows feed nothing).
 */
export function extremeValue(
  v: NumberVector,
  rows: Int32Array,
  from: number,
  to: number,
  max: boolean,
): Value | null {
  const state = v.state, f64 = v.f64;
  let best = max ? -Infinity : Infinity, at = -1, nulls = false;
  for (let r = from; r < to; r++) {
    const i = rows[r];
    const s = state[i];
    if (s === VALUE) {
      const x = f64[i];
      if (at < 0 || (max ? x > best : x < best)) {
        best = x;
        at = i;
      }
    } else if (s === NULL_ROW) nulls = true;
  }
  if (at < 0) return nulls ? new Value(v.type, null) : null;
  const big = v.big;
  if (big !== null) {
    // Past 2^53 several values share a double: the exact extreme among them.
    let exact = big[at];
    for (let r = from; r < to; r++) {
      const i = rows[r];
      if (state[i] !== VALUE || f64[i] !== best) continue;
      const x = big[i];
      if (max ? x > exact : x < exact) {
        exact = x;
        at = i;
      }
    }
  }
  return new Value(v.type, v.body(at));
}

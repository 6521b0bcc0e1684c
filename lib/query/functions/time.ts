// Time functions: now, bucket, every (language.md §6). Times and durations
// are int64 nanoseconds.

import {
  ID_TIME,
  isFloat,
  isInteger,
  isSigned,
  TypeDuration,
  TypeTime,
  typeUnder,
} from "../../zed/types.ts";
import { intBody, toBigInt, Value } from "../../zed/value.ts";
import { floatToInt64, toInt, typeId } from "../expr/coerce.ts";
import type { Expr } from "../runtime/expr.ts";
import { errorValue, fieldOf, MISSING } from "../runtime/values.ts";
import { define } from "./define.ts";

const NULL_TIME = new Value(TypeTime, null);
const MAX_INT64 = 9223372036854775807n;

/** Go's coerce.ToTime: time, signed ints (ns), uints up to MaxInt64, floats truncated. */
function toTime(v: Value): number | bigint | undefined {
  const id = typeId(v.type);
  const b = v.body as number | bigint | null;
  if (id === ID_TIME || isSigned(id)) return b ?? 0;
  if (isInteger(id)) return b !== null && toBigInt(b) > MAX_INT64 ? undefined : b ?? 0;
  if (isFloat(id)) return floatToInt64((b ?? 0) as number);
  return undefined;
}

/** x truncated toward zero to a multiple of bin (x unchanged for a zero bin). */
function trunc(x: number | bigint, bin: bigint): number | bigint {
  if (bin === 0n) return x;
  return intBody(BigInt.asIntN(64, (toBigInt(x) / bin) * bin));
}

function bucket(name: string, ts: Value, span: Value): Value {
  if (ts.body === null || span.body === null) return NULL_TIME;
  let bin: bigint;
  if (span.type === TypeDuration) {
    bin = toBigInt(span.body as number | bigint);
  } else {
    const n = toInt(span);
    if (n === undefined) return errorValue(`${name}: second arg must be duration or number`);
    bin = BigInt.asIntN(64, toBigInt(n) * 1000000000n);
  }
  if (typeUnder(ts.type) === TypeDuration) {
    return new Value(TypeDuration, trunc(ts.body as number | bigint, bin));
  }
  const t = toTime(ts);
  if (t === undefined) return errorValue(`${name}: time arg required`);
  return new Value(TypeTime, trunc(t, bin));
}

define("bucket", {
  min: 2,
  max: 2,
  compile([ts, span]: Expr[]): Expr {
    return (v) => bucket("bucket", ts(v), span(v));
  },
});

// every(d) is bucket(ts, d) on the field `ts` of this.
define("every", {
  min: 1,
  max: 1,
  compile([span]: Expr[]): Expr {
    return (v) => bucket("every", fieldOf(v, "ts") ?? MISSING, span(v));
  },
});

define("now", {
  min: 0,
  max: 0,
  compile(): Expr {
    return () => {
      const micros = Math.round((performance.timeOrigin + performance.now()) * 1000);
      return new Value(TypeTime, intBody(BigInt(micros) * 1000n));
    };
  },
});

// Numeric conversions the math accumulators need, after the reference's
// runtime/expr/coerce ToInt, ToUint, ToDuration and ToTime (lib/query/expr/
// coerce.ts has the shared Pair.Coerce and ToFloat). They work on non-null
// bodies of known underlying type ids and report failure as undefined.

import {
  ID_DURATION,
  ID_INT16,
  ID_INT32,
  ID_INT64,
  ID_TIME,
  ID_UINT16,
  ID_UINT32,
  ID_UINT64,
  isFloat,
  isInteger,
  isSigned,
} from "../../zed/types.ts";
import { type Body, int64Body, uint64Body } from "../../zed/value.ts";
import { floatToInt64 } from "../expr/coerce.ts";

export type Int = number | bigint;

const MAX_INT64 = (1n << 63n) - 1n;
const SECOND = 1_000_000_000;

/** Go's uint64(f) for in-range values; out of range wraps like the int conversion. */
function floatToUint64(f: number): Int {
  if (f >= 0 && f < 18446744073709551616) {
    const t = Math.trunc(f);
    return Number.isSafeInteger(t) ? t : uint64Body(BigInt(t));
  }
  return uint64Body(BigInt.asUintN(64, BigInt(floatToInt64(f))));
}

/** coerce.ToInt for numeric ids: unsigned values wrap to int64. */
export function toInt(id: number, body: Body): Int | undefined {
  if (isFloat(id)) return floatToInt64(body as number);
  if (isInteger(id) || isSigned(id)) {
    const n = body as Int;
    return typeof n === "bigint" ? int64Body(n) : n;
  }
  return undefined;
}

/** coerce.ToUint for numeric ids: negative signed ints fail; durations and times wrap. */
export function toUint(id: number, body: Body): Int | undefined {
  if (isFloat(id)) return floatToUint64(body as number);
  const n = body as Int;
  if (id === ID_DURATION || id === ID_TIME) {
    return typeof n === "bigint" ? uint64Body(n) : n < 0 ? uint64Body(BigInt(n)) : n;
  }
  if (isSigned(id)) return n < 0 ? undefined : n;
  if (isInteger(id)) return n;
  return undefined;
}

/** coerce.ToDuration: ints count seconds (int8 and uint8 are not accepted), floats nanoseconds. */
export function toDuration(id: number, body: Body): Int | undefined {
  switch (id) {
    case ID_DURATION:
      return body as Int;
    case ID_UINT16:
    case ID_UINT32:
    case ID_UINT64:
      if (typeof body === "bigint" && body > MAX_INT64) return undefined;
      return seconds(body as Int);
    case ID_INT16:
    case ID_INT32:
    case ID_INT64:
      return seconds(body as Int);
  }
  if (isFloat(id)) return floatToInt64(body as number);
  return undefined;
}

function seconds(n: Int): Int {
  if (typeof n === "number") {
    const r = n * SECOND;
    if (Number.isSafeInteger(r)) return r;
  }
  return int64Body(BigInt(n) * BigInt(SECOND));
}

/** coerce.ToTime: signed ints and durations are nanoseconds; uint64 beyond int64 fails. */
export function toTime(id: number, body: Body): Int | undefined {
  if (isSigned(id)) return body as Int;
  if (isInteger(id)) {
    if (typeof body === "bigint" && body > MAX_INT64) return undefined;
    return body as Int;
  }
  if (isFloat(id)) return floatToInt64(body as number);
  return undefined;
}

// Math functions: abs, ceil, floor, round, log, pow, sqrt, and the scalar
// (two or more argument) forms of min and max (language.md §6).

import {
  ID_FLOAT32,
  ID_FLOAT64,
  isFloat,
  isInteger,
  isNumber,
  isSigned,
  TypeFloat32,
  TypeFloat64,
  TypeInt64,
  TypeUint64,
} from "../../zed/types.ts";
import { int64Body, Value } from "../../zed/value.ts";
import { toUint } from "../expr/cast.ts";
import { toFloat, toInt, typeId } from "../expr/coerce.ts";
import { errorValue, zson } from "../runtime/values.ts";
import { binary, unary, variadic } from "./define.ts";

function floatOf(v: Value): number {
  return (v.body ?? 0) as number;
}

unary("abs", (a) => {
  const id = typeId(a.type);
  if (id === ID_FLOAT32) return new Value(TypeFloat32, Math.fround(Math.abs(floatOf(a))));
  if (id === ID_FLOAT64) return new Value(TypeFloat64, Math.abs(floatOf(a)));
  if (!isInteger(id)) return errorValue(`abs: not a number: ${zson(a)}`);
  if (!isSigned(id)) return a;
  const x = (a.body ?? 0) as number | bigint;
  if (typeof x === "number") return new Value(TypeInt64, x < 0 ? -x : x);
  return new Value(TypeInt64, int64Body(x < 0n ? -x : x));
});

function rounding(name: string, f: (x: number) => number, message: (a: Value) => string): void {
  unary(name, (a) => {
    const id = typeId(a.type);
    if (id === ID_FLOAT32) return new Value(TypeFloat32, Math.fround(f(floatOf(a))));
    if (id === ID_FLOAT64) return new Value(TypeFloat64, f(floatOf(a)));
    if (name === "round" ? isNumber(id) : isInteger(id)) return a;
    return errorValue(message(a));
  });
}

/** Go's math.Round: half away from zero. */
function goRound(x: number): number {
  const t = Math.trunc(x);
  return Math.abs(x - t) >= 0.5 ? t + Math.sign(x) : t;
}

rounding("ceil", Math.ceil, () => "ceil: not a number");
rounding("floor", Math.floor, () => "floor: not a number");
rounding("round", goRound, (a) => `round: not a number: ${zson(a)}`);

unary("log", (a) => {
  const x = toFloat(a);
  if (x === undefined) return errorValue("log: numeric argument required");
  if (x <= 0) return errorValue(`log: illegal argument: ${zson(a)}`);
  return new Value(TypeFloat64, Math.log(x));
});

/** Go's math.Pow where it differs from JS: 1**y and (-1)**±Inf are 1. */
function goPow(x: number, y: number): number {
  if (x === 1) return 1;
  if (x === -1 && !Number.isFinite(y) && !Number.isNaN(y)) return 1;
  return Math.pow(x, y);
}

binary("pow", (a, b) => {
  const x = toFloat(a);
  if (x === undefined) return errorValue(`pow: not a number: ${zson(a)}`);
  const y = toFloat(b);
  if (y === undefined) return errorValue(`pow: not a number: ${zson(b)}`);
  return new Value(TypeFloat64, goPow(x, y));
});

unary("sqrt", (a) => {
  const x = toFloat(a);
  if (x === undefined) return errorValue(`sqrt: not a number: ${zson(a)}`);
  return new Value(TypeFloat64, Math.sqrt(x));
});

/**
 * Scalar min/max: the result type follows the first argument (signed ->
 * int64, unsigned -> uint64, float -> float64). As in the reference, a float
 * first argument is compared only with itself, so it is the result.
 */
function reducer(name: string, better: (a: number | bigint, b: number | bigint) => boolean): void {
  variadic(name, 2, Infinity, (args) => {
    const first = args[0];
    const id = typeId(first.type);
    if (isFloat(id)) return new Value(TypeFloat64, floatOf(first));
    if (!isNumber(id)) return errorValue(`${name}: not a number: ${zson(first)}`);
    const signed = isSigned(id);
    let result = (first.body ?? 0) as number | bigint;
    if (signed && typeof result === "bigint") result = int64Body(result);
    for (let i = 1; i < args.length; i++) {
      const v = signed ? toInt(args[i]) : toUint(args[i]);
      if (v === undefined) return errorValue(`${name}: not a number: ${zson(args[i])}`);
      if (better(v, result)) result = v;
    }
    return new Value(signed ? TypeInt64 : TypeUint64, result);
  });
}

reducer("min", (a, b) => a < b);
reducer("max", (a, b) => a > b);

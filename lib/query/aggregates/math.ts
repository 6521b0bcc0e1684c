// sum, min and max. The first number (or typed null) selects an accumulator:
// int64 for signed ints, uint64 for unsigned, float64 for floats, duration,
// time. Each later value is coerced against the accumulator's type as the
// reference's coerce.Pair does; when that yields another type the running
// state converts to a new accumulator (int then float → float64). Values
// that do not coerce (strings, ips, errors, ...) are skipped.

import {
  ID_DURATION,
  ID_FLOAT32,
  ID_FLOAT64,
  ID_INT16,
  ID_INT32,
  ID_INT64,
  ID_INT8,
  ID_TIME,
  ID_UINT16,
  ID_UINT32,
  ID_UINT64,
  ID_UINT8,
  primitiveOfId,
  TypeBool,
  TypeFloat64,
  TypeInt64,
  TypeUint64,
  underId,
} from "../../zed/types.ts";
import { int64Body, uint64Body, Value } from "../../zed/value.ts";
import { NULL } from "../runtime/values.ts";
import { COERCE_OK, coerceNumbers, toFloat } from "../expr/coerce.ts";
import { type Int, toDuration, toInt, toTime, toUint } from "./numeric.ts";
import { type Aggregator, registerAggregate } from "./registry.ts";

const enum Op {
  Sum,
  Min,
  Max,
}

/** No accumulator yet. */
const NONE = -1;

const MAX_FLOAT = Number.MAX_VALUE;
const MIN_INT64 = int64Body(-(1n << 63n));
const MAX_INT64 = int64Body((1n << 63n) - 1n);
const MAX_UINT64 = uint64Body((1n << 64n) - 1n);

/** The accumulator type id a value type id selects, or NONE. */
function accumulatorFor(id: number): number {
  switch (id) {
    case ID_INT8:
    case ID_INT16:
    case ID_INT32:
    case ID_INT64:
      return ID_INT64;
    case ID_UINT8:
    case ID_UINT16:
    case ID_UINT32:
    case ID_UINT64:
      return ID_UINT64;
    case ID_FLOAT32:
    case ID_FLOAT64:
      return ID_FLOAT64;
    case ID_DURATION:
    case ID_TIME:
      return id;
  }
  return NONE;
}

const nulls = new Map<number, Value>();

/** A null of the accumulator type with this id. */
function nullOf(acc: number): Value {
  let v = nulls.get(acc);
  if (v === undefined) nulls.set(acc, v = new Value(primitiveOfId(acc)!, null));
  return v;
}

function initial(op: Op, acc: number): number | bigint {
  if (op === Op.Sum) return 0;
  if (acc === ID_FLOAT64) return op === Op.Min ? MAX_FLOAT : -MAX_FLOAT;
  if (acc === ID_UINT64) return op === Op.Min ? MAX_UINT64 : 0;
  return op === Op.Min ? MAX_INT64 : MIN_INT64;
}

function addInt(a: Int, b: Int, unsigned: boolean): Int {
  if (typeof a === "number" && typeof b === "number") {
    const r = a + b;
    if (Number.isSafeInteger(r)) return r;
  }
  const s = BigInt(a) + BigInt(b);
  return unsigned ? uint64Body(s) : int64Body(s);
}

class MathReducer implements Aggregator {
  private acc = NONE;
  private state: number | bigint = 0;
  private hasValue = false;

  constructor(private readonly op: Op) {}

  consume(v: Value): void {
    const vid = underId(v.type);
    let id: number;
    if (this.acc === NONE || vid === this.acc) {
      id = vid;
    } else {
      // The reference coerces a null of the accumulator's type against the value.
      const c = coerceNumbers(nullOf(this.acc), v);
      if (c.status !== COERCE_OK) return;
      id = c.id;
    }
    if (id !== this.acc) {
      const acc = accumulatorFor(id);
      if (acc === NONE) return;
      if (acc !== this.acc) this.switchTo(acc);
    }
    if (v.body === null) return;
    this.hasValue = true;
    this.add(vid, v);
  }

  /** Starts an accumulator of type acc, carrying over the state (or the initial value). */
  private switchTo(acc: number): void {
    const prev = this.acc;
    this.acc = acc;
    if (prev === NONE) {
      this.state = initial(this.op, acc);
      return;
    }
    // The reference converts the old accumulator's result with ToFloat/ToInt/ToUint.
    const s = this.state;
    if (acc === ID_FLOAT64) this.state = Number(s);
    else if (acc === ID_UINT64) {
      // The reference panics converting a negative int64 state; wrap instead.
      this.state = toUint(prev, s) ?? uint64Body(BigInt(s));
    } else this.state = toInt(prev, s)!;
  }

  private add(vid: number, v: Value): void {
    let x: Int | undefined;
    switch (this.acc) {
      case ID_FLOAT64: {
        const f = toFloat(v);
        if (f === undefined) return;
        const s = this.state as number;
        // Same operand order as the reference, so a NaN behaves the same.
        this.state = this.op === Op.Sum
          ? s + f
          : this.op === Op.Min
          ? (s < f ? s : f)
          : (s > f ? s : f);
        return;
      }
      case ID_INT64:
        x = toInt(vid, v.body);
        break;
      case ID_UINT64:
        x = toUint(vid, v.body);
        break;
      case ID_DURATION:
        x = toDuration(vid, v.body);
        break;
      case ID_TIME:
        x = toTime(vid, v.body);
        break;
    }
    if (x === undefined) return;
    const s = this.state;
    if (this.op === Op.Sum) this.state = addInt(s, x, this.acc === ID_UINT64);
    else if (this.op === Op.Min) this.state = s < x ? s : x;
    else this.state = s > x ? s : x;
  }

  result(): Value {
    if (this.acc === NONE) return NULL;
    return new Value(primitiveOfId(this.acc)!, this.hasValue ? this.state : null);
  }

  save(out: Value[]): void {
    const acc = this.acc;
    const t = acc === ID_FLOAT64 ? TypeFloat64 : acc === ID_UINT64 ? TypeUint64 : TypeInt64;
    out.push(
      new Value(TypeInt64, acc),
      new Value(t, this.state),
      new Value(TypeBool, this.hasValue),
    );
  }

  /** Into a fresh reducer only (not mergeable: float sums depend on the order of additions). */
  restore(state: readonly Value[]): void {
    this.acc = Number(state[0].body);
    this.state = state[1].body as number | bigint;
    this.hasValue = state[2].body as boolean;
  }
}

registerAggregate("sum", { min: 1, max: 1, make: () => new MathReducer(Op.Sum) });
registerAggregate("min", { min: 1, max: 1, make: () => new MathReducer(Op.Min) });
registerAggregate("max", { min: 1, max: 1, make: () => new MathReducer(Op.Max) });

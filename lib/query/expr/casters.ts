// Casts of one value to a primitive type (language.md §4.14's table), as the
// reference's primitive casters do them. A caster never sees a null body (the
// shaper turns nulls into nulls of the target type first); a failed cast is
// an error value, not an exception.

import { parseGoFloat } from "../../zed/float.ts";
import { parseIP, parseNet } from "../../zed/ip.ts";
import { formatPrimitive, parseUint64 } from "../../zed/primitive.ts";
import { parseDuration, parseTime } from "../../zed/time.ts";
import {
  type EnumType,
  ID_BOOL,
  ID_BYTES,
  ID_DURATION,
  ID_FLOAT32,
  ID_FLOAT64,
  ID_INT16,
  ID_INT32,
  ID_INT64,
  ID_INT8,
  ID_IP,
  ID_NET,
  ID_STRING,
  ID_TIME,
  ID_UINT16,
  ID_UINT32,
  ID_UINT64,
  ID_UINT8,
  isFloat,
  isImplied,
  isInteger,
  isNumber,
  isUnsigned,
  Kind,
  type PrimitiveType,
  type Type,
  TypeBool,
  TypeBytes,
  TypeDuration,
  TypeFloat32,
  TypeFloat64,
  TypeInt16,
  TypeInt32,
  TypeInt64,
  TypeInt8,
  TypeIP,
  TypeNet,
  TypeString,
  TypeTime,
  TypeUint16,
  TypeUint32,
  TypeUint64,
  TypeUint8,
} from "../../zed/types.ts";
import { intBody, Value } from "../../zed/value.ts";
import { encodeBody } from "../../zed/zcode.ts";
import { errorValue, zson } from "../runtime/values.ts";
import { floatToInt64, toFloat, toInt, typeId } from "./coerce.ts";
import { parseDate } from "./dateparse.ts";

export type Caster = (v: Value) => Value;

const TWO_63 = 9223372036854775808;
const TWO_64 = 18446744073709551616;

/** Go's uint64(f) on amd64: truncation; negative values wrap; NaN and overflow give 2^63. */
export function floatToUint64(f: number): number | bigint {
  if (f >= 0 && f < TWO_64) {
    const t = Math.trunc(f);
    return Number.isSafeInteger(t) ? t : intBody(BigInt(t));
  }
  if (f < 0 && f > -TWO_63) return intBody(BigInt.asUintN(64, BigInt(Math.trunc(f))));
  return 9223372036854775808n;
}

/**
 * Go's coerce.ToUint: non-negative ints, uints, floats (truncated), duration
 * and time (wrapping), base-10 strings.
 */
export function toUint(v: Value): number | bigint | undefined {
  const id = typeId(v.type);
  if (isNumber(id)) {
    const b = v.body as number | bigint | null;
    if (b === null) return 0;
    if (isFloat(id)) return floatToUint64(b as number);
    if (isUnsigned(id)) return b;
    if (b < 0) return isInteger(id) ? undefined : intBody(BigInt.asUintN(64, BigInt(b)));
    return b;
  }
  if (id === ID_STRING) return v.body === null ? undefined : parseUint64(v.body as string);
  return undefined;
}

/** strconv.ParseBool. */
function parseBool(s: string): boolean | undefined {
  switch (s) {
    case "1":
    case "t":
    case "T":
    case "TRUE":
    case "true":
    case "True":
      return true;
    case "0":
    case "f":
    case "F":
    case "FALSE":
    case "false":
    case "False":
      return false;
  }
  return undefined;
}

/** Go's coerce.ToBool: bool strings, or a number that is non-zero as an int. */
export function toBool(v: Value): boolean | undefined {
  if (typeId(v.type) === ID_STRING) {
    return v.body === null ? undefined : parseBool(v.body as string);
  }
  const n = toInt(v);
  return n === undefined ? undefined : n != 0;
}

function cannot(v: Value, target: string): Value {
  return errorValue(`cannot cast ${zson(v)} to type ${target}`);
}

function signedCaster(t: PrimitiveType, min: number, max: number): Caster {
  return (v) => {
    const n = toInt(v);
    if (n === undefined || (min !== 0 && (n < min || n > max))) return cannot(v, t.name);
    return new Value(t, n);
  };
}

function unsignedCaster(t: PrimitiveType, max: number): Caster {
  return (v) => {
    const n = toUint(v);
    if (n === undefined || (max !== 0 && n > max)) return cannot(v, t.name);
    return new Value(t, n);
  };
}

function castBool(v: Value): Value {
  const b = toBool(v);
  return b === undefined ? errorValue(`cannot cast ${zson(v)} to bool`) : new Value(TypeBool, b);
}

function castFloat32(v: Value): Value {
  const f = toFloat(v);
  return f === undefined ? cannot(v, "float32") : new Value(TypeFloat32, Math.fround(f));
}

function castFloat64(v: Value): Value {
  const f = toFloat(v);
  return f === undefined ? cannot(v, "float64") : new Value(TypeFloat64, f);
}

function castIP(v: Value): Value {
  const id = typeId(v.type);
  if (id === ID_IP) return v;
  if (id === ID_STRING) {
    const ip = parseIP(v.body as string);
    if (ip !== undefined) return new Value(TypeIP, ip);
  }
  return cannot(v, "ip");
}

function castNet(v: Value): Value {
  const id = typeId(v.type);
  if (id === ID_NET) return v;
  if (id === ID_STRING) {
    const net = parseNet(v.body as string);
    if (net !== undefined) return new Value(TypeNet, net);
  }
  return cannot(v, "net");
}

function castDuration(v: Value): Value {
  const id = typeId(v.type);
  if (id === ID_DURATION) return v;
  if (id === ID_STRING) {
    const s = v.body as string;
    let d = parseDuration(s);
    if (d === undefined) {
      const f = parseGoFloat(s);
      if (f === undefined) return cannot(v, "duration");
      d = floatToInt64(f);
    }
    return new Value(TypeDuration, d);
  }
  if (isFloat(id)) return new Value(TypeDuration, floatToInt64(v.body as number));
  const n = toInt(v);
  return n === undefined ? cannot(v, "duration") : new Value(TypeDuration, n);
}

function castTime(v: Value): Value {
  const id = typeId(v.type);
  if (id === ID_TIME) return v;
  if (id === ID_STRING) {
    const s = v.body as string;
    // RFC 3339 is the common case; the liberal parser reads it the same way.
    const rfc = parseTime(s);
    if (rfc !== undefined && !rfc.overflow) return new Value(TypeTime, rfc.ns);
    let ns = parseDate(s);
    if (ns === undefined) {
      const f = parseGoFloat(s);
      if (f === undefined) return cannot(v, "time");
      ns = floatToInt64(f);
    }
    return new Value(TypeTime, ns);
  }
  if (isNumber(id)) return new Value(TypeTime, toInt(v)!);
  return cannot(v, "time");
}

const utf8Strict = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

function castString(v: Value): Value {
  const id = typeId(v.type);
  if (id === ID_BYTES) {
    try {
      return new Value(TypeString, utf8Strict.decode(v.body as Uint8Array));
    } catch {
      return errorValue("non-UTF-8 bytes cannot be cast to type string");
    }
  }
  if (v.type.kind === Kind.Enum) {
    const sym = (v.type as EnumType).symbols[v.body as number];
    return sym === undefined
      ? errorValue(`enum index out of range: ${v.body}`)
      : new Value(TypeString, sym);
  }
  if (id === ID_STRING) return new Value(TypeString, v.body);
  const t = v.type;
  if (t.kind === Kind.Primitive) {
    // ZSON text of a primitive, decorated unless its type is implied.
    const text = formatPrimitive(t.id, v.body);
    return new Value(TypeString, isImplied(t) ? text : text + "(" + t.name + ")");
  }
  return new Value(TypeString, zson(v));
}

function castBytes(v: Value): Value {
  return new Value(TypeBytes, encodeBody(v.type, v.body));
}

const casters: (Caster | undefined)[] = [];
casters[ID_INT8] = signedCaster(TypeInt8, -128, 127);
casters[ID_INT16] = signedCaster(TypeInt16, -32768, 32767);
casters[ID_INT32] = signedCaster(TypeInt32, -2147483648, 2147483647);
casters[ID_INT64] = signedCaster(TypeInt64, 0, 0);
casters[ID_UINT8] = unsignedCaster(TypeUint8, 255);
casters[ID_UINT16] = unsignedCaster(TypeUint16, 65535);
casters[ID_UINT32] = unsignedCaster(TypeUint32, 4294967295);
casters[ID_UINT64] = unsignedCaster(TypeUint64, 0);
casters[ID_FLOAT32] = castFloat32;
casters[ID_FLOAT64] = castFloat64;
casters[ID_BOOL] = castBool;
casters[ID_IP] = castIP;
casters[ID_NET] = castNet;
casters[ID_DURATION] = castDuration;
casters[ID_TIME] = castTime;
casters[ID_STRING] = castString;
casters[ID_BYTES] = castBytes;

/** The caster to primitive type t, or undefined for `type` and `null` (and non-primitives). */
export function casterFor(t: Type): Caster | undefined {
  return t.kind === Kind.Primitive ? casters[t.id] : undefined;
}

// Values the runtime makes often: errors (missing, quiet, structured
// `{message,on}` errors), booleans, nulls; and predicates over them.

import { formatZson } from "../../formats/zson/formatter.ts";
import { zctx } from "../../zed/context.ts";
import {
  Kind,
  type RecordType,
  type Type,
  TypeBool,
  TypeNull,
  TypeString,
  typeUnder,
} from "../../zed/types.ts";
import { type Body, Value } from "../../zed/value.ts";

/** The type of error("...") values. */
export const ErrorStringType = zctx.lookupError(TypeString);

export const MISSING = new Value(ErrorStringType, "missing");
export const QUIET = new Value(ErrorStringType, "quiet");
export const TRUE = new Value(TypeBool, true);
export const FALSE = new Value(TypeBool, false);
export const NULL = new Value(TypeNull, null);

export function boolValue(b: boolean): Value {
  return b ? TRUE : FALSE;
}

/** error("message") */
export function errorValue(message: string): Value {
  return new Value(ErrorStringType, message);
}

/** error(v): wraps any value. */
export function wrapError(v: Value): Value {
  return new Value(zctx.lookupError(v.type), v.body);
}

const onTypes = new WeakMap<Type, Type>();

/** error({message:"...",on:v}), the reference's structured error. */
export function errorOn(message: string, on: Value): Value {
  let t = onTypes.get(on.type);
  if (t === undefined) {
    t = zctx.lookupError(zctx.lookupRecordOf(["message", "on"], [TypeString, on.type]));
    onTypes.set(on.type, t);
  }
  return new Value(t, [message, on.body]);
}

export function isError(v: Value): boolean {
  const k = v.type.kind;
  return k === Kind.Error || (k === Kind.Named && typeUnder(v.type).kind === Kind.Error);
}

/** error("missing"), however it was made. */
export function isMissing(v: Value): boolean {
  return v === MISSING || (v.type === ErrorStringType && v.body === "missing");
}

export function isQuiet(v: Value): boolean {
  return v === QUIET || (v.type === ErrorStringType && v.body === "quiet");
}

export function isNull(v: Value): boolean {
  return v.body === null;
}

/** The value with named types stripped from its top level. */
export function under(v: Value): Value {
  return v.type.kind === Kind.Named ? new Value(typeUnder(v.type), v.body) : v;
}

/** ZSON text of a value for messages (`<zson>` in the docs). */
export function zson(v: Value): string {
  return formatZson(v.type, v.body);
}

/** The record type of v (looking through names), or undefined. */
export function recordTypeOf(v: Value): RecordType | undefined {
  const u = typeUnder(v.type);
  return u.kind === Kind.Record ? u : undefined;
}

/** A field of a record value, or undefined when v is no record or has no such field. */
export function fieldOf(v: Value, name: string): Value | undefined {
  const rt = recordTypeOf(v);
  if (rt === undefined) return undefined;
  const i = rt.indexOf(name);
  if (i < 0) return undefined;
  const body = v.body as Body[] | null;
  return new Value(rt.fields[i].type, body === null ? null : body[i]);
}

// Field access `e.name`, field paths on `this`, index `e[i]` and slice
// `e[from:to]` (language.md §4.3–§4.5).

import { codePointCount } from "../../zed/utf8.ts";
import {
  ID_BYTES,
  ID_STRING,
  ID_TYPE,
  isInteger,
  Kind,
  type MapType,
  type RecordType,
  type Type,
  TypeString,
  TypeType,
  typeUnder,
} from "../../zed/types.ts";
import { type Body, type UnionBody, Value } from "../../zed/value.ts";
import type { Expr } from "../runtime/expr.ts";
import { errorOn, errorValue, isError, isMissing, MISSING } from "../runtime/values.ts";
import { toInt } from "./coerce.ts";
import { bodiesEqual } from "./equal.ts";

/** The value of a map entry's value, or of an array element: unions are unwrapped. */
function deunion(t: Type, body: Body): Value {
  if (t.kind === Kind.Union && body !== null) {
    const u = body as UnionBody;
    return new Value(t.types[u.tag], u.body);
  }
  return new Value(t, body);
}

/** m[key] for a map (key must have exactly the map's key type), else missing. */
function mapLookup(t: MapType, body: Body, keyType: Type, key: Body): Value {
  if (keyType !== t.key || body === null) return MISSING;
  const kv = body as Body[];
  for (let i = 0; i < kv.length; i += 2) {
    if (bodiesEqual(keyType, kv[i], key)) return deunion(t.value, kv[i + 1]);
  }
  return MISSING;
}

/**
 * v.name (the reference's DotExpr): names and unions are looked through; a
 * null record gives a null of the field's type; a map is looked up with the
 * string key "name"; a type value of a record type gives the field's type.
 * Anything else is missing.
 */
export function fieldAccess(v: Value, name: string): Value {
  let t = v.type, body = v.body;
  while (t.kind === Kind.Named || t.kind === Kind.Union) {
    if (t.kind === Kind.Named) t = t.type;
    else {
      if (body === null) return MISSING; // the reference loops forever here
      const u = body as UnionBody;
      t = t.types[u.tag];
      body = u.body;
    }
  }
  switch (t.kind) {
    case Kind.Record: {
      const i = t.indexOf(name);
      if (i < 0) return MISSING;
      return new Value(t.fields[i].type, body === null ? null : (body as Body[])[i]);
    }
    case Kind.Map:
      return mapLookup(t, body, TypeString, name);
    case Kind.Primitive:
      if (t.id === ID_TYPE && body !== null) {
        const rt = typeUnder(body as Type);
        if (rt.kind === Kind.Record) {
          const i = rt.indexOf(name);
          if (i >= 0) return new Value(TypeType, rt.fields[i].type);
        }
      }
  }
  return MISSING;
}

/** e.name, with the field position cached for the last record type seen. */
export function compileField(e: Expr, name: string): Expr {
  let lastType: Type | undefined;
  let lastIndex = -1;
  let lastFieldType: Type = TypeString;
  return (thisValue) => {
    const v = e(thisValue);
    const t = v.type;
    if (t !== lastType) {
      // Records, named or not, are cached; anything else takes the general path.
      const u = typeUnder(t);
      if (u.kind !== Kind.Record) return fieldAccess(v, name);
      lastType = t;
      lastIndex = u.indexOf(name);
      if (lastIndex >= 0) lastFieldType = u.fields[lastIndex].type;
    }
    if (lastIndex < 0) return MISSING;
    const body = v.body;
    return new Value(lastFieldType, body === null ? null : (body as Body[])[lastIndex]);
  };
}

/**
 * How a path resolves on one root type: the field positions through the
 * statically known records (looking through names), the type reached, and
 * whether the path is missing outright. The rest of a path that reaches a
 * union, map or type value is followed at run time.
 */
class PathPlan {
  constructor(
    readonly indexes: number[],
    readonly type: Type,
    readonly missing: boolean,
  ) {}
}

function planPath(root: Type, path: readonly string[]): PathPlan {
  const indexes: number[] = [];
  let t = root;
  for (let i = 0; i < path.length; i++) {
    const u = typeUnder(t);
    if (u.kind !== Kind.Record) break;
    const k = u.indexOf(path[i]);
    if (k < 0) return new PathPlan(indexes, t, true);
    indexes.push(k);
    t = u.fields[k].type;
  }
  return new PathPlan(indexes, t, false);
}

function followPlan(plan: PathPlan, v: Value, path: readonly string[]): Value {
  if (plan.missing) return MISSING;
  const ix = plan.indexes;
  let body = v.body;
  // A null record along the way makes every field below it null.
  for (let i = 0; i < ix.length && body !== null; i++) body = (body as Body[])[ix[i]];
  let r = new Value(plan.type, body);
  for (let i = ix.length; i < path.length; i++) r = fieldAccess(r, path[i]);
  return r;
}

/**
 * The field path this.a.b.c, the hottest expression in most queries: field
 * positions are resolved once per root type (one-entry cache in front of a
 * per-type map) and followed directly through the record bodies.
 */
export function compileFieldPath(path: readonly string[]): Expr {
  if (path.length === 0) return (v) => v;
  if (path.length === 1) return compileField((v) => v, path[0]);
  const names = path.slice();
  const plans = new Map<Type, PathPlan>();
  let lastType: Type | undefined;
  let lastPlan: PathPlan | undefined;
  return (v) => {
    const t = v.type;
    if (t !== lastType) {
      let plan = plans.get(t);
      if (plan === undefined) {
        plan = planPath(t, names);
        plans.set(t, plan);
      }
      lastType = t;
      lastPlan = plan;
    }
    return followPlan(lastPlan!, v, names);
  };
}

const ARRAY_INDEX = errorValue("array index is not an integer");
const RECORD_INDEX = errorValue("record index is not a string");

function indexVector(elem: Type, body: Body, index: Value): Value {
  const it = index.type;
  const id = it.kind === Kind.Primitive ? it.id : typeUnder(it).id;
  if (!isInteger(id)) return ARRAY_INDEX;
  if (body === null) return MISSING;
  const elems = body as Body[];
  const ib = index.body;
  // A null index is 0 and a huge one is out of range, as in the reference.
  let i = ib === null ? 0 : typeof ib === "number" ? ib : -1 - elems.length;
  if (i < 0) i += elems.length;
  if (i < 0 || i >= elems.length) return MISSING;
  const b = elems[i];
  // The reference cannot tell a null element from an absent one.
  if (b === null) return MISSING;
  return deunion(elem, b);
}

function indexRecord(t: RecordType, body: Body, index: Value): Value {
  const it = index.type;
  const id = it.kind === Kind.Primitive ? it.id : typeUnder(it).id;
  if (id !== ID_STRING) return RECORD_INDEX;
  const i = t.indexOf((index.body ?? "") as string);
  if (i < 0 || body === null) return MISSING;
  const b = (body as Body[])[i];
  // As with arrays, a null field reads as missing here.
  return b === null ? MISSING : new Value(t.fields[i].type, b);
}

/**
 * container[index] on evaluated values. The container's own type decides
 * (no looking through names): arrays and sets take an integer, records a
 * string, maps a key of exactly their key type; anything else is missing.
 */
export function indexValue(container: Value, index: Value): Value {
  const t = container.type;
  switch (t.kind) {
    case Kind.Array:
    case Kind.Set:
      return indexVector(t.elem, container.body, index);
    case Kind.Record:
      return indexRecord(t, container.body, index);
    case Kind.Map:
      if (isMissing(index)) return MISSING;
      return mapLookup(t, container.body, index.type, index.body);
  }
  return MISSING;
}

export function compileIndex(container: Expr, index: Expr): Expr {
  return (v) => indexValue(container(v), index(v));
}

const SLICE_INDEX = errorValue("slice index is not a number");

/** A slice bound, clamped to [0, length]; undefined when it is not a number. */
function sliceBound(v: Value, length: number): number | undefined {
  const n = toInt(v);
  if (n === undefined) return undefined;
  let i = typeof n === "number" ? n : n < 0n ? -Infinity : Infinity;
  if (i < 0) i += length;
  return i < 0 ? 0 : i > length ? length : i;
}

/** The UTF-16 offset of code point number `cp` in s (s.length past the end). */
function offsetOfCodePoint(s: string, cp: number): number {
  let i = 0;
  for (let k = 0; k < cp && i < s.length; k++) {
    const c = s.charCodeAt(i);
    i += c >= 0xd800 && c <= 0xdbff && i + 1 < s.length &&
        (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00
      ? 2
      : 1;
  }
  return i;
}

/**
 * container[from:to] on evaluated values. Arrays, strings (by code point) and
 * bytes slice, names allowed; a null of those types is returned as is.
 * `from > to` gives an empty value.
 */
export function sliceValue(elem: Value, from: Value | undefined, to: Value | undefined): Value {
  if (isError(elem)) return elem;
  const u = typeUnder(elem.type);
  const body = elem.body;
  let length: number;
  let str: string | undefined;
  let ascii = false;
  if (u.kind === Kind.Array) length = body === null ? 0 : (body as Body[]).length;
  else if (u.kind === Kind.Primitive && u.id === ID_BYTES) {
    length = body === null ? 0 : (body as Uint8Array).length;
  } else if (u.kind === Kind.Primitive && u.id === ID_STRING) {
    str = (body ?? "") as string;
    length = codePointCount(str);
    ascii = length === str.length;
  } else {
    return errorOn("sliced value is not array, bytes, or string", elem);
  }
  if (body === null) return elem;
  let lo = 0, hi = length;
  if (from !== undefined) {
    const b = sliceBound(from, length);
    if (b === undefined) return SLICE_INDEX;
    lo = b;
  }
  if (to !== undefined) {
    const b = sliceBound(to, length);
    if (b === undefined) return SLICE_INDEX;
    hi = b;
  }
  if (hi < lo) hi = lo;
  if (str !== undefined) {
    if (!ascii) {
      const start = offsetOfCodePoint(str, lo);
      const end = start + offsetOfCodePoint(str.slice(start), hi - lo);
      return new Value(elem.type, str.slice(start, end));
    }
    return new Value(elem.type, str.slice(lo, hi));
  }
  return new Value(elem.type, (body as Body[] | Uint8Array).slice(lo, hi));
}

/** container[from:to]; an omitted bound is undefined. */
export function compileSlice(container: Expr, from?: Expr, to?: Expr): Expr {
  return (v) => {
    const c = container(v);
    if (isError(c)) return c;
    // Bounds are evaluated only for a sliceable, non-null container.
    const u = typeUnder(c.type);
    const sliceable = u.kind === Kind.Array ||
      (u.kind === Kind.Primitive && (u.id === ID_BYTES || u.id === ID_STRING));
    if (!sliceable || c.body === null) return sliceValue(c, undefined, undefined);
    return sliceValue(
      c,
      from === undefined ? undefined : from(v),
      to === undefined ? undefined : to(v),
    );
  };
}

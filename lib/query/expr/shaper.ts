// The shaping engine behind casts and the shaping functions (`cast`, `crop`,
// `fill`, `fit`, `order`, `shape`; language.md §4.14 and §6), following the
// reference's shaper: for each input type a plan is made once — the output
// type (shaperType) and a tree of steps that converts a body (newStep) — and
// then run per value. Leaf cast failures become error values in place, and
// the containing record/array type is adjusted to match.

import { uniqueTypes, zctx } from "../../zed/context.ts";
import { normalizeSet } from "../../zed/normalize.ts";
import { quoteGoString } from "../../zed/goquote.ts";
import {
  type ArrayType,
  Field,
  isContainer,
  Kind,
  type RecordType,
  type SetType,
  type Type,
  TypeNull,
  TypeString,
  TypeType,
  typeUnder,
} from "../../zed/types.ts";
import { formatType } from "../../zed/typetext.ts";
import { compareStrings } from "../../zed/utf8.ts";
import { type Body, UnionBody, Value } from "../../zed/value.ts";
import { messageOf } from "../../errors.ts";
import type { Expr } from "../runtime/expr.ts";
import { errorValue, isError, zson } from "../runtime/values.ts";
import { type Caster, casterFor } from "./casters.ts";

/** Shaping transforms; they combine as bit flags (shape = CAST|FILL|ORDER). */
export const CAST = 1;
export const CROP = 2;
export const FILL = 4;
export const ORDER = 8;

/** A reason the input type cannot be shaped; becomes error("message"). */
class ShapeError extends Error {}

function innerType(t: Type): Type | undefined {
  const u = typeUnder(t);
  return u.kind === Kind.Array || u.kind === Kind.Set ? u.elem : undefined;
}

/** Go's IsPrimitiveType: anything but records, arrays, sets, maps and unions (enums and errors count). */
function isPrimitiveLike(t: Type): boolean {
  return !isContainer(t);
}

/**
 * The member of union out (by tag) a value of type `in` converts to: `in`
 * itself, else its underlying type, else the first member with the same
 * underlying type; -1 if none or out is no union.
 */
function bestUnionTag(inT: Type, outT: Type): number {
  const u = typeUnder(outT);
  if (u.kind !== Kind.Union) return -1;
  const inUnder = typeUnder(inT);
  let underlying = -1, compatible = -1;
  for (let i = 0; i < u.types.length; i++) {
    const t = u.types[i];
    if (t === inT) return i;
    if (t === inUnder && underlying === -1) underlying = i;
    if (typeUnder(t) === inUnder && compatible === -1) compatible = i;
  }
  return underlying !== -1 ? underlying : compatible;
}

function sameFields(a: readonly Field[], b: readonly Field[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    if (a[i].name !== b[i].name || a[i].type !== b[i].type) return false;
  }
  return true;
}

/** The output type for shaping a value of type inT toward outT with transforms tf. */
function shaperType(tf: number, inT: Type, outT: Type): Type {
  const inU = typeUnder(inT), outU = typeUnder(outT);
  if (tf & CAST) {
    if (inU === outU || inU === TypeNull) return outT;
    if (outU.kind === Kind.Map) {
      throw new ShapeError("cannot yet use maps in shaping functions (issue #2894)");
    }
    if (isPrimitiveLike(inU) && isPrimitiveLike(outU)) {
      if (casterFor(outU) === undefined) {
        throw new ShapeError(`cast to ${formatType(outT)} not implemented`);
      }
      return outT;
    }
    if (inU.kind === Kind.Union) {
      for (const t of inU.types) {
        try {
          shaperType(tf, t, outT);
        } catch (e) {
          if (!(e instanceof ShapeError)) throw e;
          throw new ShapeError(
            `cannot cast union ${quoteGoString(formatType(inU))} to ${
              quoteGoString(formatType(outT))
            } due to ${quoteGoString(formatType(t))}`,
          );
        }
      }
      return outT;
    }
    if (bestUnionTag(inT, outU) > -1) return outT;
  } else if (inU === outU) {
    return inT;
  }
  if (inU.kind === Kind.Record && outU.kind === Kind.Record) {
    const fields = shaperFields(tf, inU, outU);
    if (tf & CAST) {
      if (sameFields(fields, outU.fields)) return outT;
    } else if (sameFields(fields, inU.fields)) {
      return inT;
    }
    return zctx.lookupRecord(fields);
  }
  const inInner = innerType(inU), outInner = innerType(outU);
  if (
    inInner !== undefined && outInner !== undefined &&
    ((tf & CAST) !== 0 || (inU.kind === Kind.Array) === (outU.kind === Kind.Array))
  ) {
    const t = shaperType(tf, inInner, outInner);
    if (tf & CAST) {
      if (t === outInner) return outT;
    } else if (t === inInner) {
      return inT;
    }
    return outU.kind === Kind.Array ? zctx.lookupArray(t) : zctx.lookupSet(t);
  }
  return inT;
}

function byName(a: Field, b: Field): number {
  return compareStrings(a.name, b.name);
}

/**
 * The fields of a shaped record. Without ORDER the input's field order is
 * kept (fields matched to the target are shaped, target-only fields are
 * appended when filling, input-only fields dropped when cropping); with ORDER
 * the target's order comes first and extra input fields follow sorted.
 */
function shaperFields(tf: number, inR: RecordType, outR: RecordType): Field[] {
  let crop = (tf & CROP) !== 0, fill = (tf & FILL) !== 0;
  const order = (tf & ORDER) !== 0;
  let drive = outR, other = inR;
  if (!order) {
    [crop, fill] = [!fill, !crop];
    [drive, other] = [inR, outR];
  }
  const fields: Field[] = [];
  for (const f of drive.fields) {
    const i = other.indexOf(f.name);
    if (i >= 0) {
      const otherType = other.fields[i].type;
      const t = order ? shaperType(tf, otherType, f.type) : shaperType(tf, f.type, otherType);
      fields.push(new Field(f.name, t));
    } else if (fill) {
      fields.push(f);
    }
  }
  if (!crop) {
    const extra = order ? other.fields.slice().sort(byName) : other.fields;
    for (const f of extra) if (drive.indexOf(f.name) < 0) fields.push(f);
  }
  return fields;
}

const enum Op {
  Copy,
  Cast,
  FromUnion,
  ToUnion,
  Null,
  Array,
  Set,
  Record,
}

/** One node of a conversion plan. */
class Step {
  caster: Caster | undefined = undefined;
  fromType: Type = TypeNull;
  fromIndex = 0;
  toTag = 0;
  children: Step[] = [];
  constructor(readonly op: Op, readonly toType: Type) {}
}

function newStep(inT: Type, outT: Type): Step {
  const inU = typeUnder(inT), outU = typeUnder(outT);
  if (inU === TypeNull) return new Step(Op.Null, outT);
  if (inU === outU) return new Step(Op.Copy, outT);
  if (inU.kind === Kind.Record && outU.kind === Kind.Record) {
    const s = new Step(Op.Record, outT);
    for (const f of outU.fields) {
      const i = inU.indexOf(f.name);
      if (i < 0) {
        s.children.push(new Step(Op.Null, f.type));
        continue;
      }
      const child = newStep(inU.fields[i].type, f.type);
      child.fromIndex = i;
      s.children.push(child);
    }
    return s;
  }
  if (isPrimitiveLike(inT) && isPrimitiveLike(outT)) {
    const s = new Step(Op.Cast, outT);
    s.caster = casterFor(outU);
    s.fromType = inT;
    return s;
  }
  const inInner = innerType(inU);
  if (inInner !== undefined) {
    if (outU.kind === Kind.Array || outU.kind === Kind.Set) {
      const s = new Step(outU.kind === Kind.Array ? Op.Array : Op.Set, outT);
      s.children.push(newStep(inInner, outU.elem));
      return s;
    }
  } else if (inT.kind === Kind.Union) {
    // Like the reference, only an unnamed union input is converted member-wise.
    try {
      const s = new Step(Op.FromUnion, outT);
      for (const m of inT.types) s.children.push(newStep(m, outT));
      return s;
    } catch (e) {
      if (!(e instanceof ShapeError)) throw e;
    }
  }
  const tag = bestUnionTag(inT, outT);
  if (tag !== -1) {
    const s = new Step(Op.ToUnion, outT);
    s.toTag = tag;
    return s;
  }
  throw new ShapeError(
    `createStep: incompatible types ${formatType(inT)} and ${formatType(outT)}`,
  );
}

/** The type of the body most recently returned by build (set before each return). */
let builtType: Type = TypeNull;

function build(s: Step, body: Body): Body {
  if (body === null || s.op === Op.Copy || s.op === Op.Null) {
    builtType = s.toType;
    return body;
  }
  switch (s.op) {
    case Op.Cast: {
      const v = s.caster!(new Value(s.fromType, body));
      builtType = typeUnder(v.type) === typeUnder(s.toType) ? s.toType : v.type;
      return v.body;
    }
    case Op.FromUnion: {
      const u = body as UnionBody;
      return build(s.children[u.tag], u.body);
    }
    case Op.ToUnion:
      builtType = s.toType;
      return new UnionBody(s.toTag, body);
    case Op.Array:
    case Op.Set:
      return buildSequence(s, body as Body[]);
    case Op.Record:
      return buildRecord(s, body as Body[]);
  }
  throw new Error("unknown shaper step");
}

function buildSequence(s: Step, elems: Body[]): Body {
  const child = s.children[0];
  const n = elems.length;
  const out = new Array<Body>(n);
  if (n === 0) {
    builtType = s.toType;
    return out;
  }
  const types = new Array<Type>(n);
  let mixed = false;
  for (let i = 0; i < n; i++) {
    out[i] = build(child, elems[i]);
    types[i] = builtType;
    if (builtType !== types[0]) mixed = true;
  }
  let inner = types[0];
  if (mixed) {
    const union = zctx.lookupUnion(uniqueTypes(types));
    // As the reference's BuildUnion, a null element becomes a null union value.
    for (let i = 0; i < n; i++) {
      if (out[i] !== null) out[i] = new UnionBody(union.tagOf(types[i]), out[i]);
    }
    inner = union;
  }
  const toType = s.toType;
  const result = s.op === Op.Set ? normalizeSet(inner, out) : out;
  const toInner = (typeUnder(toType) as ArrayType | SetType).elem;
  if (typeUnder(inner) === typeUnder(toInner)) builtType = toType;
  else builtType = s.op === Op.Set ? zctx.lookupSet(inner) : zctx.lookupArray(inner);
  return result;
}

function buildRecord(s: Step, fields: Body[]): Body {
  const children = s.children;
  const out = new Array<Body>(children.length);
  let types: Type[] | undefined;
  for (let i = 0; i < children.length; i++) {
    const child = children[i];
    if (child.op === Op.Null) {
      out[i] = null;
      continue;
    }
    out[i] = build(child, fields[child.fromIndex]);
    if (typeUnder(builtType) !== typeUnder(child.toType)) {
      if (types === undefined) types = children.map((c) => c.toType);
      types[i] = builtType;
    }
  }
  if (types === undefined) {
    builtType = s.toType;
  } else {
    const rt = typeUnder(s.toType) as RecordType;
    builtType = zctx.lookupRecord(rt.fields.map((f, i) => new Field(f.name, types![i])));
  }
  return out;
}

/** How values of one input type are shaped: relabelled, converted, or an error. */
class Plan {
  constructor(
    readonly type: Type,
    readonly step: Step | undefined,
    readonly error: Value | undefined,
  ) {}
}

function makePlan(tf: number, inT: Type, outT: Type): Plan {
  try {
    const t = shaperType(tf, inT, outT);
    if (typeUnder(t) === typeUnder(inT)) return new Plan(t, undefined, undefined);
    return new Plan(t, newStep(inT, t), undefined);
  } catch (e) {
    if (e instanceof ShapeError) return new Plan(inT, undefined, errorValue(e.message));
    throw e;
  }
}

/** Shapes values toward one target type, planning once per input type. */
export class ConstShaper {
  private plans = new Map<Type, Plan>();
  // Streams are mostly of one type: remember the last plan.
  private lastType: Type | undefined = undefined;
  private lastPlan: Plan | undefined = undefined;
  constructor(readonly transforms: number, readonly target: Type) {}

  private planFor(t: Type): Plan {
    if (t === this.lastType) return this.lastPlan!;
    let plan = this.plans.get(t);
    if (plan === undefined) {
      plan = makePlan(this.transforms, t, this.target);
      this.plans.set(t, plan);
    }
    this.lastType = t;
    this.lastPlan = plan;
    return plan;
  }

  shape(v: Value): Value {
    if (isError(v)) return v;
    const plan = this.planFor(v.type);
    if (plan.error !== undefined) return plan.error;
    const step = plan.step;
    if (step === undefined) return plan.type === v.type ? v : new Value(plan.type, v.body);
    if (v.body === null) return new Value(plan.type, null);
    if (step.op === Op.Cast) {
      // A primitive cast needs no rebuilding around the caster's result.
      const r = step.caster!(v);
      if (r.type === plan.type || typeUnder(r.type) !== typeUnder(plan.type)) return r;
      return new Value(plan.type, r.body);
    }
    const body = build(step, v.body);
    return new Value(builtType, body);
  }
}

const shapers: (Map<Type, ConstShaper> | undefined)[] = [];

/** The shared shaper for (transforms, target). */
export function constShaper(tf: number, target: Type): ConstShaper {
  const byTarget = shapers[tf] ??= new Map();
  let s = byTarget.get(target);
  if (s === undefined) byTarget.set(target, s = new ConstShaper(tf, target));
  return s;
}

/** Shapes v toward type t with transforms tf (e.g. castValue is shapeValue(CAST, v, t)). */
export function shapeValue(tf: number, v: Value, t: Type): Value {
  return constShaper(tf, t).shape(v);
}

/**
 * The shaping call `f(value, type)`: the type argument is evaluated first; a
 * string names the type of `this` instead (the reference's `cast(x, "name")`
 * relabels `this`, not x); anything but a type value is an error.
 */
export function compileShaper(
  tf: number,
  value: Expr,
  typeArg: Expr,
  constType: Value | undefined,
): Expr {
  if (constType !== undefined && constType.type === TypeType && constType.body !== null) {
    const s = constShaper(tf, constType.body as Type);
    return (v) => s.shape(value(v));
  }
  return (v) => {
    const tv = typeArg(v);
    if (isError(tv)) return tv;
    if (tv.type === TypeString) return nameThis(tv.body as string | null, v);
    if (tv.type !== TypeType || tv.body === null) {
      return errorValue(`shaper type argument is not a type: ${zson(tv)}`);
    }
    return constShaper(tf, tv.body as Type).shape(value(v));
  };
}

function nameThis(name: string | null, thisValue: Value): Value {
  try {
    return new Value(zctx.lookupNamed(name ?? "", thisValue.type), thisValue.body);
  } catch (e) {
    return errorValue(messageOf(e));
  }
}

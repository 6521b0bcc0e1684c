// Container literals in expressions (language.md §4.6): records (with
// spreads), arrays, sets and maps whose element types are unioned when they
// differ.

import { checkElements } from "./limits.ts";
import { uniqueTypes, zctx } from "../../zed/context.ts";
import { normalizeMap, normalizeSet } from "../../zed/normalize.ts";
import {
  Field,
  Kind,
  type RecordType,
  type Type,
  TypeNull,
  typeUnder,
  type UnionType,
} from "../../zed/types.ts";
import { type Body, UnionBody, Value } from "../../zed/value.ts";
import type { Expr } from "./expr.ts";
import { isMissing } from "./values.ts";

export type RecordElem =
  | { kind: "field"; name: string; expr: Expr }
  | { kind: "spread"; expr: Expr };

export type VectorElem = { spread: boolean; expr: Expr };

const EmptyRecord = zctx.lookupRecord([]);

/** A record literal. Without spreads the field list is fixed; types follow the values. */
export function compileRecord(elems: RecordElem[]): Expr {
  if (elems.length === 0) {
    const empty = new Value(EmptyRecord, []);
    return () => empty;
  }
  if (elems.some((e) => e.kind === "spread")) return compileSpreadRecord(elems);
  const names = elems.map((e) => (e as { name: string }).name);
  const exprs = elems.map((e) => e.expr);
  const n = exprs.length;
  const types: Type[] = new Array(n);
  let cached: RecordType | undefined;
  return (v) => {
    const body: Body[] = new Array(n);
    let changed = cached === undefined;
    for (let i = 0; i < n; i++) {
      const r = exprs[i](v);
      if (types[i] !== r.type) {
        types[i] = r.type;
        changed = true;
      }
      body[i] = r.body;
    }
    if (changed) cached = zctx.lookupRecordOf(names, types);
    return new Value(cached!, body);
  };
}

function compileSpreadRecord(elems: RecordElem[]): Expr {
  return (v) => {
    // Field name to position; a later value replaces an earlier one in place.
    const index = new Map<string, number>();
    const names: string[] = [];
    const types: Type[] = [];
    const bodies: Body[] = [];
    const set = (name: string, t: Type, b: Body) => {
      const i = index.get(name);
      if (i === undefined) {
        index.set(name, names.length);
        names.push(name);
        types.push(t);
        bodies.push(b);
      } else {
        types[i] = t;
        bodies[i] = b;
      }
    };
    for (const e of elems) {
      const r = e.expr(v);
      if (e.kind === "field") {
        set(e.name, r.type, r.body);
        continue;
      }
      if (isMissing(r)) continue;
      const rt = typeUnder(r.type);
      if (rt.kind !== Kind.Record) continue; // non-record spreads are skipped
      const fb = r.body as Body[] | null;
      rt.fields.forEach((f, i) => set(f.name, f.type, fb === null ? null : fb[i]));
    }
    if (names.length === 0) return new Value(EmptyRecord, []);
    return new Value(zctx.lookupRecord(names.map((n, i) => new Field(n, types[i]))), bodies);
  };
}

/** Values of a vector literal: element types and bodies, spreads expanded. */
function collect(elems: VectorElem[], v: Value, types: Type[], bodies: Body[]): void {
  for (const e of elems) {
    const r = e.expr(v);
    if (!e.spread) {
      types.push(r.type);
      bodies.push(r.body);
      continue;
    }
    const u = typeUnder(r.type);
    if (u.kind !== Kind.Array && u.kind !== Kind.Set) continue;
    const spread = (r.body ?? []) as Body[];
    checkElements(bodies.length + spread.length);
    for (const b of spread) {
      types.push(u.elem);
      bodies.push(b);
    }
  }
}

/** The element type of mixed values: null ignored, several types unioned. */
export function unionOf(types: readonly Type[]): Type {
  const unique = uniqueTypes(types).filter((t) => t !== TypeNull);
  if (unique.length === 0) return TypeNull;
  if (unique.length === 1) return unique[0];
  return zctx.lookupUnion(unique);
}

/** Bodies of elements typed by `types`, as elements of `elem` (wrapped when it is a union). */
function asElements(elem: Type, types: Type[], bodies: Body[]): Body[] {
  if (elem.kind !== Kind.Union || types.length < 2) return bodies;
  const u = elem as UnionType;
  return bodies.map((b, i) => (b === null ? null : new UnionBody(u.tagOf(types[i]), b)));
}

const NullArray = zctx.lookupArray(TypeNull);
const NullSet = zctx.lookupSet(TypeNull);
const NullMap = zctx.lookupMap(TypeNull, TypeNull);

export function compileArray(elems: VectorElem[]): Expr {
  return (v) => {
    const types: Type[] = [];
    const bodies: Body[] = [];
    collect(elems, v, types, bodies);
    if (types.length === 0) return new Value(NullArray, []);
    const elem = unionOf(types);
    return new Value(zctx.lookupArray(elem), asElements(elem, types, bodies));
  };
}

export function compileSet(elems: VectorElem[]): Expr {
  return (v) => {
    const types: Type[] = [];
    const bodies: Body[] = [];
    collect(elems, v, types, bodies);
    if (types.length === 0) return new Value(NullSet, []);
    const elem = unionOf(types);
    return new Value(zctx.lookupSet(elem), normalizeSet(elem, asElements(elem, types, bodies)));
  };
}

export function compileMap(entries: { key: Expr; value: Expr }[]): Expr {
  return (v) => {
    if (entries.length === 0) return new Value(NullMap, []);
    const kt: Type[] = [], kb: Body[] = [], vt: Type[] = [], vb: Body[] = [];
    for (const e of entries) {
      const k = e.key(v), val = e.value(v);
      kt.push(k.type);
      kb.push(k.body);
      vt.push(val.type);
      vb.push(val.body);
    }
    const keyType = unionOf(kt), valType = unionOf(vt);
    const keys = asElements(keyType, kt, kb), vals = asElements(valType, vt, vb);
    const flat: Body[] = [];
    for (let i = 0; i < keys.length; i++) flat.push(keys[i], vals[i]);
    return new Value(zctx.lookupMap(keyType, valType), normalizeMap(keyType, flat));
  };
}

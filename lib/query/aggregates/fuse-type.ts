// Type fusion (language.md §3.7): the one type that values of either input
// type can be shaped to without losing information. Used by the fuse
// aggregate and the fuse operator. Follows the reference's
// runtime/expr/agg/schema.go, quirks included: identical non-record types
// that meet below the top level (say the keys of two maps) make a union of
// the type with itself, as the reference does.

import { zctx } from "../../zed/context.ts";
import {
  type ArrayType,
  Field,
  Kind,
  type MapType,
  type SetType,
  type Type,
  TypeNull,
  typeUnder,
} from "../../zed/types.ts";

export function fuseTypes(a: Type, b: Type): Type {
  const au = typeUnder(a);
  if (au === TypeNull) return b;
  const bu = typeUnder(b);
  if (bu === TypeNull) return a;
  switch (au.kind) {
    case Kind.Record:
      if (bu.kind === Kind.Record) {
        const fields = au.fields.slice();
        for (const f of bu.fields) {
          const i = fields.findIndex((g) => g.name === f.name);
          if (i < 0) fields.push(f);
          else if (fields[i].type !== f.type) {
            fields[i] = new Field(f.name, fuseTypes(fields[i].type, f.type));
          }
        }
        return zctx.lookupRecord(fields);
      }
      break;
    case Kind.Array:
    case Kind.Set:
      if (bu.kind === Kind.Array || bu.kind === Kind.Set) {
        const elem = fuseTypes(au.elem, (bu as ArrayType | SetType).elem);
        // Only set with set stays a set.
        return au.kind === Kind.Set && bu.kind === Kind.Set
          ? zctx.lookupSet(elem)
          : zctx.lookupArray(elem);
      }
      break;
    case Kind.Map:
      if (bu.kind === Kind.Map) {
        const mb = bu as MapType;
        return zctx.lookupMap(fuseTypes(au.key, mb.key), fuseTypes(au.value, mb.value));
      }
      break;
    case Kind.Union: {
      const types = au.types.slice();
      if (bu.kind === Kind.Union) {
        for (const t of bu.types) if (!types.includes(t)) types.push(t);
      } else if (!types.includes(b)) {
        types.push(b);
      }
      const merged = mergeRecords(types);
      return merged.length === 1 ? merged[0] : zctx.lookupUnion(merged);
    }
  }
  if (bu.kind === Kind.Union) return fuseTypes(b, a);
  return zctx.lookupUnion([a, b]);
}

/** Fuses every record type in a union's member list into the first one's place. */
function mergeRecords(types: Type[]): Type[] {
  const out: Type[] = [];
  let rec = -1;
  for (const t of types) {
    if (typeUnder(t).kind === Kind.Record) {
      if (rec >= 0) {
        out[rec] = fuseTypes(out[rec], t);
        continue;
      }
      rec = out.length;
    }
    out.push(t);
  }
  return out;
}

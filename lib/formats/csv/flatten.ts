// Flattening nested records into one level of columns named `outer.inner`, as
// the reference's expr.Flattener does for the csv, table, text and zeek
// writers (formats.md §6.1 point 2):
// - a field whose type is (or names) a record is replaced by its flattened
//   fields, each prefixed with the field's name and a dot;
// - other fields keep their types, named types included;
// - a null nested record gives a null for each of its leaf columns.

import { zctx } from "../../zed/context.ts";
import { Field, Kind, type RecordType, type Type, typeUnder } from "../../zed/types.ts";
import { type Body, Value } from "../../zed/value.ts";

/** Flattened record types by (unnamed) record type. */
const flatTypes = new WeakMap<RecordType, RecordType>();

/** Go's FlattenColumns: the leaf fields of a record's fields, with dotted names. */
export function flattenFields(fields: readonly Field[]): Field[] {
  const out: Field[] = [];
  for (const f of fields) {
    const u = typeUnder(f.type);
    if (u.kind === Kind.Record) {
      for (const inner of flattenFields(u.fields)) {
        out.push(new Field(f.name + "." + inner.name, inner.type));
      }
    } else {
      out.push(f);
    }
  }
  return out;
}

/** The flattened form of record type t (itself when already flat). */
export function flattenType(t: RecordType): RecordType {
  let flat = flatTypes.get(t);
  if (flat === undefined) {
    let nested = false;
    for (const f of t.fields) if (typeUnder(f.type).kind === Kind.Record) nested = true;
    flat = nested ? zctx.lookupRecord(flattenFields(t.fields)) : t;
    flatTypes.set(t, flat);
  }
  return flat;
}

/** Appends the leaf bodies of a record body of type t (null: all null). */
export function flattenBody(t: RecordType, body: Body[] | null, out: Body[]): void {
  const fields = t.fields;
  for (let i = 0; i < fields.length; i++) {
    const u = typeUnder(fields[i].type);
    const b = body === null ? null : body[i];
    if (u.kind === Kind.Record) flattenBody(u, b as Body[] | null, out);
    else out.push(b);
  }
}

/**
 * Go's Flattener.Flatten for a value whose type is (or names) a record: the
 * value itself when its record is already flat, so a named type stays on it,
 * else a new value of the flattened record type.
 */
export function flattenValue(v: Value): Value {
  const rt = typeUnder(v.type) as RecordType;
  const flat = flattenType(rt);
  if (flat === rt) return v;
  const out: Body[] = [];
  flattenBody(rt, v.body as Body[] | null, out);
  return new Value(flat, out);
}

/** Whether t is, or names, a record type. */
export function isRecordType(t: Type): boolean {
  return typeUnder(t).kind === Kind.Record;
}

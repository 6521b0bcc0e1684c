// Values made from columns: rows of an object built from its columns rather
// than decoded from its ZNG stream — a record type's fields from their leaf
// columns, nested records from theirs, arrays and sets of primitives from
// list columns. Every type a row has must be complete (all its values'
// fields in columns, no nested record ever null), or, when the query reads
// only some top-level fields, those fields must be leaves the columns hold.

import { Kind, type RecordType, typeUnder } from "../../zed/types.ts";
import { type Body, Value } from "../../zed/value.ts";
import { VALUE } from "../../zed/vector.ts";
import type { ObjectColumns } from "./reader.ts";

type Build = (row: number) => Body;

/**
 * The values of rows (ascending or not) of an object, in that order; want
 * names the top-level fields to make (the others null), or null for all.
 * Null when the columns cannot make them.
 */
export async function valuesFromColumns(
  c: ObjectColumns,
  rows: readonly number[],
  want: ReadonlySet<string> | null,
): Promise<Value[] | null> {
  let upTo = 0;
  for (const r of rows) if (r >= upTo) upTo = r + 1;
  const types = await c.typeIndexUpTo(upTo);
  const builds = new Map<number, Build>();
  for (const r of rows) {
    const k = types === null ? 0 : types[r];
    if (builds.has(k)) continue;
    const rec = typeUnder(c.types[k]);
    if (rec.kind !== Kind.Record) return null;
    const complete = c.complete[k];
    if (!complete && want === null) return null;
    const b = await recordBuild(c, k, rec, [], want, complete, upTo);
    if (b === null) return null;
    builds.set(k, b);
  }
  const out: Value[] = new Array(rows.length);
  for (let n = 0; n < rows.length; n++) {
    const r = rows[n];
    const k = types === null ? 0 : types[r];
    out[n] = new Value(c.types[k], builds.get(k)!(r));
  }
  return out;
}

/** How to make a record's body from its fields' columns, or null when some column is missing. */
async function recordBuild(
  c: ObjectColumns,
  k: number,
  rec: RecordType,
  path: string[],
  want: ReadonlySet<string> | null,
  complete: boolean,
  upTo: number,
): Promise<Build | null> {
  // The fields made, by their position; the others (not read) stay null.
  const slots: number[] = [];
  const fields: Build[] = [];
  for (let i = 0; i < rec.fields.length; i++) {
    const f = rec.fields[i];
    if (path.length === 0 && want !== null && !want.has(f.name)) continue;
    slots.push(i);
    const at = [...path, f.name];
    const u = typeUnder(f.type);
    if (u.kind === Kind.Record) {
      // A nested record that may be null cannot be told from one of nulls.
      if (!complete) return null;
      const b = await recordBuild(c, k, u, at, want, complete, upTo);
      if (b === null) return null;
      fields.push(b);
      continue;
    }
    const ref = c.columnsOf(at).find((x) => x.type === f.type && x.covers.includes(k));
    if (ref === undefined) return null;
    const v = await c.prefixVector(ref, upTo);
    fields.push((r) => v.state[r] === VALUE ? v.body(r) : null);
  }
  const n = rec.fields.length, made = fields.length;
  if (made === n) {
    return (r) => {
      const body: Body[] = new Array(n);
      for (let i = 0; i < n; i++) body[i] = fields[i](r);
      return body;
    };
  }
  return (r) => {
    const body: Body[] = new Array(n).fill(null);
    for (let j = 0; j < made; j++) body[slots[j]] = fields[j](r);
    return body;
  };
}

// Values made from columns: rows of an object built from its columns rather
// than decoded from its ZNG stream — a record type's fields from their leaf
// columns, nested records from theirs, arrays and sets of primitives from
// list columns. Every type a row has must be complete (all its values'
// fields in columns, no nested record ever null), or, when the query reads
// only some top-level fields, those fields must be leaves the columns hold.

import { zctx } from "../../zed/context.ts";
import { Kind, type RecordType, type Type, typeUnder } from "../../zed/types.ts";
import { type Body, Value } from "../../zed/value.ts";
import { VALUE } from "../../zed/vector.ts";
import type { TypeIndex } from "./decode.ts";
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
  const made = await ColumnRows.open(c, want, upTo);
  return await made.prepare(rows) ? made.make(rows, 0, rows.length) : null;
}

/**
 * Rows of an object's first upTo made from its columns, as
 * valuesFromColumns makes them: how to make each record type is worked out
 * once (prepare), for every batch of rows made after.
 */
export class ColumnRows {
  private builds: (Build | undefined)[];

  private constructor(
    private c: ObjectColumns,
    private types: TypeIndex | null,
    private want: ReadonlySet<string> | null,
    private upTo: number,
  ) {
    this.builds = new Array(c.types.length);
  }

  static async open(
    c: ObjectColumns,
    want: ReadonlySet<string> | null,
    upTo: number,
  ): Promise<ColumnRows> {
    return new ColumnRows(c, await c.typeIndexUpTo(upTo), want, upTo);
  }

  /** Works out how to make the types of rows; false when the columns cannot make one. */
  async prepare(rows: ArrayLike<number>): Promise<boolean> {
    const { c, types, builds } = this;
    for (let i = 0; i < rows.length; i++) {
      const k = types === null ? 0 : types[rows[i]];
      if (builds[k] !== undefined) continue;
      const rec = typeUnder(c.types[k]);
      if (rec.kind !== Kind.Record) return false;
      const complete = c.complete[k];
      if (!complete && this.want === null) return false;
      const b = await recordBuild(c, k, rec, [], this.want, complete, this.upTo);
      if (b === null) return false;
      builds[k] = b;
    }
    return true;
  }

  /** The values of rows[from, to), prepared. */
  make(rows: ArrayLike<number>, from: number, to: number): Value[] {
    const { c, types, builds } = this;
    const out: Value[] = new Array(to - from);
    for (let n = from; n < to; n++) {
      const r = rows[n];
      const k = types === null ? 0 : types[r];
      out[n - from] = new Value(c.types[k], builds[k]!(r));
    }
    return out;
  }
}

/**
 * What `cut names` (top-level fields by name) makes of rows of an object,
 * in their order, from the columns: records of those fields, with
 * error("missing") where a row has no such field. Null when the columns
 * cannot make them (a row not a record, a field they do not hold).
 */
export async function cutFromColumns(
  c: ObjectColumns,
  rows: readonly number[],
  names: readonly string[],
  missing: Value,
): Promise<Value[] | null> {
  let upTo = 0;
  for (let i = 0; i < rows.length; i++) if (rows[i] >= upTo) upTo = rows[i] + 1;
  const types = await c.typeIndexUpTo(upTo);
  const made = new Map<number, { type: RecordType; fields: Build[] }>();
  // (Indexed loops: until the JIT compiles this, for-of makes an object per row.)
  for (let i = 0; i < rows.length; i++) {
    const k = types === null ? 0 : types[rows[i]];
    if (made.has(k)) continue;
    const rec = typeUnder(c.types[k]);
    if (rec.kind !== Kind.Record) return null;
    const outTypes: Type[] = [];
    const fields: Build[] = [];
    for (const name of names) {
      const f = rec.fields.find((x) => x.name === name);
      if (f === undefined) {
        outTypes.push(missing.type);
        fields.push(() => missing.body);
        continue;
      }
      const u = typeUnder(f.type);
      const b = u.kind === Kind.Record
        ? (c.complete[k] ? await recordBuild(c, k, u, [name], null, true, upTo) : null)
        : await leafBuild(c, k, [name], f.type, upTo);
      if (b === null) return null;
      outTypes.push(f.type);
      fields.push(b);
    }
    made.set(k, { type: zctx.lookupRecordOf(names, outTypes), fields });
  }
  const n = names.length;
  const out: Value[] = new Array(rows.length);
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i];
    const m = made.get(types === null ? 0 : types[r])!;
    const body: Body[] = new Array(n);
    for (let j = 0; j < n; j++) body[j] = m.fields[j](r);
    out[i] = new Value(m.type, body);
  }
  return out;
}

/** How to make a leaf field's body from its column, or null when the columns do not hold it. */
async function leafBuild(
  c: ObjectColumns,
  k: number,
  at: string[],
  type: Type,
  upTo: number,
): Promise<Build | null> {
  const ref = c.columnsOf(at).find((x) => x.type === type && x.covers.includes(k));
  if (ref === undefined) return null;
  const v = await c.prefixVector(ref, upTo);
  return (r) => v.state[r] === VALUE ? v.body(r) : null;
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
    const b = await leafBuild(c, k, at, f.type, upTo);
    if (b === null) return null;
    fields.push(b);
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

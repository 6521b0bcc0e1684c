// Group keys derived from one field over columns (`bucket(ts, 1m)`) and
// aggregates' arguments derived from top-level fields (`sum(rtt*1000)`,
// `sum(orig_bytes+resp_bytes)`): the expression is evaluated over a record
// holding just those fields (empty where a row lacks them). A key's is
// evaluated once per distinct value of the field's column, and rows take the
// codes of their values' results; a lone column's derived codes are
// remembered with the column (of an object's cached metadata), so a repeated
// query (a histogram's buckets) derives no value twice. An argument's is
// evaluated per row that has one of its fields, once for the rows that have
// none.

import { valueKey } from "../aggregates/value-key.ts";
import { isMissing, MISSING } from "../runtime/values.ts";
import type { Expr } from "../runtime/expr.ts";
import { zctx } from "../../zed/context.ts";
import {
  Field,
  ID_DURATION,
  ID_TIME,
  isInteger,
  isNumber,
  Kind,
  type Type,
  underId,
} from "../../zed/types.ts";
import { type Body, Value } from "../../zed/value.ts";
import type { ColumnRef } from "./object.ts";
import type { ArgValues, PathValues } from "./pathvalues.ts";
import { bucketCodes, type TimeBucket } from "./timebucket.ts";

/**
 * A group key over columns: a field path's values, or an expression of one
 * top-level field (derive), named by id (its syntax tree's text).
 */
export interface VectorKey {
  path: string[];
  derive: Expr | null;
  id?: string;
  /** The type of the whole value, `typeof(this)` (path [], derive null): from each row's type. */
  rowType?: boolean;
  /** When derive is `bucket(f, span)` or `bucket(time(f), span)`: worked out in one loop. */
  bucket?: TimeBucket;
}

/** Per row a code, and the value of each code. */
export type Codes = { code: Int32Array; values: Value[] };

/** Derived codes by column, then by derivation id. */
const memo = new WeakMap<ColumnRef, Map<string, Codes>>();

/** A key's derivation as a function of its field's value (MISSING where a row lacks the field). */
export class Deriver {
  private record: FieldsRecord;
  /** The field's value being derived (one, as FieldsRecord takes them). */
  private readonly one: Value[] = [MISSING];

  constructor(
    field: string,
    private expr: Expr,
    private id: string,
    private bucket: TimeBucket | null = null,
  ) {
    this.record = new FieldsRecord([field]);
  }

  /** The deriver of a key, or null for a plain path. */
  static of(k: VectorKey): Deriver | null {
    return k.derive === null
      ? null
      : new Deriver(k.path[0], k.derive, k.id ?? "", k.bucket ?? null);
  }

  derive(v: Value): Value {
    this.one[0] = v;
    return this.expr(this.record.of(this.one));
  }

  /**
   * The derived codes of a key whose field's codes source gives (for every
   * row when asked): remembered for ref, a lone column, when their types are
   * primitive (or errors of them), so that none names one request's own type.
   */
  codes(
    ref: ColumnRef | null,
    rows: number,
    source: (everyRow: boolean) => Codes,
    values: PathValues,
  ): Codes {
    if (ref === null || this.id === "") return this.derivedCodes(source(false), rows);
    let byId = memo.get(ref);
    const known = byId?.get(this.id);
    if (known !== undefined) return known;
    const c = this.bucketed(values, rows) ?? this.derivedCodes(source(true), rows);
    if (c.values.every((v) => unnamed(v.type))) {
      if (byId === undefined) memo.set(ref, byId = new Map());
      byId.set(this.id, c);
    }
    return c;
  }

  /** A time bucket's codes over a lone column, from the column's arrays; null where they do not serve. */
  private bucketed(values: PathValues, rows: number): Codes | null {
    if (this.bucket === null || values.col !== null || values.vectors.length !== 1) return null;
    return bucketCodes(values.vectors[0], rows, this.bucket, (x) => this.derive(x));
  }

  /** Each distinct source value's derivation, equal results (by value) sharing a code. */
  private derivedCodes(src: Codes, rows: number): Codes {
    const remap = new Int32Array(src.values.length);
    const values: Value[] = [];
    const seen = new Map<string, number>();
    for (let c = 0; c < src.values.length; c++) {
      const d = this.derive(src.values[c]);
      const key = valueKey(d.type, d.body);
      let n = seen.get(key);
      if (n === undefined) {
        n = values.length;
        values.push(d);
        seen.set(key, n);
      }
      remap[c] = n;
    }
    const code = new Int32Array(rows);
    for (let i = 0; i < rows; i++) code[i] = remap[src.code[i]];
    return { code, values };
  }
}

/** A primitive type, or an error of one (as a derivation of a missing field gives). */
function unnamed(t: Type): boolean {
  return t.kind === Kind.Primitive || (t.kind === Kind.Error && unnamed(t.inner));
}

/**
 * An aggregate's argument: an expression of top-level fields, evaluated per
 * row over a record of those fields (the ones the row has), once for the
 * rows that have none of them.
 */
export class DerivedArg implements ArgValues {
  /** The result for every row without any of the fields. */
  private readonly whenMissing: Value;
  private readonly record: FieldsRecord;
  /** The fields' values of the row being derived (MISSING where it lacks one). */
  private readonly vals: Value[];

  constructor(
    /** How many rows the object has. */
    private rows: number,
    private sources: PathValues[],
    names: string[],
    private expr: Expr,
    /** The result for rows without the fields, when known (one value for several objects). */
    whenMissing?: Value,
  ) {
    this.record = new FieldsRecord(names);
    this.vals = names.map(() => MISSING);
    this.whenMissing = whenMissing ?? expr(this.record.of(this.vals));
  }

  /** The result for every row without any of the fields. */
  get missing(): Value {
    return this.whenMissing;
  }

  get none(): boolean {
    return this.sources.every((s) => s.none) && isMissing(this.whenMissing);
  }

  has(i: number): boolean {
    return !isMissing(this.value(i));
  }

  value(i: number): Value {
    return this.all !== null ? this.all[i] : this.derive(i);
  }

  /** Every row's value, once worked out (intBound does, before rows are fed). */
  private all: Value[] | null = null;

  private derive(i: number): Value {
    const sources = this.sources, vals = this.vals;
    let any = false;
    for (let k = 0; k < sources.length; k++) {
      const s = sources[k];
      if (s.has(i)) {
        vals[k] = s.value(i);
        any = true;
      } else vals[k] = MISSING;
    }
    return any ? this.expr(this.record.of(vals)) : this.whenMissing;
  }

  numbers(): null {
    return null;
  }

  integers(): null {
    return null;
  }

  binary(): null {
    return null;
  }

  /**
   * As PathValues': the magnitudes of the integer values, or null when one
   * is a number of another type. (Values that are not numbers are left out:
   * the aggregates that ask, sum and avg, take no account of them.)
   */
  intBound(): number | null {
    if (this.all === null) {
      const all = new Array<Value>(this.rows);
      for (let i = 0; i < this.rows; i++) all[i] = this.derive(i);
      this.all = all;
    }
    let bound = 0;
    for (let i = 0; i < this.rows; i++) {
      const v = this.all[i];
      if (v.body === null) continue;
      const id = underId(v.type);
      if (isInteger(id) || id === ID_DURATION || id === ID_TIME) bound += Math.abs(Number(v.body));
      else if (isNumber(id)) return null;
    }
    return bound;
  }
}

/** A field a row lacks, in FieldsRecord's cache (an error("missing") value it may have). */
const ABSENT = Symbol("absent");

/** Records of some top-level fields' values: those present, in the names' order. */
class FieldsRecord {
  /** The record types made, by the values' types (ABSENT for an absent one), field by field. */
  private types = new Map<Type | typeof ABSENT, unknown>();

  constructor(private names: string[]) {}

  /** The record of vals (one per name, MISSING where absent). */
  of(vals: Value[]): Value {
    let node: Map<Type | typeof ABSENT, unknown> = this.types;
    const n = vals.length;
    for (let k = 0; k < n - 1; k++) {
      const t = vals[k] === MISSING ? ABSENT : vals[k].type;
      let next = node.get(t) as Map<Type | typeof ABSENT, unknown> | undefined;
      if (next === undefined) node.set(t, next = new Map());
      node = next;
    }
    const last = vals[n - 1] === MISSING ? ABSENT : vals[n - 1].type;
    let rec = node.get(last) as Type | undefined;
    if (rec === undefined) {
      const fields: Field[] = [];
      for (let k = 0; k < n; k++) {
        if (vals[k] !== MISSING) fields.push(new Field(this.names[k], vals[k].type));
      }
      rec = zctx.lookupRecord(fields);
      node.set(last, rec);
    }
    const body: Body[] = [];
    for (let k = 0; k < n; k++) if (vals[k] !== MISSING) body.push(vals[k].body);
    return new Value(rec, body);
  }
}

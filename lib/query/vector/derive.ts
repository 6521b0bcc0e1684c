// Group keys and aggregates' arguments derived from one field over columns
// (`bucket(ts, 1m)`, `sum(rtt*1000)`): the expression is evaluated over a
// record holding just that field (empty where a row lacks it). A key's is
// evaluated once per distinct value of the field's column, and rows take the
// codes of their values' results; a lone column's derived codes are
// remembered with the column (of an object's cached metadata), so a repeated
// query (a histogram's buckets) derives no value twice. An argument's is
// evaluated per row that has the field, once for the rows that lack it.

import { valueKey } from "../aggregates/value-key.ts";
import { isMissing, MISSING } from "../runtime/values.ts";
import type { Expr } from "../runtime/expr.ts";
import { zctx } from "../../zed/context.ts";
import { Field, Kind, type Type } from "../../zed/types.ts";
import { Value } from "../../zed/value.ts";
import type { ColumnRef } from "./object.ts";
import type { ArgValues, PathValues } from "./pathvalues.ts";

/**
 * A group key over columns: a field path's values, or an expression of one
 * top-level field (derive), named by id (its syntax tree's text).
 */
export interface VectorKey {
  path: string[];
  derive: Expr | null;
  id?: string;
}

/** Per row a code, and the value of each code. */
export type Codes = { code: Int32Array; values: Value[] };

/** Derived codes by column, then by derivation id. */
const memo = new WeakMap<ColumnRef, Map<string, Codes>>();

/** A key's derivation as a function of its field's value (MISSING where a row lacks the field). */
export class Deriver {
  private empty = new Value(zctx.lookupRecord([]), []);
  private stubs = new Map<Type, Type>();

  constructor(private field: string, private expr: Expr, private id: string) {}

  /** The deriver of a key, or null for a plain path. */
  static of(k: VectorKey): Deriver | null {
    return k.derive === null ? null : new Deriver(k.path[0], k.derive, k.id ?? "");
  }

  derive(v: Value): Value {
    if (v === MISSING) return this.expr(this.empty);
    let t = this.stubs.get(v.type);
    if (t === undefined) {
      t = zctx.lookupRecord([new Field(this.field, v.type)]);
      this.stubs.set(v.type, t);
    }
    return this.expr(new Value(t, [v.body]));
  }

  /**
   * The derived codes of a key whose field's codes source gives (for every
   * row when asked): remembered for ref, a lone column, when their types are
   * primitive (or errors of them), so that none names one request's own type.
   */
  codes(ref: ColumnRef | null, rows: number, source: (everyRow: boolean) => Codes): Codes {
    if (ref === null || this.id === "") return this.derivedCodes(source(false), rows);
    let byId = memo.get(ref);
    const known = byId?.get(this.id);
    if (known !== undefined) return known;
    const c = this.derivedCodes(source(true), rows);
    if (c.values.every((v) => unnamed(v.type))) {
      if (byId === undefined) memo.set(ref, byId = new Map());
      byId.set(this.id, c);
    }
    return c;
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

/** An aggregate's argument derived per row from its field's values. */
export class DerivedArg implements ArgValues {
  /** The result for every row without the field. */
  private readonly whenMissing: Value;

  constructor(private source: PathValues, private deriver: Deriver) {
    this.whenMissing = deriver.derive(MISSING);
  }

  get none(): boolean {
    return this.source.none && isMissing(this.whenMissing);
  }

  has(i: number): boolean {
    return !isMissing(this.value(i));
  }

  value(i: number): Value {
    return this.source.has(i) ? this.deriver.derive(this.source.value(i)) : this.whenMissing;
  }

  numbers(): null {
    return null;
  }

  intBound(): null {
    return null;
  }
}

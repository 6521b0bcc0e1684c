// A filter's atom over one field path (filter.ts): its outcome per record
// type where the type lacks the path, and per row from the path's columns
// where it has it — once per distinct entry of a dictionary column, by a
// kernel over a string column's bytes for a comparison with a constant, or
// value by value — always by the filter's own compiled expression or its
// comparison's predicate.

import { type CompareOp, constMayHold } from "../expr/compare.ts";
import type { Expr } from "../runtime/expr.ts";
import { type Type, TypeString, typeUnder } from "../../zed/types.ts";
import type { Body, Value } from "../../zed/value.ts";
import {
  BinaryVector,
  DictVector,
  NULL_ROW,
  NumberVector,
  VALUE,
  type Vector,
} from "../../zed/vector.ts";
import type { ColumnarObject } from "./object.ts";
import { EMPTY_RECORD, lookupPath, PathRecord } from "./paths.ts";
import { bytesPerType, dictHistogram } from "./histogram.ts";
import {
  E,
  F,
  type FilterNode,
  outcome,
  rowsFromTypes,
  T,
  type TypeIndex,
  type TypeOutcomes,
  VARIES,
} from "./codes.ts";

export interface Comparison {
  op: CompareOp;
  constant: Value;
  pred: (t: Type, body: Body) => boolean;
}

/** Per type index: the outcome for its rows when it lacks the path, -1 when a column holds it. */
function typeOutcomes(
  o: ColumnarObject,
  path: readonly string[],
  missing: () => number,
  cmp: Comparison | null,
): Int8Array | null {
  const out = new Int8Array(o.types.length);
  for (let k = 0; k < o.types.length; k++) {
    const lp = lookupPath(o.types[k], path);
    if (lp.kind === "other") return null;
    if (lp.kind === "missing") {
      out[k] = missing();
      continue;
    }
    if (cmp !== null && !constMayHold(cmp.constant, lp.type)) {
      // A comparison with a constant its values never compare with (a string
      // with a time): false for every row, whatever its value.
      out[k] = F;
      continue;
    }
    if (!o.columnsOf(path).some((c) => c.covers.includes(k) && c.type === lp.type)) return null;
    out[k] = VARIES;
  }
  return out;
}

/** An atom reading one field path. */
export class PathAtom implements FilterNode {
  private missingCode = -1;
  /** Outcomes per distinct dictionary, so each entry is evaluated once per query. */
  private dictCodes = new WeakMap<readonly Body[], Uint8Array>();

  constructor(
    private path: string[],
    private expr: Expr,
    private cmp: Comparison | null,
    private strict: boolean,
    /** The outcome for a value depends only on its type (has(p), p==null, is(p, <t>), …). */
    private typeOnly = false,
  ) {}

  private missing = (): number => {
    if (this.missingCode < 0) this.missingCode = outcome(this.expr(EMPTY_RECORD), this.strict);
    return this.missingCode;
  };

  perType(o: ColumnarObject): TypeOutcomes | null {
    return typeOutcomes(o, this.path, this.missing, this.cmp);
  }

  /**
   * The count and size of the rows that pass, from the histograms of the
   * dictionary columns the path has (and the other types' outcomes);
   * undefined when a column the count needs is not a dictionary, null when
   * the filter would emit an error value (lifted: see VectorFilter).
   */
  async countByEntries(
    o: ColumnarObject,
    lifted: boolean,
  ): Promise<{ count: number; bytes: number } | null | undefined> {
    const per = this.perType(o);
    if (per === null) return null;
    const nt = o.types.length;
    const evaluated: DictVector[] = [];
    const covered = new Uint8Array(nt);
    for (const c of o.columnsOf(this.path)) {
      if (!c.covers.some((k) => per[k] < 0)) continue;
      const v = await o.vector(c);
      if (!(v instanceof DictVector)) return undefined;
      evaluated.push(v);
      for (const k of c.covers) covered[k] = 1;
    }
    const sizes = await o.sizes();
    let count = 0, bytes = 0;
    for (const v of evaluated) {
      const dc = this.entryCodes(v);
      const h = dictHistogram(v, sizes);
      for (let d = 0; d < dc.length; d++) {
        if (h.counts[d] === 0) continue;
        if (dc[d] === E && !lifted) return null;
        if (dc[d] === T) {
          count += h.counts[d];
          bytes += h.bytes![d];
        }
      }
      if (h.nulls > 0) {
        const nullCode = outcome(
          this.expr(new PathRecord(this.path, v.type).of(null)),
          this.strict,
        );
        if (nullCode === E && !lifted) return null;
        if (nullCode === T) {
          count += h.nulls;
          bytes += h.nullBytes;
        }
      }
    }
    const counts = o.typeCounts;
    let perType: Float64Array | null = null;
    for (let k = 0; k < nt; k++) {
      if (covered[k] || counts[k] === 0) continue;
      if ((per[k] === E && !lifted) || per[k] === VARIES) return null;
      if (per[k] === T) {
        perType ??= bytesPerType(sizes, await o.typeIndex(), nt);
        count += counts[k];
        bytes += perType[k];
      }
    }
    return { count, bytes };
  }

  /** Per entry of a dictionary column, its outcome (worked out once per dictionary). */
  private entryCodes(v: DictVector): Uint8Array {
    let dc = this.dictCodes.get(v.dict);
    if (dc === undefined) {
      const cmp = this.cmp, rec = new PathRecord(this.path, v.type);
      dc = new Uint8Array(v.dict.length);
      for (let d = 0; d < dc.length; d++) {
        dc[d] = cmp !== null
          ? (cmp.pred(v.type, v.dict[d]) ? T : F)
          : outcome(this.expr(rec.of(v.dict[d])), this.strict);
      }
      this.dictCodes.set(v.dict, dc);
    }
    return dc;
  }

  async eval(o: ColumnarObject, types: TypeIndex, per: TypeOutcomes): Promise<Uint8Array | null> {
    // Rows of types that lack the path get their outcome; the columns fill in the rest.
    const codes = per.some((c) => c > 0)
      ? rowsFromTypes(o.rows, types, per)
      : new Uint8Array(o.rows);
    for (const c of o.columnsOf(this.path)) {
      if (!c.covers.some((k) => per[k] < 0)) continue;
      const v = await o.vector(c);
      this.fill(codes, v, new PathRecord(this.path, c.type));
    }
    return codes;
  }

  /** Sets the outcome of each row that holds a value (or null) in v. */
  private fill(codes: Uint8Array, v: Vector, rec: PathRecord): void {
    const state = v.state;
    const n = state.length;
    const nullCode = outcome(this.expr(rec.of(null)), this.strict);
    const cmp = this.cmp;
    if (v instanceof DictVector) {
      const dc = this.entryCodes(v);
      const index = v.index;
      for (let i = 0; i < n; i++) {
        const s = state[i];
        if (s === VALUE) codes[i] = dc[index[i]];
        else if (s === NULL_ROW) codes[i] = nullCode;
      }
      return;
    }
    if (cmp !== null && v instanceof NumberVector && v.big === null) {
      const pred = cmp.pred, t = v.type, f64 = v.f64;
      for (let i = 0; i < n; i++) {
        const s = state[i];
        if (s === VALUE) codes[i] = pred(t, f64[i]) ? T : F;
        else if (s === NULL_ROW) codes[i] = nullCode;
      }
      return;
    }
    if (cmp !== null && v instanceof BinaryVector && v.isString) {
      const kernel = stringComparison(cmp);
      if (kernel !== null) {
        const off = v.offsets, data = v.data;
        for (let i = 0; i < n; i++) {
          const s = state[i];
          if (s === VALUE) codes[i] = kernel(data, off[i], off[i + 1]) ? T : F;
          else if (s === NULL_ROW) codes[i] = nullCode;
        }
        return;
      }
    }
    if (this.typeOnly) {
      // One type, so one outcome for every value: the first one's.
      let valueCode = -1;
      for (let i = 0; i < n; i++) {
        const s = state[i];
        if (s === VALUE) {
          if (valueCode < 0) valueCode = this.outcomeOf(v.type, v.body(i), rec);
          codes[i] = valueCode;
        } else if (s === NULL_ROW) codes[i] = nullCode;
      }
      return;
    }
    // Anything else: the expression per value (repeated values evaluated once;
    // not bigints, which a map hashes slowly, and of which a time column has
    // as many as rows).
    const memo = new Map<Body, number>();
    for (let i = 0; i < n; i++) {
      const s = state[i];
      if (s === NULL_ROW) {
        codes[i] = nullCode;
        continue;
      }
      if (s !== VALUE) continue;
      const b = v.body(i);
      const key = typeof b === "object" || typeof b === "bigint" ? undefined : b;
      let c = key === undefined ? undefined : memo.get(key);
      if (c === undefined) {
        c = this.outcomeOf(v.type, b, rec);
        if (key !== undefined && memo.size < 65536) memo.set(key, c);
      }
      codes[i] = c;
    }
  }

  /** The outcome for one value of the path. */
  private outcomeOf(t: Type, b: Body, rec: PathRecord): number {
    const cmp = this.cmp;
    return cmp !== null ? (cmp.pred(t, b) ? T : F) : outcome(this.expr(rec.of(b)), this.strict);
  }
}

/**
 * A comparison of UTF-8 bytes data[a, b) with a string constant, in the
 * byte order strings compare in; null for constants that are not strings.
 */
function stringComparison(
  cmp: Comparison,
): ((data: Uint8Array, a: number, b: number) => boolean) | null {
  if (typeUnder(cmp.constant.type) !== TypeString) return null;
  const want = new TextEncoder().encode((cmp.constant.body ?? "") as string);
  const n = want.length;
  const order = (data: Uint8Array, a: number, b: number): number => {
    const len = b - a;
    const m = len < n ? len : n;
    for (let k = 0; k < m; k++) {
      const d = data[a + k] - want[k];
      if (d !== 0) return d;
    }
    return len - n;
  };
  switch (cmp.op) {
    case "==":
      return (data, a, b) => b - a === n && order(data, a, b) === 0;
    case "!=":
      return (data, a, b) => b - a !== n || order(data, a, b) !== 0;
    case "<":
      return (data, a, b) => order(data, a, b) < 0;
    case "<=":
      return (data, a, b) => order(data, a, b) <= 0;
    case ">":
      return (data, a, b) => order(data, a, b) > 0;
    case ">=":
      return (data, a, b) => order(data, a, b) >= 0;
  }
}

// Filters over columns. A filter is split at `and`, `or` and `not` into
// atoms, each reading one field path (or searching the whole value); an atom
// is evaluated per distinct value of a dictionary column, per row of another
// column, or once for every row whose type lacks the path — always by the
// filter's own compiled expression (or its comparison predicate), so the
// results are exactly those of the row path. Per row an atom yields an
// outcome code, combined by the reference's rules for `and`, `or` and `!`.
//
// An object the columns cannot answer for (a path through a value that is
// not a record, a field of a type columns do not hold, a search over a type
// not wholly in columns, an outcome that is an error value the filter would
// emit) gets null, and its rows are filtered the row way instead.

import { isAggregateName } from "../aggregates/registry.ts";
import type * as ast from "../ast.ts";
import type { ExprCompiler } from "../compiler/expr.ts";
import { literalValue } from "../compiler/expr.ts";
import type { Scope } from "../compiler/scope.ts";
import { resolveType } from "../compiler/types.ts";
import { type CompareOp, constBodyPredicate } from "../expr/compare.ts";
import { globWalker, keywordWalker, literalWalker, regexpWalker } from "../expr/search.ts";
import type { Expr } from "../runtime/expr.ts";
import { type Type, TypeString, TypeType, typeUnder } from "../../zed/types.ts";
import { type Body, Value } from "../../zed/value.ts";
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
import { compileSearchAtom, globBytes, keywordBytes } from "./search.ts";
import { bytesPerType, dictHistogram } from "./histogram.ts";
import {
  E,
  F,
  type FilterNode,
  M,
  outcome,
  rowsFromTypes,
  T,
  type TypeIndex,
  type TypeOutcomes,
  VARIES,
} from "./codes.ts";

/** The rows of an object that pass a filter. */
export interface Selection {
  /** Per row, an outcome: T (1) where the row passes. */
  rows: Uint8Array;
  count: number;
  /** Every row passes. */
  all: boolean;
}

export class VectorFilter {
  /**
   * lifted: the filter is lifted into its source (ops/where.ts scanKeeps),
   * where a row whose outcome is an error is dropped, as one that is false;
   * elsewhere (an aggregate's `where`) the row way decides such rows.
   */
  constructor(private root: FilterNode, private lifted: boolean) {}

  /** The rows that pass, or null when the object must be filtered the row way. */
  async select(o: ColumnarObject): Promise<Selection | null> {
    const per = this.root.perType(o);
    if (per === null) return null;
    const counts = o.typeCounts;
    if (!per.includes(VARIES)) {
      // Each type's rows all have one outcome: no row need be looked at.
      let count = 0;
      for (let k = 0; k < per.length; k++) {
        if (counts[k] === 0) continue;
        if (per[k] === E && !this.lifted) return null; // the filter would emit an error value
        if (per[k] === T) count += counts[k];
      }
      const all = count === o.rows;
      if (all || count === 0) return { rows: new Uint8Array(o.rows).fill(all ? T : F), count, all };
    }
    const types = await o.typeIndex();
    const codes = await this.root.eval(o, types, per);
    if (codes === null) return null;
    // Rows that pass are T, the others F (not M, Q or E) in what select returns.
    let count = 0;
    for (let i = 0; i < codes.length; i++) {
      const c = codes[i];
      if (c === T) count++;
      else if (c !== F) {
        if (c === E && !this.lifted) return null; // the filter would emit an error value here
        codes[i] = F;
      }
    }
    return { rows: codes, count, all: count === o.rows };
  }

  /**
   * How many rows pass and their values' total size (null as for select):
   * from dictionary histograms where the filter is one atom over dictionary
   * columns, else from the rows select picks.
   */
  async count(o: ColumnarObject): Promise<{ count: number; bytes: number } | null> {
    if (this.root instanceof PathAtom) {
      const r = await this.root.countByEntries(o, this.lifted);
      if (r !== undefined) return r;
    }
    const sel = await this.select(o);
    if (sel === null) return null;
    const sizes = await o.sizes(), rows = sel.rows;
    let bytes = 0;
    for (let i = 0; i < rows.length; i++) if (rows[i] === T) bytes += sizes[i];
    return { count: sel.count, bytes };
  }
}

/** The filter as a combination of column atoms, or null when some part of it cannot be. */
export function compileVectorFilter(
  node: ast.Expr,
  scope: Scope,
  exprs: ExprCompiler,
  lifted = false,
): VectorFilter | null {
  const root = new FilterCompiler(scope, exprs).node(node, lifted);
  return root === null ? null : new VectorFilter(root, lifted);
}

class FilterCompiler {
  constructor(private scope: Scope, private exprs: ExprCompiler) {}

  /** strict: the node's outcomes are the filter's own (outcome's strict). */
  node(e: ast.Expr, strict = false): FilterNode | null {
    if (e.kind === "BinaryExpr" && (e.op === "and" || e.op === "or")) {
      const a = this.node(e.lhs), b = this.node(e.rhs);
      if (a === null || b === null) return null;
      return e.op === "and" ? new And(a, b) : new Or(a, b);
    }
    if (e.kind === "UnaryExpr" && e.op === "!") {
      const a = this.node(e.operand);
      return a === null ? null : new Not(a);
    }
    switch (e.kind) {
      case "Term":
        if (e.value.kind === "Primitive") {
          const v = literalValue(e.value);
          return compileSearchAtom(
            v.type === TypeString ? keywordWalker(v.body as string) : literalWalker(v, e.text),
            v.type === TypeString ? keywordBytes(v.body as string) : null,
          );
        }
        if (e.value.kind === "TypeValue") {
          const v = new Value(TypeType, resolveType(e.value.value, this.scope));
          return compileSearchAtom(literalWalker(v, e.text), null);
        }
        return null;
      case "Glob":
        return compileSearchAtom(globWalker(e.pattern), globBytes(e.pattern));
      case "Regexp":
        return compileSearchAtom(regexpWalker(e.pattern), null);
    }
    const paths = new Set<string>();
    if (!this.paths(e, paths)) return null;
    const expr = this.exprs.compile(e, this.scope);
    if (paths.size === 0) return new ConstAtom(outcome(expr(EMPTY_RECORD), strict));
    if (paths.size > 1) return null;
    const path = JSON.parse([...paths][0]) as string[];
    return new PathAtom(path, expr, this.comparison(e, path), strict);
  }

  /** For `path op constant` with a typed predicate (compare.ts path A): the predicate. */
  private comparison(e: ast.Expr, path: string[]): Comparison | null {
    if (e.kind !== "BinaryExpr" || !["==", "!=", "<", "<=", ">", ">="].includes(e.op)) return null;
    const p = this.exprs.path(e.lhs, this.scope);
    if (p === undefined || JSON.stringify(p) !== JSON.stringify(path)) return null;
    const c = this.exprs.constValue(e.rhs, this.scope);
    if (c === undefined) return null;
    const pred = constBodyPredicate(e.op as CompareOp, c);
    if (pred === undefined) return null;
    return { op: e.op as CompareOp, constant: c, pred };
  }

  /** Adds the field paths e reads (as JSON); false when e may read more than named fields. */
  private paths(e: ast.AnyNode | null, out: Set<string>): boolean {
    if (e === null || typeof e !== "object") return true;
    switch (e.kind) {
      case "ID": {
        if (e.name === "this") return false;
        const sym = this.scope.lookup(e.name);
        if (sym !== undefined) return sym.kind !== "var";
        out.add(JSON.stringify([e.name]));
        return true;
      }
      case "BinaryExpr":
        if (e.op === "." || e.op === "[") {
          const p = this.exprs.path(e as ast.Expr, this.scope);
          if (p !== undefined) {
            if (p.length === 0) return false;
            out.add(JSON.stringify(p));
            return true;
          }
        }
        if (e.op === "~") return this.paths(e.lhs, out);
        break;
      case "Call":
        if (
          isAggregateName(e.name) && !((e.name === "min" || e.name === "max") && e.args.length > 1)
        ) {
          return false;
        }
        if (IMPURE.has(e.name)) return false;
        if (e.name === "grep" && e.args.length < 2) return false;
        break;
      case "Grep":
        return this.paths(e.expr, out);
      case "Agg":
      case "OverExpr":
      case "Term":
      case "Glob":
      case "Regexp":
        return false;
      case "TypeValue":
      case "Primitive":
        return true;
    }
    for (const k in e) {
      if (k === "kind") continue;
      const v = e[k];
      if (Array.isArray(v)) {
        for (const x of v) {
          if (x !== null && typeof x === "object" && !this.paths(x, out)) return false;
        }
      } else if (v !== null && typeof v === "object" && "kind" in v && !this.paths(v, out)) {
        return false;
      }
    }
    return true;
  }
}

/** Functions whose results are not a function of their arguments. */
const IMPURE = new Set(["now", "ksuid"]);

interface Comparison {
  op: CompareOp;
  constant: Value;
  pred: (t: Type, body: Body) => boolean;
}

class ConstAtom implements FilterNode {
  constructor(private code: number) {}
  perType(o: ColumnarObject): TypeOutcomes {
    return new Int8Array(o.types.length).fill(this.code);
  }
  eval(o: ColumnarObject): Promise<Uint8Array> {
    return Promise.resolve(new Uint8Array(o.rows).fill(this.code));
  }
}

/** Combines two nodes' outcomes, per type and per row, by a rule on outcome codes. */
abstract class Binary implements FilterNode {
  constructor(private a: FilterNode, private b: FilterNode) {}
  protected abstract combine(x: number, y: number): number;

  perType(o: ColumnarObject): TypeOutcomes | null {
    const x = this.a.perType(o);
    if (x === null) return null;
    const y = this.b.perType(o);
    if (y === null) return null;
    const out = new Int8Array(x.length);
    for (let k = 0; k < x.length; k++) {
      out[k] = x[k] === VARIES || y[k] === VARIES
        ? this.partial(x[k], y[k])
        : this.combine(x[k], y[k]);
    }
    return out;
  }

  /** The outcome when one side varies: decided by the other side alone, or VARIES. */
  protected abstract partial(x: number, y: number): number;

  /** Whether a row whose left outcome is x takes the right side's outcome. */
  protected abstract takesRight(x: number): boolean;

  /**
   * The right side's outcomes per type, with types none of whose rows take
   * them decided (as false), so that their columns are not read.
   */
  private narrowed(pb: TypeOutcomes, x: Uint8Array, types: TypeIndex): TypeOutcomes {
    if (types === null) return pb;
    const needed = new Uint8Array(pb.length);
    for (let i = 0; i < x.length; i++) if (this.takesRight(x[i])) needed[types[i]] = 1;
    let out = pb;
    for (let k = 0; k < pb.length; k++) {
      if (needed[k] === 0 && pb[k] === VARIES) {
        if (out === pb) out = pb.slice();
        out[k] = F;
      }
    }
    return out;
  }

  async eval(o: ColumnarObject, types: TypeIndex, per: TypeOutcomes): Promise<Uint8Array | null> {
    const pa = this.a.perType(o)!, pb = this.b.perType(o)!;
    const x = await this.a.eval(o, types, pa);
    if (x === null) return null;
    // Where no row's outcome takes the right side's, it is not evaluated.
    let needed = false;
    for (let i = 0; i < x.length && !needed; i++) needed = this.takesRight(x[i]);
    if (!needed) return x;
    const y = await this.b.eval(o, types, this.narrowed(pb, x, types));
    if (y === null) return null;
    void per;
    for (let i = 0; i < x.length; i++) x[i] = this.combine(x[i], y[i]);
    return x;
  }
}

class And extends Binary {
  // A non-bool LHS is the result; false stays false; true takes the RHS.
  protected combine(x: number, y: number): number {
    return x === T ? y : x;
  }
  protected partial(x: number, _y: number): number {
    return x === VARIES || x === T ? VARIES : x;
  }
  protected takesRight(x: number): boolean {
    return x === T;
  }
}

class Or extends Binary {
  // True stays true; false or missing take the RHS; other errors are the result.
  protected combine(x: number, y: number): number {
    return x === F || x === M ? y : x;
  }
  protected partial(x: number, _y: number): number {
    return x === VARIES || x === F || x === M ? VARIES : x;
  }
  protected takesRight(x: number): boolean {
    return x === F || x === M;
  }
}

class Not implements FilterNode {
  constructor(private a: FilterNode) {}
  perType(o: ColumnarObject): TypeOutcomes | null {
    const x = this.a.perType(o);
    if (x === null) return null;
    const out = new Int8Array(x.length);
    for (let k = 0; k < x.length; k++) out[k] = x[k] === VARIES ? VARIES : not(x[k]);
    return out;
  }
  async eval(o: ColumnarObject, types: TypeIndex, per: TypeOutcomes): Promise<Uint8Array | null> {
    const x = await this.a.eval(o, types, this.a.perType(o)!);
    if (x === null) return null;
    void per;
    for (let i = 0; i < x.length; i++) x[i] = not(x[i]);
    return x;
  }
}

function not(c: number): number {
  return c === T ? F : c === F ? T : c;
}

/** Per type index: the outcome for its rows when it lacks the path, -1 when a column holds it. */
function typeOutcomes(
  o: ColumnarObject,
  path: readonly string[],
  missing: () => number,
): Int8Array | null {
  const out = new Int8Array(o.types.length);
  for (let k = 0; k < o.types.length; k++) {
    const lp = lookupPath(o.types[k], path);
    if (lp.kind === "other") return null;
    if (lp.kind === "missing") {
      out[k] = missing();
      continue;
    }
    if (!o.columnsOf(path).some((c) => c.covers.includes(k) && c.type === lp.type)) return null;
    out[k] = VARIES;
  }
  return out;
}

/** An atom reading one field path. */
class PathAtom implements FilterNode {
  private missingCode = -1;
  /** Outcomes per distinct dictionary, so each entry is evaluated once per query. */
  private dictCodes = new WeakMap<readonly Body[], Uint8Array>();

  constructor(
    private path: string[],
    private expr: Expr,
    private cmp: Comparison | null,
    private strict: boolean,
  ) {}

  private missing = (): number => {
    if (this.missingCode < 0) this.missingCode = outcome(this.expr(EMPTY_RECORD), this.strict);
    return this.missingCode;
  };

  perType(o: ColumnarObject): TypeOutcomes | null {
    return typeOutcomes(o, this.path, this.missing);
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
    // Anything else: the expression per value (repeated values evaluated once).
    const memo = new Map<Body, number>();
    for (let i = 0; i < n; i++) {
      const s = state[i];
      if (s === NULL_ROW) {
        codes[i] = nullCode;
        continue;
      }
      if (s !== VALUE) continue;
      const b = v.body(i);
      const key = typeof b === "object" ? undefined : b;
      let c = key === undefined ? undefined : memo.get(key);
      if (c === undefined) {
        c = cmp !== null
          ? (cmp.pred(v.type, b) ? T : F)
          : outcome(this.expr(rec.of(b)), this.strict);
        if (key !== undefined && memo.size < 65536) memo.set(key, c);
      }
      codes[i] = c;
    }
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

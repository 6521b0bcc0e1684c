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
import { readsThisByDefault } from "../functions/thisdefault.ts";
import type { ExprCompiler } from "../compiler/expr.ts";
import { literalValue } from "../compiler/expr.ts";
import type { Scope } from "../compiler/scope.ts";
import { resolveType } from "../compiler/types.ts";
import { type CompareOp, constBodyPredicate } from "../expr/compare.ts";
import { globWalker, keywordWalker, literalWalker, regexpWalker } from "../expr/search.ts";
import {
  isNumber,
  Kind,
  TypeNet,
  TypeNull,
  TypeString,
  TypeType,
  typeUnder,
} from "../../zed/types.ts";
import { Value } from "../../zed/value.ts";
import type { ColumnarObject } from "./object.ts";
import { EMPTY_RECORD } from "./paths.ts";
import { readsThisType, ThisTypeAtom } from "./typeatom.ts";
import { compileSearchAtom, globBytes, keywordBytes } from "./search.ts";
import { And, ConstAtom, Not, Or } from "./logic.ts";
import { type Comparison, PathAtom } from "./pathatom.ts";
import { E, F, type FilterNode, outcome, T, VARIES } from "./codes.ts";

/** The rows of an object that pass a filter. */
export interface Selection {
  /** Per row, an outcome: T (1) where the row passes. */
  rows: Uint8Array;
  count: number;
  /** Every row passes. */
  all: boolean;
  /**
   * Where `where` filters folded after a lifted one narrowed the rows (see
   * VectorFilter.andThen): what the lifted filter alone passes, which
   * QueryStats count as matched.
   */
  lifted?: Selection;
}

/** How many rows pass and their size; matched: the same of the lifted filter alone (Selection.lifted). */
export interface CountResult {
  count: number;
  bytes: number;
  matched: { count: number; bytes: number };
}

export class VectorFilter {
  /**
   * lifted: the filter is lifted into its source (ops/where.ts scanKeeps),
   * where a row whose outcome is an error is dropped, as one that is false;
   * elsewhere (an aggregate's `where`) the row way decides such rows.
   */
  constructor(private root: FilterNode, private lifted: boolean) {}

  /**
   * For a lifted filter: the filters of the `where` operators right after
   * it (see andThen), which narrow its rows where they can.
   */
  private thens: VectorFilter[] = [];

  /**
   * This lifted filter with the `where` filters folded after it
   * (SourcePlan): select() passes the rows that pass them all, and gives
   * null (the rows decide) for an object where one of them would give an
   * error for a row this one passes, which its operator would emit. (Zui
   * adds a filter per click: `_path=="dns" | query=="x" | count()` counts
   * from the columns of both.)
   */
  andThen(thens: VectorFilter[]): VectorFilter {
    const f = new VectorFilter(this.root, this.lifted);
    f.thens = thens;
    return f;
  }

  /** The rows that pass, or null when the object must be filtered the row way. */
  async select(o: ColumnarObject): Promise<Selection | null> {
    const own = await this.selectOwn(o);
    if (own === null || this.thens.length === 0 || own.count === 0) return own;
    let sel = own;
    for (const f of this.thens) {
      const then = await f.selectOwn(o, sel.rows);
      if (then === null) return null;
      sel = then;
      if (sel.count === 0) break;
    }
    return { ...sel, lifted: own };
  }

  /**
   * The rows that pass this filter alone (of those within, when given: an
   * outcome only counts there), or null when the object must be filtered
   * the row way.
   */
  private async selectOwn(o: ColumnarObject, within?: Uint8Array): Promise<Selection | null> {
    const per = this.root.perType(o);
    if (per === null) return null;
    if (within === undefined && !per.includes(VARIES)) {
      // Each type's rows all have one outcome: no row need be looked at.
      const counts = o.typeCounts;
      let count = 0;
      for (let k = 0; k < per.length; k++) {
        if (counts[k] === 0) continue;
        if (per[k] === E && !this.lifted) return null; // the filter would emit an error value
        if (per[k] === T) count += counts[k];
      }
      const all = count === o.rows;
      if (all || count === 0) return { rows: new Uint8Array(o.rows).fill(all ? T : F), count, all };
    }
    const codes = await this.root.eval(o, await o.typeIndex(), per);
    if (codes === null) return null;
    // Rows that pass are T, the others F (not M, Q or E) in what select returns.
    let count = 0;
    for (let i = 0; i < codes.length; i++) {
      const c = codes[i];
      if (within !== undefined && within[i] !== T) codes[i] = F;
      else if (c === T) count++;
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
  async count(o: ColumnarObject): Promise<CountResult | null> {
    if (this.root instanceof PathAtom && this.thens.length === 0) {
      const r = await this.root.countByEntries(o, this.lifted);
      if (r !== undefined) return r === null ? null : { ...r, matched: r };
    }
    const sel = await this.select(o);
    if (sel === null) return null;
    const sizes = await o.sizes();
    const passed = { count: sel.count, bytes: bytesOf(sel.rows, sizes) };
    const lifted = sel.lifted;
    return {
      ...passed,
      matched: lifted === undefined
        ? passed
        : { count: lifted.count, bytes: bytesOf(lifted.rows, sizes) },
    };
  }
}

/** The total size of the rows that pass. */
function bytesOf(rows: Uint8Array, sizes: Uint32Array): number {
  let bytes = 0;
  for (let i = 0; i < rows.length; i++) if (rows[i] === T) bytes += sizes[i];
  return bytes;
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
          if (v.type === TypeString) {
            return compileSearchAtom(
              keywordWalker(v.body as string),
              keywordBytes(v.body as string),
            );
          }
          // Another literal (an address, a number) finds its text in strings
          // as a keyword does (a network's finds none: only addresses in it).
          const net = v.type === TypeNet && v.body !== null;
          // (int64, float64, time and duration literals compare with numbers by value.)
          const u = typeUnder(v.type);
          const equalTo = u.kind === Kind.Primitive && isNumber(u.id) && v.body !== null
            ? Number(v.body)
            : undefined;
          return compileSearchAtom(
            literalWalker(v, e.text),
            net ? null : keywordBytes(e.text),
            equalTo,
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
      case "Grep": {
        // grep(pattern) over this is the search term of that pattern.
        if (e.expr.kind !== "ID" || e.expr.name !== "this") break;
        const p = e.pattern;
        if (p.kind === "String") {
          return compileSearchAtom(keywordWalker(p.text), keywordBytes(p.text));
        }
        if (p.kind === "Glob") {
          return compileSearchAtom(globWalker(p.pattern), globBytes(p.pattern));
        }
        return compileSearchAtom(regexpWalker(p.pattern), null);
      }
    }
    if (readsThisType(e)) return new ThisTypeAtom(this.exprs.compile(e, this.scope), strict);
    const paths = new Set<string>();
    if (!this.paths(e, paths)) return null;
    const expr = this.exprs.compile(e, this.scope);
    if (paths.size === 0) return new ConstAtom(outcome(expr(EMPTY_RECORD), strict));
    if (paths.size > 1) return null;
    const path = JSON.parse([...paths][0]) as string[];
    return new PathAtom(path, expr, this.comparison(e, path), strict, this.typeOnly(e, path));
  }

  /**
   * Whether e's outcome for a value of path depends only on the value's type
   * (a column has one): `has(p)`, `missing(p)`, `is(p, <t>)`, `p==null`,
   * `p!=null`, `typeof(p)==<t>`, `typeof(p)!=<t>`.
   */
  private typeOnly(e: ast.Expr, path: string[]): boolean {
    const isPath = (x: ast.Expr) => {
      const p = this.exprs.path(x, this.scope);
      return p !== undefined && p.length === path.length && p.every((n, k) => n === path[k]);
    };
    const constant = (x: ast.Expr) => this.exprs.constValue(x, this.scope);
    if (e.kind === "Call") {
      if ((e.name === "has" || e.name === "missing") && e.args.length === 1) {
        return isPath(e.args[0]);
      }
      return e.name === "is" && e.args.length === 2 && isPath(e.args[0]) &&
        constant(e.args[1])?.type === TypeType;
    }
    if (e.kind !== "BinaryExpr" || (e.op !== "==" && e.op !== "!=")) return false;
    const rhs = constant(e.rhs);
    if (rhs === undefined) return false;
    if (isPath(e.lhs)) return typeUnder(rhs.type) === TypeNull;
    return e.lhs.kind === "Call" && e.lhs.name === "typeof" && e.lhs.args.length === 1 &&
      isPath(e.lhs.args[0]) && rhs.type === TypeType;
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
        if (readsThisByDefault(e.name, e.args.length)) return false;
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

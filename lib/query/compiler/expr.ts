// Compiles expression ASTs into closures (the reference's semantic pass and
// kernel for expressions, language.md §4): identifiers resolve to constants,
// type names, lateral variables or fields of `this`; comparisons and `in`
// specialise on constant operands; calls go to the function library or, for
// aggregate names, become running aggregates.

import { invalid, LochError } from "../../errors.ts";
import { isAggregateName, lookupAggregate } from "../aggregates/registry.ts";
import type * as ast from "../ast.ts";
import { compileField, compileFieldPath, compileIndex, compileSlice } from "../expr/access.ts";
import { type ArithOp, compileArith, compileNegate } from "../expr/arith.ts";
import { type CompareOp, compileCompare } from "../expr/compare.ts";
import { compileIn } from "../expr/contain.ts";
import { compileAnd, compileConditional, compileNot, compileOr } from "../expr/logic.ts";
import { compileRegexp } from "../expr/regexp.ts";
import {
  compileGlobSearch,
  compileGrep,
  compileKeywordSearch,
  compileLiteralSearch,
  compileRegexpSearch,
} from "../expr/search.ts";
import { compileCall } from "../functions/registry.ts";
import { makeRunningAggregate } from "../ops/summarize.ts";
import {
  compileArray,
  compileMap,
  compileRecord,
  compileSet,
  type RecordElem,
  type VectorElem,
} from "../runtime/containers.ts";
import { constant, type Expr } from "../runtime/expr.ts";
import { boolValue, isError, MISSING, NULL } from "../runtime/values.ts";
import { zctx } from "../../zed/context.ts";
import { parsePrimitive } from "../../zed/primitive.ts";
import { Kind, lookupPrimitive, TypeString, TypeType, typeUnder } from "../../zed/types.ts";
import { Value } from "../../zed/value.ts";
import type { Scope } from "./scope.ts";
import { resolveType } from "./types.ts";

/** Compiles a lateral subquery expression `(over ... | seq)`; supplied by the operator compiler. */
export type LateralCompiler = (node: ast.Expr & { kind: "OverExpr" }, scope: Scope) => Expr;

const COMPARATORS = new Set(["==", "!=", "<", "<=", ">", ">="]);
const ARITH = new Set(["+", "-", "*", "/", "%"]);
/** Functions whose result is boolean, so a call to them as an operator filters. */
export const BOOL_FUNCTIONS = new Set([
  "has",
  "has_error",
  "is_error",
  "is",
  "missing",
  "cidr_match",
]);

/** The value of a literal (`1`, `"s"`, `10.0.0.1`, ...). */
export function literalValue(node: ast.Primitive): Value {
  if (node.type === "null") return NULL;
  const t = lookupPrimitive(node.type);
  if (t === undefined) throw invalid(`no such type: ${node.type}`);
  return new Value(t, parsePrimitive(t.id, node.text));
}

export class ExprCompiler {
  constructor(private lateral?: LateralCompiler) {}

  compile(node: ast.Expr, scope: Scope): Expr {
    switch (node.kind) {
      case "Primitive":
        return constant(literalValue(node));
      case "ID":
        return this.id(node, scope);
      case "BinaryExpr":
        return this.binary(node, scope);
      case "UnaryExpr": {
        const e = this.compile(node.operand, scope);
        return node.op === "!" ? compileNot(e) : compileNegate(e);
      }
      case "Conditional":
        return compileConditional(
          this.compile(node.cond, scope),
          this.compile(node.then, scope),
          this.compile(node.else, scope),
        );
      case "Call":
        return this.call(node, scope);
      case "Agg":
        return this.runningAggregate(
          node.name,
          node.expr === null ? [] : [node.expr],
          node.where,
          scope,
        );
      case "Cast":
        return this.cast(node.expr, node.type, scope);
      case "TypeValue":
        return this.typeValue(node, scope);
      case "Term":
        return this.term(node, scope);
      case "Glob":
        return compileGlobSearch(node.pattern);
      case "Regexp":
        return compileRegexpSearch(node.pattern);
      case "Grep": {
        const target = this.compile(node.expr, scope);
        const p = node.pattern;
        const pattern = p.kind === "String"
          ? { kind: "string" as const, text: p.text }
          : { kind: p.kind === "Glob" ? "glob" as const : "regexp" as const, text: p.pattern };
        return compileGrep(pattern, target);
      }
      case "RecordExpr":
        return compileRecord(node.elems.map((e) => this.recordElem(e, scope)));
      case "ArrayExpr":
        return compileArray(node.elems.map((e) => this.vectorElem(e, scope)));
      case "SetExpr":
        return compileSet(node.elems.map((e) => this.vectorElem(e, scope)));
      case "MapExpr":
        return compileMap(node.entries.map((e) => ({
          key: this.compile(e.key, scope),
          value: this.compile(e.value, scope),
        })));
      case "OverExpr":
        if (this.lateral === undefined) throw invalid("lateral subqueries are not supported here");
        return this.lateral(node, scope);
    }
  }

  /**
   * The value of an expression if it is a compile-time constant: one that
   * names nothing of its input (no field, `this` or lateral variable),
   * evaluated (freshly compiled, with `this` missing) to something that is
   * not an error. (`typeof(a)` is not one, though it evaluates to a type.)
   */
  constValue(node: ast.Expr | null, scope: Scope): Value | undefined {
    if (node === null || readsInput(node, scope)) return undefined;
    try {
      const v = this.compile(node, scope)(MISSING);
      return isError(v) ? undefined : v;
    } catch {
      return undefined;
    }
  }

  /**
   * The field path an expression denotes (`a.b`, `this["x y"]`, `this` is
   * the empty path), or undefined when it is not a field reference.
   */
  path(node: ast.Expr, scope: Scope): string[] | undefined {
    if (node.kind === "ID") {
      if (node.name === "this") return scope.lookup("this") === undefined ? [] : undefined;
      return scope.lookup(node.name) === undefined ? [node.name] : undefined;
    }
    if (node.kind !== "BinaryExpr") return undefined;
    if (node.op === ".") {
      const lhs = this.path(node.lhs, scope);
      if (lhs === undefined) return undefined;
      if (node.rhs.kind !== "ID") throw invalid("RHS of dot operator is not an identifier");
      return [...lhs, node.rhs.name];
    }
    if (node.op === "[" && !isSlice(node.rhs)) {
      const lhs = this.path(node.lhs, scope);
      if (lhs === undefined) return undefined;
      const key = this.constValue(node.rhs, scope);
      if (key !== undefined && typeUnder(key.type) === TypeString && key.body !== null) {
        return [...lhs, key.body as string];
      }
    }
    return undefined;
  }

  private id(node: ast.ID, scope: Scope): Expr {
    const sym = scope.lookup(node.name);
    if (sym !== undefined) {
      if (sym.kind === "var") {
        const { frame, slot } = sym;
        return () => frame.values[slot] ?? MISSING;
      }
      return constant(sym.value);
    }
    return compileFieldPath(node.name === "this" ? [] : [node.name]);
  }

  private binary(node: ast.BinaryExpr, scope: Scope): Expr {
    const op = node.op;
    if (op === "~") {
      if (node.rhs.kind !== "Regexp") {
        throw invalid("right-hand side of ~ expression must be a regular expression");
      }
      const re = compileRegexp(node.rhs.pattern);
      const lhs = this.compile(node.lhs, scope);
      return (v) => {
        // A null string is matched as the empty string, as the reference does.
        const s = lhs(v);
        return boolValue(typeUnder(s.type) === TypeString && re.test((s.body ?? "") as string));
      };
    }
    if (op === ".") {
      const path = this.path(node, scope);
      if (path !== undefined) return compileFieldPath(path);
      if (node.rhs.kind !== "ID") throw invalid("RHS of dot operator is not an identifier");
      return compileField(this.compile(node.lhs, scope), node.rhs.name);
    }
    if (isSlice(node.rhs)) {
      if (op !== "[") throw invalid("slice outside of index operator");
      const slice = node.rhs as ast.BinaryExpr;
      const from = slice.lhs === null ? undefined : this.compile(slice.lhs, scope);
      const to = slice.rhs === null ? undefined : this.compile(slice.rhs, scope);
      return compileSlice(this.compile(node.lhs, scope), from, to);
    }
    if (op === ":") throw invalid("slice outside of index operator");
    if (op === "[") {
      const path = this.path(node, scope);
      if (path !== undefined) return compileFieldPath(path);
      return compileIndex(this.compile(node.lhs, scope), this.compile(node.rhs, scope));
    }
    if (op === "in") {
      const elemConst = this.constValue(node.lhs, scope);
      return compileIn(this.compile(node.lhs, scope), this.compile(node.rhs, scope), elemConst);
    }
    if (COMPARATORS.has(op)) {
      const rhsConst = this.constValue(node.rhs, scope);
      return compileCompare(
        op as CompareOp,
        this.compile(node.lhs, scope),
        this.compile(node.rhs, scope),
        rhsConst,
      );
    }
    const lhs = this.compile(node.lhs, scope);
    const rhs = this.compile(node.rhs, scope);
    if (op === "and") return compileAnd(lhs, rhs);
    if (op === "or") return compileOr(lhs, rhs);
    if (ARITH.has(op)) return compileArith(op as ArithOp, lhs, rhs);
    throw invalid(`invalid binary operator ${op}`);
  }

  private call(node: ast.Call, scope: Scope): Expr {
    const name = node.name;
    if (isAggregateName(name) && !((name === "min" || name === "max") && node.args.length > 1)) {
      return this.runningAggregate(name, node.args, node.where, scope);
    }
    if (node.where !== null) {
      throw invalid(`'where' clause on non-aggregation function: ${name}`);
    }
    const args = node.args.map((a) => this.compile(a, scope));
    const consts = node.args.map((a) => this.constValue(a, scope));
    return compileCall(name, args, consts);
  }

  private runningAggregate(
    name: string,
    args: ast.Expr[],
    where: ast.Expr | null,
    scope: Scope,
  ): Expr {
    const def = lookupAggregate(name);
    if (def === undefined) throw invalid(`unknown aggregation function: ${name}`);
    if (args.length > 1) throw invalid(`${name}: wrong number of arguments`);
    if (args.length < def.min) throw invalid(`${name}: argument required`);
    const arg = args.length === 0 ? undefined : this.compile(args[0], scope);
    const w = where === null ? undefined : this.compile(where, scope);
    return makeRunningAggregate(def, arg, w);
  }

  /** `T(e)`, `<T>(e)`: a call to cast with the type value. */
  private cast(e: ast.Expr, type: ast.TypeValue, scope: Scope): Expr {
    const arg = this.compile(e, scope);
    const typeExpr = this.typeValue(type, scope);
    return compileCall("cast", [arg, typeExpr], [undefined, this.constValue(type, scope)]);
  }

  private typeValue(node: ast.TypeValue, scope: Scope): Expr {
    try {
      return constant(new Value(TypeType, resolveType(node.value, scope)));
    } catch (e) {
      // An undeclared top-level name is looked up among the named types
      // seen so far in the data, at run time.
      if (node.value.kind === "TypeName" && e instanceof LochError) {
        const name = node.value.name;
        return () => {
          const t = zctx.latestNamed(name);
          return t === undefined ? MISSING : new Value(TypeType, t);
        };
      }
      throw e;
    }
  }

  private term(node: ast.Expr & { kind: "Term" }, scope: Scope): Expr {
    const v = node.value;
    if (v.kind === "Primitive") {
      const val = literalValue(v);
      if (val.type === TypeString) return compileKeywordSearch(val.body as string);
      return compileLiteralSearch(val, node.text);
    }
    if (v.kind === "TypeValue") {
      return compileLiteralSearch(new Value(TypeType, resolveType(v.value, scope)), node.text);
    }
    throw invalid("unexpected term value: Term");
  }

  private recordElem(e: ast.RecordElem, scope: Scope): RecordElem {
    switch (e.kind) {
      case "Field":
        return { kind: "field", name: e.name, expr: this.compile(e.value, scope) };
      case "ID":
        return { kind: "field", name: e.name, expr: this.id(e, scope) };
      case "Spread":
        return { kind: "spread", expr: this.compile(e.expr, scope) };
    }
  }

  private vectorElem(e: ast.VectorElem, scope: Scope): VectorElem {
    return { spread: e.kind === "Spread", expr: this.compile(e.expr, scope) };
  }

  /** Go's isBool over the analyzed expression: whether an implied operator filters. */
  isBool(node: ast.Expr, scope: Scope): boolean {
    switch (node.kind) {
      case "Primitive":
        return node.type === "bool";
      case "ID": {
        const sym = scope.lookup(node.name);
        return sym?.kind === "const" && typeUnder(sym.value.type).kind === Kind.Primitive &&
          typeof sym.value.body === "boolean";
      }
      case "UnaryExpr":
        return this.isBool(node.operand, scope);
      case "BinaryExpr":
        return ["and", "or", "in", "==", "!=", "<", "<=", ">", ">=", "~"].includes(node.op);
      case "Conditional":
        return this.isBool(node.then, scope) && this.isBool(node.else, scope);
      case "Call":
        return !isAggregateName(node.name) && BOOL_FUNCTIONS.has(node.name);
      case "Term":
      case "Glob":
      case "Regexp":
      case "Grep":
        return true;
    }
    return false;
  }
}

function isSlice(e: ast.Expr | null): boolean {
  return e !== null && e.kind === "BinaryExpr" && e.op === ":";
}

/**
 * Whether an expression may read its input: it names an identifier that is
 * not a `const` or `type` of the scope (a field, `this`, a lateral variable),
 * or holds a subquery. Anything unknown counts as reading.
 */
function readsInput(node: unknown, scope: Scope): boolean {
  if (node === null || typeof node !== "object") return false;
  if (Array.isArray(node)) return node.some((n) => readsInput(n, scope));
  const n = node as { kind?: unknown; name?: unknown };
  if (n.kind === "ID") {
    const sym = typeof n.name === "string" ? scope.lookup(n.name) : undefined;
    return sym === undefined || sym.kind === "var";
  }
  if (n.kind === "OverExpr" || n.kind === "Over" || n.kind === "Sequential") return true;
  for (const v of Object.values(node)) {
    if (v !== null && typeof v === "object" && readsInput(v, scope)) return true;
  }
  return false;
}

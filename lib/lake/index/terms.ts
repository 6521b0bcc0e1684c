// What a filter says about single fields that an index can answer:
// `field == literal` (either way round) and `field in [literals]`, combined
// with `and` and `or`. Each term carries the literal values (for hashed
// lookups among index keys of the same type) and a test that runs the term
// exactly as the filter would on a value of the field, so an index never
// skips a value the filter would have passed.
//
// As with the key ranges of prune.ts, `and` needs only one side to say
// something and `or` needs both; an error value produced by the part of an
// `and` an index cannot see is not accounted for.

import {
  type ast,
  type Expr,
  ExprCompiler,
  fieldPathOf,
  isError,
  isMissing,
  isQuiet,
  literalValue,
  MISSING,
  Scope,
  walkValue,
} from "../../query/mod.ts";
import { zctx } from "../../zed/context.ts";
import { Field, type Type, TypeBool } from "../../zed/types.ts";
import { type Body, Value } from "../../zed/value.ts";

/** A test of one field: whether the filter term may pass a value of that field. */
export interface FieldTerm {
  kind: "field";
  path: string[];
  /** The values the field is compared with for equality. */
  values: Value[];
  /** True unless the term is false (or missing) for a field with this value. */
  test(t: Type, body: Body): boolean;
}

export type IndexTerms = FieldTerm | { kind: "and" | "or"; lhs: IndexTerms; rhs: IndexTerms };

/** The terms of a filter an index may answer, or null when there are none. */
export function indexTerms(e: ast.Expr): IndexTerms | null {
  if (e.kind !== "BinaryExpr") return null;
  switch (e.op) {
    case "and": {
      const a = indexTerms(e.lhs), b = indexTerms(e.rhs);
      if (a === null || b === null) return a ?? b;
      return { kind: "and", lhs: a, rhs: b };
    }
    case "or": {
      const a = indexTerms(e.lhs), b = indexTerms(e.rhs);
      return a === null || b === null ? null : { kind: "or", lhs: a, rhs: b };
    }
    case "==":
      return equality(e, e.lhs, e.rhs) ?? equality(e, e.rhs, e.lhs);
    case "in":
      return membership(e);
  }
  return null;
}

/** The fields an index must cover for the terms to say anything. */
export function termPaths(t: IndexTerms): string[][] {
  return t.kind === "field" ? [t.path] : [...termPaths(t.lhs), ...termPaths(t.rhs)];
}

function equality(e: ast.BinaryExpr, field: ast.Expr, lit: ast.Expr): FieldTerm | null {
  const path = fieldPathOf(field);
  if (path === null || path.length === 0) return null;
  if (lit.kind !== "Primitive" || lit.type === "null") return null;
  let value: Value;
  try {
    value = literalValue(lit);
  } catch {
    return null;
  }
  return fieldTerm(e, path, [value]);
}

function membership(e: ast.BinaryExpr): FieldTerm | null {
  const path = fieldPathOf(e.lhs);
  if (path === null || path.length === 0) return null;
  const c = e.rhs;
  if (c.kind !== "ArrayExpr" && c.kind !== "SetExpr") return null;
  if (!c.elems.every((el) => el.kind === "VectorValue" && el.expr.kind === "Primitive")) {
    return null;
  }
  let container: Value;
  try {
    container = new ExprCompiler().compile(c, new Scope())(MISSING);
  } catch {
    return null;
  }
  if (isError(container)) return null;
  // `x in c` compares x with c itself and with everything inside it.
  const values: Value[] = [];
  walkValue(container.type, container.body, (t, body) => {
    values.push(new Value(t, body));
    return false;
  });
  return fieldTerm(e, path, values);
}

function fieldTerm(e: ast.Expr, path: string[], values: Value[]): FieldTerm | null {
  let pred: Expr;
  try {
    pred = new ExprCompiler().compile(e, new Scope());
  } catch {
    return null;
  }
  const wrap = recordWrapper(path);
  return {
    kind: "field",
    path,
    values,
    test(t, body) {
      const r = pred(wrap(t, body));
      if (r.type === TypeBool) return r.body === true;
      // An error is passed on by a filter, unless it is missing or quiet.
      return isError(r) && !isMissing(r) && !isQuiet(r);
    },
  };
}

/** Makes a record that holds one value at path (record types cached per value type). */
function recordWrapper(path: string[]): (t: Type, body: Body) => Value {
  const types = new Map<Type, Type>();
  return (t, body) => {
    let rt = types.get(t);
    if (rt === undefined) {
      rt = t;
      for (let i = path.length - 1; i >= 0; i--) rt = zctx.lookupRecord([new Field(path[i], rt)]);
      types.set(t, rt);
    }
    let b: Body = body;
    for (let i = 0; i < path.length; i++) b = [b];
    return new Value(rt, b);
  };
}

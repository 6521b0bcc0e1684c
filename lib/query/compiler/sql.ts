// SQL SELECT (language.md §3.23) rewritten into Zed operators, as the
// reference does: FROM <type> filters on the type (`is(<type>)`), an alias
// wraps each value as a record, JOINs become sorted parallel legs joined on
// the keys, GROUP BY a summarize, ORDER BY a sort, LIMIT a head.

import { invalid, LochError, messageOf } from "../../errors.ts";
import { isAggregateName } from "../aggregates/registry.ts";
import type * as ast from "../ast.ts";
import type { Scope } from "./scope.ts";

const THIS: ast.Expr = { kind: "ID", name: "this" };

/** Services of the operator compiler the rewrite needs. */
export interface SQLContext {
  /** The output path of an assignment (name inference), or an error. */
  assignmentPath(a: ast.Assignment, scope: Scope): string[];
  /** The field path an expression denotes, if it is one. */
  path(e: ast.Expr, scope: Scope): string[] | undefined;
}

interface Pick {
  name: string[];
  isAgg: boolean;
  assignment: ast.Assignment;
}

function sameName(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((s, i) => s === b[i]);
}

export function rewriteSQL(sql: ast.SQLExpr, scope: Scope, cx: SQLContext): ast.Op {
  const selection = (sql.select ?? []).map((a): Pick => {
    let name: string[];
    try {
      name = cx.assignmentPath(a, scope);
    } catch (e) {
      if (e instanceof LochError) throw invalid(`AS clause of SELECT: ${messageOf(e)}`);
      throw e;
    }
    if (a.rhs.kind === "Call" && isAggregateName(a.rhs.name) && a.rhs.args.length > 1) {
      throw invalid(`${a.rhs.name}: wrong number of arguments`);
    }
    const isAgg = a.rhs.kind === "Call" && isAggregateName(a.rhs.name);
    return { name, isAgg, assignment: a };
  });
  let ops: ast.Op[] = [];
  if (sql.from !== null) {
    ops.push(tableFilter(sql.from.table));
    if (sql.from.alias !== null) {
      const aliasID = sql.from.alias.kind === "ID" ? sql.from.alias.name : "";
      if (aliasID !== "" && sql.where !== null) {
        const lifted = liftWhere(aliasID, sql.where, sql.joins ?? []);
        if (lifted !== undefined) ops.push({ kind: "Where", expr: lifted });
      }
      ops.push(aliasCut(sql.from.alias, scope, cx, "illegal SQL alias: "));
    }
  }
  if (sql.joins !== null) {
    if (ops.length === 0) throw invalid("cannot JOIN without a FROM");
    for (const j of sql.joins) ops = join(ops, j, scope, cx);
  }
  if (sql.where !== null) ops.push({ kind: "Where", expr: sql.where });
  if (sql.group_by !== null) {
    ops.push(groupBy(sql.group_by, selection, scope, cx));
    if (sql.having !== null) ops.push({ kind: "Where", expr: sql.having });
  } else if (sql.select !== null) {
    if (sql.having !== null) throw invalid("HAVING clause used without GROUP BY");
    const nagg = selection.filter((p) => p.isAgg).length;
    if (nagg === 0) {
      if (selection.length > 0) ops.push({ kind: "Cut", args: selection.map((p) => p.assignment) });
    } else if (nagg !== selection.length) {
      throw invalid("cannot mix aggregations and non-aggregations without a GROUP BY");
    } else {
      ops.push({ kind: "Summarize", keys: null, aggs: selection.map(aggAssignment), limit: 0 });
    }
  }
  if (sql.order_by !== null) {
    ops.push({
      kind: "Sort",
      args: sql.order_by.keys,
      order: sql.order_by.order,
      nullsfirst: false,
    });
  }
  if (sql.limit !== 0) ops.push({ kind: "Head", count: sql.limit });
  if (ops.length === 0) ops.push({ kind: "Pass" });
  return { kind: "Sequential", ops, consts: [] };
}

/** The aggregate assignment of a selected aggregate call, keeping its name. */
function aggAssignment(p: Pick): ast.Assignment {
  return {
    kind: "Assignment",
    lhs: pathExpr(p.name),
    rhs: p.assignment.rhs,
  };
}

function pathExpr(path: string[]): ast.Expr {
  let e: ast.Expr = { kind: "ID", name: path[0] };
  for (const name of path.slice(1)) {
    e = { kind: "BinaryExpr", op: ".", lhs: e, rhs: { kind: "ID", name } };
  }
  return e;
}

/** `FROM t`: values of type t (a bare name is a type name, resolved from the data if undeclared). */
function tableFilter(table: ast.Expr): ast.Op {
  const arg: ast.Expr = table.kind === "ID"
    ? { kind: "TypeValue", value: { kind: "TypeName", name: table.name } }
    : table;
  return { kind: "Where", expr: { kind: "Call", name: "is", args: [arg], where: null } };
}

/** `AS alias`: cut alias:=this. */
function aliasCut(alias: ast.Expr, scope: Scope, cx: SQLContext, prefix: string): ast.Op {
  const path = cx.path(alias, scope);
  if (path === undefined) throw invalid(`${prefix}invalid expression used as a field`);
  if (path.length === 0) throw invalid(`${prefix}cannot use 'this' as a field reference`);
  return { kind: "Cut", args: [{ kind: "Assignment", lhs: alias, rhs: THIS }] };
}

function sortBy(key: ast.Expr): ast.Op {
  return { kind: "Sort", args: [key], order: "asc", nullsfirst: false };
}

function join(left: ast.Op[], j: ast.SQLJoin, scope: Scope, cx: SQLContext): ast.Op[] {
  if (j.alias === null) {
    throw invalid("JOIN currently requires alias, e.g., JOIN <type> <alias> (will be fixed soon)");
  }
  if (j.alias.kind !== "ID") throw invalid("JOIN alias must be a name");
  const aliasID = j.alias.name;
  const leftPath: ast.Sequential = {
    kind: "Sequential",
    ops: [...left, sortBy(j.left_key)],
    consts: [],
  };
  const rightPath: ast.Sequential = {
    kind: "Sequential",
    ops: [tableFilter(j.table), aliasCut(j.alias, scope, cx, ""), sortBy(j.right_key)],
    consts: [],
  };
  const aliasField: ast.Expr = { kind: "ID", name: aliasID };
  return [
    { kind: "Parallel", ops: [leftPath, rightPath] },
    {
      kind: "Join",
      style: j.style as ast.Join["style"],
      left_key: j.left_key,
      right_key: j.right_key,
      args: [{ kind: "Assignment", lhs: aliasField, rhs: aliasField }],
    },
  ];
}

function groupBy(keys: ast.Expr[], selection: Pick[], scope: Scope, cx: SQLContext): ast.Op {
  const names = keys.map((k) => {
    const p = cx.path(k, scope);
    if (p === undefined || p.length === 0) {
      throw invalid("bad GROUP BY key: expression is not a field reference");
    }
    return p;
  });
  const all = selection.map((p) => p.name);
  for (const key of names) {
    if (!all.some((f) => sameName(f, key))) {
      const prefixed = all.some((f) =>
        f.length < key.length && sameName(f, key.slice(0, f.length))
      );
      if (prefixed) {
        throw invalid(
          `'${key.join(".")}': GROUP BY key cannot be a sub-field of the selected value`,
        );
      }
      throw invalid(`'${key.join(".")}': GROUP BY key not in selection`);
    }
  }
  const scalars = selection.filter((p) => !p.isAgg);
  for (const s of scalars) {
    if (!names.some((k) => sameName(k, s.name))) {
      throw invalid(
        `'${
          s.name.join(".")
        }': selected expression is missing from GROUP BY clause (and is not an aggregation)`,
      );
    }
  }
  return {
    kind: "Summarize",
    keys: scalars.map((p) => p.assignment),
    aggs: selection.filter((p) => p.isAgg).map(aggAssignment),
    limit: 0,
  };
}

/**
 * The part of a WHERE predicate the reference lifts in front of the FROM
 * alias: in practice only literal-only terms of an AND.
 */
function liftWhere(aliasID: string, where: ast.Expr, joins: ast.SQLJoin[]): ast.Expr | undefined {
  if (joins.some((j) => j.alias === null || j.alias.kind !== "ID")) return undefined;
  return eligible(aliasID, where);
}

function eligible(_aliasID: string, e: ast.Expr): ast.Expr | undefined {
  switch (e.kind) {
    case "UnaryExpr": {
      const operand = eligible(_aliasID, e.operand);
      return operand === undefined ? undefined : { kind: "UnaryExpr", op: "!", operand };
    }
    case "Primitive":
    case "TypeValue":
      return e;
    case "BinaryExpr": {
      // Field references are never eligible: the reference looks for a form
      // (`alias.x` as a dot expression) its semantic pass never produces.
      if (e.op === "." || e.op === "[") return undefined;
      const lhs = eligible(_aliasID, e.lhs), rhs = eligible(_aliasID, e.rhs);
      if (e.op === "and") {
        if (lhs === undefined) return rhs;
        if (rhs === undefined) return lhs;
      }
      if (lhs === undefined || rhs === undefined) return undefined;
      return { kind: "BinaryExpr", op: e.op, lhs, rhs };
    }
  }
  return undefined;
}

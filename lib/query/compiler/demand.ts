// Which top-level fields of its input a pipeline can look at, so a source may
// decode only those (the others read as null). Worked backwards from the
// output, which needs whole values: an operator that builds new values from
// a few fields (summarize, cut, yield) needs only those; one that passes its
// input on (where, head, sort by keys, put, rename, drop) adds its own fields
// to what follows needs. Anything that may see a whole value (`this`, search terms, an
// operator not understood here) needs every field.

import "../aggregates/mod.ts";
import { lookupAggregate } from "../aggregates/registry.ts";
import type * as ast from "../ast.ts";
import { readsThisByDefault } from "../functions/thisdefault.ts";

/** Field names, or null for all of them. */
export type Demand = Set<string> | null;

/** The top-level fields the operators (and a filter lifted before them) use. */
export function fieldDemand(ops: ast.Op[], filter: ast.Expr | null): string[] | null {
  let need = seqDemand(ops, null);
  if (filter !== null) need = union(need, exprFields(filter));
  return need === null ? null : [...need];
}

/** What a sequence of operators needs, given what its output must carry. */
function seqDemand(ops: ast.Op[], after: Demand): Demand {
  let need = after;
  for (let i = ops.length - 1; i >= 0; i--) need = opDemand(ops[i], need);
  return need;
}

function isAggregate(e: ast.Expr): boolean {
  return e.kind === "Agg" || (e.kind === "Call" && lookupAggregate(e.name) !== undefined);
}

function union(a: Demand, b: Demand): Demand {
  if (a === null || b === null) return null;
  const s = new Set(a);
  for (const x of b) s.add(x);
  return s;
}

/** What an operator needs of its input, given what its output must carry. */
function opDemand(op: ast.Op, after: Demand): Demand {
  switch (op.kind) {
    case "Summarize":
      return exprsDemand([...(op.keys ?? []), ...(op.aggs ?? [])].map((a) => a.rhs));
    case "Cut":
      return exprsDemand(op.args.map((a) => a.rhs));
    case "Yield":
      return exprsDemand(op.exprs);
    case "Where":
    case "Search":
      return union(after, exprFields(op.expr));
    case "Head":
    case "Tail":
    case "Pass":
      return after;
    case "Sort":
    case "Top":
      // Without keys the key is guessed from whole values.
      if (op.args === null || op.args.length === 0) return null;
      return union(after, exprsDemand(op.args));
    case "OpExpr": {
      const e = op.expr;
      // An aggregate call is an implied summarize; anything else may be a
      // filter passing values on (or a yield, for which this is a superset).
      const scalarMinMax = e.kind === "Call" && (e.name === "min" || e.name === "max") &&
        e.args.length > 1;
      if (e.kind === "Call" && !scalarMinMax && lookupAggregate(e.name) !== undefined) {
        return exprFields(e);
      }
      return union(after, exprFields(e));
    }
    case "OpAssignment":
      // All aggregates: an implied summarize; otherwise a put.
      if (op.assignments.every((a) => isAggregate(a.rhs))) {
        return exprsDemand(op.assignments.map((a) => a.rhs));
      }
      return assignedDemand(op.assignments, after);
    case "Put":
    case "Rename":
      return assignedDemand(op.args, after);
    case "Drop":
      return union(after, exprsDemand(op.args));
    case "Over":
      // New values (the elements) replace the input, and a lateral scope sees
      // only those: what follows needs nothing of the input.
      return overDemand(op, new Set());
    case "Let":
      return overDemand(op.over, exprsDemand(op.locals.map((l) => l.expr)));
    case "Explode":
      return exprsDemand(op.args);
    case "Sequential":
      return seqDemand(op.ops, after);
    case "Parallel":
      // Each branch gets every value; their outputs go on to what follows.
      return op.ops.reduce<Demand>((n, s) => union(n, seqDemand(s.ops, after)), new Set());
    case "Switch": {
      let need = op.expr === null ? new Set<string>() : exprFields(op.expr);
      for (const c of op.cases) {
        need = union(union(need, exprFields(c.expr)), seqDemand(c.op.ops, after));
      }
      return need;
    }
  }
  return null;
}

/** The top-level fields the expressions read (none for null); null when one may read a whole value. */
export function exprsDemand(exprs: (ast.Expr | null)[]): Demand {
  return exprs.reduce<Demand>((n, e) => union(n, exprFields(e)), new Set());
}

/** What over needs: its expressions' fields, with need (a let's locals'). */
function overDemand(op: ast.Over, need: Demand): Demand {
  return union(need, exprsDemand(op.exprs));
}

/**
 * What put or rename needs: what follows needs, with the fields both sides
 * of each assignment read. An assigned field is kept too: a clause whose
 * result is error("quiet") leaves the input's field as it was.
 */
function assignedDemand(args: ast.Assignment[], after: Demand): Demand {
  let need = after;
  for (const a of args) need = union(union(need, exprFields(a.lhs)), exprFields(a.rhs));
  return need;
}

/** The top-level fields an expression reads; null when it may read a whole value. */
export function exprFields(e: ast.AnyNode | null): Demand {
  const out = new Set<string>();
  return collect(e, out) ? out : null;
}

/** Adds e's fields to out; false when e reads whole values. */
function collect(e: ast.AnyNode | null, out: Set<string>): boolean {
  if (e === null || typeof e !== "object") return true;
  switch (e.kind) {
    case "ID":
      if (e.name === "this") return false;
      out.add(e.name);
      return true;
    case "BinaryExpr":
      if (e.op === ".") {
        const root = rootName(e);
        if (root === undefined) return false;
        if (root === null) return collect(e.lhs, out);
        out.add(root);
        return true;
      }
      if (e.op === "[") {
        // this["a"] reads field a; any other index of this reads a whole value.
        if (e.lhs.kind === "ID" && e.lhs.name === "this") {
          if (e.rhs.kind === "Primitive" && e.rhs.type === "string") {
            out.add(e.rhs.text);
            return true;
          }
          return false;
        }
      }
      break;
    case "Term":
    case "Glob":
    case "Regexp":
    case "Grep":
    case "OverExpr":
      return false;
    case "Call":
      // grep(pattern) searches `this`; is(<t>) and shape(<t>) test or shape it.
      if (e.name === "grep" && e.args.length < 2) return false;
      if (readsThisByDefault(e.name, e.args.length)) return false;
      // every(d) buckets this.ts.
      if (e.name === "every") out.add("ts");
      break;
    case "RecordExpr":
      for (const el of e.elems) {
        if (el.kind === "Spread" && !collect(el.expr, out)) return false;
        if (el.kind === "ID") out.add(el.name);
        if (el.kind === "Field" && !collect(el.value, out)) return false;
      }
      return true;
  }
  for (const k in e) {
    if (k === "kind") continue;
    const v = e[k];
    if (Array.isArray(v)) {
      for (const x of v) if (x !== null && typeof x === "object" && !collect(x, out)) return false;
    } else if (v !== null && typeof v === "object" && "kind" in v) {
      if (!collect(v, out)) return false;
    }
  }
  return true;
}

/** The first name of a dotted path (`a.b.c` → a); null for paths on non-fields; undefined for `this`. */
function rootName(e: ast.AnyNode): string | null | undefined {
  if (e.kind === "ID") return e.name === "this" ? undefined : e.name;
  if (e.kind === "BinaryExpr" && e.op === ".") {
    const r = rootName(e.lhs);
    if (r === undefined && e.lhs.kind === "ID" && e.rhs.kind === "ID") return e.rhs.name; // this.a
    return r;
  }
  return null;
}

/** The field path an expression names (`a`, `a.b`, `this.a`; `this` is []), else null. */
export function fieldPathOf(e: ast.Expr): string[] | null {
  if (e.kind === "ID") return e.name === "this" ? [] : [e.name];
  if (e.kind === "BinaryExpr" && e.op === "." && e.rhs.kind === "ID") {
    const p = fieldPathOf(e.lhs);
    return p === null ? null : [...p, e.rhs.name];
  }
  // this["id.orig_p"], a["b"]: a field by its name.
  if (
    e.kind === "BinaryExpr" && e.op === "[" && e.rhs.kind === "Primitive" && e.rhs.type === "string"
  ) {
    const p = fieldPathOf(e.lhs);
    return p === null ? null : [...p, e.rhs.text];
  }
  return null;
}

// Compiles operator ASTs into operator factories (the reference's semantic
// pass and kernel for operators, language.md §2–§3, §8): implied operators
// are resolved, names inferred for assignments, declarations bound, and the
// flow graph built from sequences, forks and switches.

import { invalid, LochError, messageOf } from "../../errors.ts";
import { lookupAggregate } from "../aggregates/registry.ts";
import type * as ast from "../ast.ts";
import { Cut } from "../ops/cut.ts";
import { Drop } from "../ops/drop.ts";
import { Fuse } from "../ops/fuse.ts";
import { leadingValues } from "../planner/pages.ts";
import { SORT_HEAD_MAX, SortHead } from "../ops/sorthead.ts";
import { Head } from "../ops/head.ts";
import type { Assignment } from "../ops/paths.ts";
import { checkPutPaths, Put } from "../ops/put.ts";
import { checkRenamePaths, Rename, type RenamePair } from "../ops/rename.ts";
import { Sort } from "../ops/sort.ts";
import { Summarize, type SummarizeAggregate, type SummarizeKey } from "../ops/summarize.ts";
import { Tail } from "../ops/tail.ts";
import { Uniq } from "../ops/uniq.ts";
import { Explode } from "../ops/explode.ts";
import { Join, type JoinStyle } from "../ops/join.ts";
import { Merge } from "../ops/merge.ts";
import { compileLateral, type Locals, Over } from "../ops/over.ts";
import { Top } from "../ops/top.ts";
import { Shape } from "../ops/shape.ts";
import { Filter } from "../ops/where.ts";
import { Yield } from "../ops/yield.ts";
import type { Expr } from "../runtime/expr.ts";
import { BoolSwitch, Fork, ValueSwitch } from "../runtime/flow.ts";
import { fanIn } from "../runtime/channels.ts";
import { type Op, type OpFactory, Pass } from "../runtime/op.ts";
import { isError, isMissing, MISSING } from "../runtime/values.ts";
import { TypeType } from "../../zed/types.ts";
import { Value } from "../../zed/value.ts";
import { ExprCompiler, literalValue } from "./expr.ts";
import { Frame, type Scope } from "./scope.ts";
import { rewriteSQL } from "./sql.ts";
import type { CompiledQuery } from "./compile.ts";
import { asFrom, compileFrom, compileFromOp, outputs } from "./from.ts";
import { SourcePorts } from "./ports.ts";
import { resolveType } from "./types.ts";

const AGG_CALL_BOOL = new Set(["has", "has_error", "is_error", "is", "missing", "cidr_match"]);

export class OpCompiler {
  readonly exprs: ExprCompiler;
  /** Sources of `from` operators that do not head the program. */
  readonly ports = new SourcePorts();
  /** How many lateral scopes enclose what is being compiled. */
  lateralDepth = 0;

  constructor() {
    this.exprs = new ExprCompiler((node, scope) => this.lateral(node, scope));
  }

  /**
   * The whole program. The caller's inputs feed one port, two when it starts
   * with `join` (zq feeds the two inputs to the join's legs), none when it
   * starts with `from`; each source (of a leading `from` or not) has a port
   * after those.
   */
  program(seq: ast.Sequential, outer: Scope): CompiledQuery {
    const scope = outer.enter();
    for (const decl of seq.consts) this.declare(decl, scope);
    const q = this.programOps(seq.ops, scope);
    const ports = this.ports;
    if (ports.plans.length === 0) return q;
    return {
      inputs: q.inputs,
      sources: [...(q.sources ?? []), ...ports.plans],
      make: (next) => ports.build(() => q.make(next)),
    };
  }

  private programOps(ops: ast.Op[], scope: Scope): CompiledQuery {
    const [first, ...rest] = ops;
    const from = asFrom(first);
    if (from !== undefined) return compileFrom(this, from, rest, scope);
    if (first.kind === "Parallel" && first.ops.every((leg) => leg.ops[0]?.kind === "From")) {
      // Legs that each start with `from`: no input of the caller's.
      const chain = this.chain(ops, scope, true);
      return {
        inputs: 0,
        sources: null,
        make: (next) => {
          chain(next);
          return [];
        },
      };
    }
    if (first.kind === "Join") {
      const join = this.joinOp(first, scope);
      const after = this.chain(rest, scope);
      return { inputs: 2, sources: null, make: (next) => join(after(next)).ports };
    }
    // A leading filter is lifted into the inputs, as into a `from`'s source.
    const lifted = this.filterExpr(first, scope);
    if (lifted !== null) {
      const pred = this.exprs.compile(lifted, scope);
      const after = this.chain(rest, scope);
      return { inputs: 1, sources: null, make: (next) => [new Filter(after(next), pred, true)] };
    }
    const make = this.chain(ops, scope);
    return { inputs: 1, sources: null, make: (next) => [make(next)] };
  }

  /** The predicate of an operator that is a filter (where, search, a boolean expression), else null. */
  filterExpr(op: ast.Op, scope: Scope): ast.Expr | null {
    if (op.kind === "Where" || op.kind === "Search") return op.expr;
    if (op.kind === "OpExpr" && this.isFilterExpr(op.expr, scope)) return op.expr;
    return null;
  }

  /** Whether an implied operator's expression is a filter (boolean) rather than a yield. */
  isFilterExpr(e: ast.Expr, scope: Scope): boolean {
    if (e.kind === "Call") {
      const agg = lookupAggregate(e.name);
      const isScalarMinMax = (e.name === "min" || e.name === "max") && e.args.length > 1;
      if (agg !== undefined && !isScalarMinMax) return false;
      if (AGG_CALL_BOOL.has(e.name)) return true;
    }
    return this.exprs.isBool(e, scope);
  }

  /**
   * A sequence: declarations, then operators piped in order. Headless: it
   * starts with a `from` that has no upstream.
   */
  sequential(seq: ast.Sequential, outer: Scope, headless = false): OpFactory {
    const scope = outer.enter();
    for (const decl of seq.consts) this.declare(decl, scope);
    return this.chain(seq.ops, scope, headless);
  }

  /**
   * Operators piped in order; the legs of a parallel or a `from` feed a
   * following join or merge directly. Headless: the first operator (a `from`,
   * or a parallel whose legs start with one) has no upstream.
   */
  chain(ops: ast.Op[], scope: Scope, headless = false): OpFactory {
    const factories: OpFactory[] = [];
    for (let i = 0; i < ops.length; i++) {
      const op = ops[i], following = ops[i + 1];
      const top = headless && i === 0;
      if (following?.kind === "From" && outputs(op) > 1) {
        throw invalid("'from' operator can have at most one parent");
      }
      if (op.kind === "Parallel" || op.kind === "From") {
        const legs = this.legs(op, scope, top);
        const n = outputs(op);
        if (following?.kind === "Join" || following?.kind === "Merge") {
          const multi = following.kind === "Join"
            ? this.joinOp(following, scope, n)
            : this.mergeOp(following, scope, n);
          factories.push((next) => legs(multi(next).ports));
          i++;
        } else {
          factories.push((next) => legs(fanIn(next, n)));
        }
        continue;
      }
      if (op.kind === "Join") throw invalid("join requires two upstream parallel query paths");
      if (op.kind === "Merge") throw invalid("merge: multiple upstream paths required");
      const keep = op.kind === "Sort" || op.kind === "Fuse"
        ? leadingValues(ops.slice(i + 1), scope)
        : null;
      // A short head (or page), or tail: the sort keeps only the values that
      // come first, or last (the tail passes them on).
      const last = op.kind === "Sort" && following?.kind === "Tail" ? following.count || 1 : null;
      const kept = keep ?? last;
      if (op.kind === "Sort" && kept !== null && kept <= SORT_HEAD_MAX) {
        const keys = (op.args ?? []).map((e) => this.exprs.compile(e, scope));
        const opts = { reverse: op.order === "desc", nullsFirst: op.nullsfirst };
        factories.push((next) => new SortHead(next, keys, opts, kept, keep === null));
        continue;
      }
      if (op.kind === "Fuse" && keep !== null) {
        // The head's (or page's) values are all the fuse keeps (the others give it their types).
        factories.push((next) => new Fuse(next, keep));
        continue;
      }
      factories.push(this.op(op, scope));
    }
    return (next) => {
      let head = next;
      for (let i = factories.length - 1; i >= 0; i--) head = factories[i](head);
      return head;
    };
  }

  /**
   * The legs of a parallel (a fork) or of a `from`, each sending its output
   * to outs[k]; returns the operator their upstream pushes into.
   */
  private legs(
    op: ast.Op & { kind: "Parallel" | "From" },
    scope: Scope,
    top: boolean,
  ): (outs: Op[]) => Op {
    if (op.kind === "From") return compileFromOp(this, op, scope, !top);
    const legs = op.ops.map((leg) => this.sequential(leg, scope, top));
    return (outs) => new Fork(legs.map((leg, k) => leg(outs[k])));
  }

  joinOp(
    op: ast.Join,
    scope: Scope,
    legs = 2,
  ): (next: Op) => { ports: Op[] } {
    if (legs !== 2) throw invalid("join requires two upstream parallel query paths");
    let leftKey = this.exprs.compile(op.left_key, scope);
    let rightKey = this.exprs.compile(op.right_key, scope);
    const args = (op.args ?? []).map((a) => this.assignment(a, scope));
    new Join(nullOp, "inner", leftKey, rightKey, args); // checks the output paths now
    // A right join is a left join with the inputs and keys swapped.
    const style: JoinStyle = op.style === "right" ? "left" : op.style;
    const swap = op.style === "right";
    if (swap) [leftKey, rightKey] = [rightKey, leftKey];
    return (next) => {
      const j = new Join(next, style, leftKey, rightKey, args);
      return { ports: swap ? [j.ports[1], j.ports[0]] : j.ports };
    };
  }

  mergeOp(op: ast.Op & { kind: "Merge" }, scope: Scope, legs: number) {
    const key = this.exprs.compile(op.expr, scope);
    return (next: Op) => new Merge(next, legs, key);
  }

  /** `over e, ... [with x=e, ...] [=> ( seq )]`. */
  private over(
    exprs: ast.Expr[],
    locals: ast.Local[],
    scopeSeq: ast.Sequential | null,
    scope: Scope,
  ) {
    const gens = exprs.map((e) => this.exprs.compile(e, scope));
    if (scopeSeq === null) return (next: Op) => new Over(next, gens);
    const [inner, bound] = this.bindLocals(locals, scope);
    const seq = this.lateralScope(scopeSeq, inner);
    return (next: Op) => new Over(next, gens, seq, bound);
  }

  /** Compiles `with` locals (in the outer scope) and a scope that sees them. */
  private bindLocals(locals: ast.Local[], scope: Scope): [Scope, Locals | undefined] {
    if (locals.length === 0) return [scope, undefined];
    const frame = new Frame();
    const inner = scope.enter();
    const exprs: Expr[] = [];
    locals.forEach((l, slot) => {
      // Each local may refer to the ones before it.
      exprs.push(this.exprs.compile(l.expr, inner));
      inner.define(l.name, { kind: "var", frame, slot });
    });
    return [inner, { frame, exprs }];
  }

  /** `(over e, ... with x=e | seq)` as an expression. */
  private lateral(node: ast.Expr & { kind: "OverExpr" }, scope: Scope): Expr {
    const gens = node.exprs.map((e) => this.exprs.compile(e, scope));
    const [inner, bound] = this.bindLocals(node.locals ?? [], scope);
    return compileLateral(gens, this.lateralScope(node.scope, inner), bound);
  }

  /** The subquery of a lateral scope, built anew for each value. */
  private lateralScope(seq: ast.Sequential, scope: Scope): OpFactory {
    this.lateralDepth++;
    try {
      return this.sequential(seq, scope);
    } finally {
      this.lateralDepth--;
    }
  }

  declare(decl: ast.Decl, scope: Scope): void {
    const e = decl.expr;
    if (e.kind === "TypeValue" && e.value.kind === "TypeDef") {
      const t = resolveType(e.value, scope);
      scope.define(decl.name, { kind: "type", value: new Value(TypeType, t), type: t });
      return;
    }
    // Evaluated now, with `this` missing, as the reference does.
    const v = this.exprs.compile(e, scope)(MISSING);
    if (isError(v)) {
      if (isMissing(v)) {
        throw invalid(`const ${JSON.stringify(decl.name)}: cannot have variable dependency`);
      }
      const msg = typeof v.body === "string" ? v.body : String(v.body);
      throw invalid(`const ${JSON.stringify(decl.name)}: ${JSON.stringify(msg)}`);
    }
    scope.define(decl.name, { kind: "const", value: v });
  }

  op(op: ast.Op, scope: Scope): OpFactory {
    switch (op.kind) {
      case "Sequential":
        return this.sequential(op, scope);
      case "Parallel":
      case "From":
        return this.chain([op], scope);
      case "Switch":
        return this.switchOp(op, scope);
      case "OpExpr":
        return this.opExpr(op.expr, scope);
      case "Search":
      case "Where": {
        const pred = this.exprs.compile(op.expr, scope);
        return (next) => new Filter(next, pred);
      }
      case "Yield": {
        const exprs = op.exprs.map((e) => this.exprs.compile(e, scope));
        return (next) => new Yield(next, exprs);
      }
      case "OpAssignment":
        return this.opAssignment(op.assignments, scope);
      case "Summarize":
        return this.summarize(op.keys ?? [], op.aggs ?? [], op.limit, scope);
      case "Cut": {
        const fields = op.args.map((a) => this.assignment(a, scope));
        new Cut(nullOp, fields); // checks the field paths now
        return (next) => new Cut(next, fields);
      }
      case "Put": {
        const clauses = op.args.map((a) => this.assignment(a, scope));
        checkPutPaths(clauses.map((c) => c.path));
        return (next) => new Put(next, clauses);
      }
      case "Drop": {
        const paths = op.args.map((e) => this.field(e, scope, "drop: "));
        return (next) => new Drop(next, paths);
      }
      case "Rename": {
        const pairs: RenamePair[] = op.args.map((a) => {
          const explicit = "'rename' requires explicit field references";
          const to = a.lhs === null ? undefined : this.exprs.path(a.lhs, scope);
          const from = this.exprs.path(a.rhs, scope);
          if (to === undefined || from === undefined) throw invalid(explicit);
          return { to, from };
        });
        checkRenamePaths(pairs);
        return (next) => new Rename(next, pairs);
      }
      case "Sort": {
        const keys = (op.args ?? []).map((e) => this.exprs.compile(e, scope));
        const opts = { reverse: op.order === "desc", nullsFirst: op.nullsfirst };
        return (next) => new Sort(next, keys, opts);
      }
      case "Head":
        return (next) => new Head(next, op.count || 1);
      case "Tail":
        return (next) => new Tail(next, op.count || 1);
      case "Uniq":
        return (next) => new Uniq(next, op.cflag);
      case "Pass":
        return (next) => new Pass(next);
      case "Fuse":
        return (next) => new Fuse(next);
      case "Shape":
        return (next) => new Shape(next);
      case "SQLExpr":
        return this.op(
          rewriteSQL(op, scope, {
            assignmentPath: (a, s) => this.assignmentPath(a, s, false),
            path: (e, s) => this.exprs.path(e, s),
          }),
          scope,
        );
      case "Top": {
        if (op.args === null || op.args.length === 0) throw invalid("top: no arguments given");
        const keys = op.args.map((e) => this.exprs.compile(e, scope));
        return (next) => new Top(next, op.limit, keys, op.flush);
      }
      case "Over":
        return this.over(op.exprs, [], op.scope, scope);
      case "Let":
        if (op.over.scope === null) throw invalid("let operator missing scope in AST");
        return this.over(op.over.exprs, op.locals, op.over.scope, scope);
      case "Explode": {
        const exprs = op.args.map((e) => this.exprs.compile(e, scope));
        const type = resolveType(op.type, scope);
        const name = op.as === null ? ["value"] : this.field(op.as, scope, "");
        return (next) => new Explode(next, exprs, type, name[name.length - 1]);
      }
    }
    throw invalid(`${op.kind} is not supported yet`);
  }

  /** The reference's semOpExpr: an expression used as an operator. */
  private opExpr(e: ast.Expr, scope: Scope): OpFactory {
    if (e.kind === "Call") {
      const agg = lookupAggregate(e.name);
      const isScalarMinMax = (e.name === "min" || e.name === "max") && e.args.length > 1;
      if (agg !== undefined && !isScalarMinMax) {
        return this.summarize(
          [],
          [{
            kind: "Assignment",
            lhs: { kind: "ID", name: e.name },
            rhs: e,
          }],
          0,
          scope,
        );
      }
    }
    const expr = this.exprs.compile(e, scope);
    if (this.isFilterExpr(e, scope)) return (next) => new Filter(next, expr);
    return (next) => new Yield(next, [expr]);
  }

  /** `a:=e, ...` as an operator: summarize when every RHS is an aggregate call, else put. */
  private opAssignment(assignments: ast.Assignment[], scope: Scope): OpFactory {
    const isAgg = assignments.map((a) => this.isAggCall(a.rhs));
    if (isAgg.every((x) => x)) return this.summarize([], assignments, 0, scope);
    if (isAgg.some((x) => x)) {
      throw invalid("mix of aggregations and non-aggregations in assignment list");
    }
    const clauses = assignments.map((a) => this.assignment(a, scope));
    checkPutPaths(clauses.map((c) => c.path));
    return (next) => new Put(next, clauses);
  }

  private isAggCall(e: ast.Expr): boolean {
    if (e.kind === "Agg") return true;
    if (e.kind !== "Call" || lookupAggregate(e.name) === undefined) return false;
    return !((e.name === "min" || e.name === "max") && e.args.length > 1);
  }

  private summarize(
    keyNodes: ast.Assignment[],
    aggNodes: ast.Assignment[],
    limit: number,
    scope: Scope,
  ): OpFactory {
    const keys: SummarizeKey[] = keyNodes.map((a) => this.assignment(a, scope, true));
    const aggs: SummarizeAggregate[] = aggNodes.map((a) => {
      const path = this.assignmentPath(a, scope, true);
      const rhs = a.rhs;
      let name: string, args: ast.Expr[], where: ast.Expr | null;
      if (rhs.kind === "Agg") {
        name = rhs.name;
        args = rhs.expr === null ? [] : [rhs.expr];
        where = rhs.where;
        if (args.length === 0 && name !== "count") {
          throw invalid(`aggregator '${name}' requires argument`);
        }
      } else if (rhs.kind === "Call") {
        name = rhs.name;
        args = rhs.args;
        where = rhs.where;
      } else {
        throw invalid("illegal left-hand side of assignment'");
      }
      const def = lookupAggregate(name);
      if (def === undefined) throw invalid(`unknown aggregation function: ${name}`);
      if (args.length > 1) throw invalid(`${name}: wrong number of arguments`);
      if (args.length < def.min) throw invalid(`${name}: argument required`);
      return {
        path,
        def,
        arg: args.length === 0 ? undefined : this.rhs(args[0], scope),
        where: where === null ? undefined : this.rhs(where, scope),
      };
    });
    // Building one checks the output paths for duplicates and adjacency.
    new Summarize(nullOp, keys, aggs, limit);
    return (next) => new Summarize(next, keys, aggs, limit);
  }

  /** An assignment's RHS, with the reference's error prefix. */
  private rhs(e: ast.Expr, scope: Scope): Expr {
    try {
      return this.exprs.compile(e, scope);
    } catch (err) {
      if (err instanceof LochError) {
        throw new LochError(err.kind, `rhs of assignment expression: ${messageOf(err)}`);
      }
      throw err;
    }
  }

  /** A compiled `lhs := rhs` (or an rhs alone, its name inferred). */
  private assignment(a: ast.Assignment, scope: Scope, summarize = false): Assignment {
    const expr = this.rhs(a.rhs, scope);
    return { path: this.assignmentPath(a, scope, summarize), expr };
  }

  /** The output path of an assignment (language.md §8.2). */
  private assignmentPath(a: ast.Assignment, scope: Scope, _summarize: boolean): string[] {
    let path: string[] | undefined;
    const rhs = a.rhs;
    if (a.lhs !== null) {
      path = this.exprs.path(a.lhs, scope);
    } else if (rhs.kind === "Call") {
      path = [rhs.name];
      if (rhs.name === "every") path = ["ts"];
      else if (rhs.name === "quiet" && rhs.args.length > 0) {
        path = this.exprs.path(rhs.args[0], scope) ?? path;
      }
    } else if (rhs.kind === "Agg") {
      path = [rhs.name];
    } else if (rhs.kind === "ID" && scope.lookup(rhs.name)?.kind === "var") {
      path = [rhs.name];
    } else {
      path = this.exprs.path(rhs, scope);
    }
    if (path === undefined) throw invalid("illegal left-hand side of assignment'");
    if (path.length === 0) throw invalid("cannot assign to 'this'");
    return path;
  }

  private field(e: ast.Expr, scope: Scope, prefix: string): string[] {
    const path = this.exprs.path(e, scope);
    if (path === undefined) throw invalid(`${prefix}invalid expression used as a field`);
    if (path.length === 0) throw invalid(`${prefix}cannot use 'this' as a field reference`);
    return path;
  }

  private switchOp(op: ast.Op & { kind: "Switch" }, scope: Scope): OpFactory {
    const legs = op.cases.map((c) => this.sequential(c.op, scope));
    const build = (next: Op, make: (heads: Op[]) => Op) => {
      const outs = fanIn(next, legs.length);
      return make(legs.map((leg, k) => leg(outs[k])));
    };
    if (op.expr === null) {
      // Boolean form: `default` is `case true` where it stands.
      const preds = op.cases.map((c) =>
        c.expr === null ? () => TRUE_VALUE : this.exprs.compile(c.expr, scope)
      );
      return (next) => build(next, (heads) => new BoolSwitch(heads, preds));
    }
    const expr = this.exprs.compile(op.expr, scope);
    let defaultLeg = -1;
    const cases: (Value | null)[] = [];
    op.cases.forEach((c, i) => {
      if (c.expr === null) {
        defaultLeg = i;
        cases.push(null);
        return;
      }
      const v = this.exprs.constValue(c.expr, scope);
      if (v === undefined) throw invalid("switch case is not a constant expression");
      cases.push(v);
    });
    return (next) => build(next, (heads) => new ValueSwitch(heads, expr, cases, defaultLeg));
  }
}

const TRUE_VALUE = literalValue({ kind: "Primitive", type: "bool", text: "true" });

/** A sink for operators built only to validate their arguments. */
const nullOp: Op = { push() {}, end() {}, done: true };

// `put p1:=e1, p2:=e2, ...` (language.md §3.13). Every expression is
// evaluated on the original input, then all are written at once: an existing
// field is replaced in place, a new one is appended (in clause order), and a
// nested path descends into records, replacing a non-record on its way and
// creating missing ones. A quiet result skips its clause; error inputs pass;
// other non-records become error("put: not a record: <zson>").
//
// The layout of the output is planned once per input record type and vector
// of clause result types (quiet clauses included), then applied to bodies.

import { invalid } from "../../errors.ts";
import { zctx } from "../../zed/context.ts";
import { Field, Kind, type RecordType, type Type, typeUnder } from "../../zed/types.ts";
import { type Batch, type Body, Value } from "../../zed/value.ts";
import type { Expr } from "../runtime/expr.ts";
import { type Op, Unary } from "../runtime/op.ts";
import { errorValue, isError, isMissing, isQuiet, zson } from "../runtime/values.ts";
import {
  type Assignment,
  hasPrefix,
  hasStrictPrefix,
  type Path,
  pathEqual,
  pathString,
} from "./paths.ts";
import { TypeVectorCache } from "./type-cache.ts";

/**
 * The compile-time checks of the reference: no `this`, no path assigned twice,
 * no path assigned along with one of its prefixes.
 */
export function checkPutPaths(paths: readonly Path[]): void {
  paths.forEach((p, i) => {
    if (p.length === 0) throw invalid("put: LHS cannot be 'this' (use 'yield' operator)");
    paths.forEach((c, j) => {
      if (i === j) return;
      if (pathEqual(p, c)) throw invalid(`put: multiple assignments to ${pathString(p)}`);
      if (hasStrictPrefix(c, p)) {
        throw invalid(
          `put: conflicting nested assignments to ${pathString(p)} and ${pathString(c)}`,
        );
      }
    });
  });
}

const FROM_INPUT = 0;
const FROM_CLAUSE = 1;
const RECORD = 2;

/** One output field: copied from an input field, taken from a clause, or a rebuilt record. */
interface Step {
  op: number;
  /** Input field index (FROM_INPUT, RECORD; -1 for a new record) or clause index. */
  index: number;
  /** The fields of a RECORD step. */
  fields: Step[];
}

interface Rule {
  type: RecordType;
  fields: Step[];
}

const FAIL = Symbol("fail");

export class Put extends Unary {
  private readonly paths: Path[];
  private readonly exprs: Expr[];
  private readonly vals: Value[];
  /** Result type of each clause for the current value; null when quiet. */
  private readonly types: (Type | null)[];
  private readonly rules = new Map<RecordType, TypeVectorCache<Rule>>();

  constructor(next: Op, clauses: readonly Assignment[]) {
    super(next);
    this.paths = clauses.map((c) => c.path);
    checkPutPaths(this.paths);
    this.exprs = clauses.map((c) => c.expr);
    this.vals = new Array(clauses.length);
    this.types = new Array(clauses.length);
  }

  push(batch: Batch): void {
    const out: Value[] = [];
    for (let i = 0; i < batch.length; i++) {
      const r = this.put(batch[i]);
      if (r !== undefined) out.push(r);
    }
    this.emit(out);
  }

  private put(v: Value): Value | undefined {
    const u = typeUnder(v.type);
    if (u.kind !== Kind.Record) {
      if (!isError(v)) return errorValue("put: not a record: " + zson(v));
      return isMissing(v) || isQuiet(v) ? undefined : v;
    }
    const exprs = this.exprs;
    const n = exprs.length;
    const vals = this.vals;
    const types = this.types;
    let active = 0;
    for (let k = 0; k < n; k++) {
      const r = exprs[k](v);
      vals[k] = r;
      if (isQuiet(r)) types[k] = null;
      else {
        types[k] = r.type;
        active++;
      }
    }
    if (active === 0) return v;
    const rule = this.ruleFor(u);
    const body = buildRecord(rule.fields, v.body as Body[] | null, vals);
    return new Value(rule.type, body === FAIL ? null : body);
  }

  private ruleFor(rt: RecordType): Rule {
    let cache = this.rules.get(rt);
    if (cache === undefined) this.rules.set(rt, cache = new TypeVectorCache());
    const types = this.types;
    let rule = cache.get(types, types.length);
    if (rule === undefined) {
      const active: number[] = [];
      for (let k = 0; k < types.length; k++) if (types[k] !== null) active.push(k);
      rule = this.derive([], rt.fields, active);
      cache.set(types, types.length, rule);
    }
    return rule;
  }

  /** Plans the record at parent, whose input fields are inFields. */
  private derive(parent: Path, inFields: readonly Field[], active: number[]): Rule {
    const paths = this.paths;
    const types = this.types;
    const fields: Step[] = [];
    const cols: Field[] = [];
    inFields.forEach((f, i) => {
      const path = [...parent, f.name];
      const c = active.find((k) => pathEqual(paths[k], path) || hasStrictPrefix(paths[k], path));
      if (c === undefined) {
        fields.push({ op: FROM_INPUT, index: i, fields: [] });
        cols.push(f);
      } else if (paths[c].length === path.length) {
        fields.push({ op: FROM_CLAUSE, index: c, fields: [] });
        cols.push(new Field(f.name, types[c]!));
      } else {
        // A nested assignment: descend into a record, or replace a non-record.
        const u = typeUnder(f.type);
        const sub = this.derive(path, u.kind === Kind.Record ? u.fields : [], active);
        fields.push({ op: RECORD, index: i, fields: sub.fields });
        cols.push(new Field(f.name, sub.type));
      }
    });
    for (const k of active) {
      const p = paths[k];
      if (p.length <= parent.length || !hasPrefix(p, parent)) continue;
      const name = p[parent.length];
      if (cols.some((c) => c.name === name)) continue;
      if (p.length === parent.length + 1) {
        fields.push({ op: FROM_CLAUSE, index: k, fields: [] });
        cols.push(new Field(name, types[k]!));
      } else {
        const sub = this.derive([...parent, name], [], active);
        fields.push({ op: RECORD, index: -1, fields: sub.fields });
        cols.push(new Field(name, sub.type));
      }
    }
    return { type: zctx.lookupRecord(cols), fields };
  }
}

/**
 * The body of a planned record. Reading a field of a null record fails, and
 * the reference then makes the whole output a null record (of the output type).
 */
function buildRecord(steps: Step[], in_: Body[] | null, vals: Value[]): Body[] | typeof FAIL {
  const out = new Array<Body>(steps.length);
  for (let k = 0; k < steps.length; k++) {
    const s = steps[k];
    switch (s.op) {
      case FROM_INPUT:
        if (in_ === null) return FAIL;
        out[k] = in_[s.index];
        break;
      case FROM_CLAUSE:
        out[k] = vals[s.index].body;
        break;
      default: {
        let sub: Body = null;
        if (s.index >= 0) {
          if (in_ === null) return FAIL;
          sub = in_[s.index];
        }
        // A replaced non-record has no fields to read, so its body is never indexed.
        const r = buildRecord(s.fields, sub as Body[] | null, vals);
        if (r === FAIL) return FAIL;
        out[k] = r;
      }
    }
  }
  return out;
}

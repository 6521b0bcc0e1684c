// `over` (language.md §3.11): for each value, the values its expressions
// generate (array and set elements, map entries and record fields become
// values of their own), either sent downstream or run through a lateral
// subquery once per value; and the `(over ... | seq)` expression.

import { zctx } from "../../zed/context.ts";
import {
  Kind,
  type RecordType,
  type Type,
  TypeString,
  typeUnder,
  type UnionType,
} from "../../zed/types.ts";
import { type Batch, type Body, UnionBody, Value } from "../../zed/value.ts";
import type { Frame } from "../compiler/scope.ts";
import type { Expr } from "../runtime/expr.ts";
import { Collector, type Op, type OpFactory, Unary } from "../runtime/op.ts";
import { isMissing, NULL } from "../runtime/values.ts";
import { buildSync } from "../runtime/turns.ts";
import { LochError } from "../../errors.ts";

/** The value with names and union wrappers removed (Go's Value.Under). */
function deepUnder(t: Type, body: Body): Value {
  for (;;) {
    const u = typeUnder(t);
    if (u.kind !== Kind.Union || body === null) return new Value(u, body);
    const ub = body as UnionBody;
    t = (u as UnionType).types[ub.tag];
    body = ub.body;
  }
}

const keyType = zctx.lookupArray(TypeString);
const entryTypes = new Map<string, RecordType>();

function entryType(k: Type, v: Type): RecordType {
  const id = k.id + "," + v.id;
  let t = entryTypes.get(id);
  if (t === undefined) {
    t = zctx.lookupRecordOf(["key", "value"], [k, v]);
    // A memo: bounded, so it does not hold every type it has seen alive.
    if (entryTypes.size >= 10000) entryTypes.clear();
    entryTypes.set(id, t);
  }
  return t;
}

/** Appends the values that traversing v generates. */
export function appendOver(out: Value[], v: Value): void {
  const u = deepUnder(v.type, v.body);
  const t = u.type;
  switch (t.kind) {
    case Kind.Array:
    case Kind.Set: {
      for (const b of (u.body ?? []) as Body[]) out.push(deepUnder(t.elem, b));
      return;
    }
    case Kind.Map: {
      const rt = entryType(t.key, t.value);
      const kv = (u.body ?? []) as Body[];
      for (let i = 0; i < kv.length; i += 2) out.push(new Value(rt, [kv[i], kv[i + 1]]));
      return;
    }
    case Kind.Record: {
      const fields = t.fields, b = u.body as Body[] | null;
      if (b === null) return;
      for (let i = 0; i < fields.length; i++) {
        out.push(new Value(entryType(keyType, fields[i].type), [[fields[i].name], b[i]]));
      }
      return;
    }
  }
  out.push(u);
}

/** The values the over expressions generate from v (missing ones skipped). */
function generate(exprs: readonly Expr[], v: Value): Value[] {
  const out: Value[] = [];
  for (const e of exprs) {
    const r = e(v);
    if (!isMissing(r)) appendOver(out, r);
  }
  return out;
}

/** Lateral variables (`with x=e`), evaluated against the outer value. */
export interface Locals {
  frame: Frame;
  exprs: Expr[];
}

function bindLocals(locals: Locals | undefined, v: Value): void {
  if (locals === undefined) return;
  const vals = locals.frame.values;
  for (let i = 0; i < locals.exprs.length; i++) vals[i] = locals.exprs[i](v);
}

/**
 * Runs a lateral scope to completion over values; returns its output. It
 * runs inside the processing of one value (or an expression), so it cannot
 * pause: its operators are built to end synchronously.
 */
function runScope(scope: OpFactory, values: Value[]): Value[] {
  const out = new Collector();
  const head = buildSync(() => scope(out));
  head.push(values);
  if (head.end() !== undefined) throw new LochError("internal", "a lateral scope paused");
  const result: Value[] = [];
  for (const b of out.take()) for (const v of b) result.push(v);
  return result;
}

export class Over extends Unary {
  constructor(
    next: Op,
    private readonly exprs: readonly Expr[],
    private readonly scope?: OpFactory,
    private readonly locals?: Locals,
  ) {
    super(next);
  }

  push(batch: Batch): void {
    if (this.scope === undefined) {
      const out: Value[] = [];
      for (const v of batch) {
        for (const e of this.exprs) {
          const r = e(v);
          if (!isMissing(r)) appendOver(out, r);
        }
      }
      this.emit(out);
      return;
    }
    for (const v of batch) {
      if (this.done) return;
      const vals = generate(this.exprs, v);
      if (vals.length === 0) continue;
      bindLocals(this.locals, v);
      this.emit(runScope(this.scope, vals));
    }
  }
}

/** `(over e, ... with x=e | seq)`: no values → null, one → it, several → an array. */
export function compileLateral(exprs: Expr[], scope: OpFactory, locals?: Locals): Expr {
  return (v) => {
    const vals = generate(exprs, v);
    if (vals.length === 0) return NULL;
    bindLocals(locals, v);
    return combine(runScope(scope, vals));
  };
}

function combine(vals: Value[]): Value {
  if (vals.length === 0) return NULL;
  if (vals.length === 1) return vals[0];
  const t = vals[0].type;
  if (vals.every((v) => v.type === t)) {
    return new Value(zctx.lookupArray(t), vals.map((v) => v.body));
  }
  const union = zctx.lookupUnion([...new Set(vals.map((v) => v.type))]);
  return new Value(
    zctx.lookupArray(union),
    vals.map((v) => (v.body === null ? null : new UnionBody(union.tagOf(v.type), v.body))),
  );
}

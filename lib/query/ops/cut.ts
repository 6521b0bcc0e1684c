// `cut p1[:=e1], p2[:=e2], ...`: a new record holding just the listed fields,
// in the listed order (dotted paths make nested records). Each expression is
// evaluated on the input; error("missing") is kept as the field's value,
// error("quiet") omits the field, and an input whose fields are all omitted
// produces nothing (language.md §3.3).

import { zctx } from "../../zed/context.ts";
import type { RecordType, Type } from "../../zed/types.ts";
import { type Batch, type Body, Value } from "../../zed/value.ts";
import type { Expr } from "../runtime/expr.ts";
import { type Op, Unary } from "../runtime/op.ts";
import { RecordBuilder } from "../runtime/record-builder.ts";
import { isQuiet } from "../runtime/values.ts";
import type { Assignment } from "./paths.ts";
import { TypeVectorCache } from "./type-cache.ts";

/**
 * The compile-time checks (`cannot assign to 'this'`, `duplicate field: "a"`,
 * `fields in record a must be adjacent`); the constructor makes them too.
 */
export function checkCutPaths(paths: readonly (readonly string[])[]): void {
  new RecordBuilder(paths);
}

export class Cut extends Unary {
  private readonly exprs: Expr[];
  private readonly names: string[];
  /** All paths are single names: records are built directly. */
  private readonly flat: boolean;
  private readonly builder: RecordBuilder;
  private readonly vals: (Value | undefined)[];
  private readonly types: Type[];
  private readonly recordTypes = new TypeVectorCache<RecordType>();

  /** Throws the reference's compile errors for bad or clashing paths. */
  constructor(next: Op, fields: readonly Assignment[]) {
    super(next);
    this.builder = new RecordBuilder(fields.map((f) => f.path));
    this.exprs = fields.map((f) => f.expr);
    this.names = fields.map((f) => f.path[0]);
    this.flat = fields.every((f) => f.path.length === 1);
    this.vals = new Array(fields.length);
    this.types = new Array(fields.length);
  }

  push(batch: Batch): void {
    const exprs = this.exprs;
    const n = exprs.length;
    const vals = this.vals;
    const out: Value[] = [];
    for (let i = 0; i < batch.length; i++) {
      const v = batch[i];
      let quiet = false;
      for (let k = 0; k < n; k++) {
        const r = exprs[k](v);
        if (isQuiet(r)) {
          vals[k] = undefined;
          quiet = true;
        } else vals[k] = r;
      }
      if (this.flat && !quiet) {
        out.push(this.flatRecord(vals as Value[]));
        continue;
      }
      const r = this.builder.build(vals);
      if (r !== undefined) out.push(r);
    }
    this.emit(out);
  }

  private flatRecord(vals: Value[]): Value {
    const n = vals.length;
    const types = this.types;
    const bodies = new Array<Body>(n);
    for (let k = 0; k < n; k++) {
      types[k] = vals[k].type;
      bodies[k] = vals[k].body;
    }
    let rt = this.recordTypes.get(types, n);
    if (rt === undefined) {
      rt = zctx.lookupRecordOf(this.names, types);
      this.recordTypes.set(types, n, rt);
    }
    return new Value(rt, bodies);
  }
}

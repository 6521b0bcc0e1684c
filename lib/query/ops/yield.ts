// `yield e1, e2, ...`: for each input value, each expression's result in
// order. error("quiet") results are dropped; error("missing") is emitted.

import type { Batch, Value } from "../../zed/value.ts";
import type { Expr } from "../runtime/expr.ts";
import { type Op, Unary } from "../runtime/op.ts";
import { isQuiet } from "../runtime/values.ts";

export class Yield extends Unary {
  constructor(next: Op, private readonly exprs: readonly Expr[]) {
    super(next);
  }

  push(batch: Batch): void {
    const exprs = this.exprs;
    const n = exprs.length;
    const out: Value[] = [];
    if (n === 1) {
      const e = exprs[0];
      for (let i = 0; i < batch.length; i++) {
        const r = e(batch[i]);
        if (!isQuiet(r)) out.push(r);
      }
    } else {
      for (let i = 0; i < batch.length; i++) {
        const v = batch[i];
        for (let k = 0; k < n; k++) {
          const r = exprs[k](v);
          if (!isQuiet(r)) out.push(r);
        }
      }
    }
    this.emit(out);
  }
}

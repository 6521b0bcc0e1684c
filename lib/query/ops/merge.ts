// `merge e` (language.md §3.10): interleaves already-sorted inputs into one
// stream ascending by e (missing as null, nulls last); ties go to the
// earlier input.

import { compareValues } from "../../zed/compare.ts";
import type { Value } from "../../zed/value.ts";
import type { Expr } from "../runtime/expr.ts";
import type { Op } from "../runtime/op.ts";
import { isMissing, NULL } from "../runtime/values.ts";
import { MultiInput } from "./ports.ts";
import type { Work } from "../runtime/work.ts";

/** Most values per output batch. */
const OUT_BATCH = 1000;

export class Merge extends MultiInput {
  constructor(next: Op, inputs: number, private readonly key: Expr) {
    super(next, inputs);
  }

  protected *run(): Work {
    const keyOf = (v: Value) => {
      const k = this.key(v);
      return isMissing(k) ? NULL : k;
    };
    const keys = this.inputs.map((vals) => vals.map(keyOf));
    const pos = this.inputs.map(() => 0);
    let out: Value[] = [];
    for (;;) {
      let best = -1;
      for (let i = 0; i < this.inputs.length; i++) {
        if (pos[i] >= this.inputs[i].length) continue;
        if (best < 0) {
          best = i;
          continue;
        }
        const a = keys[i][pos[i]], b = keys[best][pos[best]];
        if (compareValues(a.type, a.body, b.type, b.body, true) < 0) best = i;
      }
      if (best < 0) break;
      out.push(this.inputs[best][pos[best]++]);
      if (out.length >= OUT_BATCH) {
        if (this.next.done) return;
        this.next.push(out);
        out = [];
        yield;
      }
    }
    if (out.length > 0 && !this.next.done) this.next.push(out);
  }
}

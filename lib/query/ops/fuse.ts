// `fuse`: reads everything, fuses the types of all values into one
// (language.md §3.7) and emits each value shaped to it (cast, fill and order,
// as the reference's fuse does), in input order.
//
// Values are held in memory until the end of the input; the reference spills
// them to disk past 128 MiB, which is still to come.

import { BATCH_SIZE } from "../../formats/io.ts";
import type { Type } from "../../zed/types.ts";
import type { Batch, Value } from "../../zed/value.ts";
import { fuseTypes } from "../aggregates/fuse-type.ts";
import { Unary } from "../runtime/op.ts";
import { CAST, constShaper, FILL, ORDER } from "../expr/shaper.ts";

export class Fuse extends Unary {
  private vals: Value[] = [];
  private seen = new Set<Type>();
  private fused: Type | undefined = undefined;

  push(batch: Batch): void {
    const vals = this.vals;
    for (let i = 0; i < batch.length; i++) {
      const v = batch[i];
      vals.push(v);
      if (!this.seen.has(v.type)) {
        this.seen.add(v.type);
        this.fused = this.fused === undefined ? v.type : fuseTypes(this.fused, v.type);
      }
    }
  }

  override end(): void {
    const vals = this.vals;
    this.vals = [];
    if (this.fused !== undefined) {
      const shaper = constShaper(CAST | FILL | ORDER, this.fused);
      for (let i = 0; i < vals.length && !this.next.done; i += BATCH_SIZE) {
        const m = Math.min(vals.length, i + BATCH_SIZE);
        const out = new Array<Value>(m - i);
        for (let k = i; k < m; k++) out[k - i] = shaper.shape(vals[k]);
        this.next.push(out);
      }
    }
    this.next.end();
  }
}

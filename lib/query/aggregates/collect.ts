// collect: the non-null values in arrival order, as an array whose element
// type is the values' type, or the union of their distinct types.

import { checkAggregate } from "../runtime/limits.ts";
import { zctx } from "../../zed/context.ts";
import type { Type } from "../../zed/types.ts";
import { type Body, UnionBody, Value } from "../../zed/value.ts";
import { NULL } from "../runtime/values.ts";
import { type Aggregator, registerAggregate } from "./registry.ts";
import { bodySize } from "../spill/size.ts";

class Collect implements Aggregator {
  private types: Type[] = [];
  private bodies: Body[] = [];
  /** Distinct types in first-seen order. */
  private distinct: Type[] = [];
  private bytes = 0;

  consume(v: Value): void {
    if (v.body === null) return;
    if (!this.distinct.includes(v.type)) this.distinct.push(v.type);
    this.types.push(v.type);
    this.bodies.push(v.body);
    this.bytes += 16 + bodySize(v.body);
    checkAggregate(this.bodies.length, this.bytes);
  }

  save(out: Value[]): void {
    for (let i = 0; i < this.bodies.length; i++) out.push(new Value(this.types[i], this.bodies[i]));
  }

  restore(state: readonly Value[]): void {
    for (const v of state) this.consume(v);
  }

  size(): number {
    return this.bytes;
  }

  result(): Value {
    const n = this.bodies.length;
    if (n === 0) return NULL;
    if (this.distinct.length === 1) {
      return new Value(zctx.lookupArray(this.distinct[0]), this.bodies.slice());
    }
    const union = zctx.lookupUnion(this.distinct);
    const out = new Array<Body>(n);
    for (let i = 0; i < n; i++) out[i] = new UnionBody(union.tagOf(this.types[i]), this.bodies[i]);
    return new Value(zctx.lookupArray(union), out);
  }
}

registerAggregate("collect", {
  min: 1,
  max: 1,
  make: () => new Collect(),
  mergeable: true,
  grows: true,
});

// fuse: the fused type (§3.7) of the types of all values offered, as a type
// value; null(type) when nothing was offered.

import { type Type, TypeType } from "../../zed/types.ts";
import { Value } from "../../zed/value.ts";
import { fuseTypes } from "./fuse-type.ts";
import { type Aggregator, registerAggregate } from "./registry.ts";

const NULL_TYPE = new Value(TypeType, null);

class Fuse implements Aggregator {
  private seen = new Set<Type>();
  /** The fusion of the distinct types so far, in first-seen order. */
  private fused: Type | undefined;

  consume(v: Value): void {
    if (this.seen.has(v.type)) return;
    this.seen.add(v.type);
    this.fused = this.fused === undefined ? v.type : fuseTypes(this.fused, v.type);
  }

  result(): Value {
    return this.fused === undefined ? NULL_TYPE : new Value(TypeType, this.fused);
  }

  /** The distinct types in first-seen order: the fusion is a fold over them. */
  save(out: Value[]): void {
    for (const t of this.seen) out.push(new Value(TypeType, t));
  }

  restore(state: readonly Value[]): void {
    for (const v of state) this.consume(new Value(v.body as Type, null));
  }
}

registerAggregate("fuse", { min: 1, max: 1, make: () => new Fuse(), mergeable: true });

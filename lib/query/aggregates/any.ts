// any: the first value offered, except that a later non-null replaces a held null.

import type { Value } from "../../zed/value.ts";
import { NULL } from "../runtime/values.ts";
import { type Aggregator, registerAggregate } from "./registry.ts";

class Any implements Aggregator {
  private held: Value | undefined;
  consume(v: Value): void {
    if (this.held === undefined || (this.held.body === null && v.body !== null)) this.held = v;
  }
  result(): Value {
    return this.held ?? NULL;
  }
  save(out: Value[]): void {
    if (this.held !== undefined) out.push(this.held);
  }
  restore(state: readonly Value[]): void {
    for (const v of state) this.consume(v);
  }
}

registerAggregate("any", { min: 1, max: 1, make: () => new Any(), mergeable: true });

// and and or: fold the bool values offered; nulls and non-bools are ignored.

import { TypeBool, typeUnder } from "../../zed/types.ts";
import { Value } from "../../zed/value.ts";
import { boolValue } from "../runtime/values.ts";
import { type Aggregator, registerAggregate } from "./registry.ts";

const NULL_BOOL = new Value(TypeBool, null);

class Logical implements Aggregator {
  /** undefined until a bool arrives. */
  private acc: boolean | undefined;
  constructor(private readonly isAnd: boolean) {}
  consume(v: Value): void {
    if (v.body === null || typeUnder(v.type) !== TypeBool) return;
    const b = v.body as boolean;
    if (this.acc === undefined) this.acc = b;
    else this.acc = this.isAnd ? this.acc && b : this.acc || b;
  }
  result(): Value {
    return this.acc === undefined ? NULL_BOOL : boolValue(this.acc);
  }
  save(out: Value[]): void {
    if (this.acc !== undefined) out.push(boolValue(this.acc));
  }
  restore(state: readonly Value[]): void {
    for (const v of state) this.consume(v);
  }
}

registerAggregate("and", { min: 1, max: 1, make: () => new Logical(true), mergeable: true });
registerAggregate("or", { min: 1, max: 1, make: () => new Logical(false), mergeable: true });

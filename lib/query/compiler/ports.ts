// Source ports of `from` operators that do not head the program: a `from`
// after other operators (its non-pass legs), or one heading a parallel leg.
// Each such leg is a source the caller opens like a leading `from`'s; its
// plan is known at compile time, its head only once an instance of the query
// is built, so the builders record heads here while `make` runs.

import { LochError } from "../../errors.ts";
import type { Op } from "../runtime/op.ts";
import type { SourcePlan } from "./compile.ts";

export class SourcePorts {
  /** The plans, in port order. */
  readonly plans: SourcePlan[] = [];
  private heads: Op[] | null = null;

  /** Adds a port; returns its index. */
  add(plan: SourcePlan): number {
    return this.plans.push(plan) - 1;
  }

  /** Builds one instance with build(); returns its heads with the ports' heads after them. */
  build(build: () => Op[]): Op[] {
    const heads: Op[] = new Array(this.plans.length);
    this.heads = heads;
    try {
      return [...build(), ...heads];
    } finally {
      this.heads = null;
    }
  }

  /** Records the head of port k of the instance being built. */
  set(k: number, head: Op): void {
    // Only lateral scopes build operators outside `make`, and the compiler
    // keeps source ports out of them.
    if (this.heads === null) throw new LochError("internal", "source port built outside a query");
    this.heads[k] = head;
  }
}

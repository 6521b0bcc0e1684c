// Operators that split and join the flow of values: fork (copy to every
// leg), switch (route each value to a leg) and combine (several legs into one
// child, ending it when the last leg ends).

import { bytesEqual } from "../../zed/bytes.ts";
import type { Batch, Value } from "../../zed/value.ts";
import { encodeBody } from "../../zed/zcode.ts";
import type { Expr } from "./expr.ts";
import type { Op } from "./op.ts";
import { isError, isMissing } from "./values.ts";
import { endEach, type Ended } from "./work.ts";

/** Ends its child once every parent has ended. */
export class Combine implements Op {
  private open: number;
  constructor(private readonly next: Op, parents: number) {
    this.open = parents;
  }
  push(batch: Batch): void {
    this.next.push(batch);
  }
  end(): Ended {
    if (--this.open === 0) return this.next.end();
  }
  get done(): boolean {
    return this.next.done;
  }
}

/** Copies every value to every leg. */
export class Fork implements Op {
  constructor(private readonly legs: Op[]) {}
  push(batch: Batch): void {
    for (const leg of this.legs) if (!leg.done) leg.push(batch);
  }
  end(): Ended {
    return endEach(this.legs);
  }
  get done(): boolean {
    return this.legs.every((l) => l.done);
  }
}

/** Sends values to legs by partition: route returns leg indexes for a value. */
abstract class Router implements Op {
  constructor(protected readonly legs: Op[]) {}
  protected abstract route(v: Value, out: Batch[]): void;
  push(batch: Batch): void {
    const out: Batch[] = this.legs.map(() => []);
    for (const v of batch) this.route(v, out);
    for (let i = 0; i < out.length; i++) {
      if (out[i].length > 0 && !this.legs[i].done) this.legs[i].push(out[i]);
    }
  }
  end(): Ended {
    return endEach(this.legs);
  }
  get done(): boolean {
    return this.legs.every((l) => l.done);
  }
}

/**
 * `switch e ( case c => ... default => ... )`: a value goes to the first case
 * whose constant has the same body encoding as e's value (types are not
 * compared, as in the reference), else to the default leg. A missing switch
 * value is dropped.
 */
export class ValueSwitch extends Router {
  private keys: (Uint8Array | null)[];
  /** cases has a constant per leg, null for the default leg. */
  constructor(
    legs: Op[],
    private readonly expr: Expr,
    cases: (Value | null)[],
    private readonly defaultLeg: number,
  ) {
    super(legs);
    this.keys = cases.map((c) => (c === null ? null : encodeBody(c.type, c.body)));
  }
  protected route(v: Value, out: Batch[]): void {
    const k = this.expr(v);
    if (isMissing(k)) return;
    const enc = encodeBody(k.type, k.body);
    for (let i = 0; i < this.keys.length; i++) {
      const key = this.keys[i];
      if (key !== null && bytesEqual(key, enc)) {
        out[i].push(v);
        return;
      }
    }
    if (this.defaultLeg >= 0) out[this.defaultLeg].push(v);
  }
}

/**
 * `switch ( case p => ... )`: the first case whose predicate is true takes
 * the value. A missing predicate is skipped; any other error value goes to
 * that case's leg in place of the value, and the search goes on.
 */
export class BoolSwitch extends Router {
  constructor(legs: Op[], private readonly preds: Expr[]) {
    super(legs);
  }
  protected route(v: Value, out: Batch[]): void {
    for (let i = 0; i < this.preds.length; i++) {
      const r = this.preds[i](v);
      if (r.body === true) {
        out[i].push(v);
        return;
      }
      if (isError(r) && !isMissing(r)) out[i].push(r);
    }
  }
}

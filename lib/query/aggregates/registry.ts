// Aggregate functions. An Aggregator accumulates the values offered to it and
// reports its result at any time: summarize asks once per group at the end,
// a running aggregate in an expression asks after every value.

import type { Type } from "../../zed/types.ts";
import type { Value } from "../../zed/value.ts";

export interface Aggregator {
  /**
   * Offers a value. The caller has already applied the aggregate's `where`
   * clause and dropped error("missing"); everything else (nulls, other
   * errors) is offered and the aggregate ignores what it does not consume.
   */
  consume(v: Value): void;
  /** Offers the same value n times, where the aggregate can do that at once. */
  consumeN?(v: Value, n: number): void;
  /**
   * Offers numbers straight from a column, where the aggregate takes a
   * number's float value: f64[i] for i = rows[r], r in [from, to), the rows
   * whose state is VALUE (others are null and ignored), in that order. An
   * aggregate that takes numbers so ignores every null it is offered.
   */
  consumeNumbers?(
    f64: Float64Array,
    state: Uint8Array,
    rows: Int32Array,
    from: number,
    to: number,
  ): void;
  /**
   * Offers strings or bytes of type t straight from a column: for i = rows[r],
   * r in [from, to), in that order, the body data[offsets[i], offsets[i+1])
   * where state[i] is VALUE, a null of type t where it is NULL_ROW (ABSENT
   * rows are missing, not offered); as consume() would take them.
   */
  consumeBinary?(
    t: Type,
    v: { data: Uint8Array; offsets: Int32Array; state: Uint8Array },
    rows: Int32Array,
    from: number,
    to: number,
  ): void;
  /** The result so far. */
  result(): Value;
  /**
   * Appends values that capture the state, for summarize to spill it to
   * disk; restore() takes them back.
   */
  save?(out: Value[]): void;
  /**
   * Takes back a state that save() wrote: into a fresh aggregator, that
   * state exactly; when the def is mergeable, also on top of a state, with
   * the same result as consuming the values behind the saved state next.
   */
  restore?(state: readonly Value[]): void;
  /** Estimated bytes of the state, for defs whose state grows with the input. */
  size?(): number;
}

export interface AggregateDef {
  /** Fewest and most arguments (count takes 0 or 1, the others exactly 1). */
  min: number;
  max: number;
  make(): Aggregator;
  /** restore() merges saved states in order exactly (see Aggregator.restore). */
  mergeable?: boolean;
  /** The state grows with the values consumed; size() estimates it. */
  grows?: boolean;
}

const aggregates = new Map<string, AggregateDef>();

export function registerAggregate(name: string, def: AggregateDef): void {
  aggregates.set(name, def);
}

export function lookupAggregate(name: string): AggregateDef | undefined {
  return aggregates.get(name);
}

export function isAggregateName(name: string): boolean {
  return aggregates.has(name);
}

// The order of a pool's data (lake-api.md §7.4): values by their pool key in
// the pool's direction, missing keys as null and nulls last in both
// directions, ties broken by the values' encoded bytes (in the same
// direction) so the order is total and loads are deterministic.

import { compareBytes } from "../zed/bytes.ts";
import { compareValues } from "../zed/compare.ts";
import type { Value } from "../zed/value.ts";
import { compileFieldPath, type Expr, isMissing, NULL } from "../query/mod.ts";
import { type PoolConfig, sortKey } from "./pools.ts";

export class PoolKey {
  readonly path: string[];
  readonly desc: boolean;
  private readonly get: Expr;

  constructor(path: string[], order: "asc" | "desc") {
    this.path = path;
    this.desc = order === "desc";
    this.get = compileFieldPath(path);
  }

  static of(pool: PoolConfig): PoolKey {
    return new PoolKey(sortKey(pool), pool.layout.order);
  }

  /** The key of a value: null when it is missing. */
  keyOf(v: Value): Value {
    const k = this.get(v);
    return isMissing(k) ? NULL : k;
  }

  /** Compares keys in pool order, nulls last. */
  compare(a: Value, b: Value): number {
    if (a.body === null || b.body === null) {
      if (a.body === b.body) return 0;
      return a.body === null ? 1 : -1;
    }
    const c = compareValues(a.type, a.body, b.type, b.body);
    return this.desc ? -c : c;
  }

  /** Compares the encoded bodies of two values with equal keys, in pool order. */
  compareTies(a: Uint8Array, b: Uint8Array): number {
    const c = compareBytes(a, b);
    return this.desc ? -c : c;
  }
}

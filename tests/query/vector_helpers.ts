// Vectors built by hand for the column kernels' tests.

import { TypeString } from "../../lib/zed/types.ts";
import { ABSENT, BinaryVector, NULL_ROW, VALUE } from "../../lib/zed/vector.ts";

/** Per row: VALUE, NULL_ROW for null, ABSENT for undefined. */
export function stateOf(xs: readonly unknown[]): Uint8Array {
  return Uint8Array.from(xs, (x) => x === undefined ? ABSENT : x === null ? NULL_ROW : VALUE);
}

/** A column of strings (a null or undefined row holds none). */
export function stringVector(xs: readonly unknown[]): BinaryVector {
  const enc = new TextEncoder();
  const bytes = xs.map((x) => enc.encode(typeof x === "string" ? x : ""));
  const offsets = new Int32Array(xs.length + 1);
  bytes.forEach((b, i) => (offsets[i + 1] = offsets[i] + b.length));
  const data = new Uint8Array(offsets[xs.length]);
  bytes.forEach((b, i) => data.set(b, offsets[i]));
  return new BinaryVector(TypeString, stateOf(xs), offsets, data, true);
}

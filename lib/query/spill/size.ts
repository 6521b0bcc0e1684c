// Cheap estimates of the memory values hold, for the spill budget. They only
// need to grow in proportion to the real heap use: a fixed cost per object
// plus the length of strings and byte arrays. Batches are estimated from a
// few of their values (measuring every value would cost as much as a sort's
// comparisons), since the values of one batch are usually alike.

import { type Batch, type Body, UnionBody, type Value } from "../../zed/value.ts";

/** Per value: the Value object and its slot in an array. */
const VALUE_COST = 40;

/** Estimated bytes of a body. */
export function bodySize(b: Body): number {
  if (b === null) return 0;
  switch (typeof b) {
    case "string":
      return 16 + b.length;
    case "object": {
      if (Array.isArray(b)) {
        let n = 16 + 8 * b.length;
        for (let i = 0; i < b.length; i++) n += bodySize(b[i]);
        return n;
      }
      if (b instanceof Uint8Array) return 64 + b.length;
      if (b instanceof UnionBody) return 24 + bodySize(b.body);
      return 8; // a type value: interned, shared
    }
    case "bigint":
      return 24;
    default:
      return 8;
  }
}

/** Estimated bytes of a value. */
export function valueSize(v: Value): number {
  return VALUE_COST + bodySize(v.body);
}

/** Values of a batch measured to estimate it. */
const SAMPLES = 4;
/** Varies where batches are sampled, so a pattern in the input does not line up with the samples. */
let offset = 0;

/** Estimated bytes of a batch, from a sample of its values. */
export function batchSize(batch: Batch): number {
  const n = batch.length;
  if (n <= SAMPLES) {
    let s = 0;
    for (let i = 0; i < n; i++) s += valueSize(batch[i]);
    return s;
  }
  const stride = Math.floor(n / SAMPLES);
  offset = (offset + 1) % stride;
  let s = 0;
  for (let k = 0; k < SAMPLES; k++) s += valueSize(batch[offset + k * stride]);
  return Math.ceil((s * n) / SAMPLES);
}

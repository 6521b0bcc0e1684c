// Per dictionary column: how many rows hold each entry (and null), and their
// values' total size. Worked out once per column vector (they are cached
// and never change), so a count filtered on a dictionary column, or a count
// grouped by one, costs a pass over the entries rather than over the rows.

import { type DictVector, NULL_ROW, VALUE } from "../../zed/vector.ts";
import type { TypeIndex } from "./codes.ts";

export interface DictHistogram {
  /** Rows per entry. */
  counts: Float64Array;
  /** Rows with null. */
  nulls: number;
  /** Per entry, the size of its rows' values (when asked for with sizes). */
  bytes: Float64Array | null;
  nullBytes: number;
}

const histograms = new WeakMap<DictVector, DictHistogram>();

/** The histogram of v; with sizes (each row's value size), its bytes too. */
export function dictHistogram(v: DictVector, sizes: Uint32Array | null): DictHistogram {
  let h = histograms.get(v);
  if (h !== undefined && (sizes === null || h.bytes !== null)) return h;
  const n = v.entries.length, state = v.state, index = v.index;
  const counts = new Float64Array(n);
  const bytes = sizes === null ? null : new Float64Array(n);
  let nulls = 0, nullBytes = 0;
  for (let i = 0; i < state.length; i++) {
    const s = state[i];
    if (s === VALUE) {
      const e = index[i];
      counts[e]++;
      if (bytes !== null) bytes[e] += sizes![i];
    } else if (s === NULL_ROW) {
      nulls++;
      if (sizes !== null) nullBytes += sizes[i];
    }
  }
  h = { counts, nulls, bytes, nullBytes };
  histograms.set(v, h);
  return h;
}

const typeTotals = new WeakMap<Uint32Array, Float64Array>();

/** Per record type, the total size of its rows' values. */
export function bytesPerType(sizes: Uint32Array, types: TypeIndex, ntypes: number): Float64Array {
  let t = typeTotals.get(sizes);
  if (t === undefined) {
    t = new Float64Array(ntypes);
    if (types === null) { for (let i = 0; i < sizes.length; i++) t[0] += sizes[i]; }
    else for (let i = 0; i < sizes.length; i++) t[types[i]] += sizes[i];
    typeTotals.set(sizes, t);
  }
  return t;
}

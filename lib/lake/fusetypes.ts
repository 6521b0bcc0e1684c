// The type a `fuse` makes of a pool's values, from its objects' columns: the
// record types of the rows the filter passes, fused in the order each first
// appears in pool order — as the operator fuses them while reading every
// value — without decoding more than a few rows. Pool order is by key (nulls
// and rows without the key last), equal keys by the values' encodings, in
// every object and across them (sortbuffer.ts, the scan's merge). So a type
// first appears in an object at its first passing row of that type, and of
// those candidates the least in that order comes first across objects; only
// candidates whose keys tie across objects have their rows decoded, for
// their encodings. A key of a type columns do not hold (an error, where a
// log has no ts) is known only for an object's first row, from its metadata.
// Where a value is not a record, such a key is on a later row, or two
// candidates of different types are equal even in their encodings, the
// columns cannot tell (null).

import { fuseTypes, lookupPath, NULL, type Selection } from "../query/mod.ts";
import { Kind, type Type, typeUnder } from "../zed/types.ts";
import { Value } from "../zed/value.ts";
import { NULL_ROW, VALUE } from "../zed/vector.ts";
import type { ObjectColumns } from "./columns/mod.ts";
import type { PoolKey } from "./poolkey.ts";

/** Where a type first appears in one object (obj: its index): its first passing row of it and that row's key. */
export interface FirstRow {
  obj: number;
  row: number;
  type: Type;
  key: Value;
}

/** The encoded bodies of rows (to order those whose keys tie). */
export type Encodings = (rows: FirstRow[]) => Promise<Map<FirstRow, Uint8Array>>;

/**
 * The fused type of the passing rows of objects' columns, with each
 * object's selection (null: every row) and the key of its first row (its
 * metadata's); undefined when no row passes; null when the columns cannot
 * tell.
 */
export async function fusedType(
  key: PoolKey,
  cols: ObjectColumns[],
  sels: (Selection | null)[],
  firstKeys: readonly Value[],
  encodings: Encodings,
): Promise<Type | null | undefined> {
  const firsts: FirstRow[] = [];
  for (let i = 0; i < cols.length; i++) {
    const found = await firstRows(key, cols[i], sels[i], i, firstKeys[i]);
    if (found === null) return null;
    for (const f of found) firsts.push(f);
  }
  firsts.sort((a, b) => key.compare(a.key, b.key) || a.obj - b.obj || a.row - b.row);
  // Runs of equal keys from more than one object: in their encodings' order
  // (the rows of every such run decoded at once).
  const runs: [number, number][] = [];
  for (let i = 0; i < firsts.length;) {
    let j = i + 1;
    while (j < firsts.length && key.compare(firsts[i].key, firsts[j].key) === 0) j++;
    if (firsts.slice(i + 1, j).some((f) => f.obj !== firsts[i].obj)) runs.push([i, j]);
    i = j;
  }
  if (runs.length > 0) {
    const enc = await encodings(runs.flatMap(([i, j]) => firsts.slice(i, j)));
    const byEncoding = (a: FirstRow, b: FirstRow) => key.compareTies(enc.get(a)!, enc.get(b)!);
    for (const [i, j] of runs) {
      const run = firsts.slice(i, j).sort((a, b) =>
        byEncoding(a, b) || a.obj - b.obj || a.row - b.row
      );
      for (let k = 1; k < run.length; k++) {
        const a = run[k - 1], b = run[k];
        if (a.obj !== b.obj && a.type !== b.type && byEncoding(a, b) === 0) return null;
      }
      for (let k = 0; k < run.length; k++) firsts[i + k] = run[k];
    }
  }
  let fused: Type | undefined = undefined;
  const seen = new Set<Type>();
  for (const f of firsts) {
    if (seen.has(f.type)) continue;
    seen.add(f.type);
    fused = fused === undefined ? f.type : fuseTypes(fused, f.type);
  }
  return fused;
}

/** Per record type of an object, its first passing row and that row's key; null when columns cannot tell. */
async function firstRows(
  key: PoolKey,
  c: ObjectColumns,
  sel: Selection | null,
  obj: number,
  firstKey: Value,
): Promise<FirstRow[] | null> {
  const types = c.types;
  if (!types.every((t) => typeUnder(t).kind === Kind.Record)) return null;
  const index = await c.typeIndex();
  const first = new Int32Array(types.length).fill(-1);
  let left = types.length;
  for (let i = 0; i < c.rows && left > 0; i++) {
    if (sel !== null && sel.rows[i] !== 1) continue;
    const k = index === null ? 0 : index[i];
    if (first[k] < 0) {
      first[k] = i;
      left--;
    }
  }
  const out: FirstRow[] = [];
  for (let k = 0; k < types.length; k++) {
    const row = first[k];
    if (row < 0) continue;
    let rowKey: Value;
    if (lookupPath(types[k], key.path).kind === "missing") rowKey = NULL;
    else {
      const ref = c.columnsOf(key.path).find((r) => r.covers.includes(k));
      if (ref === undefined) {
        // A key of a type columns do not hold (an error where a log has no
        // ts): known from the object's metadata for its first row.
        if (row !== 0) return null;
        out.push({ obj, row, type: types[k], key: firstKey });
        continue;
      }
      const v = await c.vector(ref);
      const s = v.state[row];
      if (s !== VALUE && s !== NULL_ROW) return null;
      rowKey = s === VALUE ? new Value(ref.type, v.body(row)) : NULL;
    }
    out.push({ obj, row, type: types[k], key: rowKey });
  }
  return out;
}

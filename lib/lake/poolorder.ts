// Rows of several objects put in pool order from their key columns: merged
// by key (keymerge.ts), equal keys in different objects (and rows without a
// key) by their values' bytes as a scan's merge orders them (ties.ts), read
// from the columns too where the keys alone do not tell.

import { mergeRows, type PathValues, pathValues, RunKeys, type TieOrder } from "../query/mod.ts";
import type { ObjectColumns } from "./columns/mod.ts";
import type { PoolKey } from "./poolkey.ts";
import { RowTies } from "./ties.ts";

/**
 * rows[i] (object i's rows, ascending; null or empty: none of its rows) in
 * pool order, as runs of one object's: triples of the object, and the run's
 * range [from, to) in its rows[i]; null where the columns cannot tell.
 */
export async function rowsInPoolOrder(
  key: PoolKey,
  cols: readonly ObjectColumns[],
  rows: readonly (Int32Array | null)[],
): Promise<Int32Array | null> {
  const holding: number[] = [];
  for (let i = 0; i < cols.length; i++) if ((rows[i]?.length ?? 0) > 0) holding.push(i);
  const run = cols.map((_, i) => {
    const r = rows[i] ?? EMPTY;
    return { p: { rows: r, start: Int32Array.of(0, r.length) } };
  });
  const parts = holding.map((k) => ({ k, g: 0 }));
  const keys = await runKeys(key, cols, rows);
  if (keys === null) return null;
  const merged = mergeRows(run, parts, keys);
  if (merged !== null) return toObjects(merged);
  // Keys that tie across objects, or rows without one: by the values' bytes.
  const upTo = new Map<number, number>();
  for (const i of holding) upTo.set(i, rows[i]![rows[i]!.length - 1] + 1);
  const ties = await tieOrder(cols, upTo, key.desc);
  return ties === null ? null : toObjects(mergeRows(run, parts, keys, ties));

  /** The merge's triples with the part replaced by its object. */
  function toObjects(m: Int32Array | null): Int32Array | null {
    if (m === null) return null;
    for (let t = 0; t < m.length; t += 3) m[t] = parts[m[t]].k;
    return m;
  }
}

const EMPTY = new Int32Array(0);

/**
 * The pool order of rows with equal keys (or none) in different objects,
 * rows [0, upTo) of each object named there: by their values' bytes from the
 * columns (ties.ts); null where the columns are not read synchronously.
 */
export async function tieOrder(
  cols: readonly ObjectColumns[],
  upTo: ReadonlyMap<number, number>,
  desc: boolean,
): Promise<TieOrder | null> {
  for (const i of upTo.keys()) if (!cols[i].readsAlone) return null;
  const ties = await RowTies.of(cols, upTo, desc);
  return (a, i, b, j) => ties.compare(a, i, b, j);
}

/**
 * The pool keys of the objects some of whose rows are named (rows[i] not
 * null or empty), compared row against row; null where some are not in
 * columns.
 */
export async function runKeys(
  key: PoolKey,
  cols: readonly ObjectColumns[],
  rows: readonly (Int32Array | null)[],
): Promise<RunKeys | null> {
  const keyed: (PathValues | null)[] = [];
  for (let i = 0; i < cols.length; i++) {
    if ((rows[i]?.length ?? 0) === 0) {
      keyed.push(null);
      continue;
    }
    const pv = await pathValues(cols[i], await cols[i].typeIndex(), key.path);
    if (pv === null) return null;
    keyed.push(pv);
  }
  return new RunKeys(keyed, key);
}

// `tail N` of a pool (also with a `cut` of fields by name next to it), from
// columns: an object's rows are in pool order, so only its last N rows that
// pass the filter can be among the pool's last N. Those rows of every object
// are merged in pool order by their key columns (equal keys in different
// objects by their values' encodings, as a scan merges them: poolorder.ts),
// the last N kept, and only they are made into values (picks.ts). Null where the
// columns cannot tell (the caller runs the operator over the rows instead).

import type { VectorFilter } from "../query/mod.ts";
import type { HeadCut } from "../query/mod.ts";
import type { Value } from "../zed/value.ts";
import type { ObjectColumns } from "./columns/mod.ts";
import type { Lake } from "./lake.ts";
import type { DataObject } from "./objects.ts";
import { countWholeRead, liveColumns, type Pick, PickedValues } from "./picks.ts";
import { rowsInPoolOrder, runKeys } from "./poolorder.ts";
import type { PoolKey } from "./poolkey.ts";
import type { PoolConfig } from "./pools.ts";
import type { KeyRange } from "./prune.ts";
import type { ScanStats } from "./scan.ts";

/**
 * The most values, and rows looked at, a tail from columns holds; more is
 * left to the operator, which counts what it holds against the query's memory.
 */
export const MAX_COLUMN_TAIL = 100_000;
const MAX_PICKS = 1_000_000;

export interface TailPlan {
  limit: number;
  range: KeyRange | null;
  /** The filter over columns, or null when there is no filter. */
  vector: VectorFilter | null;
  /** The top-level fields the query reads, or null for all. */
  fields: string[] | null;
  cut: HeadCut | null;
}

/** The last `limit` values in pool order (cut, with a cut), or null when the columns cannot tell. */
export async function tailFromColumns(
  lake: Lake,
  pool: PoolConfig,
  key: PoolKey,
  objects: DataObject[],
  plan: TailPlan,
  stats: ScanStats,
): Promise<Value[] | null> {
  const { limit, range } = plan;
  if (limit > MAX_COLUMN_TAIL) return null;
  const found = await liveColumns(lake, pool, objects, range, plan.vector);
  if (found === null) return null;
  const { live, cols, sels } = found;
  // Each object's last `limit` rows that pass, ascending.
  const last: Int32Array[] = [];
  let picked = 0;
  for (let i = 0; i < live.length; i++) {
    const c = cols[i], sel = sels[i]?.all === false ? sels[i]!.rows : null;
    const rows = new Int32Array(Math.min(limit, sel === null ? c.rows : sels[i]!.count));
    let at = rows.length;
    for (let r = c.rows - 1; r >= 0 && at > 0; r--) {
      if (sel === null || sel[r] === 1) rows[--at] = r;
    }
    last.push(rows);
  }
  if (!(await pruneBefore(key, cols, last, limit))) return null;
  for (const rows of last) picked += rows.length;
  if (picked > MAX_PICKS) return null;
  const runs = await rowsInPoolOrder(key, cols, last);
  if (runs === null) return null;
  // The last `limit` of them, from the last run back.
  const picks: Pick[] = [];
  for (let t = runs.length - 3; t >= 0 && picks.length < limit; t -= 3) {
    const obj = runs[t], rows = last[obj];
    for (let k = runs[t + 2] - 1; k >= runs[t + 1] && picks.length < limit; k--) {
      picks.push({ obj, row: rows[k] });
    }
  }
  picks.reverse();
  const made = new PickedValues(lake, pool, key, plan.fields, plan.cut, stats, false);
  const out = await made.values(live, cols, picks);
  await countWholeRead(stats, objects, live, cols, sels);
  return out;
}

/**
 * Drops from each object's candidates (its last `limit` passing rows,
 * ascending) those whose key comes before a bound no row of the pool's last
 * `limit` comes before: an object with `limit` candidates has that many rows
 * at or after its first candidate's key, so the pool's last `limit` are at or
 * after the latest of those keys (equal keys kept: their order is the
 * values'). False where the keys are not in columns.
 */
async function pruneBefore(
  key: PoolKey,
  cols: readonly ObjectColumns[],
  last: Int32Array[],
  limit: number,
): Promise<boolean> {
  const keys = await runKeys(key, cols, last);
  if (keys === null) return false;
  let bound = -1;
  for (let i = 0; i < cols.length; i++) {
    if (last[i].length < limit) continue;
    if (bound < 0 || keys.compare(i, last[i][0], bound, last[bound][0]) > 0) bound = i;
  }
  if (bound < 0) return true;
  const b = last[bound][0];
  for (let i = 0; i < cols.length; i++) {
    const rows = last[i];
    let k = 0;
    while (k < rows.length && keys.compare(i, rows[k], bound, b) < 0) k++;
    if (k > 0) last[i] = rows.subarray(k);
  }
  return true;
}

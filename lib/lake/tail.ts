// `tail N` of a pool (also with a `cut` of fields by name next to it), from
// columns: an object's rows are in pool order, so only its last N rows that
// pass the filter can be among the pool's last N. Those rows of every object
// are put in pool order by their key columns (equal keys in different
// objects by their values' encodings, as a scan merges them), the last N
// kept, and only they are made into values (picks.ts). Null where the
// columns cannot tell (the caller runs the operator over the rows instead).

import type { VectorFilter } from "../query/mod.ts";
import type { HeadCut } from "../query/mod.ts";
import type { Value } from "../zed/value.ts";
import type { Lake } from "./lake.ts";
import type { DataObject } from "./objects.ts";
import { countWholeRead, inPoolOrder, liveColumns, type Pick, PickedValues } from "./picks.ts";
import type { PoolKey } from "./poolkey.ts";
import type { PoolConfig } from "./pools.ts";
import type { KeyRange } from "./prune.ts";
import type { ScanStats } from "./scan.ts";

/**
 * The most values, and rows looked at, a tail from columns holds; more is
 * left to the operator, which counts what it holds against the query's memory.
 */
export const MAX_COLUMN_TAIL = 10_000;
const MAX_PICKS = 200_000;

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
  const last: Pick[] = [];
  for (let i = 0; i < live.length; i++) {
    const c = cols[i], sel = sels[i]?.all === false ? sels[i]!.rows : null;
    let taken = 0;
    for (let r = c.rows - 1; r >= 0 && taken < limit; r--) {
      if (sel !== null && sel[r] !== 1) continue;
      last.push({ obj: i, row: r });
      taken++;
    }
    if (last.length > MAX_PICKS) return null;
  }
  const made = new PickedValues(lake, pool, key, plan.fields, plan.cut, stats, false);
  const ordered = await inPoolOrder(last, live, cols, key, made);
  if (ordered === null) return null;
  const out = await made.values(live, cols, ordered.slice(Math.max(0, ordered.length - limit)));
  await countWholeRead(stats, objects, live, cols, sels);
  return out;
}

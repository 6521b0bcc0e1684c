// Columns for objects written before loch wrote them with every object: the
// one-time upgrade `loch serve` runs in the background when it opens a lake.
// Each such object is read whole (in object order), its columns built and
// written, and the catalog row updated; queries use the row path for an
// object until its columns are there. Columns older versions built at query
// time (vectors/) are removed once a pool is done.

import type { Lake } from "../lake.ts";
import { listPools, type PoolConfig } from "../pools.ts";
import { type DataObject, objectsWithoutColumns, setObjectColumns } from "../objects.ts";
import { PoolKey } from "../poolkey.ts";
import { newScanStats, PoolScan } from "../scan.ts";
import { SortBuffer } from "../sortbuffer.ts";
import { maybeYield } from "../../query/mod.ts";

export interface UpgradeProgress {
  pool: string;
  done: number;
  total: number;
}

/** Writes the columns of every object of the lake that has none; returns how many. */
export async function upgradeColumns(
  lake: Lake,
  onProgress?: (p: UpgradeProgress) => void,
  signal?: AbortSignal,
): Promise<number> {
  let n = 0;
  for (const pool of listPools(lake.catalog)) {
    const todo = objectsWithoutColumns(lake.catalog, pool.id);
    for (let k = 0; k < todo.length; k++) {
      if (signal?.aborted) return n;
      await writeColumnsOf(lake, pool, todo[k]);
      n++;
      onProgress?.({ pool: pool.name, done: k + 1, total: todo.length });
    }
    await lake.storage.removeTree(`${lake.poolDir(pool.id)}/vectors`);
  }
  return n;
}

/** Builds and writes one object's columns from its rows. */
export async function writeColumnsOf(lake: Lake, pool: PoolConfig, o: DataObject): Promise<void> {
  const key = PoolKey.of(pool);
  const scan = new PoolScan(lake, pool, key, [o], {
    range: null,
    filter: null,
    stats: newScanStats(),
  });
  const buf = new SortBuffer();
  try {
    for (let b = await scan.read(); b !== null; b = await scan.read()) {
      for (const v of b) buf.add(v, key.keyOf(v));
      await maybeYield();
    }
  } finally {
    await scan.close();
  }
  const order = new Uint32Array(buf.length);
  for (let i = 0; i < order.length; i++) order[i] = i;
  const path = lake.columnsPath(pool.id, o.id);
  const manifest = await buf.writeColumns(lake.storage, path, order);
  setObjectColumns(lake.catalog, o.id, manifest);
}

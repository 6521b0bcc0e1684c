// An object's columns (Arrow IPC files beside its ZNG rows): written with the
// object (build.ts, arrowfile.ts), described in the catalog (manifest.ts),
// read on demand (reader.ts), and written once for objects of older lakes
// (upgrade.ts).

import type { Lake } from "../lake.ts";
import { type KSUID, toHex } from "../ksuid.ts";
import type { DataObject } from "../objects.ts";
import { ObjectColumnsInfo } from "./manifest.ts";
import { ObjectColumns } from "./reader.ts";
import { writeColumnsOf } from "./upgrade.ts";
import { listPools, type PoolConfig } from "../pools.ts";

function lookupPoolById(lake: Lake, id: KSUID): PoolConfig | undefined {
  return listPools(lake.catalog).find((p) => toHex(p.id) === toHex(id));
}

export { buildColumns, PREFIX } from "./build.ts";
export { type ColumnsManifest, parseManifest } from "./manifest.ts";
export {
  clearColumnCache,
  columnCache,
  columnCacheFromEnv,
  DEFAULT_COLUMN_CACHE,
  ObjectColumns,
  setColumnCacheBudget,
} from "./reader.ts";
export { upgradeColumns, writeColumnsOf } from "./upgrade.ts";
export { writeColumns } from "./write.ts";
export { columnProbe } from "./probe.ts";
export { ColumnRows, cutFromColumns, valuesFromColumns } from "./materialize.ts";

/** Objects' columns, by the (cached, immutable) metadata of each object; null: unusable. */
const opened = new WeakMap<DataObject, ObjectColumns | null>();

/**
 * An object's columns, or null when it has none: written before loch wrote
 * them, or (the file is not flushed to disk, see objectwriter.ts) lost to a
 * crash of the machine, in which case they are written again in the
 * background. The file is checked once per process.
 */
export function openColumns(lake: Lake, poolId: KSUID, o: DataObject): ObjectColumns | null {
  if (o.columns === null) return null;
  let cols = opened.get(o);
  if (cols === undefined || (cols !== null && cols.info.manifest !== o.columns)) {
    const path = lake.columnsPath(poolId, o.id);
    if (lake.storage.sizeSync(path) === o.columns.size) {
      const info = new ObjectColumnsInfo(o.columns);
      cols = new ObjectColumns(toHex(o.id), info, lake.storage, path);
    } else {
      cols = null;
      rewrite(lake, poolId, o);
    }
    opened.set(o, cols);
  }
  return cols;
}

/** Columns being written again, by object path (at most once at a time each). */
const rewriting = new Set<string>();

function rewrite(lake: Lake, poolId: KSUID, o: DataObject): void {
  const path = lake.columnsPath(poolId, o.id);
  if (rewriting.has(path)) return;
  const pool = lookupPoolById(lake, poolId);
  if (pool === undefined) return;
  rewriting.add(path);
  writeColumnsOf(lake, pool, o).then(
    () => opened.delete(o),
    () => {},
  ).finally(() => rewriting.delete(path));
}

// An object's columns (Arrow IPC files beside its ZNG rows): written with the
// object (build.ts, arrowfile.ts), described in the catalog (manifest.ts),
// read on demand (reader.ts), and written once for objects of older lakes
// (upgrade.ts).

import type { Lake } from "../lake.ts";
import { type KSUID, toHex } from "../ksuid.ts";
import type { DataObject } from "../objects.ts";
import { ObjectColumnsInfo } from "./manifest.ts";
import { ObjectColumns } from "./reader.ts";

export { buildColumns, PREFIX } from "./build.ts";
export { encodeColumns } from "./arrowfile.ts";
export { type ColumnsManifest, parseManifest } from "./manifest.ts";
export { clearColumnCache, columnCache, ObjectColumns } from "./reader.ts";
export { upgradeColumns, writeColumnsOf } from "./upgrade.ts";

/** Objects' columns, by the (cached, immutable) metadata of each object. */
const opened = new WeakMap<DataObject, ObjectColumns>();

/** An object's columns, or null when it has none (written before loch wrote them). */
export function openColumns(lake: Lake, poolId: KSUID, o: DataObject): ObjectColumns | null {
  if (o.columns === null) return null;
  let cols = opened.get(o);
  if (cols === undefined || cols.info.manifest !== o.columns) {
    const info = new ObjectColumnsInfo(o.columns);
    cols = new ObjectColumns(toHex(o.id), info, lake.storage, lake.columnsPath(poolId, o.id));
    opened.set(o, cols);
  }
  return cols;
}

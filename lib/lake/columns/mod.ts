// An object's columns (Arrow IPC files beside its ZNG rows): written with the
// object (build.ts, arrowfile.ts), described in the catalog (manifest.ts),
// read on demand (reader.ts), and written once for objects of older lakes
// (upgrade.ts).

import type { Lake } from "../lake.ts";
import { type KSUID, toHex } from "../ksuid.ts";
import type { DataObject } from "../objects.ts";
import { ObjectColumnsInfo } from "./manifest.ts";
import { ObjectColumns } from "./reader.ts";

export { buildColumns } from "./build.ts";
export { encodeColumns } from "./arrowfile.ts";
export { type ColumnsManifest, parseManifest } from "./manifest.ts";
export { clearColumnCache, columnCache, ObjectColumns } from "./reader.ts";
export { upgradeColumns, writeColumnsOf } from "./upgrade.ts";

const infos = new Map<string, ObjectColumnsInfo>();
const INFOS_MAX = 8192;

/** An object's columns, or null when it has none (written before loch wrote them). */
export function openColumns(lake: Lake, poolId: KSUID, o: DataObject): ObjectColumns | null {
  if (o.columns === null) return null;
  const key = toHex(o.id);
  let info = infos.get(key);
  if (info === undefined || info.manifest !== o.columns) {
    info = new ObjectColumnsInfo(o.columns);
    if (infos.size >= INFOS_MAX) infos.delete(infos.keys().next().value!);
    infos.set(key, info);
  }
  return new ObjectColumns(key, info, lake.storage, lake.columnsPath(poolId, o.id));
}

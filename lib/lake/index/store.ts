// Where index objects live and how they are recorded: one immutable ZNG file
// per (rule, data object) at <pool>/index/<rule>/<object>.zng, a row in the
// catalog's index_objects table, and bindings (add_index actions) in commits.
// A binding is visible at a commit (its snapshot) or a branch tip
// (tip_indexes) like data objects are.

import type { Catalog } from "../catalog/catalog.ts";
import { type KSUID, toBase62, toHex } from "../ksuid.ts";
import type { Lake } from "../lake.ts";

/** An index object bound to a data object. */
export interface IndexBinding {
  ruleId: KSUID;
  objectId: KSUID;
}

export function indexObjectPath(lake: Lake, poolId: KSUID, ruleId: KSUID, objectId: KSUID) {
  return `${lake.poolDir(poolId)}/index/${toBase62(ruleId)}/${toBase62(objectId)}.zng`;
}

/** Records a written index object (inside the commit's transaction); a repeat is a no-op. */
export function recordIndexObject(
  cat: Catalog,
  poolId: KSUID,
  ruleId: KSUID,
  objectId: KSUID,
  size: number,
): void {
  cat.run(
    "INSERT INTO index_objects (pool_id, rule_id, object_id, size) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
    poolId,
    ruleId,
    objectId,
    size,
  );
}

/** The size of a recorded index object, or undefined when none was written. */
export function indexObjectSize(
  cat: Catalog,
  poolId: KSUID,
  ruleId: KSUID,
  objectId: KSUID,
): number | undefined {
  return cat.get<{ size: number }>(
    "SELECT size FROM index_objects WHERE pool_id = ? AND rule_id = ? AND object_id = ?",
    poolId,
    ruleId,
    objectId,
  )?.size;
}

/** The index bindings of a branch tip. */
export function tipIndexes(cat: Catalog, poolId: KSUID, branch: string): IndexBinding[] {
  return cat.all<{ rule_id: Uint8Array; object_id: Uint8Array }>(
    "SELECT rule_id, object_id FROM tip_indexes WHERE pool_id = ? AND branch = ?",
    poolId,
    branch,
  ).map((r) => ({ ruleId: r.rule_id, objectId: r.object_id }));
}

/** Bindings grouped by data object (hex id). */
export function bindingsByObject(bindings: IndexBinding[]): Map<string, KSUID[]> {
  const m = new Map<string, KSUID[]>();
  for (const b of bindings) {
    const key = toHex(b.objectId);
    const rules = m.get(key);
    if (rules === undefined) m.set(key, [b.ruleId]);
    else rules.push(b.ruleId);
  }
  return m;
}

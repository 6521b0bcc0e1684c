// Applying index rules to a branch (lake-api.md §11.3, §11.4): build the index
// objects, then bind them to their data objects with one commit of add_index
// actions by `indexer`. `apply` indexes chosen objects (by object id, or a
// commit id standing for the objects that commit added); `update` indexes
// every object of the branch tip that lacks an index object of a rule.

import { invalid } from "../../errors.ts";
import { getBranch } from "../branches.ts";
import { commitToBranch } from "../branches.ts";
import type { Catalog } from "../catalog/catalog.ts";
import { type Action, commitActions, type CommitInfo, getCommit } from "../commits.ts";
import { type KSUID, parseID, toHex } from "../ksuid.ts";
import type { Lake } from "../lake.ts";
import type { PoolConfig } from "../pools.ts";
import { indexMessage, type IndexRule, listRules, lookupRules } from "../rules.ts";
import { buildIndexes, type BuiltIndex } from "./build.ts";
import { recordIndexObject, tipIndexes } from "./store.ts";

export const INDEXER = "indexer";

export interface ApplyRequest {
  /** Rule names or ids (base62 or 0x-hex). */
  rules: string[];
  /** Data object ids, or commit ids standing for the objects they added. */
  tags: string[];
}

/**
 * Applies rules to the tagged objects of the pool and commits the index
 * objects on the branch (an empty commit when the tags name no object, as
 * the reference). Unknown tags are ignored; an unknown rule fails.
 */
export async function applyRules(
  lake: Lake,
  pool: PoolConfig,
  branch: string,
  req: ApplyRequest,
): Promise<CommitInfo> {
  const cat = lake.catalog;
  getBranch(cat, pool.id, branch);
  const tags = req.tags.map(parseID);
  const objects = await resolveTags(lake, pool, tags);
  const rules = lookupRules(cat, req.rules);
  const built: BuiltIndex[] = [];
  for (const id of objects) built.push(...await buildIndexes(lake, pool.id, id, rules));
  return await commitIndexes(lake, pool, branch, rules, built);
}

/**
 * Indexes every data object of the branch tip for each of the rules (all
 * rules when none are named) it has no index object of yet. Nothing to do
 * is an error (`empty transaction`).
 */
export async function updateIndex(
  lake: Lake,
  pool: PoolConfig,
  branch: string,
  refs: string[] = [],
): Promise<CommitInfo> {
  const cat = lake.catalog;
  getBranch(cat, pool.id, branch);
  const rules = refs.length > 0 ? lookupRules(cat, refs) : listRules(cat);
  const have = new Set(
    tipIndexes(cat, pool.id, branch).map((b) => bindingKey(b.ruleId, b.objectId)),
  );
  const work: [KSUID, IndexRule[]][] = [];
  for (const id of tipObjectIds(cat, pool.id, branch)) {
    const missing = rules.filter((r) => !have.has(bindingKey(r.id, id)));
    if (missing.length > 0) work.push([id, missing]);
  }
  if (work.length === 0) throw invalid("empty transaction");
  const built: BuiltIndex[] = [];
  for (const [id, missing] of work) built.push(...await buildIndexes(lake, pool.id, id, missing));
  return await commitIndexes(lake, pool, branch, rules, built);
}

async function commitIndexes(
  lake: Lake,
  pool: PoolConfig,
  branch: string,
  rules: IndexRule[],
  built: BuiltIndex[],
): Promise<CommitInfo> {
  const actions: Action[] = built.map((b) => ({
    kind: "add_index",
    objectId: b.objectId,
    ruleId: b.rule.id,
  }));
  return await commitToBranch(lake, pool.id, branch, () => ({
    author: INDEXER,
    message: indexMessage(rules),
    meta: null,
    actions,
    record() {
      for (const b of built) {
        recordIndexObject(lake.catalog, pool.id, b.rule.id, b.objectId, b.size);
      }
    },
  }));
}

function bindingKey(ruleId: KSUID, objectId: KSUID): string {
  return toHex(ruleId) + ":" + toHex(objectId);
}

/** The data objects of a branch tip, by id. */
function tipObjectIds(cat: Catalog, poolId: KSUID, branch: string): KSUID[] {
  return cat.all<{ object_id: Uint8Array }>(
    "SELECT object_id FROM tip_objects WHERE pool_id = ? AND branch = ? ORDER BY object_id",
    poolId,
    branch,
  ).map((r) => r.object_id);
}

/**
 * The data objects tags name, in order, without repeats: a tag is a data
 * object of the pool (whose file is present), else a commit of the pool
 * (the objects it added), else nothing.
 */
async function resolveTags(lake: Lake, pool: PoolConfig, tags: KSUID[]): Promise<KSUID[]> {
  const cat = lake.catalog;
  const out: KSUID[] = [];
  const seen = new Set<string>();
  const take = (id: KSUID) => {
    const k = toHex(id);
    if (!seen.has(k)) {
      seen.add(k);
      out.push(id);
    }
  };
  for (const tag of tags) {
    if (await objectExists(lake, pool, tag)) {
      take(tag);
    } else if (getCommit(cat, pool.id, tag) !== undefined) {
      for (const a of commitActions(cat, tag)) if (a.kind === "add") take(a.objectId);
    }
  }
  return out;
}

async function objectExists(lake: Lake, pool: PoolConfig, id: KSUID): Promise<boolean> {
  const row = lake.catalog.get("SELECT 1 FROM objects WHERE id = ? AND pool_id = ?", id, pool.id);
  if (row === undefined) return false;
  return (await lake.storage.stat(lake.objectPath(pool.id, id))) !== undefined;
}

// Meta-queries (lake-api.md §10): `from :pools`, `from :branches`,
// `from :index_rules`, `from pool:branches` and the commit-level
// `from pool@branch:objects|log|rawlog|partitions|indexes|vectors`, as the
// records the reference emits.

import { LochError } from "../errors.ts";
import type { Value } from "../zed/value.ts";
import { listBranches } from "./branches.ts";
import { commitActions, commitChain } from "./commits.ts";
import { type KSUID, toHex } from "./ksuid.ts";
import type { Lake } from "./lake.ts";
import { type DataObject, getObjects } from "./objects.ts";
import { PoolKey } from "./poolkey.ts";
import { listPools, type PoolConfig } from "./pools.ts";
import {
  addActionValue,
  branchMetaValue,
  branchTipValue,
  commitValue,
  deleteActionValue,
  objectValue,
  partitionValue,
  poolValue,
} from "./records.ts";
import { type IndexRule, listRules, ruleById, ruleValue } from "./rules.ts";
import type { Catalog } from "./catalog/catalog.ts";
import type { IndexBinding } from "./index/store.ts";
import { addIndexActionValue, deleteIndexActionValue, indexObjectValue } from "./index/records.ts";
import { groupOverlapping } from "./scan.ts";

function unknown(level: string, name: string): LochError {
  // A client's fault: 400 (Zed answers 500).
  return new LochError("invalid", `unknown ${level} metadata type: ${JSON.stringify(name)}`);
}

/** `from :<name>`. */
export function lakeMeta(lake: Lake, name: string): Value[] {
  const cat = lake.catalog;
  switch (name) {
    case "pools":
      return listPools(cat).map(poolValue);
    case "branches":
      return listPools(cat).flatMap((p) =>
        listBranches(cat, p.id).map((b) => branchMetaValue(p, b))
      );
    case "index_rules":
      return listRules(cat).map(ruleValue);
  }
  throw unknown("lake", name);
}

/** `from <pool>:<name>`. */
export function poolMeta(lake: Lake, pool: PoolConfig, name: string): Value[] {
  if (name === "branches") {
    return listBranches(lake.catalog, pool.id).map((b) => branchMetaValue(pool, b));
  }
  throw unknown("pool", name);
}

/** A resolved `pool@commitish`: the commit and the data objects and index bindings live there. */
export interface CommitView {
  pool: PoolConfig;
  commit: KSUID;
  objects: DataObject[];
  /** Index objects bound at the commit (some may be of data objects no longer live). */
  indexes: IndexBinding[];
}

/** `from <pool>@<commitish>:<name>`. */
export function commitMeta(lake: Lake, view: CommitView, name: string): Value[] {
  const cat = lake.catalog;
  const { pool } = view;
  switch (name) {
    case "objects":
      return view.objects.map(objectValue);
    case "partitions": {
      const key = PoolKey.of(pool);
      return groupOverlapping(view.objects, (o) => o, key).map((group) => {
        let first = group[0].first, last = group[0].last;
        for (const o of group) {
          if (key.compare(o.first, first) < 0) first = o.first;
          if (key.compare(o.last, last) > 0) last = o.last;
        }
        return partitionValue(first, last, group);
      });
    }
    case "log": {
      const tips = listBranches(cat, pool.id).map((b) => branchTipValue(b.name, b.commit));
      const commits = commitChain(cat, pool.id, view.commit).map((c) => commitValue(c, "simple"));
      return [...tips, ...commits];
    }
    case "rawlog": {
      const out: Value[] = [];
      const rules = new RuleCache(cat);
      const chain = commitChain(cat, pool.id, view.commit).reverse();
      for (const c of chain) {
        out.push(commitValue(c, "package"));
        const actions = commitActions(cat, c.id);
        const added = new Map(
          getObjects(
            cat,
            actions.filter((a) => a.kind === "add").map((a) => a.objectId),
          ).map((o) => [o.id.join(), o]),
        );
        for (const a of actions) {
          if (a.kind === "add") {
            const o = added.get(a.objectId.join());
            if (o !== undefined) out.push(addActionValue(c.id, o));
          } else if (a.kind === "delete") {
            out.push(deleteActionValue(c.id, a.objectId));
          } else if (a.kind === "add_index") {
            const rule = rules.get(a.ruleId);
            if (rule !== undefined) out.push(addIndexActionValue(c.id, rule, a.objectId));
          } else {
            out.push(deleteIndexActionValue(c.id, a.ruleId, a.objectId));
          }
        }
      }
      return out;
    }
    case "vectors":
      // Zed lists the objects given a VNG copy by `zed vector add`, which loch
      // does not make; the Arrow columns every object has are loch's own.
      return [];
    case "indexes":
      return indexesMeta(cat, view);
  }
  throw unknown("commit", name);
}

/** Rules by id, each read from the catalog once. */
class RuleCache {
  private rules = new Map<string, IndexRule | undefined>();
  constructor(private cat: Catalog) {}
  get(id: KSUID): IndexRule | undefined {
    const k = toHex(id);
    if (!this.rules.has(k)) this.rules.set(k, ruleById(this.cat, id));
    return this.rules.get(k);
  }
}

/** `index.Object` for each index object whose data object is live, by rule, then object id. */
function indexesMeta(cat: Catalog, view: CommitView): Value[] {
  const live = new Set(view.objects.map((o) => toHex(o.id)));
  const rules = new RuleCache(cat);
  const found: { rule: IndexRule; objectId: KSUID; key: string }[] = [];
  for (const b of view.indexes) {
    const key = toHex(b.objectId);
    const rule = rules.get(b.ruleId);
    if (rule !== undefined && live.has(key)) found.push({ rule, objectId: b.objectId, key });
  }
  found.sort((a, b) =>
    order(a.rule.name, b.rule.name) || order(a.rule.ts, b.rule.ts) || order(a.key, b.key)
  );
  return found.map((f) => indexObjectValue(f.rule, f.objectId));
}

function order<T extends string | bigint>(a: T, b: T): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

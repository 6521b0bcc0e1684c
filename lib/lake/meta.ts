// Meta-queries (lake-api.md §10): `from :pools`, `from :branches`,
// `from :index_rules`, `from pool:branches` and the commit-level
// `from pool@branch:objects|log|rawlog|partitions|indexes|vectors`, as the
// records the reference emits.

import { LochError } from "../errors.ts";
import type { Value } from "../zed/value.ts";
import { listBranches } from "./branches.ts";
import { commitActions, commitChain } from "./commits.ts";
import type { KSUID } from "./ksuid.ts";
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
import { listRules, ruleValue } from "./rules.ts";
import { groupOverlapping } from "./scan.ts";

function unknown(level: string, name: string): LochError {
  return new LochError("internal", `unknown ${level} metadata type: ${JSON.stringify(name)}`);
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

/** A resolved `pool@commitish`: the commit and the objects live there. */
export interface CommitView {
  pool: PoolConfig;
  commit: KSUID;
  objects: DataObject[];
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
          }
        }
      }
      return out;
    }
    case "vectors":
      // No object has a vector (columnar) copy yet.
      return [];
    case "indexes":
      // Index objects arrive with index rules being applied; none exist before.
      return [];
  }
  throw unknown("commit", name);
}

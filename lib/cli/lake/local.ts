// The LakeAPI on a lake directory opened in this process (lib/lake).

import { createBranch, deleteBranch, getBranch } from "../../lake/branches.ts";
import { compact, planCompaction } from "../../lake/compact.ts";
import { deleteObjects, deleteWhere } from "../../lake/delete.ts";
import { applyRules, updateIndex } from "../../lake/index/apply.ts";
import type { KSUID } from "../../lake/ksuid.ts";
import type { Lake } from "../../lake/lake.ts";
import { load } from "../../lake/load.ts";
import type { CommitRequest } from "../../lake/load.ts";
import { mergeBranch, type MergeStrategy } from "../../lake/merge.ts";
import { tipObjects } from "../../lake/objects.ts";
import { PoolKey } from "../../lake/poolkey.ts";
import {
  type CreatePool,
  createPool,
  dropPool,
  lookupPool,
  type PoolConfig,
  renamePool,
} from "../../lake/pools.ts";
import { runLakeQuery } from "../../lake/query.ts";
import { LOCAL_ACCESS } from "../../query/mod.ts";
import { revertCommit } from "../../lake/revert.ts";
import { addRules, deleteRules, type RuleSpec } from "../../lake/rules.ts";
import { newScanStats } from "../../lake/scan.ts";
import { resolveCommit } from "../../lake/sources.ts";
import { vacuum } from "../../lake/vacuum.ts";
import { runTransaction, type TxRequest } from "../../lake/transaction.ts";
import type { ValueWriter } from "../../formats/io.ts";
import type {
  DroppedRule,
  LakeAPI,
  LoadRequest,
  LoadResult,
  QueryOptions,
  TxCommitted,
  VacuumReport,
} from "./api.ts";
import { sourceReader } from "./inputs.ts";
import { ConcatReader } from "../../formats/io.ts";

export class LocalLake implements LakeAPI {
  readonly remote = false;

  constructor(readonly lake: Lake, readonly location: string) {}

  createPool(req: CreatePool): Promise<PoolConfig> {
    return Promise.resolve(createPool(this.lake, req));
  }

  lookupPool(nameOrId: string): Promise<PoolConfig> {
    return Promise.resolve(lookupPool(this.lake.catalog, nameOrId));
  }

  renamePool(pool: PoolConfig, name: string): Promise<void> {
    renamePool(this.lake, pool.id, name);
    return Promise.resolve();
  }

  async dropPool(pool: PoolConfig): Promise<void> {
    await dropPool(this.lake, pool.id);
  }

  branchTip(pool: PoolConfig, branch: string): Promise<KSUID> {
    return Promise.resolve(getBranch(this.lake.catalog, pool.id, branch).commit);
  }

  checkCommitish(pool: PoolConfig, commitish: string): Promise<void> {
    resolveCommit(this.lake, pool, commitish);
    return Promise.resolve();
  }

  createBranch(pool: PoolConfig, name: string, commit: KSUID): Promise<void> {
    createBranch(this.lake, pool, name, commit);
    return Promise.resolve();
  }

  deleteBranch(pool: PoolConfig, name: string): Promise<void> {
    deleteBranch(this.lake, pool.id, name);
    return Promise.resolve();
  }

  async load(pool: PoolConfig, branch: string, req: LoadRequest): Promise<LoadResult> {
    // The load reads JSON from its bytes (lake/jsonintake.ts), past the
    // readers' own counts: the records counted are the load's.
    const reader = new ConcatReader(req.inputs.map((src) => sourceReader(src, req.format)));
    try {
      const r = await load(this.lake, pool, branch, reader, {
        commit: req.commit,
        onProgress: (p) => {
          req.counters.records = p.records;
          req.onProgress?.();
        },
      });
      return { commit: r.commit.id, warnings: r.warnings };
    } finally {
      await reader.close();
    }
  }

  async query(text: string, writer: ValueWriter, opts: QueryOptions = {}): Promise<void> {
    const stats = newScanStats();
    // The CLI runs on the user's machine: local files are the user's own.
    await runLakeQuery(this.lake, text, writer, {
      head: opts.head,
      stats,
      access: LOCAL_ACCESS,
      encodedOutput: opts.encodedOutput,
    });
    if (opts.stats !== undefined) {
      opts.stats.bytesRead = stats.bytesRead;
      opts.stats.bytesMatched = stats.bytesMatched;
      opts.stats.recordsRead = stats.recordsRead;
      opts.stats.recordsMatched = stats.recordsMatched;
    }
  }

  async merge(
    pool: PoolConfig,
    child: string,
    parent: string,
    commit: CommitRequest,
    strategy?: MergeStrategy,
  ): Promise<KSUID> {
    return (await mergeBranch(this.lake, pool, parent, child, commit, strategy)).id;
  }

  async revert(
    pool: PoolConfig,
    branch: string,
    id: KSUID,
    commit: CommitRequest,
  ): Promise<KSUID> {
    return (await revertCommit(this.lake, pool, branch, id, commit)).id;
  }

  async deleteObjects(
    pool: PoolConfig,
    branch: string,
    ids: KSUID[],
    commit: CommitRequest,
  ): Promise<KSUID> {
    return (await deleteObjects(this.lake, pool, branch, ids, commit)).id;
  }

  async deleteWhere(
    pool: PoolConfig,
    branch: string,
    where: string,
    commit: CommitRequest,
  ): Promise<KSUID> {
    return (await deleteWhere(this.lake, pool, branch, where, commit)).id;
  }

  async compact(
    pool: PoolConfig,
    branch: string,
    ids: KSUID[] | "auto",
    commit: CommitRequest,
  ): Promise<KSUID[]> {
    if (ids === "auto") {
      const cat = this.lake.catalog;
      getBranch(cat, pool.id, branch);
      const tip = tipObjects(cat, pool.id, branch);
      if (planCompaction(tip, PoolKey.of(pool), pool.threshold).length === 0) return [];
    }
    return [(await compact(this.lake, pool, branch, ids, commit)).id];
  }

  addIndexRules(specs: RuleSpec[]): Promise<void> {
    addRules(this.lake.catalog, specs);
    return Promise.resolve();
  }

  dropIndexRules(ids: KSUID[]): Promise<DroppedRule[]> {
    return Promise.resolve(deleteRules(this.lake.catalog, ids));
  }

  async applyIndexRules(
    pool: PoolConfig,
    branch: string,
    rules: string[],
    tags: string[],
  ): Promise<KSUID> {
    return (await applyRules(this.lake, pool, branch, { rules, tags })).id;
  }

  async updateIndex(pool: PoolConfig, branch: string, rules: string[]): Promise<KSUID> {
    return (await updateIndex(this.lake, pool, branch, rules)).id;
  }

  async vacuum(pool: PoolConfig, dryRun: boolean): Promise<VacuumReport> {
    const r = await vacuum(this.lake, pool, { dryRun });
    // Stray data files (left by crashed writes) count as objects; temp files do not.
    const data = `${this.lake.poolDir(pool.id)}/data/`;
    const strays = r.orphans.filter((p) => p.startsWith(data) && !p.includes(".tmp-"));
    const root = this.lake.root;
    return {
      objects: r.objects.length + strays.length,
      paths: r.paths.map((p) => p.slice(root.length).replace(/^\/+/, "")),
    };
  }

  close(): Promise<void> {
    this.lake.close();
    return Promise.resolve();
  }

  async transaction(req: TxRequest): Promise<TxCommitted[]> {
    const done = await runTransaction(this.lake, req);
    return done.map((c) => ({ pool: c.pool.name, branch: c.branch, commit: c.commit.id }));
  }
}

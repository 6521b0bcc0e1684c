// What the lake commands ask of a lake, as one interface with two
// implementations: local.ts works on a lake directory in this process,
// remote.ts talks to a lake service over HTTP (as the zed command's
// lake/api Interface). Pools are looked up once (by name or id) and then
// passed around as their config; listings (pools, branches, logs, index
// rules) are meta-queries run through query(), so both sides read the
// same records.

import type { TxRequest } from "../../lake/transaction.ts";
import { LochError } from "../../errors.ts";
import type { ValueWriter } from "../../formats/io.ts";
import type { KSUID } from "../../lake/ksuid.ts";
import type { CommitRequest } from "../../lake/load.ts";
import type { MergeStrategy } from "../../lake/merge.ts";
import type { CreatePool, PoolConfig } from "../../lake/pools.ts";
import type { RuleSpec } from "../../lake/rules.ts";
import type { Value } from "../../zed/value.ts";
import type { QueryStats } from "../../client/query.ts";
import type { InputCounters } from "./inputs.ts";

export type { QueryStats };

/** One input of a load: a file or stdin, read as raw bytes. */
export interface ByteSource {
  /** How errors name the input: its path, or `stdio:stdin`. */
  name: string;
  /** Opens the input; the chunks are counted in the load's counters as they are read. */
  open(): Promise<AsyncIterable<Uint8Array>>;
}

export interface LoadRequest {
  inputs: ByteSource[];
  /** An input format name, or "auto" to detect each input's. */
  format: string;
  commit: CommitRequest;
  /** Where what has been read is counted (for the progress line). */
  counters: InputCounters;
  /** Called as the load progresses. */
  onProgress?: () => void;
}

export interface LoadResult {
  commit: KSUID;
  /** Read errors that ended an input early (the service loads what came before them). */
  warnings: string[];
}

export interface QueryOptions {
  /** The pool and branch `from HEAD` (and a query without `from`) reads. */
  head?: { pool: string; branch: string };
  /** Receives what the query's scans read. */
  stats?: QueryStats;
  /** The writer takes values as they are encoded (ZNG: see LakeQueryOptions.encodedOutput). */
  encodedOutput?: boolean;
}

/** What vacuum removed (or would). */
export interface VacuumReport {
  /** Data objects removed (stray data files included). */
  objects: number;
  /** Every file and directory removed, relative to the lake's root. */
  paths: string[];
}

export interface DroppedRule {
  id: KSUID;
  name: string;
}

export interface LakeAPI {
  /** The lake directory, or the service's URL. */
  readonly location: string;
  readonly remote: boolean;

  createPool(req: CreatePool): Promise<PoolConfig>;
  /** A pool by id (base62 or 0x-hex), else by name; `<x>: pool not found` otherwise. */
  lookupPool(nameOrId: string): Promise<PoolConfig>;
  renamePool(pool: PoolConfig, name: string): Promise<void>;
  dropPool(pool: PoolConfig): Promise<void>;

  /** The tip commit of a branch. */
  branchTip(pool: PoolConfig, branch: string): Promise<KSUID>;
  /** Checks that a branch name or commit id names something in the pool. */
  checkCommitish(pool: PoolConfig, commitish: string): Promise<void>;
  createBranch(pool: PoolConfig, name: string, commit: KSUID): Promise<void>;
  deleteBranch(pool: PoolConfig, name: string): Promise<void>;

  load(pool: PoolConfig, branch: string, req: LoadRequest): Promise<LoadResult>;
  /** Runs a query, writing its values to writer (which it ends once output has started). */
  query(text: string, writer: ValueWriter, opts?: QueryOptions): Promise<void>;

  /** Merges child into parent with a commit on parent. */
  merge(
    pool: PoolConfig,
    child: string,
    parent: string,
    commit: CommitRequest,
    strategy?: MergeStrategy,
  ): Promise<KSUID>;
  revert(pool: PoolConfig, branch: string, id: KSUID, commit: CommitRequest): Promise<KSUID>;
  /** Deletes data objects (or the objects commits added). */
  deleteObjects(
    pool: PoolConfig,
    branch: string,
    ids: KSUID[],
    commit: CommitRequest,
  ): Promise<KSUID>;
  deleteWhere(
    pool: PoolConfig,
    branch: string,
    where: string,
    commit: CommitRequest,
  ): Promise<KSUID>;
  /**
   * Compacts the given objects, or with "auto" the ones compaction planning
   * picks; returns the commits made (none when there is nothing to compact).
   */
  compact(
    pool: PoolConfig,
    branch: string,
    ids: KSUID[] | "auto",
    commit: CommitRequest,
  ): Promise<KSUID[]>;

  addIndexRules(specs: RuleSpec[]): Promise<void>;
  dropIndexRules(ids: KSUID[]): Promise<DroppedRule[]>;
  applyIndexRules(
    pool: PoolConfig,
    branch: string,
    rules: string[],
    tags: string[],
  ): Promise<KSUID>;
  updateIndex(pool: PoolConfig, branch: string, rules: string[]): Promise<KSUID>;

  vacuum(pool: PoolConfig, dryRun: boolean): Promise<VacuumReport>;

  /** Commits a transaction's operations, all or none (lib/lake/transaction.ts). */
  transaction(req: TxRequest): Promise<TxCommitted[]>;

  close(): Promise<void>;
}

/** A commit of a transaction: the pool's name, the branch, the commit. */
export interface TxCommitted {
  pool: string;
  branch: string;
  commit: KSUID;
}

/** The error for a command the service has no route for. */
export function notOnService(api: LakeAPI, command: string): LochError {
  return new LochError(
    "invalid",
    `${command} is not available on a lake service (${api.location}): ` +
      `run it with -lake set to the lake's directory`,
  );
}

/** Fails for a command the service has no route for when the lake is remote. */
export function requireLocal(api: LakeAPI, command: string): void {
  if (api.remote) throw notOnService(api, command);
}

/** Runs a query and gathers its values. */
export async function queryValues(
  api: LakeAPI,
  text: string,
  opts?: QueryOptions,
): Promise<Value[]> {
  const out: Value[] = [];
  await api.query(text, {
    write(batch) {
      for (const v of batch) out.push(v);
      return Promise.resolve();
    },
    end: () => Promise.resolve(),
  }, opts);
  return out;
}

/** A string literal for query text (pool ids, branch names). */
export function literal(s: string): string {
  return JSON.stringify(s);
}

// Atomic commits across pools (`POST /transaction`, `loch tx`): loads,
// deletes and branch moves on any number of pools and branches commit all
// or none. Loads and rewrites write their objects first (orphans if
// anything fails, removed then, or by vacuum after a crash); then one
// catalog transaction makes one commit per branch (commitToBranches), and
// the events follow once all are durable.

import { invalid, LochError } from "../errors.ts";
import { openReader } from "../formats/detect.ts";
import { ByteInput } from "../formats/io.ts";
import { type CommitPart, type CommitPlan, getBranch } from "./branches.ts";
import { commitToBranches } from "./branches.ts";
import { type CommitInfo, snapshotAt } from "./commits.ts";
import { planDeleteObjects, planDeleteWhere, removeWritten } from "./delete.ts";
import { parseID, toBase62, toHex } from "./ksuid.ts";
import type { Lake } from "./lake.ts";
import { type CommitRequest, loadMessage, requestMeta, writeLoad } from "./load.ts";
import type { WrittenObject } from "./objectwriter.ts";
import { insertObject, tipObjects } from "./objects.ts";
import { lookupPool, type PoolConfig } from "./pools.ts";
import { resolveCommit } from "./sources.ts";

/** One operation of a transaction. branch defaults to main. */
export type TxOperation =
  /** Load data (text or bytes in any format loads take; detected unless format says). */
  | { op: "load"; pool: string; branch?: string; data: string | Uint8Array; format?: string }
  /** Delete by a filter, or data objects (or what commits added) by id. */
  | { op: "delete"; pool: string; branch?: string; where?: string; object_ids?: string[] }
  /** Make the branch hold what a commit or another branch holds (a commit that says so). */
  | { op: "move"; pool: string; branch?: string; to: string };

export interface TxRequest {
  operations: TxOperation[];
  author?: string;
  /** The commits' message (each operation's own when absent). */
  message?: string;
  /** A ZSON value recorded with each commit. */
  meta?: string;
}

export interface TxCommit {
  pool: PoolConfig;
  branch: string;
  commit: CommitInfo;
}

/** The parts of the transaction's commit, and what they wrote so far (removed on failure). */
interface Planned {
  pool: PoolConfig;
  part: CommitPart;
  written: WrittenObject[];
}

export async function runTransaction(lake: Lake, req: TxRequest): Promise<TxCommit[]> {
  const ops = req.operations;
  if (!Array.isArray(ops) || ops.length === 0) throw invalid("transaction: no operations");
  const commit: CommitRequest = { author: req.author, body: req.message, meta: req.meta };
  const meta = requestMeta(req.meta);
  const seen = new Set<string>();
  const planned: Planned[] = [];
  try {
    for (const op of ops) {
      const pool = lookupPool(lake.catalog, String(op.pool ?? ""));
      const branch = op.branch ?? "main";
      getBranch(lake.catalog, pool.id, branch);
      const key = `${toHex(pool.id)}/${branch}`;
      if (seen.has(key)) {
        throw invalid(`transaction: more than one operation on ${pool.name}@${branch}`);
      }
      seen.add(key);
      const written: WrittenObject[] = [];
      const entry: Planned = {
        pool,
        written,
        part: { poolId: pool.id, branch, build: () => ({} as CommitPlan) },
      };
      planned.push(entry);
      entry.part.build = await plan(lake, pool, branch, op, commit, meta, written);
    }
    const commits = await commitToBranches(lake, planned.map((p) => p.part));
    return planned.map((p, i) => ({ pool: p.pool, branch: p.part.branch, commit: commits[i] }));
  } catch (e) {
    for (const p of planned) await removeWritten(lake, p.pool, p.written);
    throw e;
  }
}

/** How one operation's commit is planned from its branch's tip. */
async function plan(
  lake: Lake,
  pool: PoolConfig,
  branch: string,
  op: TxOperation,
  commit: CommitRequest,
  meta: string | null,
  written: WrittenObject[],
): Promise<CommitPart["build"]> {
  switch (op.op) {
    case "load": {
      const bytes = typeof op.data === "string" ? new TextEncoder().encode(op.data) : op.data;
      if (!(bytes instanceof Uint8Array)) throw invalid("transaction: a load needs data");
      const reader = await openReader(ByteInput.fromBytes(bytes), op.format ?? "auto");
      const w = await writeLoad(lake, pool, reader, {});
      written.push(...w.written);
      if (written.length === 0) throw invalid("no records in request");
      const objects = written.map((x) => x.object);
      return () => ({
        author: commit.author ?? "",
        message: commit.body || loadMessage(objects),
        meta,
        actions: objects.map((o) => ({ kind: "add" as const, objectId: o.id })),
        record: () => {
          for (const x of written) insertObject(lake.catalog, pool.id, x.object, x.seek);
        },
      });
    }
    case "delete": {
      if (typeof op.where === "string") {
        return planDeleteWhere(lake, pool, branch, op.where, commit, {}, written);
      }
      const ids = (op.object_ids ?? []).map((t) => parseID(String(t)));
      return planDeleteObjects(lake, pool, branch, ids, commit);
    }
    case "move":
      return planMove(lake, pool, branch, String(op.to ?? ""), commit, meta);
  }
  throw invalid(`transaction: unknown operation ${JSON.stringify((op as { op: unknown }).op)}`);
}

/**
 * A move: a commit on the branch whose actions make its objects those of
 * `to` (a commit or branch of the pool). History is kept; the move can be
 * reverted like any commit.
 */
function planMove(
  lake: Lake,
  pool: PoolConfig,
  branch: string,
  to: string,
  commit: CommitRequest,
  meta: string | null,
): CommitPart["build"] {
  const target = resolveCommit(lake, pool, to);
  const want = snapshotAt(lake.catalog, pool.id, target.commit).objects;
  return () => {
    const have = new Map(tipObjects(lake.catalog, pool.id, branch).map((o) => [toHex(o.id), o]));
    const actions: CommitPlan["actions"] = [];
    for (const [k, o] of have) {
      if (!want.has(k)) actions.push({ kind: "delete", objectId: o.id });
    }
    for (const [k, id] of want) if (!have.has(k)) actions.push({ kind: "add", objectId: id });
    if (actions.length === 0) {
      throw new LochError("invalid", `${pool.name}@${branch} already holds ${to}`);
    }
    return {
      author: commit.author ?? "",
      message: commit.body || `moved to ${to} (${toBase62(target.commit)})`,
      meta,
      actions,
    };
  };
}

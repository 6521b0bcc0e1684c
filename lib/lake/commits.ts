// Commits, their actions, and snapshots (lake-api.md §9): a commit adds and
// deletes data objects (and index objects) relative to its parent; the state
// of a branch at any commit is the replay of the actions along its parent
// chain. Branch tips keep their state materialized in tip_objects.

import { LochError } from "../errors.ts";
import type { Catalog } from "./catalog/catalog.ts";
import { isNil, type KSUID, NIL_ID, toBase62, toHex } from "./ksuid.ts";
import { notFound } from "./pools.ts";

export interface CommitInfo {
  id: KSUID;
  parent: KSUID;
  retries: number;
  author: string;
  /** ns since the epoch */
  date: bigint;
  message: string;
  /** The commit's metadata value as ZSON text, or null. */
  meta: string | null;
}

export type Action =
  | { kind: "add"; objectId: KSUID }
  | { kind: "delete"; objectId: KSUID }
  | { kind: "add_index"; objectId: KSUID; ruleId: KSUID }
  | { kind: "delete_index"; objectId: KSUID; ruleId: KSUID };

/** The data and index objects visible at a commit, keyed by hex id. */
export class Snapshot {
  readonly objects = new Map<string, KSUID>();
  /** Index objects keyed by `<rule hex>:<object hex>`. */
  readonly indexes = new Map<string, { ruleId: KSUID; objectId: KSUID }>();

  clone(): Snapshot {
    const s = new Snapshot();
    for (const [k, v] of this.objects) s.objects.set(k, v);
    for (const [k, v] of this.indexes) s.indexes.set(k, v);
    return s;
  }

  /** Applies an action, strictly: adding what exists or deleting what does not is a conflict. */
  apply(a: Action): void {
    const key = toHex(a.objectId);
    switch (a.kind) {
      case "add":
        if (this.objects.has(key)) {
          throw conflict(`${toBase62(a.objectId)}: add of a duplicate data object: write conflict`);
        }
        this.objects.set(key, a.objectId);
        return;
      case "delete":
        if (!this.objects.delete(key)) {
          throw conflict(
            `${toBase62(a.objectId)}: delete of a non-existent data object: write conflict`,
          );
        }
        return;
      case "add_index":
        this.indexes.set(toHex(a.ruleId) + ":" + key, { ruleId: a.ruleId, objectId: a.objectId });
        return;
      case "delete_index":
        this.indexes.delete(toHex(a.ruleId) + ":" + key);
        return;
    }
  }
}

function conflict(msg: string): LochError {
  return new LochError("conflict", msg);
}

interface CommitRow {
  id: Uint8Array;
  parent: Uint8Array;
  retries: number;
  author: string;
  date: number | bigint;
  message: string;
  meta: string | null;
}

function commitFromRow(r: CommitRow): CommitInfo {
  return { ...r, date: BigInt(r.date) };
}

export function getCommit(cat: Catalog, poolId: KSUID, id: KSUID): CommitInfo | undefined {
  const r = cat.get<CommitRow>(
    "SELECT id, parent, retries, author, date, message, meta FROM commits WHERE id = ? AND pool_id = ?",
    id,
    poolId,
  );
  return r === undefined ? undefined : commitFromRow(r);
}

/** The commits from id back to the root, newest first. */
export function commitChain(cat: Catalog, poolId: KSUID, id: KSUID): CommitInfo[] {
  if (isNil(id)) return [];
  const rows = cat.all<CommitRow>(
    `WITH RECURSIVE chain(id, depth) AS (
       SELECT id, 0 FROM commits WHERE id = ? AND pool_id = ?
       UNION ALL
       SELECT c.parent, chain.depth + 1 FROM commits c JOIN chain ON c.id = chain.id
         WHERE c.parent != ?
     )
     SELECT c.id, c.parent, c.retries, c.author, c.date, c.message, c.meta
       FROM chain JOIN commits c ON c.id = chain.id ORDER BY chain.depth`,
    id,
    poolId,
    new Uint8Array(20),
  );
  if (rows.length === 0) throw notFound(`${toBase62(id)}: commit object not found`);
  return rows.map(commitFromRow);
}

interface ActionRow {
  kind: string;
  object_id: Uint8Array;
  rule_id: Uint8Array | null;
}

function actionFromRow(r: ActionRow): Action {
  if (r.kind === "add" || r.kind === "delete") return { kind: r.kind, objectId: r.object_id };
  return {
    kind: r.kind as "add_index" | "delete_index",
    objectId: r.object_id,
    ruleId: r.rule_id!,
  };
}

export function commitActions(cat: Catalog, id: KSUID): Action[] {
  return cat.all<ActionRow>(
    "SELECT kind, object_id, rule_id FROM actions WHERE commit_id = ? ORDER BY seq",
    id,
  ).map(actionFromRow);
}

/** The state at a commit, by replaying its history (nil commit: empty). */
export function snapshotAt(cat: Catalog, poolId: KSUID, id: KSUID): Snapshot {
  const snap = new Snapshot();
  const chain = commitChain(cat, poolId, id);
  for (let i = chain.length - 1; i >= 0; i--) {
    for (const a of commitActions(cat, chain[i].id)) snap.apply(a);
  }
  return snap;
}

/** Writes a commit and its actions (inside the caller's transaction). */
export function insertCommit(cat: Catalog, poolId: KSUID, c: CommitInfo, actions: Action[]): void {
  cat.run(
    "INSERT INTO commits (id, pool_id, parent, retries, author, date, message, meta) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
    c.id,
    poolId,
    c.parent,
    c.retries,
    c.author,
    c.date,
    c.message,
    c.meta,
  );
  actions.forEach((a, seq) => {
    cat.run(
      "INSERT INTO actions (commit_id, seq, kind, object_id, rule_id) VALUES (?, ?, ?, ?, ?)",
      c.id,
      seq,
      a.kind,
      a.objectId,
      a.kind === "add" || a.kind === "delete" ? null : a.ruleId,
    );
  });
}

export { NIL_ID };

// ---- the commit graph (merges) ----------------------------------------------

/** The ids of the commits from id back to the root, newest first (none for the nil commit). */
export function commitPath(cat: Catalog, poolId: KSUID, id: KSUID): KSUID[] {
  if (isNil(id)) return [];
  const rows = cat.all<{ id: Uint8Array }>(
    `WITH RECURSIVE chain(id, parent, depth) AS (
       SELECT id, parent, 0 FROM commits WHERE id = ? AND pool_id = ?
       UNION ALL
       SELECT c.id, c.parent, chain.depth + 1 FROM commits c JOIN chain ON c.id = chain.parent
     )
     SELECT id FROM chain ORDER BY depth`,
    id,
    poolId,
  );
  if (rows.length === 0) throw notFound(`${toBase62(id)}: commit object not found`);
  return rows.map((r) => r.id);
}

/**
 * The most recent commit on both paths (newest-first, as commitPath gives
 * them): where two branches forked. Commits have one parent, so this is the
 * first commit of b also on a. Every history starts from the nil commit, so
 * that is the answer when they share no commit (or either is empty).
 */
export function commonAncestor(a: KSUID[], b: KSUID[]): KSUID {
  const onA = new Set(a.map(toHex));
  for (const id of b) if (onA.has(toHex(id))) return id;
  return NIL_ID;
}

/** The fork point of the commits a and b (see commonAncestor). */
export function mergeBase(cat: Catalog, poolId: KSUID, a: KSUID, b: KSUID): KSUID {
  return commonAncestor(commitPath(cat, poolId, a), commitPath(cat, poolId, b));
}

/**
 * Replays commits (oldest first) onto a snapshot, strictly; visit sees each
 * action after it applied.
 */
export function replayCommits(
  cat: Catalog,
  snap: Snapshot,
  ids: KSUID[],
  visit?: (a: Action, commit: KSUID) => void,
): Snapshot {
  for (const id of ids) {
    for (const a of commitActions(cat, id)) {
      snap.apply(a);
      visit?.(a, id);
    }
  }
  return snap;
}

/** Object ids per origin query: a fixed count keeps one cached statement. */
const ORIGIN_CHUNK = 500;

/**
 * The commit that created each data object (keyed by hex id; objects no
 * commit of the pool adds are left out): the first commit, in the order
 * commits were written, that adds it. Loads, delete-by-filter and compaction
 * create objects; merges and reverts only add existing ones again, always
 * later. An object's creating commit deletes exactly the objects its values
 * came from, if any (see merge.ts).
 */
export function objectOrigins(cat: Catalog, poolId: KSUID, ids: KSUID[]): Map<string, KSUID> {
  const out = new Map<string, KSUID>();
  const marks = Array(ORIGIN_CHUNK).fill("?").join(", ");
  const sql = `SELECT a.object_id, a.commit_id FROM actions a JOIN commits c ON c.id = a.commit_id
     WHERE c.pool_id = ? AND a.kind = 'add' AND a.object_id IN (${marks})
     ORDER BY c.rowid, a.seq`;
  for (let i = 0; i < ids.length; i += ORIGIN_CHUNK) {
    const chunk = ids.slice(i, i + ORIGIN_CHUNK);
    while (chunk.length < ORIGIN_CHUNK) chunk.push(chunk[0]);
    const rows = cat.all<{ object_id: Uint8Array; commit_id: Uint8Array }>(sql, poolId, ...chunk);
    for (const r of rows) {
      const key = toHex(r.object_id);
      if (!out.has(key)) out.set(key, r.commit_id);
    }
  }
  return out;
}

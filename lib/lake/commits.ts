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
         WHERE c.parent != zeroblob(20)
     )
     SELECT c.id, c.parent, c.retries, c.author, c.date, c.message, c.meta
       FROM chain JOIN commits c ON c.id = chain.id ORDER BY chain.depth`,
    id,
    poolId,
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

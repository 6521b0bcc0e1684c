// The lake catalog: pools, branches, commits, data-object metadata and
// index metadata, in SQL. Two stores implement it: SQLite in the lake's
// directory (sqlite.ts, the default) and PostgreSQL (postgres.ts), which
// lets several nodes serve one lake. The lake's modules write portable SQL
// (positional `?` parameters, no SQLite-only functions or syntax), read
// rows whose integers are numbers when safe and bigints beyond, and make
// every change to branch state in one transaction.

import type { DatabaseSync } from "node:sqlite";

export type SQLParam = null | number | bigint | string | Uint8Array;

export interface Catalog {
  /** Which store: "sqlite" or "postgres". */
  readonly kind: string;
  run(sql: string, ...params: SQLParam[]): { changes: number | bigint };
  get<T>(sql: string, ...params: SQLParam[]): T | undefined;
  all<T>(sql: string, ...params: SQLParam[]): T[];
  /**
   * Runs fn in a write transaction; nested calls join the outer one. A
   * store that detects conflicts at commit (PostgreSQL's serializable
   * transactions) runs fn again when another writer got there first, so fn
   * must do nothing but catalog work until it returns.
   */
  transaction<T>(fn: () => T): T;
  /**
   * Takes a lock shared by every process on this catalog (a branch's
   * commits, say), waiting without blocking the event loop; returns its
   * release. Stores whose processes already serialize otherwise (SQLite's
   * in-process queues and write locks) have none.
   */
  lock?(name: string): Promise<() => void>;
  /** The schema version of the open catalog. */
  version(): number;
  close(): void;
  /** The SQLite database, for the SQLite store's own tests (undefined for others). */
  readonly db?: DatabaseSync;
}

/** Integers come back as numbers when they are safe, else as bigints. */
export function normalize(row: Record<string, unknown>): Record<string, unknown> {
  for (const k in row) {
    const v = row[k];
    if (typeof v === "bigint" && v >= MIN_SAFE && v <= MAX_SAFE) row[k] = Number(v);
  }
  return row;
}

const MIN_SAFE = BigInt(Number.MIN_SAFE_INTEGER);
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

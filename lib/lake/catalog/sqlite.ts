// The lake catalog in SQLite (node:sqlite, WAL), the default: a file in the
// lake's directory, shared by the processes that open the lake there. Every
// change to branch state happens in one transaction.

import { DatabaseSync, type StatementSync } from "node:sqlite";
import { LochError } from "../../errors.ts";
import { type Catalog, normalize, type SQLParam } from "./catalog.ts";
import { migrations } from "./schema.ts";

export class SqliteCatalog implements Catalog {
  readonly kind = "sqlite";
  readonly db: DatabaseSync;
  private statements = new Map<string, StatementSync>();
  private depth = 0;

  /** `steps` replaces the schema's migrations (tests use it to simulate other versions). */
  constructor(path: string, private readonly steps: readonly string[] = migrations) {
    this.db = new DatabaseSync(path);
    try {
      this.db.exec("PRAGMA busy_timeout = 10000");
      // Switching a new catalog to WAL takes a lock that another process
      // opening it at the same moment may hold, and SQLite reports that as
      // busy without calling the busy handler: retry it ourselves.
      whileBusy(() =>
        this.db.exec(`
          PRAGMA journal_mode = WAL;
          PRAGMA synchronous = NORMAL;
          PRAGMA foreign_keys = ON;
        `)
      );
      whileBusy(() => this.migrate());
    } catch (e) {
      this.db.close();
      throw e;
    }
  }

  private migrate(): void {
    this.db.exec(
      "CREATE TABLE IF NOT EXISTS lake_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    );
    this.transaction(() => {
      const row = this.get<{ value: string }>("SELECT value FROM lake_meta WHERE key = 'schema'");
      const version = row === undefined ? 0 : Number(row.value);
      const latest = this.steps.length;
      if (version > latest) {
        throw new LochError(
          "internal",
          `lake catalog schema ${version} is newer than this loch supports (${latest})`,
        );
      }
      for (let v = version; v < latest; v++) this.db.exec(this.steps[v]);
      this.run(
        "INSERT INTO lake_meta (key, value) VALUES ('schema', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        String(latest),
      );
    });
  }

  /** The schema version of the open catalog. */
  version(): number {
    return Number(
      this.get<{ value: string }>("SELECT value FROM lake_meta WHERE key = 'schema'")!.value,
    );
  }

  private prepare(sql: string): StatementSync {
    let st = this.statements.get(sql);
    if (st === undefined) {
      st = this.db.prepare(sql);
      // Times are int64 nanoseconds: read integers exactly (see normalize).
      st.setReadBigInts(true);
      this.statements.set(sql, st);
    }
    return st;
  }

  run(sql: string, ...params: SQLParam[]): { changes: number | bigint } {
    return this.prepare(sql).run(...params);
  }

  get<T>(sql: string, ...params: SQLParam[]): T | undefined {
    const row = this.prepare(sql).get(...params);
    return row === undefined ? undefined : normalize(row) as T;
  }

  all<T>(sql: string, ...params: SQLParam[]): T[] {
    return this.prepare(sql).all(...params).map(normalize) as T[];
  }

  /**
   * Runs fn in a write transaction (BEGIN IMMEDIATE, so concurrent writers
   * wait rather than fail). Nested calls join the outer transaction.
   */
  transaction<T>(fn: () => T): T {
    if (this.depth > 0) {
      this.depth++;
      try {
        return fn();
      } finally {
        this.depth--;
      }
    }
    this.db.exec("BEGIN IMMEDIATE");
    this.depth = 1;
    try {
      const r = fn();
      this.db.exec("COMMIT");
      return r;
    } catch (e) {
      this.db.exec("ROLLBACK");
      throw e;
    } finally {
      this.depth = 0;
    }
  }

  close(): void {
    this.statements.clear();
    this.db.close();
  }
}

const BUSY_RETRY_MS = 10_000;

/** Runs fn, retrying with a short synchronous pause while SQLite says the database is locked. */
function whileBusy(fn: () => void): void {
  const deadline = Date.now() + BUSY_RETRY_MS;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (let wait = 1;; wait = Math.min(wait * 2, 50)) {
    try {
      return fn();
    } catch (e) {
      if (!isBusy(e) || Date.now() > deadline) throw e;
      Atomics.wait(pause, 0, 0, wait);
    }
  }
}

function isBusy(e: unknown): boolean {
  const err = e as { errcode?: number; message?: string };
  return (err.errcode !== undefined && (err.errcode & 0xff) === 5) ||
    /database is locked/.test(err.message ?? "");
}

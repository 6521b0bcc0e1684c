// The lake catalog in PostgreSQL (`-catalog postgres://…`): the same schema
// and statements as SQLite's (schema.ts translates the migrations), so any
// number of loch processes on any machines can serve one lake. Each write
// transaction is SERIALIZABLE: two nodes that both read a branch tip and
// move it cannot both commit; the loser's transaction is run again (it sees
// the new tip, and the commit loop builds on it). Calls are synchronous, as
// the lake's modules expect, through syncpg.ts.

import { LochError } from "../../errors.ts";
import { type Catalog, normalize, type SQLParam } from "./catalog.ts";
import { migrations, postgresMigration } from "./schema.ts";
import { SyncPostgres } from "./syncpg.ts";

/** How often a transaction is run again when another writer got there first. */
const MAX_TRANSACTION_ATTEMPTS = 50;

/** SQLSTATEs that mean "run the transaction again": serialization failure, deadlock. */
const RETRY_CODES = new Set(["40001", "40P01"]);

/** The advisory lock that makes one node at a time migrate the schema. */
const MIGRATION_LOCK = 7_295_110_001;

export class PostgresCatalog implements Catalog {
  readonly kind = "postgres";
  private depth = 0;

  private constructor(private readonly pg: SyncPostgres) {}

  /** Connects and brings the schema up to date (`steps` replaces the migrations, for tests). */
  static open(url: string, steps: readonly string[] = migrations): PostgresCatalog {
    const pg = SyncPostgres.open(url);
    const cat = new PostgresCatalog(pg);
    try {
      cat.migrate(steps);
    } catch (e) {
      pg.close();
      throw e;
    }
    return cat;
  }

  private migrate(steps: readonly string[]): void {
    this.pg.query("SELECT pg_advisory_lock(?)", [MIGRATION_LOCK]);
    try {
      this.pg.exec(
        'CREATE TABLE IF NOT EXISTS lake_meta (key TEXT COLLATE "C" PRIMARY KEY, value TEXT NOT NULL)',
      );
      this.transaction(() => {
        const version = this.storedVersion();
        if (version > steps.length) {
          throw new LochError(
            "internal",
            `lake catalog schema ${version} is newer than this loch supports (${steps.length})`,
          );
        }
        for (let v = version; v < steps.length; v++) this.pg.exec(postgresMigration(steps[v]));
        this.run(
          "INSERT INTO lake_meta (key, value) VALUES ('schema', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
          String(steps.length),
        );
      });
    } finally {
      this.pg.query("SELECT pg_advisory_unlock(?)", [MIGRATION_LOCK]);
    }
  }

  private storedVersion(): number {
    const row = this.get<{ value: string }>("SELECT value FROM lake_meta WHERE key = 'schema'");
    return row === undefined ? 0 : Number(row.value);
  }

  version(): number {
    return this.storedVersion();
  }

  /**
   * A session-level advisory lock named by a 63-bit hash of name, tried
   * until it is free (with short async pauses: the calling thread keeps
   * serving meanwhile). A node that dies lets go with its connection.
   */
  async lock(name: string): Promise<() => void> {
    const key = await lockKey(name);
    for (let wait = 1;; wait = Math.min(wait * 2, 20)) {
      const r = this.get<{ ok: boolean }>("SELECT pg_try_advisory_lock(?) AS ok", key);
      if (r?.ok === true) break;
      await new Promise((res) => setTimeout(res, wait * (0.5 + Math.random())));
    }
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      try {
        this.get("SELECT pg_advisory_unlock(?)", key);
      } catch {
        // The connection is gone, and the lock with it.
      }
    };
  }

  run(sql: string, ...params: SQLParam[]): { changes: number | bigint } {
    return { changes: this.pg.query(sql, params).count };
  }

  get<T>(sql: string, ...params: SQLParam[]): T | undefined {
    const row = this.pg.query<Record<string, unknown>>(sql, params).rows[0];
    return row === undefined ? undefined : normalize(row) as T;
  }

  all<T>(sql: string, ...params: SQLParam[]): T[] {
    return this.pg.query<Record<string, unknown>>(sql, params).rows.map(normalize) as T[];
  }

  /**
   * Runs fn in a SERIALIZABLE transaction, again (up to 50 times in all)
   * when PostgreSQL reports that a concurrent transaction conflicted with
   * it. Nested calls join the outer transaction.
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
    for (let attempt = 1;; attempt++) {
      this.pg.exec("BEGIN ISOLATION LEVEL SERIALIZABLE");
      this.depth = 1;
      try {
        const r = fn();
        this.pg.exec("COMMIT");
        return r;
      } catch (e) {
        try {
          this.pg.exec("ROLLBACK");
        } catch {
          // The connection is gone: the error below says why.
        }
        if (!RETRY_CODES.has((e as { code?: string }).code ?? "")) throw e;
        if (attempt >= MAX_TRANSACTION_ATTEMPTS) {
          throw new LochError(
            "internal",
            `catalog transaction conflicted ${attempt} times with other writers: ${
              (e as Error).message
            }`,
          );
        }
        pause(Math.min(50, attempt * 2) * Math.random());
      } finally {
        this.depth = 0;
      }
    }
  }

  close(): void {
    this.pg.close();
  }
}

/** A lock's key: the first 63 bits of the SHA-256 of its name. */
async function lockKey(name: string): Promise<bigint> {
  const h = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(name)));
  return new DataView(h.buffer).getBigUint64(0) >> 1n;
}

const pauseCell = new Int32Array(new SharedArrayBuffer(4));

/** A short synchronous pause (the catalog's callers are synchronous). */
function pause(ms: number): void {
  Atomics.wait(pauseCell, 0, 0, ms);
}

// A synchronous PostgreSQL connection, because the lake catalog's callers
// are synchronous (node:sqlite's API) and PostgreSQL clients are async: the
// client (npm:postgres) runs in a dedicated worker (syncpg_worker.ts) on one
// reserved connection, and the calling thread blocks in Atomics.wait until
// the worker has the answer (the technique of the synckit package). Requests
// and answers cross a SharedArrayBuffer, in chunks when larger than it, in a
// small tagged binary encoding that keeps bigints and bytes (the shared
// bridge's, ../syncbridge.ts). A call costs a loopback round trip to the
// server plus two thread hand-offs.

import { CRASH, exchange, HEADER_BYTES, LEN, STATE } from "../syncbridge.ts";

export type SQLParam = null | number | bigint | string | Uint8Array;

type Row = Record<string, unknown>;
type Answer = { columns: string[]; rows: unknown[][]; count: number };

export interface SyncPostgresOptions {
  /** Longest wait for the connection and for each call (ms); default 30 000. */
  timeoutMs?: number;
  /** Size of the shared data area (bytes); default 1 MiB. Larger messages go in chunks. */
  bufferBytes?: number;
}

/** An error from the server (code: the SQLSTATE, detail…) or from the bridge (code: SYNCPG_…). */
export type SyncPostgresError = Error & { code?: string; constraint_name?: string; query?: string };

export class SyncPostgres {
  private closed = false;
  private readonly header: Int32Array;
  private readonly data: Uint8Array;

  private constructor(
    private readonly worker: Worker,
    sab: SharedArrayBuffer,
    private readonly timeoutMs: number,
  ) {
    this.header = new Int32Array(sab, 0, 4);
    this.data = new Uint8Array(sab, HEADER_BYTES);
  }

  /** Starts the worker and connects; throws if it cannot connect within timeoutMs. */
  static open(url: string, opts: SyncPostgresOptions = {}): SyncPostgres {
    const timeoutMs = opts.timeoutMs ?? 30_000;
    const sab = new SharedArrayBuffer(HEADER_BYTES + (opts.bufferBytes ?? 1 << 20));
    const worker = new Worker(new URL("./syncpg_worker.ts", import.meta.url).href, {
      type: "module",
    });
    // The worker reports its own failures through the buffer; an error event
    // left unhandled here would end the process once this thread is free.
    worker.onerror = (e) => e.preventDefault();
    worker.postMessage({ sab, init: undefined });
    const pg = new SyncPostgres(worker, sab, timeoutMs);
    try {
      pg.call({ op: "open", url, connectTimeoutS: Math.max(1, Math.ceil(timeoutMs / 1000)) });
    } catch (e) {
      pg.terminate();
      const err = e as SyncPostgresError;
      const where = url.replace(/:[^:@/]*@/, ":***@"); // no password
      err.message = `cannot connect to PostgreSQL at ${where}: ${err.message}` +
        (err.code === "SYNCPG_TIMEOUT" ? " (or syncpg_worker.ts did not start)" : "");
      throw err;
    }
    return pg;
  }

  /** Runs one statement; `?` placeholders take params in order. */
  query<T = Row>(sql: string, params: SQLParam[]): { rows: T[]; count: number } {
    const { text, count } = translate(sql);
    if (count !== params.length) {
      throw new Error(`syncpg: ${count} placeholders but ${params.length} parameters in: ${sql}`);
    }
    const answer = this.call({ op: "query", sql: text, params }, sql) as Answer;
    const rows = answer.rows.map((v) =>
      Object.fromEntries(answer.columns.map((c, i) => [c, v[i]]))
    );
    return { rows: rows as T[], count: answer.count };
  }

  /** Runs several statements without parameters (DDL, migrations) in the simple protocol. */
  exec(sql: string): void {
    this.call({ op: "exec", sql }, sql);
  }

  /** Ends the connection (rolling back an open transaction) and the worker. Idempotent. */
  close(): void {
    if (this.closed) return;
    try {
      this.call({ op: "close" }, undefined, Math.min(this.timeoutMs, 5000));
    } catch {
      // Terminating the worker drops the socket anyway.
    } finally {
      this.terminate();
    }
  }

  [Symbol.dispose](): void {
    this.close();
  }

  private terminate(): void {
    this.closed = true;
    this.worker.terminate();
  }

  /** Sends a request and blocks until its answer; throws the worker's error. */
  private call(request: unknown, sql?: string, timeoutMs = this.timeoutMs): unknown {
    if (this.closed) throw new Error("syncpg: the connection is closed");
    const h = this.header;
    const deadline = performance.now() + timeoutMs;
    if (Atomics.load(h, STATE) === CRASH) this.crashed(sql);
    const result = exchange(
      this.header,
      this.data,
      request,
      (from) => this.wait(from, deadline, sql),
    ) as { ok: boolean; error?: Record<string, unknown> };
    if (result.ok) return result;
    const err = new Error(String(result.error?.message)) as SyncPostgresError;
    Object.assign(err, result.error);
    if (sql !== undefined) err.query = sql;
    throw err;
  }

  /** Blocks while the state is `from`; a crash or the deadline closes the connection. */
  private wait(from: number, deadline: number, sql?: string): void {
    const h = this.header;
    for (;;) {
      const left = deadline - performance.now();
      if (left <= 0) {
        this.terminate();
        const message = "syncpg: no answer in time; the connection is closed";
        throw Object.assign(new Error(message), { code: "SYNCPG_TIMEOUT", query: sql });
      }
      Atomics.wait(h, STATE, from, left);
      const state = Atomics.load(h, STATE);
      if (state === from) continue;
      if (state === CRASH) this.crashed(sql);
      return;
    }
  }

  private crashed(sql?: string): never {
    const why = new TextDecoder().decode(this.data.slice(0, this.header[LEN]));
    this.terminate();
    throw Object.assign(new Error(`syncpg: the worker failed: ${why}`), {
      code: "SYNCPG_CRASH",
      query: sql,
    });
  }
}

const translations = new Map<string, { text: string; count: number }>();

/**
 * Turns SQLite-style `?` placeholders into `$1, $2, …`, leaving alone those
 * in string literals ('…', E'…'), quoted identifiers and comments.
 */
export function translate(sql: string): { text: string; count: number } {
  const known = translations.get(sql);
  if (known !== undefined) return known;
  let text = "", count = 0, last = 0;
  for (let i = 0; i < sql.length; i++) {
    const c = sql[i];
    if (c === "'") {
      const escapes = /(^|[^\w$])[eE]$/.test(sql.slice(Math.max(0, i - 2), i));
      for (i++; i < sql.length; i++) {
        if (escapes && sql[i] === "\\") i++;
        else if (sql[i] === "'" && sql[++i] !== "'") break;
      }
      i--;
    } else if (c === '"') {
      i = end(sql.indexOf('"', i + 1));
    } else if (c === "-" && sql[i + 1] === "-") {
      i = end(sql.indexOf("\n", i));
    } else if (c === "/" && sql[i + 1] === "*") {
      i = end(sql.indexOf("*/", i + 2)) + 1;
    } else if (c === "?") {
      text += sql.slice(last, i) + "$" + ++count;
      last = i + 1;
    }
  }
  const result = { text: text + sql.slice(last), count };
  if (translations.size < 10_000) translations.set(sql, result);
  return result;
}

const end = (i: number) => i < 0 ? Infinity : i;

// A synchronous PostgreSQL connection, because the lake catalog's callers
// are synchronous (node:sqlite's API) and PostgreSQL clients are async: the
// client (npm:postgres) runs in a dedicated worker (syncpg_worker.ts) on one
// reserved connection, and the calling thread blocks in Atomics.wait until
// the worker has the answer (the technique of the synckit package). Requests
// and answers cross a SharedArrayBuffer, in chunks when larger than it, in a
// small tagged binary encoding that keeps bigints and bytes. A call costs a
// loopback round trip to the server plus two thread hand-offs.
//
// The buffer: Int32 words [state, chunk length, more chunks follow, total
// length], then the data. The caller writes request chunks (REQ), which the
// worker takes (REQ_ACK after each but the last); the worker writes answer
// chunks (RES), which the caller takes (RES_ACK after each but the last,
// IDLE after it). CRASH: the worker failed; the data says why.

export type SQLParam = null | number | bigint | string | Uint8Array;

export const STATE = 0, LEN = 1, MORE = 2, TOTAL = 3, HEADER_BYTES = 16;
export const IDLE = 0, REQ = 1, REQ_ACK = 2, RES = 3, RES_ACK = 4, CRASH = 5;

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
    worker.postMessage(sab);
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
    const bytes = encode(request);
    const cap = this.data.length;
    for (let off = 0;;) {
      const n = Math.min(cap, bytes.length - off);
      this.data.set(bytes.subarray(off, off + n));
      off += n;
      h[LEN] = n;
      h[MORE] = off < bytes.length ? 1 : 0;
      h[TOTAL] = bytes.length;
      Atomics.store(h, STATE, REQ);
      Atomics.notify(h, STATE);
      if (off === bytes.length) break;
      this.wait(REQ, deadline, sql);
    }
    let answer: Uint8Array | undefined;
    for (let got = 0, last = REQ;;) {
      this.wait(last, deadline, sql);
      const n = h[LEN];
      answer ??= new Uint8Array(h[TOTAL]);
      answer.set(this.data.subarray(0, n), got);
      got += n;
      if (h[MORE] === 0) break;
      Atomics.store(h, STATE, last = RES_ACK);
      Atomics.notify(h, STATE);
    }
    Atomics.store(h, STATE, IDLE);
    const result = decode(answer) as { ok: boolean; error?: Record<string, unknown> };
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

// The encoding: a tag byte, then for numbers a float64, for bigints an
// int64 (or decimal text past 64 bits), for text and bytes a uint32 length
// and the bytes, for arrays and objects a uint32 count and the items.
const T_NULL = 0, T_FALSE = 1, T_TRUE = 2, T_NUM = 3, T_I64 = 4, T_BIG = 5;
const T_STR = 6, T_BYTES = 7, T_ARR = 8, T_OBJ = 9, T_DATE = 10;
const MIN_I64 = -(1n << 63n), MAX_I64 = (1n << 63n) - 1n;
const utf8 = new TextEncoder();

export function encode(v: unknown): Uint8Array {
  let buf = new Uint8Array(256), view = new DataView(buf.buffer), pos = 0;
  const room = (n: number) => {
    if (pos + n <= buf.length) return;
    const next = new Uint8Array(Math.max(buf.length * 2, pos + n));
    next.set(buf.subarray(0, pos));
    buf = next;
    view = new DataView(buf.buffer);
  };
  const tag = (t: number, n = 0) => (room(1 + n), buf[pos++] = t);
  const u32 = (n: number) => (room(4), view.setUint32(pos, n, true), pos += 4);
  const f64 = (t: number, x: number) => (tag(t, 8), view.setFloat64(pos, x, true), pos += 8);
  const str = (s: string) => {
    room(4 + s.length * 3);
    const { written } = utf8.encodeInto(s, buf.subarray(pos + 4));
    u32(written);
    pos += written;
  };
  const value = (v: unknown): void => {
    if (v === null || v === undefined) tag(T_NULL);
    else if (typeof v === "boolean") tag(v ? T_TRUE : T_FALSE);
    else if (typeof v === "number") f64(T_NUM, v);
    else if (typeof v === "bigint" && v >= MIN_I64 && v <= MAX_I64) {
      tag(T_I64, 8), view.setBigInt64(pos, v, true), pos += 8;
    } else if (typeof v === "bigint") tag(T_BIG), str(v.toString());
    else if (typeof v === "string") tag(T_STR), str(v);
    else if (v instanceof Uint8Array) {
      tag(T_BYTES), u32(v.length), room(v.length), buf.set(v, pos), pos += v.length;
    } else if (v instanceof Date) f64(T_DATE, v.getTime());
    else if (Array.isArray(v)) tag(T_ARR), u32(v.length), v.forEach(value);
    else if (typeof v === "object") {
      const entries = Object.entries(v);
      tag(T_OBJ), u32(entries.length);
      for (const [k, x] of entries) str(k), value(x);
    } else throw new TypeError(`syncpg: cannot send a ${typeof v}`);
  };
  value(v);
  return buf.subarray(0, pos);
}

const utf8Decoder = new TextDecoder();

export function decode(bytes: Uint8Array): unknown {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let pos = 0;
  const u32 = () => (pos += 4, view.getUint32(pos - 4, true));
  const f64 = () => (pos += 8, view.getFloat64(pos - 8, true));
  const str = () => {
    const n = u32();
    return utf8Decoder.decode(bytes.subarray(pos, pos += n));
  };
  // Readers by tag (T_NULL, T_FALSE, …).
  const readers: (() => unknown)[] = [
    () => null,
    () => false,
    () => true,
    f64,
    () => (pos += 8, view.getBigInt64(pos - 8, true)),
    () => BigInt(str()),
    str,
    () => bytes.slice(pos + 4, pos += 4 + view.getUint32(pos, true)), // a plain Uint8Array
    () => Array.from({ length: u32() }, value),
    () => {
      const o: Record<string, unknown> = {};
      for (let n = u32(); n > 0; n--) o[str()] = value();
      return o;
    },
    () => new Date(f64()),
  ];
  const value = (): unknown => {
    const read = readers[bytes[pos++]];
    if (read === undefined) throw new Error(`syncpg: bad message (byte ${pos - 1})`);
    return read();
  };
  return value();
}

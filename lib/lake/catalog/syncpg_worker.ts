// The worker behind SyncPostgres (syncpg.ts): it owns the npm:postgres
// client and its one reserved connection, takes requests from the shared
// buffer (waiting with Atomics.waitAsync, so its event loop keeps serving
// the socket), runs them and writes the answers back, in chunks when they
// are larger than the buffer. Integers come back as bigints and bytea as
// bytes, as node:sqlite gives them to the catalog.

import postgres from "postgres";
import {
  CRASH,
  decode,
  encode,
  HEADER_BYTES,
  LEN,
  MORE,
  REQ,
  REQ_ACK,
  RES,
  RES_ACK,
  type SQLParam,
  STATE,
  TOTAL,
} from "./syncpg.ts";

type Request =
  | { op: "open"; url: string; connectTimeoutS: number }
  | { op: "query"; sql: string; params: SQLParam[] }
  | { op: "exec"; sql: string }
  | { op: "close" }
  | { op: "crash" };

let header: Int32Array;
let data: Uint8Array;
let client: postgres.Sql | undefined;
let conn: postgres.ReservedSql | undefined;
/** Why the connection can no longer be used (it closed after opening), if it cannot. */
let lost: string | undefined;

// int2, int4 and int8 all read as bigints (SQLite's integers, read with
// setReadBigInts); int8 parameters are written in decimal.
const integers = {
  to: 20,
  from: [20, 21, 23],
  parse: (x: string) => BigInt(x),
  serialize: (x: unknown) => String(x),
};

async function handle(req: Request): Promise<Record<string, unknown>> {
  switch (req.op) {
    case "open": {
      client = postgres(req.url, {
        max: 1,
        idle_timeout: 0,
        max_lifetime: null,
        connect_timeout: req.connectTimeoutS,
        onnotice: () => {},
        connection: { application_name: "loch-catalog" },
        types: { integers },
        onclose: () => {
          if (conn !== undefined) lost ??= "the connection to PostgreSQL closed";
        },
      });
      conn = await client.reserve();
      return { ok: true };
    }
    case "query": {
      const c = usable();
      const params = req.params.map((p) => param(c, p));
      // Prepared (named) statements: the catalog repeats the same few SQL texts.
      // simple: false (not in the typings) keeps one statement per call, in
      // the extended protocol even without parameters.
      const options = { prepare: true, simple: false } as postgres.UnsafeQueryOptions;
      const result = await c.unsafe(req.sql, params as never[], options).values();
      const columns = (result.columns ?? []).map((col) => col.name);
      return { ok: true, columns, rows: [...result], count: result.count ?? 0 };
    }
    case "exec":
      await usable().unsafe(req.sql);
      return { ok: true };
    case "close":
      // Released first: end() waits for a reserved connection to come back.
      conn?.release();
      conn = undefined;
      await client?.end({ timeout: 1 });
      return { ok: true };
    case "crash": // for tests: an error nothing catches
      setTimeout(() => {
        throw new Error("crash requested");
      });
      return { ok: true };
  }
}

function usable(): postgres.ReservedSql {
  if (conn === undefined) throw new Error("syncpg: not connected");
  if (lost !== undefined) throw Object.assign(new Error(lost), { code: "CONNECTION_CLOSED" });
  return conn;
}

/** A parameter typed as SQLite would store it: integral numbers as int8, strings as text. */
function param(c: postgres.ReservedSql, p: SQLParam): unknown {
  if (typeof p === "number") return c.typed(p, Number.isSafeInteger(p) ? 20 : 701);
  if (typeof p === "string") return c.typed(p, 25);
  return p; // bigint: int8, Uint8Array: bytea, null
}

/** What crosses back for an error: its name, message and string or number fields (code, detail…). */
function describe(e: unknown): Record<string, unknown> {
  if (!(e instanceof Error)) return { name: "Error", message: String(e) };
  const out: Record<string, unknown> = { name: e.name, message: e.message };
  for (const [k, v] of Object.entries(e)) {
    if (typeof v === "string" || typeof v === "number") out[k] = v;
  }
  return out;
}

/** Resolves once the state word is `want`. */
async function until(want: number): Promise<void> {
  for (;;) {
    const state = Atomics.load(header, STATE);
    if (state === want) return;
    const w = Atomics.waitAsync(header, STATE, state);
    if (w.async) await w.value;
  }
}

async function receive(): Promise<Request> {
  await until(REQ);
  const message = new Uint8Array(header[TOTAL]);
  for (let got = 0;;) {
    const n = header[LEN];
    message.set(data.subarray(0, n), got);
    got += n;
    if (header[MORE] === 0) return decode(message) as Request;
    Atomics.store(header, STATE, REQ_ACK);
    Atomics.notify(header, STATE);
    await until(REQ);
  }
}

async function send(answer: Record<string, unknown>): Promise<void> {
  let bytes: Uint8Array;
  try {
    bytes = encode(answer);
  } catch (e) {
    bytes = encode({ ok: false, error: describe(e) });
  }
  for (let off = 0;;) {
    const n = Math.min(data.length, bytes.length - off);
    data.set(bytes.subarray(off, off + n));
    off += n;
    header[LEN] = n;
    header[MORE] = off < bytes.length ? 1 : 0;
    header[TOTAL] = bytes.length;
    Atomics.store(header, STATE, RES);
    Atomics.notify(header, STATE);
    if (off === bytes.length) return;
    await until(RES_ACK);
  }
}

async function serve(): Promise<void> {
  for (;;) {
    const req = await receive();
    let answer: Record<string, unknown>;
    try {
      answer = await handle(req);
    } catch (e) {
      answer = { ok: false, error: describe(e) };
    }
    await send(answer);
  }
}

/** Tells the blocked caller that this worker failed, and why. */
function crash(why: unknown): void {
  if (header === undefined) return;
  const text = why instanceof Error ? why.stack ?? why.message : String(why);
  const bytes = new TextEncoder().encode(text).subarray(0, Math.min(4096, data.length));
  data.set(bytes);
  header[LEN] = bytes.length;
  Atomics.store(header, STATE, CRASH);
  Atomics.notify(header, STATE);
}

const scope = self as unknown as {
  onmessage: ((e: MessageEvent<SharedArrayBuffer>) => void) | null;
  addEventListener: typeof globalThis.addEventListener;
};

scope.addEventListener("error", (e) => {
  e.preventDefault();
  crash(e.error ?? e.message);
});
scope.addEventListener("unhandledrejection", (e) => {
  e.preventDefault();
  crash(e.reason);
});

scope.onmessage = (e) => {
  header = new Int32Array(e.data, 0, 4);
  data = new Uint8Array(e.data, HEADER_BYTES);
  serve().catch(crash);
};

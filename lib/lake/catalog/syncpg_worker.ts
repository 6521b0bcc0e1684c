// The worker behind SyncPostgres (syncpg.ts): it owns the npm:postgres
// client and its one reserved connection, takes requests from the shared
// buffer (waiting with Atomics.waitAsync, so its event loop keeps serving
// the socket), runs them and writes the answers back, in chunks when they
// are larger than the buffer. Integers come back as bigints and bytea as
// bytes, as node:sqlite gives them to the catalog.

import postgres from "postgres";
import type { SQLParam } from "./syncpg.ts";
import { serveBridge } from "../syncbridge.ts";

type Request =
  | { op: "open"; url: string; connectTimeoutS: number }
  | { op: "query"; sql: string; params: SQLParam[] }
  | { op: "exec"; sql: string }
  | { op: "close" }
  | { op: "crash" };

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
    case "crash": // for tests: an error nothing catches, once the caller has this answer
      // (a loaded machine may wake the caller late; the crash report would overwrite it)
      setTimeout(() => {
        throw new Error("crash requested");
      }, 50);
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

// The buffer protocol, errors and crash reports are the shared bridge's; an
// error answer carries the PostgreSQL error's fields (code, detail, …).
serveBridge(
  (req) => handle(req as Request),
  (e) => ({ ok: false, error: describe(e) }),
);

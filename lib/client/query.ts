// A query over the service: POST /query?ctrl=T with `{query, head}`, the
// answer read as ZNG (lake-api.md §12, clients.md §5.4). Values go to a
// writer as they arrive; control frames (ZSON text with the reference's
// type names) are read as they come: QueryStats updates the counters,
// QueryError fails the query, the channel messages are taken as they are
// (every query has the one channel 0).

import { LochError } from "../errors.ts";
import { ByteInput, type ValueWriter } from "../formats/io.ts";
import { ZngControl, ZngReader } from "../formats/zng/reader.ts";
import { parseZsonValue } from "../formats/zson/reader.ts";
import { Value } from "../zed/value.ts";
import { type Connection, jsonBody } from "./connection.ts";
import { fieldOf, numberField, stringField, typeName } from "./values.ts";

/** What the query's scans read, from its QueryStats messages. */
export interface QueryStats {
  bytesRead: number;
  bytesMatched: number;
  recordsRead: number;
  recordsMatched: number;
}

export function newQueryStats(): QueryStats {
  return { bytesRead: 0, bytesMatched: 0, recordsRead: 0, recordsMatched: 0 };
}

export interface QueryOptions {
  /** What `from HEAD` (and a query without `from`) reads. */
  head?: { pool: string; branch: string };
  /** Updated from each QueryStats message. */
  stats?: QueryStats;
}

/** ZNG control message encodings (zngio's). */
const CONTROL_JSON = 1;
const CONTROL_ZSON = 2;

/**
 * Runs a query, writing its values to writer. Errors the service reports
 * before the output starts are thrown without touching the writer; once
 * output has started, the writer is ended (also on failure), as a local
 * query's runner ends it.
 */
export async function runQuery(
  conn: Connection,
  text: string,
  writer: ValueWriter,
  opts: QueryOptions = {},
): Promise<void> {
  const params: Record<string, unknown> = { query: text };
  if (opts.head !== undefined) params.head = opts.head;
  const res = await conn.request("POST", "/query?ctrl=T", jsonBody(params));
  if (res.body === null) {
    await writer.end();
    return;
  }
  const input = ByteInput.fromStream(res.body, "query response");
  const reader = new ZngReader(input);
  try {
    for (;;) {
      const r = await reader.readPayload();
      if (r === null) break;
      if (r instanceof ZngControl) control(r, opts.stats);
      else await writer.write(r);
    }
  } catch (e) {
    await input.cancel().catch(() => {});
    throw e;
  } finally {
    await writer.end();
  }
}

/** Runs a query and gathers its values. */
export async function queryValues(
  conn: Connection,
  text: string,
  opts: QueryOptions = {},
): Promise<Value[]> {
  const out: Value[] = [];
  await runQuery(conn, text, {
    write(batch) {
      for (const v of batch) out.push(v);
      return Promise.resolve();
    },
    end: () => Promise.resolve(),
  }, opts);
  return out;
}

function control(c: ZngControl, stats: QueryStats | undefined): void {
  const [name, msg] = decodeControl(c);
  switch (name) {
    case "QueryChannelSet":
    case "QueryChannelEnd":
      return;
    case "QueryStats":
      if (stats !== undefined) readStats(msg, stats);
      return;
    case "QueryError":
      throw new LochError("internal", errorText(msg));
  }
  throw new LochError("internal", "unsupported control message");
}

/** A control message's type name and value. */
function decodeControl(c: ZngControl): [string | undefined, Value | Record<string, unknown>] {
  if (c.format === CONTROL_ZSON) {
    const v = parseZsonValue(c.text);
    return [typeName(v), v];
  }
  if (c.format === CONTROL_JSON) {
    // {"type":<name>,"value":{…}} as the ZJSON control lines.
    const j = JSON.parse(c.text) as { type?: string; value?: Record<string, unknown> };
    return [j.type, j.value ?? {}];
  }
  throw new LochError("internal", "unsupported control message");
}

/** A counter of QueryStats, flattened (as JSON has it) or in its Progress record. */
function counter(msg: Value | Record<string, unknown>, name: string): number | undefined {
  if (msg instanceof Value) {
    return numberField(msg, name) ?? numberField(fieldOf(msg, "Progress"), name);
  }
  const n = msg[name] ?? (msg.Progress as Record<string, unknown> | undefined)?.[name];
  return typeof n === "number" ? n : undefined;
}

function readStats(msg: Value | Record<string, unknown>, stats: QueryStats): void {
  stats.bytesRead = counter(msg, "bytes_read") ?? stats.bytesRead;
  stats.bytesMatched = counter(msg, "bytes_matched") ?? stats.bytesMatched;
  stats.recordsRead = counter(msg, "records_read") ?? stats.recordsRead;
  stats.recordsMatched = counter(msg, "records_matched") ?? stats.recordsMatched;
}

function errorText(msg: Value | Record<string, unknown>): string {
  if (msg instanceof Value) return stringField(msg, "error") ?? "query failed";
  const e = msg.error;
  return typeof e === "string" ? e : "query failed";
}

// Messages between the server's thread and its workers, which run queries
// and write the objects of loads, and read shares of each other's scans
// (a worker asks, the server's thread hands the share to an idle worker and
// its part back). Each is identified by a number the server
// gives it. Bytes travel as transferred ArrayBuffers (never as values): a
// query's encoded output, credited by the server as its client reads (so a
// slow client holds its query back), and a load's body, credited by the
// worker as it reads. A load's objects come back as their catalog records,
// for the server's thread to commit. Errors cross as their kind and message (and a parse error's offset), to be
// thrown again on the server's side and answered with the usual status.

import { asClientFault, LochError, messageOf } from "../../errors.ts";
import type { ErrorKind } from "../../errors.ts";
import type { Head } from "../../lake/sources.ts";
import type { ObjectRecord } from "../../lake/objects.ts";
import type { SharedPart } from "../../lake/share.ts";
import { ParseError, type SourceAccess } from "../../query/mod.ts";

/** What the server asks of a worker. */
export type ToWorker =
  /** First: how many workers share the machine (each takes its share of the caches). */
  /** catalog: where the lakes' catalogs are (Lake.open's option; absent: in their directories). */
  /** shareMinBytes: the least a scan reads before it shares its objects with other workers. */
  | {
    type: "init";
    workers: number;
    retireBytes: number;
    catalog?: string;
    shareMinBytes: number;
  }
  | { type: "query"; id: number; job: QueryJob }
  /** The client read this many more bytes of the query's output. */
  | { type: "credit"; id: number; bytes: number }
  /** The client went away: stop the query. */
  | { type: "cancel"; id: number }
  /** Are you there? (The worker answers "pong" at once unless it is stuck.) */
  | { type: "ping" }
  /** The lake at root is closing: let go of it. */
  | { type: "release"; root: string }
  /** Open the lake at root and read its metadata now (before the first query). */
  | { type: "preload"; root: string }
  /** Write the objects of a load whose body follows in "body" messages. */
  | { type: "load"; id: number; job: LoadJob }
  | { type: "body"; id: number; chunk: Uint8Array }
  /** continuation: what follows this body when it is one part of a longer JSON body. */
  | { type: "body-end"; id: number; continuation?: string }
  /** Reading the request's body failed. */
  | { type: "body-error"; id: number; message: string }
  /** Read a share of another worker's scan (lake/share.ts). */
  | { type: "share"; id: number; job: ShareJob }
  /** The answer to this worker's "share": the part, or null when no worker took it. */
  | { type: "shared"; id: number; part: SharedPart | null }
  /** The query that asked for this share stopped: stop reading it (answer null). */
  | { type: "unshare"; id: number };

/** A share of a query's scan for a helper: the query again, which scan, which objects. */
export interface ShareJob {
  root: string;
  text: string;
  head?: Head;
  access?: SourceAccess;
  memoryLimit?: number;
  /** The scan's number in the query (ShareContext). */
  source: number;
  /** The objects to read (base62 ids). */
  objects: string[];
}

export interface LoadJob {
  /** The lake's directory. */
  root: string;
  poolId: Uint8Array;
  /** The body's format (as Content-Type named it), or "auto". */
  format: string;
  /** The body is one part of a longer JSON body (format "json"; see split.ts). */
  part?: boolean;
}

export interface QueryJob {
  /** The lake's directory. */
  root: string;
  text: string;
  /** The response format (zson, zjson, json, zng, ...). */
  format: string;
  ctrl: boolean;
  head?: Head;
  /** What `get` and `file` sources may read (default: nothing). */
  access?: SourceAccess;
  /** The query's time limit in ms (0 or absent: none). */
  timeoutMs?: number;
  /** Estimated bytes the query may hold in all (absent: the thread's default). */
  memoryLimit?: number;
}

/** What a worker tells the server. */
export type FromWorker =
  /** The worker has started (and warmed up, when asked). */
  | { type: "ready" }
  /** The answer to "ping". */
  | { type: "pong" }
  /** The worker's heap has grown past its limit: replace it once it is idle. */
  | { type: "retire" }
  /** A preload is done. */
  | { type: "preloaded" }
  /** The query compiled and its sources opened: output follows. */
  | { type: "start"; id: number }
  /** The query failed before any output. */
  | { type: "error"; id: number; error: WireError }
  | { type: "data"; id: number; chunk: Uint8Array }
  /** The worker has read this many more bytes of a load's body. */
  | { type: "body-credit"; id: number; bytes: number }
  /** A load's objects are written (not yet committed). */
  | { type: "loaded"; id: number; objects: ObjectRecord[]; warnings: string[] }
  /** Asks for a share of a scan to be read by another worker (id: this worker's). */
  | { type: "share"; id: number; job: ShareJob }
  /** A share read ("share" to this worker), or null when it could not be. */
  | { type: "shared"; id: number; part: SharedPart | null }
  /** The query that asked for a share stopped (its client went away): stop the share. */
  | { type: "unshare"; id: number }
  /** The query's output is complete (or it stopped); a query's says what it read. */
  | { type: "end"; id: number; read?: { recordsRead: number; bytesRead: number } };

export interface WireError {
  kind: ErrorKind | null;
  message: string;
  /** A query syntax error's offset. */
  offset?: number;
}

/** An error as it crosses threads. */
export function toWire(e: unknown): WireError {
  e = asClientFault(e);
  const kind = e instanceof LochError ? e.kind : null;
  const w: WireError = { kind, message: messageOf(e) };
  if (e instanceof ParseError) w.offset = e.offset;
  return w;
}

/** The error again, as the server's side throws it. */
export function fromWire(w: WireError): Error {
  if (w.offset !== undefined) return new ParseError(w.message, w.offset);
  return w.kind === null ? new Error(w.message) : new LochError(w.kind, w.message);
}

/** a itself when it spans its whole buffer (which can then be transferred), else a copy that does. */
export function ownBuffer<T extends Uint8Array | Float64Array>(a: T): T {
  return a.byteOffset === 0 && a.byteLength === a.buffer.byteLength ? a : a.slice() as T;
}

/** A shared part with buffers of its own, and those buffers, to transfer with it. */
export function transferablePart(part: SharedPart): [SharedPart, ArrayBuffer[]] {
  const data = ownBuffer(part.data);
  const numbers = part.numbers === null ? null : ownBuffer(part.numbers);
  const buffers = [data.buffer as ArrayBuffer];
  if (numbers !== null) buffers.push(numbers.buffer as ArrayBuffer);
  return [{ data, numbers, stats: part.stats }, buffers];
}

/** Bytes of output a worker may send ahead of what its client has read. */
export const OUTPUT_WINDOW = 1 << 20;

/** Bytes of a load's body the server may send ahead of what the worker has read. */
export const BODY_WINDOW = 4 << 20;

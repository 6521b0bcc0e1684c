// POST /query (lake-api.md §12): the query is compiled and its sources
// opened before the response starts, so syntax errors and unknown pools are
// ordinary HTTP errors; then results stream as they are produced, the
// client's reading pace holding the query back. With ctrl=true in ZJSON or
// ZNG, control messages frame the values (queryoutput.ts). A query runs on
// a worker, or on this thread when there are none or the catalog answers it.

import { LochError } from "../errors.ts";
import type { Sink } from "../formats/io.ts";
import type { Lake } from "../lake/lake.ts";
import {
  answeredFromMetadata,
  mayAnswerFromMetadata,
  type PreparedQuery,
  prepareLakeQuery,
} from "../lake/query.ts";
import type { Head } from "../lake/sources.ts";
import type { ScanHelpers } from "../lake/share.ts";
import { NO_ACCESS, openURLSources, runQuery, type SourceAccess } from "../query/mod.ts";
import type { QueryRun } from "./context.ts";
import { mediaType } from "./mime.ts";
import { QueryOutput } from "./queryoutput.ts";
import { Wakeup } from "./wakeup.ts";
import type { WorkerPool } from "./workers/pool.ts";
import { type Admission, untilDone } from "./admission.ts";
import type { Metrics, QueryTotals } from "./metrics.ts";

/** The stream a response body reads, fed by a sink that waits while the client is behind. */
class ResponseStream {
  readonly readable: ReadableStream<Uint8Array>;
  private controller!: ReadableStreamDefaultController<Uint8Array>;
  private wakeup = new Wakeup();
  cancelled = false;
  /** Aborted when the client goes away, so a query stops even before its first output. */
  readonly gone = new AbortController();

  constructor(highWaterMark = 1 << 20) {
    this.readable = new ReadableStream<Uint8Array>({
      start: (c) => {
        this.controller = c;
      },
      pull: () => this.wakeup.wake(),
      cancel: () => this.clientGone(),
    }, new ByteLengthQueuingStrategy({ highWaterMark }));
  }

  /** The client went away (cancelled the body, or disconnected before it began). */
  clientGone(): void {
    if (this.cancelled) return;
    this.cancelled = true;
    this.gone.abort(new ClientGone());
    this.wakeup.wake();
  }

  readonly sink: Sink = async (chunk) => {
    if (this.cancelled) throw new ClientGone();
    this.controller.enqueue(chunk.slice());
    while ((this.controller.desiredSize ?? 1) <= 0 && !this.cancelled) {
      await this.wakeup.wait();
    }
  };

  close(): void {
    if (!this.cancelled) this.controller.close();
  }
}

/** The client stopped reading (disconnected or cancelled). */
export class ClientGone extends Error {
  constructor() {
    super("context canceled");
  }
}

export interface QueryOptions {
  head?: Head;
  /** Control messages (ZJSON and ZNG only). */
  ctrl: boolean;
  /** Told about the query before it starts (in-process queries only). */
  onQuery?: (run: QueryRun) => void;
  /** Runs queries on worker threads; null or absent: on this thread. */
  pool?: WorkerPool | null;
  /** What `get` and `file` sources may read (default: nothing). */
  access?: SourceAccess;
  /** Aborts when the client goes away (the request's signal). */
  signal?: AbortSignal;
  /** The query's time limit in ms (0 or absent: none). */
  timeoutMs?: number;
  /** Estimated bytes the query may hold in all (absent: the default, spill/memory.ts). */
  memoryLimit?: number;
  /** How many queries run at once (absent: no limit). */
  admission?: Admission;
  /** Counts the query when it ends. */
  metrics?: Metrics;
  /**
   * Called as a query starts on this thread: the request stops counting as
   * work here (the query counts itself), so the two do not take turns with
   * each other as if they were two clients' work.
   */
  handOver?: () => void;
}

/** Query texts that name count but are not counts the catalog could answer (a few hundred at most). */
const notCounts = new Set<string>();

/** Whether the serving thread has seen that text is no count the catalog could answer. */
export function knownNotCount(text: string): boolean {
  return notCounts.has(text);
}

function rememberNotCount(text: string): void {
  if (notCounts.size >= 512) notCounts.clear();
  notCounts.add(text);
}

/** Runs a query for a response in `format`. Throws (before any output) for request errors. */
export async function queryResponse(
  lake: Lake,
  text: string,
  format: string,
  opts: QueryOptions,
  headers: Headers,
): Promise<Response> {
  const leave = await opts.admission?.enter(opts.signal) ?? (() => {});
  const t0 = performance.now();
  let read: QueryTotals | null = null;
  let body: ReadableStream<Uint8Array> | null = null;
  // Runs the query on this thread; with `when`, only if it holds of the prepared query.
  const here = async (when?: (p: PreparedQuery) => boolean) => {
    const stream = new ResponseStream();
    // Until the response starts; then a client that goes away cancels its body.
    const gone = () => stream.clientGone();
    opts.signal?.addEventListener("abort", gone, { once: true });
    let run;
    try {
      run = await beginQuery(
        lake,
        text,
        format,
        { ...opts, when },
        stream.sink,
        stream.gone.signal,
      );
    } finally {
      opts.signal?.removeEventListener("abort", gone);
    }
    if (run === null) return null;
    opts.onQuery?.(run);
    run.done.then(() => stream.close());
    read = run.stats;
    return stream.readable;
  };
  try {
    if (opts.pool?.usable && opts.onQuery === undefined) {
      // A count the catalog answers is answered here: the hop to a worker
      // would be most of its time. (Only a query that names count() can be
      // one, and one seen not to be one is not compiled here again.)
      if (text.includes("count") && !notCounts.has(text)) {
        body = await here((p) => {
          if (!mayAnswerFromMetadata(p)) rememberNotCount(text);
          return answeredFromMetadata(p);
        }).catch(() => null);
      }
      body ??= await opts.pool.query(
        {
          root: lake.root,
          text,
          format,
          ctrl: opts.ctrl,
          head: opts.head,
          access: opts.access,
          timeoutMs: opts.timeoutMs,
          memoryLimit: opts.memoryLimit,
        },
        opts.signal,
        (r) => (read = r ?? null),
      );
    } else {
      body = (await here())!;
    }
  } catch (e) {
    leave();
    throw e;
  }
  headers.set("Content-Type", mediaType(format));
  const done = () => {
    leave();
    opts.metrics?.query((performance.now() - t0) / 1000, read);
  };
  const counted = opts.admission === undefined && opts.metrics === undefined
    ? body
    : untilDone(body, done);
  return new Response(counted, { status: 200, headers });
}

/**
 * Starts a query whose output, in `format`, goes to sink; the query stops
 * when signal aborts (its client went away). Throws (before any output) for
 * request errors, a URL a source fetches that fails among them; a later
 * failure is reported in the output (with ctrl) or ends it.
 */
export async function startQuery(...args: StartArgs): Promise<QueryRun> {
  return (await beginQuery(...args))!;
}

interface StartOptions {
  head?: Head;
  ctrl: boolean;
  access?: SourceAccess;
  timeoutMs?: number;
  memoryLimit?: number;
  /** Run the query only if this holds of it once prepared (else nothing runs: null). */
  when?: (p: PreparedQuery) => boolean;
  /** Called as the query starts running (QueryOptions.handOver). */
  handOver?: () => void;
  /** Other workers that may read shares of the query's scans (a worker's query only). */
  helpers?: ScanHelpers;
}

type StartArgs = [
  lake: Lake,
  text: string,
  format: string,
  opts: StartOptions,
  sink: Sink,
  gone: AbortSignal,
];

/** startQuery, but null (nothing run) when opts.when does not hold of the prepared query. */
async function beginQuery(
  ...[lake, text, format, opts, sink, gone]: StartArgs
): Promise<QueryRun | null> {
  // The query stops when its client goes away or its time is up.
  const timeUp = new AbortController();
  const limit = opts.timeoutMs ?? 0;
  const timer = limit > 0 ? setTimeout(() => timeUp.abort(), limit) : undefined;
  const signal = limit > 0 ? AbortSignal.any([gone, timeUp.signal]) : gone;
  const timedOut = () =>
    new LochError("timeout", `query exceeded its time limit of ${limit / 1000} s`);
  let prepared;
  try {
    prepared = prepareLakeQuery(lake, text, {
      head: opts.head,
      signal,
      access: opts.access ?? NO_ACCESS,
      helpers: opts.helpers,
      encodedOutput: format === "zng",
    });
    if (opts.when !== undefined && !opts.when(prepared)) {
      for (const r of prepared.readers) await r.close?.().catch(() => {});
      clearTimeout(timer);
      return null;
    }
    try {
      await openURLSources(prepared.readers);
    } catch (e) {
      for (const r of prepared.readers) await r.close?.().catch(() => {});
      throw timeUp.signal.aborted ? timedOut() : e;
    }
  } catch (e) {
    clearTimeout(timer);
    throw e;
  }
  const ctrl = opts.ctrl && (format === "zjson" || format === "zng");
  const out = new QueryOutput(format, sink, ctrl, prepared.stats);
  const run = async () => {
    try {
      await runQuery(prepared.query, prepared.readers, out, {
        signal,
        memoryLimit: opts.memoryLimit,
      });
      await out.finish();
    } catch (e) {
      if (gone.aborted || e instanceof ClientGone) return;
      await out.fail(timeUp.signal.aborted ? timedOut() : e).catch(() => {});
    } finally {
      clearTimeout(timer);
      out.stop();
    }
  };
  // From here the query counts as this thread's work, not its request.
  opts.handOver?.();
  return { stats: prepared.stats, readers: prepared.readers, done: run() };
}

// POST /query (lake-api.md §12): the query is compiled and its sources
// opened before the response starts, so syntax errors and unknown pools are
// ordinary HTTP errors; then results stream as they are produced, the
// client's reading pace holding the query back. With ctrl=true in ZJSON or
// ZNG, control messages frame the values: QueryChannelSet before the first
// value, QueryChannelEnd and QueryStats at the end, QueryStats every second
// while the query runs, and QueryError for a failure after the start
// (without ctrl a late failure just ends the output, as in the reference).

import { asClientFault, LochError, messageOf } from "../errors.ts";
import type { Sink, ValueWriter } from "../formats/io.ts";
import { openWriter } from "../formats/registry.ts";
import { formatZson } from "../formats/zson/formatter.ts";
import { ZjsonWriter } from "../formats/zjson/writer.ts";
import { CONTROL_ZSON, type ZngWriter } from "../formats/zng/writer.ts";
import { JsonWriter } from "../formats/json/writer.ts";
import type { Lake } from "../lake/lake.ts";
import {
  answeredFromMetadata,
  mayAnswerFromMetadata,
  type PreparedQuery,
  prepareLakeQuery,
} from "../lake/query.ts";
import type { ScanStats } from "../lake/scan.ts";
import type { Head } from "../lake/sources.ts";
import {
  type ChannelWriter,
  NO_ACCESS,
  openURLSources,
  runQuery,
  type SourceAccess,
} from "../query/mod.ts";
import { zctx } from "../zed/context.ts";
import { Field, type Type, TypeInt64, TypeString, TypeTime } from "../zed/types.ts";
import { type Batch, Value } from "../zed/value.ts";
import type { QueryRun } from "./context.ts";
import { mediaType } from "./mime.ts";
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

/** How often a running query reports its progress. */
const STATS_EVERY_MS = 1000;
/** Longest time buffered output waits before it is sent. */
const FLUSH_EVERY_MS = 200;

/**
 * The query's output: values in the response format, framed by control
 * messages when asked. Writes are serialized, since progress reports come
 * from a timer.
 */
class QueryOutput implements ChannelWriter {
  private writer: ValueWriter;
  private chain: Promise<void> = Promise.resolve();
  /** The channel last announced with QueryChannelSet (-1: none yet). */
  private current = -1;
  private readonly ended = new Set<number>();
  private readonly start = Date.now();
  private lastFlush = performance.now();
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(
    private format: string,
    sink: Sink,
    private ctrl: boolean,
    private stats: ScanStats,
  ) {
    // JSON responses are one array; ZJSON is ASCII-only, since zed-js (Zui)
    // decodes the body chunk by chunk and garbles a character split across two.
    this.writer = format === "json"
      ? new JsonWriter(sink, { array: true })
      : format === "zjson"
      ? new ZjsonWriter(sink, true)
      : openWriter(format, sink, { pretty: 0 });
    if (ctrl) this.timer = setInterval(() => this.serial(() => this.progress()), STATS_EVERY_MS);
  }

  private serial(op: () => Promise<void>): Promise<void> {
    const next = this.chain.then(op);
    this.chain = next.catch(() => {});
    return next;
  }

  write(batch: Batch): Promise<void> {
    return this.writeTo(0, batch);
  }

  /** Values of one channel: QueryChannelSet first when the channel changes. */
  writeTo(channel: number, batch: Batch): Promise<void> {
    return this.serial(async () => {
      if (this.ctrl && channel !== this.current) {
        await this.control("QueryChannelSet", channelMessage("QueryChannelSet", channel));
        this.current = channel;
      }
      // zed-js decodes each channel on its own: types are (re)defined per channel.
      if (this.format === "zjson") (this.writer as ZjsonWriter).useChannel(channel);
      await this.writer.write(batch);
      if (performance.now() - this.lastFlush > FLUSH_EVERY_MS) await this.flush();
    });
  }

  endChannel(channel: number): Promise<void> {
    return this.serial(async () => {
      this.ended.add(channel);
      if (this.ctrl) {
        await this.control("QueryChannelEnd", channelMessage("QueryChannelEnd", channel));
      }
    });
  }

  /** The runner ends its writer even on failure: the ending is done by finish or fail. */
  end(): Promise<void> {
    return Promise.resolve();
  }

  /** After the last value: the closing control messages and the format's trailer. */
  finish(): Promise<void> {
    return this.serial(async () => {
      if (this.ctrl) {
        // Every query has channel 0, ended even when nothing reached its end.
        if (!this.ended.has(0)) {
          await this.control("QueryChannelEnd", channelMessage("QueryChannelEnd", 0));
        }
        await this.control("QueryStats", this.statsValue());
      }
      await this.writer.end();
    });
  }

  /** After a failure: QueryError with control messages, else the output just ends. */
  fail(e: unknown): Promise<void> {
    return this.serial(async () => {
      if (this.ctrl) {
        await this.control("QueryError", queryError(messageOf(asClientFault(e))));
        await this.flushZng();
      } else {
        await this.writer.end();
      }
    });
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private async progress(): Promise<void> {
    await this.control("QueryStats", this.statsValue());
  }

  private async flush(): Promise<void> {
    this.lastFlush = performance.now();
    const w = this.writer as { flush?: () => Promise<void> };
    await w.flush?.();
  }

  /** Ends the ZNG stream (a QueryError is the last thing sent). */
  private async flushZng(): Promise<void> {
    if (this.format === "zng") await (this.writer as ZngWriter).end();
    else await this.flush();
  }

  private async control(name: string, v: Value): Promise<void> {
    if (this.format === "zjson") {
      await (this.writer as ZjsonWriter).writeControl(name, controlJSON(name, v, this));
      await this.flush();
    } else {
      await (this.writer as ZngWriter).writeControl(
        formatZson(v.type, v.body) + "\n",
        CONTROL_ZSON,
      );
      await this.flush();
    }
  }

  /** QueryStats as a value of the reference's shape. */
  statsValue(): Value {
    const s = this.stats;
    const ms = (t: number) => BigInt(t) * 1000000n;
    return new Value(statsType(), [
      timeBody(ms(this.start)),
      timeBody(ms(Date.now())),
      [s.bytesRead, s.bytesMatched, s.recordsRead, s.recordsMatched],
    ]);
  }

  get startMillis(): number {
    return this.start;
  }
}

function timeBody(ns: bigint): number | bigint {
  return ns <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(ns) : ns;
}

function named(name: string, fields: [string, Type][]): Type {
  return zctx.lookupNamed(name, zctx.lookupRecord(fields.map(([n, t]) => new Field(n, t))));
}

function channelMessage(name: "QueryChannelSet" | "QueryChannelEnd", id: number): Value {
  return new Value(named(name, [["channel_id", TypeInt64]]), [id]);
}

function queryError(msg: string): Value {
  return new Value(named("QueryError", [["error", TypeString]]), [msg]);
}

function statsType(): Type {
  const progress = named("Progress", [
    ["bytes_read", TypeInt64],
    ["bytes_matched", TypeInt64],
    ["records_read", TypeInt64],
    ["records_matched", TypeInt64],
  ]);
  return named("QueryStats", [
    ["start_time", TypeTime],
    ["update_time", TypeTime],
    ["Progress", progress],
  ]);
}

/**
 * The JSON form of a control message (ZJSON responses): Go's encoding of the
 * structs, in which times are {sec, ns} and QueryStats' progress counters
 * are flattened into it.
 */
function controlJSON(name: string, v: Value, out: QueryOutput): unknown {
  const body = v.body as unknown[];
  switch (name) {
    case "QueryChannelSet":
    case "QueryChannelEnd":
      return { channel_id: body[0] };
    case "QueryError":
      return { error: body[0] };
    case "QueryStats": {
      const [bytesRead, bytesMatched, recordsRead, recordsMatched] = body[2] as number[];
      const now = Date.now();
      return {
        start_time: secNs(out.startMillis),
        update_time: secNs(now),
        bytes_read: bytesRead,
        bytes_matched: bytesMatched,
        records_read: recordsRead,
        records_matched: recordsMatched,
      };
    }
  }
  throw new LochError("internal", `unknown control message ${name}`);
}

function secNs(ms: number): { sec: number; ns: number } {
  return { sec: Math.floor(ms / 1000), ns: (ms % 1000) * 1000000 };
}

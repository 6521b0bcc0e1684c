// The server's workers: Deno Workers started once (or on first use), each
// running whole queries over its own connection to the lake and encoding
// their output, and writing the objects of loads, while the server's thread
// accepts requests, streams bodies and commits. Work goes to the worker with
// the fewest tasks (so concurrent queries and loads share the workers
// fairly). A query's output arrives as transferred buffers and is fed to the
// response as the client reads, the worker held back once it is
// OUTPUT_WINDOW bytes ahead; a client that goes away cancels its query at
// once. A load's body goes the other way, up to BODY_WINDOW bytes ahead of
// the worker. A worker that dies fails its tasks and is replaced.

import { LochError } from "../../errors.ts";
import type { LoadJob, QueryJob, ShareJob } from "./protocol.ts";
import type { LoadedObjects, LoadTask } from "./tasks.ts";
import { PoolWorker } from "./poolworker.ts";
import { feedLoad, PART_MIN, STREAM_PART } from "./split.ts";
import type { ObjectRecord } from "../../lake/objects.ts";
import { envNumber, envPositive } from "../../env.ts";

export type { LoadedObjects } from "./tasks.ts";

/** The default number of workers: the machine's cores (LOCH_WORKERS overrides). */
export function defaultWorkers(): number {
  const env = Deno.env.get("LOCH_WORKERS");
  if (env !== undefined && env !== "") return parseWorkers(env);
  return Math.max(1, navigator.hardwareConcurrency || 1);
}

/** A worker count from a flag or the environment: a whole number from 0 (none) to 256. */
export function parseWorkers(s: string): number {
  const n = Number(s);
  if (!Number.isInteger(n) || n < 0 || n > 256) {
    throw new LochError("invalid", `invalid worker count: ${s} (want 0 to 256)`);
  }
  return n;
}

export class WorkerPool {
  private workers: PoolWorker[] = [];
  private nextIndex = 0;
  /** Workers replaced because their heap grew (they return its memory). */
  retired = 0;
  /** Queries handed to workers so far. */
  queriesSent = 0;
  private nextId = 1;
  private stopped = false;
  /** The first parts of a load's body sent without a length (split.ts; tests lower it). */
  streamPart = STREAM_PART;

  private watchdog: ReturnType<typeof setInterval> | undefined;

  /**
   * size workers (at least 1), warmed up when warm (start() waits for that;
   * a query sent to a worker still warming up runs alongside its warm-up).
   * A busy worker silent for stuckMs (default LOCH_WORKER_TIMEOUT_MS, else
   * 30 s) is stopped and replaced; one whose heap and buffers grew past
   * retireBytes (default LOCH_WORKER_RETIRE_MB, else 256 MiB; a warm idle
   * worker holds about 70) is replaced once the pool has been idle for
   * retireIdleMs (default 3 s), returning that memory.
   */
  constructor(
    readonly size: number,
    private warm = false,
    private stuckMs = defaultStuckMs(),
    private retireBytes = defaultRetireBytes(),
    /** Where the lake's catalog is (absent: in its directory). */
    private readonly catalog?: string,
    /** The least a scan reads before it shares its objects with idle workers. */
    private readonly shareMinBytes = defaultShareMinBytes(),
    /** How long the pool must be idle before workers whose memory grew are replaced. */
    private readonly retireIdleMs = RETIRE_IDLE_MS,
  ) {}

  /**
   * Replaces the workers whose memory grew once every worker has been idle
   * for retireIdleMs: never while any has work, nor between the loads or
   * queries of a burst, which reuse the heap and whose cores the
   * replacement's warm-up would take (a 10x load of the Zeek logs ran at
   * 61–79 MB/s replacing workers between files, 90–105 without).
   */
  private retireGrown(workers: readonly PoolWorker[]): void {
    let since = 0;
    for (const w of workers) {
      if (w.busy > 0) return;
      if (w.idleSince > since) since = w.idleSince;
    }
    if (performance.now() - since < this.retireIdleMs) return;
    for (const w of workers) w.maybeRetire();
  }

  /** Shares of scans handed to idle workers so far. */
  sharesSent = 0;
  /** Shares stopped because the query that asked for them stopped. */
  sharesStopped = 0;

  /**
   * Hands a share of a worker's scan to an idle worker (one with nothing
   * to do: sharing never delays other work), or answers that none is free.
   */
  private routeShare(from: PoolWorker, id: number, job: ShareJob): void {
    const helper = this.stopped
      ? undefined
      : this.workers.find((w) => w !== from && w.started && !w.retiring && w.busy === 0);
    if (helper === undefined) {
      from.answerShare(id, null);
      // Not started yet: the next share has one more worker to ask.
      if (!this.stopped && this.workers.length < this.size) this.fill(this.workers.length + 1);
      return;
    }
    this.sharesSent++;
    helper.readShare(this.nextId++, from, id, job);
  }

  /**
   * Starts the workers now rather than on first use, warm when the pool is
   * (long loads are split across the workers ready: split.ts); settles when
   * they are ready and, given a lake's root, have read its metadata.
   */
  async start(preload?: string): Promise<void> {
    this.fill(this.size, true);
    await Promise.all(this.workers.map(async (w) => {
      await w.ready;
      if (preload !== undefined) await w.preload(preload);
    }));
  }

  /** Workers that died before they started or did any work (one that cannot start makes the pool unusable). */
  private failedStarts = 0;

  /**
   * False once a worker has failed to start (its module cannot load): the
   * server then runs queries and loads on its own thread instead.
   */
  get usable(): boolean {
    return !this.stopped && this.failedStarts === 0;
  }

  /**
   * Starts workers until there are n (at most size). Only the first warms up
   * (when asked): the others start when the first is busy, and a warm-up then
   * would only delay the work they were started for.
   */
  private fill(n: number, warm = false): void {
    const size = Math.max(1, this.size);
    if (this.watchdog === undefined && !this.stopped) {
      const every = Math.max(10, Math.min(1000, this.stuckMs / 4));
      this.watchdog = setInterval(() => {
        const workers = this.workers.slice();
        for (const w of workers) w.check(this.stuckMs);
        this.retireGrown(workers);
      }, every);
      Deno.unrefTimer(this.watchdog as unknown as number);
    }
    // Retiring workers finish what they have and take nothing new.
    const live = () => this.workers.filter((w) => !w.retiring).length;
    while (!this.stopped && live() < Math.min(n, size)) {
      const first = live() === 0;
      this.workers.push(
        new PoolWorker(
          this.warm && (first || warm),
          this.nextIndex++,
          {
            size,
            retireBytes: this.retireBytes,
            catalog: this.catalog,
            shareMinBytes: this.shareMinBytes,
          },
          {
            death: (dead) => {
              if (!dead.started && !dead.answered) this.failedStarts++;
              if (dead.retiring) this.retired++;
              this.workers = this.workers.filter((w) => w !== dead);
            },
            // A worker whose heap grew is replaced now (warm if it was), so the
            // next work does not wait for a start.
            retire: (old) => this.fill(live() + 1, old.warm),
            share: (w, id, job) => this.routeShare(w, id, job),
            unshare: (w, id) => {
              if (this.workers.some((h) => h.stopShare(w, id))) this.sharesStopped++;
            },
          },
        ),
      );
    }
  }

  /**
   * Runs a query on the least busy worker; resolves to its output once the
   * query has started, or rejects with its error (syntax, unknown pool...).
   * When signal aborts (the client went away), the query is cancelled, even
   * before it starts (while a source it fetches is still opening).
   */
  async query(
    job: QueryJob,
    signal?: AbortSignal,
    onEnd?: (read: { recordsRead: number; bytesRead: number } | undefined) => void,
  ): Promise<ReadableStream<Uint8Array>> {
    if (this.stopped) throw new LochError("internal", "query workers stopped");
    const w = this.pick();
    const id = this.nextId++;
    this.queriesSent++;
    const out = w.query(id, job);
    out.onEnd = onEnd;
    const cancel = () => w.send({ type: "cancel", id });
    signal?.addEventListener("abort", cancel, { once: true });
    try {
      await out.start;
    } finally {
      // From here a client that goes away cancels the response body, which cancels the query.
      signal?.removeEventListener("abort", cancel);
    }
    return out.readable;
  }

  /**
   * The least busy worker; among equals the first, so that light work stays
   * on one worker whose caches and compiled code are warm for it.
   */
  private pick(readyOnly = false): PoolWorker {
    if (this.stopped) throw new LochError("internal", "workers stopped");
    this.fill(1);
    const ready = this.workers.filter((w) => !w.retiring && w.started);
    const live = readyOnly && ready.length > 0 ? ready : this.workers.filter((w) => !w.retiring);
    let best = live[0];
    for (const w of live) if (w.busy < best.busy) best = w;
    if (best.busy > 0 && live.length < this.size && !readyOnly) {
      // Every worker is busy: one more.
      this.fill(live.length + 1);
      best = this.workers[this.workers.length - 1];
    }
    return best;
  }

  /**
   * Has workers write the objects of a load while its body streams to them
   * (a long JSON body in parts, each to its own worker: split.ts); resolves
   * to their records (for the caller to commit) or rejects with the load's
   * error (a body in no format, a pool gone...). Objects written but not in
   * the result are handed to discard first. The objects are the caller's to
   * remove if it does not commit them.
   */
  async load(
    job: LoadJob,
    body: ReadableStream<Uint8Array>,
    length: number | null = null,
    discard: (objects: ObjectRecord[]) => Promise<void> = () => Promise.resolve(),
  ): Promise<LoadedObjects> {
    // A body big enough to split starts the workers not yet started, for the next ones.
    if (length !== null && length >= 2 * PART_MIN) this.fill(this.size);
    const out = await feedLoad(this, job, body, length);
    if (out.unused.length > 0) await discard(out.unused);
    if (out.loaded === null) throw out.error;
    return out.loaded;
  }

  /** Workers started and taking work. */
  get ready(): number {
    let n = 0;
    for (const w of this.workers) if (w.started && !w.retiring) n++;
    return n;
  }

  /**
   * Starts a load on the least busy worker (of those started, when
   * readyOnly); its body is the caller's to send.
   */
  startLoad(job: LoadJob, readyOnly: boolean): LoadTask {
    return this.pick(readyOnly).load(this.nextId++, job);
  }

  /** Queries and loads on the workers now. */
  get tasks(): number {
    let n = 0;
    for (const w of this.workers) n += w.busy;
    return n;
  }

  /** Queries running on the workers (started and not yet ended). */
  get running(): number {
    let n = 0;
    for (const w of this.workers) n += w.outputs.size;
    return n;
  }

  /** Workers started (and not dead). */
  get started(): number {
    return this.workers.length;
  }

  /** Lets the workers close their connections to the lake at root. */
  release(root: string): void {
    for (const w of this.workers) w.send({ type: "release", root });
  }

  /** Stops every worker (queries running are cut short). */
  stop(): void {
    this.stopped = true;
    clearInterval(this.watchdog);
    for (const w of this.workers.slice()) w.terminate();
    this.workers = [];
  }
}

/** How long the pool must be idle before workers whose memory grew are replaced. */
const RETIRE_IDLE_MS = 3000;

function defaultRetireBytes(): number {
  return envPositive("LOCH_WORKER_RETIRE_MB", 256) * 2 ** 20;
}

/**
 * The least a scan reads before it is shared: LOCH_SHARE_MIN_BYTES, else
 * 64 MiB (of its fields' columns; below that the hop to a helper and its
 * planning cost about what they save).
 */
function defaultShareMinBytes(): number {
  return envNumber("LOCH_SHARE_MIN_BYTES", 64 << 20, 0);
}

/** How long a busy worker may be silent: LOCH_WORKER_TIMEOUT_MS, else 30 s. */
function defaultStuckMs(): number {
  return envPositive("LOCH_WORKER_TIMEOUT_MS", 30_000);
}

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
import {
  fromWire,
  type FromWorker,
  type LoadJob,
  type QueryJob,
  type ShareJob,
  type ToWorker,
  transferablePart,
} from "./protocol.ts";
import type { SharedPart } from "../../lake/share.ts";
import { type LoadedObjects, LoadTask, Output } from "./tasks.ts";
import { feedLoad, PART_MIN } from "./split.ts";
import type { ObjectRecord } from "../../lake/objects.ts";

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

/** What a worker's owner hears of it. */
interface WorkerHooks {
  /** It died (and was terminated). */
  death(w: PoolWorker): void;
  /** It asked to be replaced. */
  retire(w: PoolWorker): void;
  /** It asks for a share of a scan to be read by another worker (answerShare). */
  share(w: PoolWorker, id: number, job: ShareJob): void;
  /** The query that asked for a share stopped. */
  unshare(w: PoolWorker, id: number): void;
}

/** The settings every worker starts with. */
interface WorkerSettings {
  size: number;
  retireBytes: number;
  catalog: string | undefined;
  shareMinBytes: number;
}

class PoolWorker {
  private worker: Worker;
  readonly outputs = new Map<number, Output>();
  readonly loads = new Map<number, LoadTask>();
  /** Shares it reads for other workers: who asked, and their id for it. */
  readonly shares = new Map<number, { from: PoolWorker; id: number }>();
  /** Terminated (it hears nothing more). */
  private dead = false;
  readonly ready: Promise<void>;
  private isReady!: () => void;

  /** Whether it started (posted "ready"). */
  started = false;
  /**
   * Whether it has answered any work. A worker takes messages before it
   * posts "ready" (while it opens its event-loop socket or warms up), so a
   * query sent early can start, and the worker die, before "ready" comes:
   * that worker did start.
   */
  answered = false;
  /** When it last said anything (the watchdog's clock). */
  lastHeard = performance.now();
  /** Asked to be replaced (its heap grew): it is, once idle for RETIRE_IDLE_MS. */
  wantsRetire = false;
  /** Being replaced: takes no new work, ends when idle. */
  retiring = false;
  /** When it last had nothing to do. */
  idleSince = performance.now();

  constructor(
    readonly warm: boolean,
    index: number,
    settings: WorkerSettings,
    private hooks: WorkerHooks,
  ) {
    this.ready = new Promise((r) => (this.isReady = r));
    this.worker = new Worker(new URL("./worker.ts", import.meta.url).href, {
      type: "module",
      name: `loch-worker-${index}:${warm ? "warm" : "cold"}`,
    });
    this.worker.onmessage = (e: MessageEvent<FromWorker>) => this.receive(e.data);
    const { size, retireBytes, catalog, shareMinBytes } = settings;
    this.send({ type: "init", workers: size, retireBytes, catalog, shareMinBytes });
    this.worker.onerror = (e) => {
      e.preventDefault();
      this.die(new LochError("internal", `query worker failed: ${e.message}`));
    };
  }

  /** Tasks running: queries, loads and shares. */
  get busy(): number {
    return this.outputs.size + this.loads.size + this.shares.size;
  }

  /** Reads a share of the scan of another worker's query for it. */
  readShare(id: number, from: PoolWorker, fromId: number, job: ShareJob): void {
    this.shares.set(id, { from, id: fromId });
    this.send({ type: "share", id, job });
  }

  /** Stops the share it reads for `from` (whose id for it is fromId), if it does; whether it did. */
  stopShare(from: PoolWorker, fromId: number): boolean {
    for (const [id, s] of this.shares) {
      if (s.from !== from || s.id !== fromId) continue;
      // Its answer (null, or a part no one waits for) still ends it here.
      this.send({ type: "unshare", id });
      return true;
    }
    return false;
  }

  /** The part of a share this worker asked for (null: read it yourself). */
  answerShare(id: number, part: SharedPart | null): void {
    if (this.dead) return;
    if (part === null) this.send({ type: "shared", id, part });
    else {
      const [own, buffers] = transferablePart(part);
      this.send({ type: "shared", id, part: own }, buffers);
    }
  }

  private preloaded: (() => void)[] = [];

  /** Has the worker read the metadata of the lake at root; settles when it has. */
  preload(root: string): Promise<void> {
    return new Promise((resolve) => {
      this.preloaded.push(resolve);
      this.send({ type: "preload", root });
    });
  }

  send(m: ToWorker, transfer: Transferable[] = []): void {
    this.worker.postMessage(m, transfer);
  }

  load(id: number, job: LoadJob): LoadTask {
    const task = new LoadTask(this, id);
    this.loads.set(id, task);
    this.send({ type: "load", id, job });
    return task;
  }

  query(id: number, job: QueryJob): Output {
    const out = new Output(this, id);
    this.outputs.set(id, out);
    this.send({ type: "query", id, job });
    return out;
  }

  private receive(m: FromWorker): void {
    this.lastHeard = performance.now();
    if (m.type === "pong") return;
    if (m.type === "retire") {
      this.wantsRetire = true;
      return;
    }
    if (m.type === "ready") {
      this.started = true;
      this.isReady();
      return;
    }
    if (m.type === "preloaded") {
      this.preloaded.shift()?.();
      return;
    }
    this.answered = true;
    if (m.type === "share") {
      this.hooks.share(this, m.id, m.job);
      return;
    }
    if (m.type === "unshare") {
      this.hooks.unshare(this, m.id);
      return;
    }
    if (m.type === "shared") {
      const asker = this.shares.get(m.id);
      this.shares.delete(m.id);
      asker?.from.answerShare(asker.id, m.part);
      this.retireWhenIdle();
      return;
    }
    const task = this.loads.get(m.id);
    if (task !== undefined) {
      switch (m.type) {
        case "body-credit":
          task.credit(m.bytes);
          break;
        // Settled, the load no longer counts against the worker (its "end"
        // may come after the response has gone and the client's next request came).
        case "loaded":
          this.loads.delete(m.id);
          task.done({ objects: m.objects, warnings: m.warnings });
          break;
        case "error":
          this.loads.delete(m.id);
          task.fail(fromWire(m.error));
          break;
        case "end":
          this.loads.delete(m.id);
          task.fail(new LochError("internal", "worker ended the load without its objects"));
          break;
      }
      return;
    }
    const out = this.outputs.get(m.id);
    if (out === undefined) return;
    switch (m.type) {
      case "start":
        out.started();
        break;
      case "error":
        // Answered now (an error response), so it no longer counts against the worker.
        this.outputs.delete(m.id);
        out.failed(fromWire(m.error));
        break;
      case "data":
        out.push(m.chunk);
        break;
      case "end":
        this.outputs.delete(m.id);
        out.onEnd?.(m.read);
        out.end();
        break;
    }
    this.retireWhenIdle();
  }

  /** Ends a retiring worker that has no work left. */
  retireWhenIdle(): void {
    if (this.busy === 0) this.idleSince = performance.now();
    if (this.retiring && this.busy === 0) {
      this.die(new LochError("internal", "worker retired"));
    }
  }

  /**
   * Replaces a worker that asked to be (its memory grew) once it has been
   * idle a while: not between the loads of a burst, which reuse the heap.
   */
  maybeRetire(): void {
    if (!this.wantsRetire || this.retiring || this.busy > 0) return;
    if (performance.now() - this.idleSince < RETIRE_IDLE_MS) return;
    this.retiring = true;
    this.hooks.retire(this);
    this.retireWhenIdle();
  }

  /**
   * The watchdog's look at a busy worker: one that has said nothing for
   * stuckMs is stuck (a decoder that never ends, an expression that never
   * yields) and is stopped, failing its work, to be replaced; else it is
   * asked to answer.
   */
  check(stuckMs: number): void {
    if (!this.started || this.busy === 0) return;
    const silent = performance.now() - this.lastHeard;
    if (silent > stuckMs) {
      this.die(
        new LochError(
          "internal",
          `query worker did not respond for ${
            (silent / 1000).toFixed(1)
          } s and was restarted; its queries and loads failed`,
        ),
      );
    } else this.send({ type: "ping" });
  }

  private die(e: Error): void {
    for (const out of this.outputs.values()) out.abort(e);
    this.outputs.clear();
    for (const task of this.loads.values()) task.fail(e);
    this.loads.clear();
    // Whoever asked for its shares reads them themselves.
    for (const s of this.shares.values()) s.from.answerShare(s.id, null);
    this.shares.clear();
    this.dead = true;
    this.worker.terminate();
    this.isReady();
    for (const p of this.preloaded.splice(0)) p();
    this.hooks.death(this);
  }

  terminate(): void {
    this.die(new LochError("internal", "workers stopped"));
  }
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

  private watchdog: ReturnType<typeof setInterval> | undefined;

  /**
   * size workers (at least 1), warmed up when warm (start() waits for that;
   * a query sent to a worker still warming up runs alongside its warm-up).
   * A busy worker silent for stuckMs (default LOCH_WORKER_TIMEOUT_MS, else
   * 30 s) is stopped and replaced; one whose heap and buffers grew past
   * retireBytes (default LOCH_WORKER_RETIRE_MB, else 256 MiB; a warm idle
   * worker holds about 70) is replaced once idle, returning that memory.
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
  ) {}

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
        for (const w of this.workers.slice()) {
          w.check(this.stuckMs);
          w.maybeRetire();
        }
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

function defaultRetireBytes(): number {
  const v = Number(Deno.env.get("LOCH_WORKER_RETIRE_MB"));
  return (Number.isFinite(v) && v > 0 ? v : 256) * 2 ** 20;
}

/**
 * The least a scan reads before it is shared: LOCH_SHARE_MIN_BYTES, else
 * 64 MiB (of its fields' columns; below that the hop to a helper and its
 * planning cost about what they save).
 */
function defaultShareMinBytes(): number {
  const env = Deno.env.get("LOCH_SHARE_MIN_BYTES") ?? "";
  const v = Number(env);
  return env !== "" && Number.isFinite(v) && v >= 0 ? v : 64 << 20;
}

/** How long a worker whose memory grew must be idle before it is replaced. */
const RETIRE_IDLE_MS = 1000;

/** How long a busy worker may be silent: LOCH_WORKER_TIMEOUT_MS, else 30 s. */
function defaultStuckMs(): number {
  const v = Number(Deno.env.get("LOCH_WORKER_TIMEOUT_MS"));
  return Number.isFinite(v) && v > 0 ? v : 30_000;
}

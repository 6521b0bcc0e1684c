// One worker of the pool (pool.ts) as the server's thread sees it: the
// Deno Worker, its tasks (queries' outputs, loads, shares it reads for other
// workers) and how it answers them, its retirement once its heap grew, the
// watchdog's look at it, and its death, which fails or gives back its tasks.

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
import { LoadTask, Output } from "./tasks.ts";

/** What a worker's owner hears of it. */
export interface WorkerHooks {
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
export interface WorkerSettings {
  size: number;
  retireBytes: number;
  catalog: string | undefined;
  shareMinBytes: number;
}

export class PoolWorker {
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
  /** Asked to be replaced (its heap grew): it is once the pool is idle (WorkerPool.retireGrown). */
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
    } else {
      const task = this.loads.get(m.id);
      const out = task === undefined ? this.outputs.get(m.id) : undefined;
      if (task !== undefined) this.loadMessage(task, m);
      else if (out !== undefined) this.outputMessage(out, m);
    }
    this.retireWhenIdle();
  }

  /** A load's message: its body read, or its end. */
  private loadMessage(task: LoadTask, m: FromWorker): void {
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
  }

  /** A query's message: its start, output, error or end. */
  private outputMessage(out: Output, m: FromWorker): void {
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
  }

  /** Notes when it has nothing to do; ends it then if it is retiring. */
  retireWhenIdle(): void {
    if (this.busy === 0) this.idleSince = performance.now();
    if (this.retiring && this.busy === 0) {
      this.die(new LochError("internal", "worker retired"));
    }
  }

  /**
   * Replaces a worker that asked to be (its memory grew); the pool calls
   * this once all its workers have been idle a while (retireGrown).
   */
  maybeRetire(): void {
    if (!this.wantsRetire || this.retiring || this.busy > 0) return;
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

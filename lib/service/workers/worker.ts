// A worker: runs the queries the server hands it over the lakes it names
// (each opened once, with its own catalog connection and caches), in the
// response format, sending the encoded output back in transferred buffers as
// its client's reading allows; and writes the objects of loads from their
// bodies as they arrive, handing back the objects' records to be committed.

import { openReader } from "../../formats/detect.ts";
import { ByteInput } from "../../formats/io.ts";
import { columnCache, columnCacheFromEnv } from "../../lake/columns/mod.ts";
import { Lake } from "../../lake/lake.ts";
import { writeLoad } from "../../lake/load.ts";
import { objectRecord } from "../../lake/objects.ts";
import { poolById } from "../../lake/pools.ts";
import { preloadMetadata, warmUp } from "../../lake/warmup.ts";
import { withTypeBindings } from "../../zed/context.ts";
import { shareEventLoop } from "../../query/mod.ts";
import { startQuery } from "../query.ts";
import { collectGarbage, IdleReclaim } from "../reclaim.ts";
import { Wakeup } from "../wakeup.ts";
import { ChunkQueue } from "./chunks.ts";
import { runSharedPart } from "../../lake/query.ts";
import type { ScanHelpers, SharedPart } from "../../lake/share.ts";
import {
  type FromWorker,
  type LoadJob,
  OUTPUT_WINDOW,
  type QueryJob,
  type ShareJob,
  toWire,
  type ToWorker,
  transferablePart,
} from "./protocol.ts";

const scope = self as unknown as {
  onmessage: ((e: MessageEvent<ToWorker>) => void) | null;
  postMessage(m: FromWorker, transfer?: Transferable[]): void;
  name: string;
};

/** A running query: how far its client is behind, and how to stop it. */
class Running {
  readonly gone = new AbortController();
  /** Bytes sent minus bytes the client has read. */
  ahead = 0;
  private wakeup = new Wakeup();

  constructor(readonly id: number) {}

  credit(bytes: number): void {
    this.ahead -= bytes;
    this.wakeup.wake();
  }

  cancel(): void {
    this.gone.abort();
    this.wakeup.wake();
  }

  readonly sink = async (chunk: Uint8Array): Promise<void> => {
    if (this.gone.signal.aborted) throw new Error("context canceled");
    const copy = chunk.slice();
    this.ahead += copy.length;
    scope.postMessage({ type: "data", id: this.id, chunk: copy }, [copy.buffer]);
    while (this.ahead > OUTPUT_WINDOW && !this.gone.signal.aborted) await this.wakeup.wait();
  };
}

/** A load's body as it arrives from the server, read as an async iterator. */
class IncomingBody implements AsyncIterator<Uint8Array> {
  readonly queue = new ChunkQueue();
  /** Bytes taken so far. */
  bytes = 0;
  /** Known at its end: what follows this body in a longer JSON body it is part of. */
  continuation: string | null = null;

  constructor(readonly id: number) {}

  async next(): Promise<IteratorResult<Uint8Array>> {
    const chunk = await this.queue.take();
    if (chunk === null) return { done: true, value: undefined };
    this.bytes += chunk.length;
    scope.postMessage({ type: "body-credit", id: this.id, bytes: chunk.length });
    return { done: false, value: chunk };
  }
}

const lakes = new Map<string, Promise<Lake>>();
/** Where the lakes' catalogs are (from "init"; absent: in their directories). */
let catalog: string | undefined;
const running = new Map<number, Running>();
const bodies = new Map<number, IncomingBody>();
/** Workers in the pool (from "init"): the others may read shares of this one's scans. */
let poolSize = 1;
/** The least a scan reads before it shares its objects (from "init"). */
let shareMinBytes = Infinity;
/** Shares asked of other workers, by this worker's id for them: who waits for the part. */
const asked = new Map<number, (part: SharedPart | null) => void>();
let nextShare = 1;

/**
 * Other workers, through the server's thread, as helpers of a query's
 * scans; once the query stops (signal), its shares still out are stopped
 * too and read as given back.
 */
function helpersFor(job: QueryJob, signal: AbortSignal): ScanHelpers | undefined {
  if (poolSize < 2) return undefined;
  return {
    count: poolSize - 1,
    minBytes: shareMinBytes,
    share: (source, objects) =>
      new Promise((resolve) => {
        if (signal.aborted) return resolve(null);
        const id = nextShare++;
        const stop = () => {
          asked.delete(id);
          scope.postMessage({ type: "unshare", id });
          resolve(null);
        };
        signal.addEventListener("abort", stop, { once: true });
        asked.set(id, (part) => {
          signal.removeEventListener("abort", stop);
          resolve(part);
        });
        const { root, text, head, access, memoryLimit } = job;
        scope.postMessage({
          type: "share",
          id,
          job: { root, text, head, access, memoryLimit, source, objects },
        });
      }),
  };
}

/** Shares this worker reads for others, by the server's id: how to stop them. */
const sharing = new Map<number, AbortController>();

/** Reads a share of another worker's scan; its part (null when it cannot) goes back. */
async function readShare(id: number, job: ShareJob): Promise<void> {
  let part: SharedPart | null = null;
  const stop = new AbortController();
  sharing.set(id, stop);
  reclaim.begin();
  try {
    const lake = await lakeAt(job.root);
    part = await withTypeBindings(() =>
      runSharedPart(lake, job.text, { ...job, signal: stop.signal }, job.source, job.objects)
    );
  } catch {
    // The asking worker reads the share itself.
    part = null;
  } finally {
    sharing.delete(id);
    if (part === null) scope.postMessage({ type: "shared", id, part });
    else {
      const [own, buffers] = transferablePart(part);
      scope.postMessage({ type: "shared", id, part: own }, buffers);
    }
    retireIfGrown();
    reclaim.end();
  }
}

function lakeAt(root: string): Promise<Lake> {
  let l = lakes.get(root);
  if (l === undefined) {
    l = Lake.open(root, { catalog });
    lakes.set(root, l);
  }
  return l;
}

/**
 * A heap V8 grew for a big load or query (and the buffers it holds) stays
 * this isolate's until it ends: past retireBytes (the pool's, from "init")
 * the worker asks to be replaced once idle, which returns the memory to the
 * system.
 */
let retireBytes = Infinity;
/** What a query or load leaves in the heap is collected once the worker is idle. */
const reclaim = new IdleReclaim();
let retiring = false;

function retireIfGrown(): void {
  const mu = Deno.memoryUsage();
  if (retiring || mu.heapTotal + mu.external < retireBytes) return;
  retiring = true;
  scope.postMessage({ type: "retire" });
}

async function run(id: number, job: QueryJob): Promise<void> {
  const r = new Running(id);
  let read: { recordsRead: number; bytesRead: number } | undefined;
  running.set(id, r);
  reclaim.begin();
  try {
    const lake = await lakeAt(job.root);
    const q = await withTypeBindings(() =>
      startQuery(
        lake,
        job.text,
        job.format,
        { ...job, helpers: helpersFor(job, r.gone.signal) },
        r.sink,
        r.gone.signal,
      )
    );
    scope.postMessage({ type: "start", id });
    await q.done;
    read = { recordsRead: q.stats.recordsRead, bytesRead: q.stats.bytesRead };
  } catch (e) {
    scope.postMessage({ type: "error", id, error: toWire(e) });
  } finally {
    running.delete(id);
    scope.postMessage({ type: "end", id, read });
    retireIfGrown();
    reclaim.end();
  }
}

async function load(id: number, job: LoadJob): Promise<void> {
  const body = new IncomingBody(id);
  bodies.set(id, body);
  reclaim.begin();
  try {
    const lake = await lakeAt(job.root);
    const pool = poolById(lake.catalog, job.poolId);
    const reader = await openReader(new ByteInput(body, "request body"), job.format, {
      continuation: job.part ? () => body.continuation : undefined,
    });
    const { written, warnings } = await writeLoad(lake, pool, reader, { warnOnReadError: true });
    const objects = written.map((w) => objectRecord(w.object, w.seek));
    scope.postMessage({ type: "loaded", id, objects, warnings });
  } catch (e) {
    scope.postMessage({ type: "error", id, error: toWire(e) });
  } finally {
    bodies.delete(id);
    scope.postMessage({ type: "end", id });
    retireIfGrown();
    reclaim.end();
  }
}

scope.onmessage = (e) => {
  const m = e.data;
  switch (m.type) {
    case "init":
      // The column cache's budget (LOCH_COLUMN_CACHE) is for all workers together.
      columnCacheFromEnv();
      columnCache.budget = Math.floor(columnCache.budget / m.workers);
      retireBytes = m.retireBytes;
      catalog = m.catalog;
      poolSize = m.workers;
      shareMinBytes = m.shareMinBytes;
      break;
    case "share":
      readShare(m.id, m.job);
      break;
    case "shared": {
      const resolve = asked.get(m.id);
      asked.delete(m.id);
      resolve?.(m.part);
      break;
    }
    case "unshare":
      sharing.get(m.id)?.abort();
      break;
    case "load":
      load(m.id, m.job);
      break;
    case "body":
      bodies.get(m.id)?.queue.push(m.chunk);
      break;
    case "body-end": {
      const body = bodies.get(m.id);
      if (body === undefined) break;
      body.continuation = m.continuation ?? null;
      body.queue.end();
      break;
    }
    case "body-error":
      bodies.get(m.id)?.queue.end(new Error(m.message));
      break;
    case "query":
      run(m.id, m.job);
      break;
    case "credit":
      running.get(m.id)?.credit(m.bytes);
      break;
    case "cancel":
      running.get(m.id)?.cancel();
      break;
    case "ping":
      scope.postMessage({ type: "pong" });
      break;
    case "preload":
      lakeAt(m.root).then(preloadMetadata, () => {}).finally(() =>
        scope.postMessage({ type: "preloaded" })
      );
      break;
    case "release": {
      const l = lakes.get(m.root);
      lakes.delete(m.root);
      l?.then((lake) => lake.close(), () => {});
      break;
    }
  }
};

/**
 * Warm-up beyond the lake's: the queries again through this module's path,
 * in each response format, with and without control messages.
 */
async function warmResponses(lake: Lake, queries: readonly string[]): Promise<void> {
  const sink = () => Promise.resolve();
  const formats = ["zson", "json", "zjson", "ndjson", "zng"];
  let k = 0;
  for (const q of queries) {
    for (const pool of ["asc", "desc"]) {
      const format = formats[k++ % formats.length];
      const gone = new AbortController();
      const run = await withTypeBindings(() =>
        startQuery(lake, `from ${pool} | ${q}`, format, { ctrl: k % 2 === 0 }, sink, gone.signal)
      );
      await run.done;
    }
  }
}

// Long queries and loads take turns with this thread's messages (a new
// query, a cancel, a ping), as the server's thread does with its requests.
await shareEventLoop();

// The worker's name says whether to warm up first ("warm") or not.
if (scope.name.endsWith(":warm")) {
  await warmUp(3, warmResponses);
  // The code stays compiled; the warm-up's data goes.
  collectGarbage();
}
scope.postMessage({ type: "ready" });

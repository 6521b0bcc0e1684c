// Writing an object's columns file. For a big object the columns are built
// on a worker thread as its values arrive (a session fed by the sort buffer
// while the loader reads on), then put in the object's order and written
// while the loader writes the rows; for a small one, or when no worker can
// be started, on the calling thread at the end. The worker is started on
// first use and kept until the lake is closed.

import type { Storage } from "../storage.ts";
import type { Type } from "../../zed/types.ts";
import { formatType } from "../../zed/typetext.ts";
import type { EncodedValues } from "./build.ts";
import { buildColumns } from "./build.ts";
import { encodeColumns } from "./arrowfile.ts";
import { type ColumnsManifest, parseManifest } from "./manifest.ts";
import type { ColumnsReply, ColumnsRequest } from "./job.ts";

/** Objects with fewer body bytes build their columns on the calling thread. */
export const WORKER_MIN_BYTES = 4 << 20;

/**
 * A worker with nothing to do for this long is stopped (a server that loads
 * now and then keeps it, warm; a process that is done closes its lake, which
 * stops it at once); sessions it had fall back to building on their own
 * thread.
 */
const IDLE_MS = 60000;

let worker: Worker | null = null;
let broken = false;
let nextSession = 0;
let lastUse = 0;
let idleTimer: ReturnType<typeof setInterval> | null = null;
const pending = new Map<number, (r: ColumnsReply) => void>();

function touch(): void {
  lastUse = performance.now();
  if (idleTimer === null) {
    const timer = setInterval(() => {
      if (pending.size === 0 && performance.now() - lastUse > IDLE_MS) stopColumnWorkers();
    }, 1000);
    Deno.unrefTimer(timer as unknown as number);
    idleTimer = timer;
  }
}

function start(): Worker | null {
  if (worker !== null || broken) return worker;
  try {
    worker = new Worker(new URL("./worker.ts", import.meta.url).href, { type: "module" });
    worker.onmessage = (e: MessageEvent<ColumnsReply>) => {
      const done = pending.get(e.data.session);
      pending.delete(e.data.session);
      done?.(e.data);
    };
    worker.onerror = (e) => {
      e.preventDefault();
      fail("columns worker failed");
    };
  } catch {
    broken = true;
    worker = null;
  }
  return worker;
}

function fail(message: string): void {
  for (const [session, done] of pending) done({ session, error: message });
  pending.clear();
  worker?.terminate();
  worker = null;
  broken = true;
}

function post(w: Worker, m: ColumnsRequest, transfer: ArrayBuffer[] = []): void {
  touch();
  w.postMessage(m, transfer);
}

/** One object's columns being built on the worker as its values arrive. */
export class ColumnsSession {
  private sent = 0;
  private typeIds = new Map<Type, number>();
  private cancelled = false;

  private constructor(private w: Worker, private id: number) {}

  /** A session, or null when no worker can be had. */
  static open(): ColumnsSession | null {
    const w = start();
    return w === null ? null : new ColumnsSession(w, nextSession++);
  }

  /** Whether the worker this session started on is still the one running. */
  private get live(): boolean {
    return !this.cancelled && this.w === worker;
  }

  /** Sends values [sent, upTo) of vals. */
  send(vals: EncodedValues, upTo: number): void {
    if (!this.live || upTo <= this.sent) return;
    const n = upTo - this.sent;
    const newTypes: string[] = [];
    const typeOf = new Uint32Array(n);
    const chunk = new Int32Array(n), start = new Int32Array(n), end = new Int32Array(n);
    for (let k = 0; k < n; k++) {
      const i = this.sent + k;
      const t = vals.types[i];
      let id = this.typeIds.get(t);
      if (id === undefined) {
        id = this.typeIds.size;
        this.typeIds.set(t, id);
        newTypes.push(formatType(t));
      }
      typeOf[k] = id;
      chunk[k] = vals.chunk[i];
      start[k] = vals.start[i];
      end[k] = vals.end[i];
    }
    this.sent = upTo;
    const m: ColumnsRequest = {
      kind: "add",
      session: this.id,
      newTypes,
      typeOf,
      bufs: vals.bufs.slice(),
      chunk,
      start,
      end,
    };
    post(this.w, m, [typeOf.buffer, chunk.buffer, start.buffer, end.buffer]);
  }

  /** Sends the rest, then the order; resolves to the manifest, or null when the worker failed. */
  async finish(
    vals: EncodedValues,
    order: Uint32Array,
    path: string,
  ): Promise<ColumnsManifest | null> {
    if (!this.live) return null;
    this.send(vals, vals.types.length);
    const reply = await new Promise<ColumnsReply>((resolve) => {
      pending.set(this.id, resolve);
      post(this.w, { kind: "finish", session: this.id, path, order: order.slice() });
    });
    return "manifest" in reply ? parseManifest(reply.manifest) : null;
  }

  /** Drops what the worker has (a load that failed). */
  cancel(): void {
    if (!this.live) return;
    this.cancelled = true;
    post(this.w, { kind: "cancel", session: this.id });
  }
}

/** Builds an object's columns on this thread and writes them to path; returns their manifest. */
export async function writeColumns(
  storage: Storage,
  path: string,
  vals: EncodedValues,
  order: Uint32Array,
): Promise<ColumnsManifest> {
  const { bytes, manifest } = encodeColumns(buildColumns(vals, order));
  await storage.createAtomic(path, (sink) => sink.write(bytes), { durable: false });
  return manifest;
}

/** Starts the worker now (a server expecting loads), so the first big load finds it ready. */
export function startColumnWorker(): void {
  if (start() !== null) touch();
}

/** Stops the worker (when the lake closes, or it has been idle). */
export function stopColumnWorkers(): void {
  worker?.terminate();
  worker = null;
  for (const [session, done] of pending) done({ session, error: "stopped" });
  pending.clear();
  if (idleTimer !== null) clearInterval(idleTimer);
  idleTimer = null;
}

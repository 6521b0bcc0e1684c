// What the server's thread holds of a worker's task: a query's output on
// its way to the response (credited as the client reads), and a load whose
// body is sent ahead of the worker (credited as the worker reads).

import { LochError } from "../../errors.ts";
import type { ObjectRecord } from "../../lake/objects.ts";
import { OUTPUT_WINDOW, ownBuffer, type ToWorker } from "./protocol.ts";
import { ChunkQueue } from "./chunks.ts";
import { Wakeup } from "../wakeup.ts";

/** A query's output on its way from a worker to the response. */
export class Output {
  readonly readable: ReadableStream<Uint8Array>;
  private queue = new ChunkQueue();
  /** Bytes read by the client but not yet credited to the worker. */
  private unacked = 0;
  started!: () => void;
  failed!: (e: Error) => void;
  readonly start: Promise<void>;
  /** Told what the query read, when it ends. */
  onEnd: ((read: { recordsRead: number; bytesRead: number } | undefined) => void) | undefined;

  /** Whether start has settled (started or failed). */
  private settled = false;

  constructor(private worker: { send(m: ToWorker): void }, readonly id: number) {
    this.start = new Promise((resolve, reject) => {
      this.started = () => {
        this.settled = true;
        resolve();
      };
      this.failed = (e) => {
        this.settled = true;
        reject(e);
      };
    });
    this.readable = new ReadableStream<Uint8Array>({
      pull: (c) => this.pull(c),
      cancel: () => this.worker.send({ type: "cancel", id }),
    }, { highWaterMark: 0 });
  }

  private async pull(c: ReadableStreamDefaultController<Uint8Array>): Promise<void> {
    let chunk;
    try {
      chunk = await this.queue.take();
    } catch (e) {
      // A worker that died mid-query breaks the response off rather than end it short.
      c.error(e);
      return;
    }
    if (chunk === null) {
      c.close();
      return;
    }
    c.enqueue(chunk);
    this.unacked += chunk.length;
    // Credit in steps, and whenever the client has caught up.
    if (this.unacked >= OUTPUT_WINDOW / 4 || this.queue.length === 0) {
      this.worker.send({ type: "credit", id: this.id, bytes: this.unacked });
      this.unacked = 0;
    }
  }

  push(chunk: Uint8Array): void {
    this.queue.push(chunk);
  }

  end(): void {
    // (An error only when it matters: making one captures a stack, every query.)
    if (!this.settled) {
      this.failed(new LochError("internal", "query worker ended the query before it started"));
    }
    this.queue.end();
  }

  /** The worker died: the output stops here (a started response is broken off). */
  abort(e: Error): void {
    this.failed(e);
    this.queue.end(e);
  }
}

/** What a load's worker wrote: its objects' records (to commit) and warnings. */
export interface LoadedObjects {
  objects: ObjectRecord[];
  warnings: string[];
}

/** A load on its way to a worker: its body sent ahead as far as the window allows. */
export class LoadTask {
  readonly result: Promise<LoadedObjects>;
  settled = false;
  /** Bytes sent minus bytes the worker has read. */
  ahead = 0;
  private resolve!: (r: LoadedObjects) => void;
  private reject!: (e: Error) => void;
  private wakeup = new Wakeup();

  constructor(
    private worker: { send(m: ToWorker, transfer?: Transferable[]): void },
    readonly id: number,
  ) {
    this.result = new Promise((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    // Its caller may look at the result only after the body is sent.
    this.result.catch(() => {});
  }

  /** Sends the next bytes of the body (transferred: v is the worker's from here). */
  send(v: Uint8Array): void {
    const chunk = ownBuffer(v);
    this.ahead += chunk.length;
    this.worker.send({ type: "body", id: this.id, chunk }, [chunk.buffer as ArrayBuffer]);
  }

  /**
   * The body ends here. continuation: for one part of a longer JSON body,
   * the text known to follow it (JsonReader's continuation).
   */
  end(continuation?: string): void {
    this.worker.send({ type: "body-end", id: this.id, continuation });
  }

  /** Reading the body failed. */
  bodyFailed(message: string): void {
    this.worker.send({ type: "body-error", id: this.id, message });
  }

  /** Settled with warnings (its input ended at a format error). */
  warned = false;
  /** Settled with an error. */
  failed = false;

  done(r: LoadedObjects): void {
    this.settled = true;
    this.warned = r.warnings.length > 0;
    this.resolve(r);
    this.wakeup.wake();
  }

  fail(e: Error): void {
    this.settled = true;
    this.failed = true;
    this.reject(e);
    this.wakeup.wake();
  }

  credit(bytes: number): void {
    this.ahead -= bytes;
    this.wakeup.wake();
  }

  /** Settles once the worker has read more (or the load has ended). */
  waitCredit(): Promise<void> {
    return this.wakeup.wait();
  }
}

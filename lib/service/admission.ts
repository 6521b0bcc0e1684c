// How many queries run at once. Past the limit a query waits its turn in a
// queue (first come, first served); past the queue's length it is refused
// with 503 rather than piling up memory and latency for everyone. A client
// that goes away while waiting leaves the queue.

import { LochError } from "../errors.ts";

export class Admission {
  private running = 0;
  private readonly waiting: { go: () => void; gone: () => void }[] = [];

  constructor(readonly maxRunning: number, readonly maxWaiting: number) {}

  /** Waits for a place; resolves to the function that gives it back (once). */
  async enter(signal?: AbortSignal): Promise<() => void> {
    if (this.running < this.maxRunning) {
      this.running++;
      return this.leaver();
    }
    if (this.waiting.length >= this.maxWaiting) {
      throw new LochError(
        "unavailable",
        `too many queries: ${this.maxRunning} running and ${this.maxWaiting} waiting; try again later`,
      );
    }
    await new Promise<void>((resolve, reject) => {
      const entry = {
        go: () => {
          signal?.removeEventListener("abort", entry.gone);
          resolve();
        },
        gone: () => {
          const i = this.waiting.indexOf(entry);
          if (i >= 0) this.waiting.splice(i, 1);
          reject(new LochError("invalid", "client went away while the query waited"));
        },
      };
      this.waiting.push(entry);
      signal?.addEventListener("abort", entry.gone, { once: true });
    });
    return this.leaver();
  }

  /** Queries running, and waiting. */
  get counts(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waiting.length };
  }

  private leaver(): () => void {
    let left = false;
    return () => {
      if (left) return;
      left = true;
      // The place passes to the next in line, or is freed.
      const next = this.waiting.shift();
      if (next !== undefined) next.go();
      else this.running--;
    };
  }
}

/** A body that calls done once it has ended, failed or been cancelled. */
export function untilDone(
  body: ReadableStream<Uint8Array>,
  done: () => void,
): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(c) {
      let r;
      try {
        r = await reader.read();
      } catch (e) {
        done();
        c.error(e);
        return;
      }
      if (r.done) {
        done();
        c.close();
      } else c.enqueue(r.value);
    },
    cancel(reason) {
      done();
      return reader.cancel(reason);
    },
  }, { highWaterMark: 0 });
}

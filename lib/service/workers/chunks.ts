// Bytes arriving in messages from another thread, taken in order by one
// reader: a query's output on the server's side, a load's body on the
// worker's.

import { Wakeup } from "../wakeup.ts";

export class ChunkQueue {
  private chunks: Uint8Array[] = [];
  private ended = false;
  private error: Error | null = null;
  private wakeup = new Wakeup();

  push(chunk: Uint8Array): void {
    this.chunks.push(chunk);
    this.wakeup.wake();
  }

  /** No more chunks; with an error, take() throws it once the chunks before it are taken. */
  end(error: Error | null = null): void {
    this.ended = true;
    this.error ??= error;
    this.wakeup.wake();
  }

  /** How many chunks wait to be taken. */
  get length(): number {
    return this.chunks.length;
  }

  /** The next chunk, waiting for it; null at the end. */
  async take(): Promise<Uint8Array | null> {
    while (this.chunks.length === 0 && !this.ended) await this.wakeup.wait();
    const chunk = this.chunks.shift();
    if (chunk !== undefined) return chunk;
    if (this.error !== null) throw this.error;
    return null;
  }
}

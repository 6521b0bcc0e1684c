// Synchronous calls into a worker that answers asynchronously: the technique
// of the PostgreSQL bridge (catalog/syncpg.ts, whose message encoding and
// buffer protocol this reuses), made generic. S3Storage needs it because
// the column reader reads synchronously (readSync, sizeSync) and fetch is
// asynchronous: the worker does the signed fetch while the calling thread
// blocks in Atomics.wait on a SharedArrayBuffer. SyncBridge is the caller's
// side; serveBridge() the worker's (its module calls it once).

import { LochError } from "../../errors.ts";
import {
  CRASH,
  decode,
  encode,
  HEADER_BYTES,
  IDLE,
  LEN,
  MORE,
  REQ,
  REQ_ACK,
  RES,
  RES_ACK,
  STATE,
  TOTAL,
} from "../catalog/syncpg.ts";

type Answer = Record<string, unknown>;

export class SyncBridge {
  /** Why it can no longer be used, once it cannot (timed out, worker failed, closed). */
  dead: string | undefined;
  private readonly worker: Worker;
  private readonly header: Int32Array;
  private readonly data: Uint8Array;

  /** Starts the worker module at url, which gets init (plain data) with the buffer. */
  constructor(url: string, init: unknown, bufferBytes = 1 << 20) {
    const sab = new SharedArrayBuffer(HEADER_BYTES + bufferBytes);
    this.header = new Int32Array(sab, 0, 4);
    this.data = new Uint8Array(sab, HEADER_BYTES);
    this.worker = new Worker(url, { type: "module" });
    // The worker reports its failures through the buffer; an error event left
    // unhandled here would end the process.
    this.worker.onerror = (e) => e.preventDefault();
    this.worker.postMessage({ sab, init });
  }

  /**
   * Sends a request and blocks until the answer. A failure the worker reports
   * is thrown as a LochError of its kind; a worker that fails or does not
   * answer within timeoutMs is terminated (the bridge is then dead).
   */
  call(request: unknown, timeoutMs: number): Answer {
    if (this.dead !== undefined) throw new LochError("internal", `S3 bridge: ${this.dead}`);
    const h = this.header;
    const deadline = performance.now() + timeoutMs;
    const bytes = encode(request);
    for (let off = 0;;) {
      const n = Math.min(this.data.length, bytes.length - off);
      this.data.set(bytes.subarray(off, off + n));
      off += n;
      h[LEN] = n;
      h[MORE] = off < bytes.length ? 1 : 0;
      h[TOTAL] = bytes.length;
      Atomics.store(h, STATE, REQ);
      Atomics.notify(h, STATE);
      if (off === bytes.length) break;
      this.wait(REQ, deadline);
    }
    let answer: Uint8Array | undefined;
    for (let got = 0;;) {
      this.wait(got === 0 ? REQ : RES_ACK, deadline);
      const n = h[LEN];
      answer ??= new Uint8Array(h[TOTAL]);
      answer.set(this.data.subarray(0, n), got);
      got += n;
      if (h[MORE] === 0) break;
      Atomics.store(h, STATE, RES_ACK);
      Atomics.notify(h, STATE);
    }
    Atomics.store(h, STATE, IDLE);
    const result = decode(answer) as Answer;
    if (result.ok) return result;
    const e = result.error as { kind?: string; message?: string } | undefined;
    const kind = (e?.kind ?? "internal") as ConstructorParameters<typeof LochError>[0];
    throw new LochError(kind, e?.message ?? "S3 bridge: unknown failure");
  }

  /** Terminates the worker. Idempotent. */
  close(): void {
    this.dead ??= "closed";
    this.worker.terminate();
  }

  /** Blocks while the state is `from`; a crash or the deadline kills the bridge. */
  private wait(from: number, deadline: number): void {
    const h = this.header;
    for (;;) {
      const left = deadline - performance.now();
      if (left <= 0) {
        this.close();
        this.dead = "no answer in time";
        throw new LochError("upstream", "S3: no answer in time (synchronous read)");
      }
      Atomics.wait(h, STATE, from, left);
      const state = Atomics.load(h, STATE);
      if (state === from) continue;
      if (state === CRASH) {
        const why = new TextDecoder().decode(this.data.slice(0, h[LEN]));
        this.close();
        this.dead = `the worker failed: ${why}`;
        throw new LochError("internal", `S3 bridge: ${this.dead}`);
      }
      return;
    }
  }
}

/**
 * The worker's side: answers each request with handle(request), in chunks
 * when larger than the buffer; a thrown error goes back as { kind, message }.
 * init is what the SyncBridge was given.
 */
export function serveBridge(
  handle: (request: Answer, init: unknown) => Promise<Answer>,
): void {
  let header: Int32Array, data: Uint8Array;

  const until = async (want: number) => {
    for (;;) {
      const state = Atomics.load(header, STATE);
      if (state === want) return;
      const w = Atomics.waitAsync(header, STATE, state);
      if (w.async) await w.value;
    }
  };

  const receive = async (): Promise<Answer> => {
    await until(REQ);
    const message = new Uint8Array(header[TOTAL]);
    for (let got = 0;;) {
      const n = header[LEN];
      message.set(data.subarray(0, n), got);
      got += n;
      if (header[MORE] === 0) return decode(message) as Answer;
      Atomics.store(header, STATE, REQ_ACK);
      Atomics.notify(header, STATE);
      await until(REQ);
    }
  };

  const send = async (answer: Answer) => {
    const bytes = encode(answer);
    for (let off = 0;;) {
      const n = Math.min(data.length, bytes.length - off);
      data.set(bytes.subarray(off, off + n));
      off += n;
      header[LEN] = n;
      header[MORE] = off < bytes.length ? 1 : 0;
      header[TOTAL] = bytes.length;
      Atomics.store(header, STATE, RES);
      Atomics.notify(header, STATE);
      if (off === bytes.length) return;
      await until(RES_ACK);
    }
  };

  const crash = (why: unknown) => {
    if (header === undefined) return;
    const text = why instanceof Error ? why.stack ?? why.message : String(why);
    const bytes = new TextEncoder().encode(text).subarray(0, Math.min(4096, data.length));
    data.set(bytes);
    header[LEN] = bytes.length;
    Atomics.store(header, STATE, CRASH);
    Atomics.notify(header, STATE);
  };

  const scope = self as unknown as {
    onmessage: ((e: MessageEvent<{ sab: SharedArrayBuffer; init: unknown }>) => void) | null;
    addEventListener: typeof globalThis.addEventListener;
  };
  scope.addEventListener("error", (e) => {
    e.preventDefault();
    crash(e.error ?? e.message);
  });
  scope.addEventListener("unhandledrejection", (e) => {
    e.preventDefault();
    crash(e.reason);
  });
  scope.onmessage = (e) => {
    header = new Int32Array(e.data.sab, 0, 4);
    data = new Uint8Array(e.data.sab, HEADER_BYTES);
    const init = e.data.init;
    (async () => {
      for (;;) {
        const request = await receive();
        let answer: Answer;
        try {
          answer = await handle(request, init);
        } catch (err) {
          const kind = err instanceof LochError ? err.kind : "internal";
          answer = {
            ok: false,
            error: { kind, message: err instanceof Error ? err.message : String(err) },
          };
        }
        await send(answer);
      }
    })().catch(crash);
  };
}

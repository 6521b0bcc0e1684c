// Synchronous calls into a worker that answers asynchronously (the
// technique of the synckit package): the worker does the async work (a
// PostgreSQL query for catalog/syncpg.ts, a signed fetch for the S3
// storage's synchronous column reads) while the calling thread blocks in
// Atomics.wait on a SharedArrayBuffer. exchange() and SyncBridge are the
// caller's side; serveBridge() the worker's (its module calls it once).
//
// The buffer: Int32 words [state, chunk length, more chunks follow, total
// length], then the data. The caller writes request chunks (REQ), which the
// worker takes (REQ_ACK after each but the last); the worker writes answer
// chunks (RES), which the caller takes (RES_ACK after each but the last,
// IDLE after it). CRASH: the worker failed; the data says why.

import { LochError } from "../errors.ts";

export const STATE = 0, LEN = 1, MORE = 2, TOTAL = 3, HEADER_BYTES = 16;
export const IDLE = 0, REQ = 1, REQ_ACK = 2, RES = 3, RES_ACK = 4, CRASH = 5;

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
    const deadline = performance.now() + timeoutMs;
    const result = exchange(this.header, this.data, request, (from) => this.wait(from, deadline));
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
 * Writes the next piece of bytes (from off) into the buffer, says its size,
 * whether more follows and the whole size, and sets the state to `state`;
 * returns the offset after the piece.
 */
function putChunk(
  header: Int32Array,
  data: Uint8Array,
  bytes: Uint8Array,
  off: number,
  state: number,
): number {
  const n = Math.min(data.length, bytes.length - off);
  data.set(bytes.subarray(off, off + n));
  header[LEN] = n;
  header[MORE] = off + n < bytes.length ? 1 : 0;
  header[TOTAL] = bytes.length;
  Atomics.store(header, STATE, state);
  Atomics.notify(header, STATE);
  return off + n;
}

/** Copies the piece in the buffer into out at got; returns the offset after it. */
function takeChunk(header: Int32Array, data: Uint8Array, out: Uint8Array, got: number): number {
  const n = header[LEN];
  out.set(data.subarray(0, n), got);
  return got + n;
}

/**
 * The caller's side of one request: writes it into the buffer (in chunks
 * when larger) and blocks for the answer, decoded. wait(from) blocks while
 * the state word is `from`, and throws when the worker fails or is late.
 */
export function exchange(
  header: Int32Array,
  data: Uint8Array,
  request: unknown,
  wait: (from: number) => void,
): Answer {
  const bytes = encode(request);
  for (let off = 0;;) {
    off = putChunk(header, data, bytes, off, REQ);
    if (off === bytes.length) break;
    wait(REQ);
  }
  let answer: Uint8Array | undefined;
  for (let got = 0;;) {
    wait(got === 0 ? REQ : RES_ACK);
    answer ??= new Uint8Array(header[TOTAL]);
    got = takeChunk(header, data, answer, got);
    if (header[MORE] === 0) break;
    Atomics.store(header, STATE, RES_ACK);
    Atomics.notify(header, STATE);
  }
  Atomics.store(header, STATE, IDLE);
  return decode(answer) as Answer;
}

/**
 * The worker's side: answers each request with handle(request), in chunks
 * when larger than the buffer; an error thrown by handle, or by encoding its
 * answer, goes back as failure(error) (by default { ok: false, error:
 * { kind, message } }). init is what the caller posted with the buffer.
 */
export function serveBridge(
  handle: (request: Answer, init: unknown) => Promise<Answer>,
  failure: (error: unknown) => Answer = kindAndMessage,
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
      got = takeChunk(header, data, message, got);
      if (header[MORE] === 0) return decode(message) as Answer;
      Atomics.store(header, STATE, REQ_ACK);
      Atomics.notify(header, STATE);
      await until(REQ);
    }
  };

  const send = async (answer: Answer) => {
    let bytes: Uint8Array;
    try {
      bytes = encode(answer);
    } catch (e) {
      bytes = encode(failure(e));
    }
    for (let off = 0;;) {
      off = putChunk(header, data, bytes, off, RES);
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
          answer = failure(err);
        }
        await send(answer);
      }
    })().catch(crash);
  };
}

/** The default error answer: the error's kind (LochError's, else internal) and message. */
function kindAndMessage(err: unknown): Answer {
  const kind = err instanceof LochError ? err.kind : "internal";
  return { ok: false, error: { kind, message: err instanceof Error ? err.message : String(err) } };
}

// The encoding: a tag byte, then for numbers a float64, for bigints an
// int64 (or decimal text past 64 bits), for text and bytes a uint32 length
// and the bytes, for arrays and objects a uint32 count and the items.
const T_NULL = 0, T_FALSE = 1, T_TRUE = 2, T_NUM = 3, T_I64 = 4, T_BIG = 5;
const T_STR = 6, T_BYTES = 7, T_ARR = 8, T_OBJ = 9, T_DATE = 10;
const MIN_I64 = -(1n << 63n), MAX_I64 = (1n << 63n) - 1n;
const utf8 = new TextEncoder();

export function encode(v: unknown): Uint8Array {
  let buf = new Uint8Array(256), view = new DataView(buf.buffer), pos = 0;
  const room = (n: number) => {
    if (pos + n <= buf.length) return;
    const next = new Uint8Array(Math.max(buf.length * 2, pos + n));
    next.set(buf.subarray(0, pos));
    buf = next;
    view = new DataView(buf.buffer);
  };
  const tag = (t: number, n = 0) => (room(1 + n), buf[pos++] = t);
  const u32 = (n: number) => (room(4), view.setUint32(pos, n, true), pos += 4);
  const f64 = (t: number, x: number) => (tag(t, 8), view.setFloat64(pos, x, true), pos += 8);
  const str = (s: string) => {
    room(4 + s.length * 3);
    const { written } = utf8.encodeInto(s, buf.subarray(pos + 4));
    u32(written);
    pos += written;
  };
  const value = (v: unknown): void => {
    if (v === null || v === undefined) tag(T_NULL);
    else if (typeof v === "boolean") tag(v ? T_TRUE : T_FALSE);
    else if (typeof v === "number") f64(T_NUM, v);
    else if (typeof v === "bigint" && v >= MIN_I64 && v <= MAX_I64) {
      tag(T_I64, 8), view.setBigInt64(pos, v, true), pos += 8;
    } else if (typeof v === "bigint") tag(T_BIG), str(v.toString());
    else if (typeof v === "string") tag(T_STR), str(v);
    else if (v instanceof Uint8Array) {
      tag(T_BYTES), u32(v.length), room(v.length), buf.set(v, pos), pos += v.length;
    } else if (v instanceof Date) f64(T_DATE, v.getTime());
    else if (Array.isArray(v)) tag(T_ARR), u32(v.length), v.forEach(value);
    else if (typeof v === "object") {
      const entries = Object.entries(v);
      tag(T_OBJ), u32(entries.length);
      for (const [k, x] of entries) str(k), value(x);
    } else throw new TypeError(`syncpg: cannot send a ${typeof v}`);
  };
  value(v);
  return buf.subarray(0, pos);
}

const utf8Decoder = new TextDecoder();

export function decode(bytes: Uint8Array): unknown {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let pos = 0;
  const u32 = () => (pos += 4, view.getUint32(pos - 4, true));
  const f64 = () => (pos += 8, view.getFloat64(pos - 8, true));
  const str = () => {
    const n = u32();
    return utf8Decoder.decode(bytes.subarray(pos, pos += n));
  };
  // Readers by tag (T_NULL, T_FALSE, …).
  const readers: (() => unknown)[] = [
    () => null,
    () => false,
    () => true,
    f64,
    () => (pos += 8, view.getBigInt64(pos - 8, true)),
    () => BigInt(str()),
    str,
    () => bytes.slice(pos + 4, pos += 4 + view.getUint32(pos, true)), // a plain Uint8Array
    () => Array.from({ length: u32() }, value),
    () => {
      const o: Record<string, unknown> = {};
      for (let n = u32(); n > 0; n--) o[str()] = value();
      return o;
    },
    () => new Date(f64()),
  ];
  const value = (): unknown => {
    const read = readers[bytes[pos++]];
    if (read === undefined) throw new Error(`syncpg: bad message (byte ${pos - 1})`);
    return read();
  };
  return value();
}

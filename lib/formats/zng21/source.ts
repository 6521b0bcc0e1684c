// The byte source of the zng21 reader. It reproduces the reference's buffered
// reader ("peeker") closely enough that the same inputs fail with the same
// errors: a read of n bytes fails with EOF when nothing is left, with
// "truncated input" when fewer are left, and with "buffer too big" when n is
// over the read limit before the end of the input was seen. After a
// decompressed block is set, reads come from it while it lasts.
//
// Bytes arrive incrementally: a read past the buffered bytes, before the end
// of the input, throws NeedMore and the caller retries the message from a
// mark once more bytes are fed.

import { LochError } from "../../errors.ts";
import { NeedMore } from "../io.ts";

/** Why a read failed; the readers map most of them to "malformed zng record". */
export const EOF = 0;
export const TRUNCATED = 1;
export const TOO_BIG = 2;
export const BAD_FORMAT = 3;
export const VARINT_OVERFLOW = 4;
/** The input could not be buffered (detection's replay buffer is full). */
export const SOURCE = 5;

const messages = [
  "EOF",
  "truncated input",
  "buffer too big",
  "malformed zng record",
  "binary: varint overflows a 64-bit integer",
  "buffer exceeded max size trying to infer input format",
];

export class ReadFailure extends LochError {
  constructor(readonly reason: number) {
    super("invalid", messages[reason]);
  }
}

const failures = messages.map((_, i) => new ReadFailure(i));

function fail(reason: number): never {
  throw failures[reason];
}

/** The reference CLI's read limit (its -readmax default, 1 GiB). */
export const DEFAULT_READ_LIMIT = 1024 * 1024 * 1024;

const TWO64 = 1n << 64n;
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const TWO63 = 1n << 63n;

/** A uvarint as Go's int: wrapped to int64; a number when it is safe. */
export function goInt(u: number | bigint): number | bigint {
  if (typeof u === "number") return u;
  const s = u >= TWO63 ? u - TWO64 : u;
  return s >= BigInt(Number.MIN_SAFE_INTEGER) && s <= BigInt(Number.MAX_SAFE_INTEGER)
    ? Number(s)
    : s;
}

export interface Mark {
  pos: number;
  block: Uint8Array | null;
  blockPos: number;
}

export class Source {
  private buf = new Uint8Array(0);
  private pos = 0;
  /** All of the input is in buf. */
  private final = false;
  /** buf ends where the input can no longer be buffered (detection's limit). */
  private capped = false;
  /** The reader has seen the end of the input (the reference's peeker EOF flag). */
  private eofSeen = false;
  /** The decompressed block being read, and the position in it. */
  private block: Uint8Array | null = null;
  private blockPos = 0;

  constructor(private limit = DEFAULT_READ_LIMIT) {}

  /** Appends input, dropping what was consumed before `keep` (a mark's position). */
  feed(chunk: Uint8Array, final: boolean, keep = this.pos): void {
    const rest = this.buf.length - keep;
    if (chunk.length === 0) {
      if (keep > 0) this.buf = this.buf.subarray(keep);
    } else {
      const b = new Uint8Array(rest + chunk.length);
      b.set(this.buf.subarray(keep));
      b.set(chunk, rest);
      this.buf = b;
    }
    this.pos -= keep;
    this.final = final;
  }

  /** Marks input as cut off at what is buffered (it cannot be read further). */
  cap(): void {
    this.capped = true;
  }

  mark(): Mark {
    return { pos: this.pos, block: this.block, blockPos: this.blockPos };
  }

  reset(m: Mark): void {
    this.pos = m.pos;
    this.block = m.block;
    this.blockPos = m.blockPos;
  }

  /** Bytes beyond those buffered that the last NeedMore was for (a hint). */
  wanted = 0;

  get inBlock(): boolean {
    return this.block !== null && this.blockPos < this.block.length;
  }

  /** Starts reading a decompressed block. */
  setBlock(b: Uint8Array): void {
    this.block = b;
    this.blockPos = 0;
  }

  /** n bytes (n >= 0); a view that is valid until the next feed. */
  read(n: number | bigint): Uint8Array {
    const block = this.block;
    if (block !== null && this.blockPos < block.length) {
      if (n > block.length - this.blockPos) fail(BAD_FORMAT);
      const start = this.blockPos;
      this.blockPos += Number(n);
      return block.subarray(start, this.blockPos);
    }
    return this.readStream(n);
  }

  private readStream(n: number | bigint): Uint8Array {
    const avail = this.buf.length - this.pos;
    if (avail === 0 && this.eofSeen) fail(EOF);
    if (n > avail) {
      if (!this.eofSeen) {
        if (n > this.limit) fail(TOO_BIG);
        if (!this.final) {
          if (this.capped) fail(SOURCE);
          this.wanted = Number(n) - avail;
          throw new NeedMore();
        }
        this.eofSeen = true;
      }
      fail(avail === 0 ? EOF : TRUNCATED);
    }
    const start = this.pos;
    this.pos += Number(n);
    return this.buf.subarray(start, this.pos);
  }

  readByte(): number {
    const block = this.block;
    if (block !== null && this.blockPos < block.length) return block[this.blockPos++];
    if (this.pos < this.buf.length) return this.buf[this.pos++];
    return this.readStream(1)[0];
  }

  /** Go 1.19's binary.ReadUvarint over readByte: read errors pass through as they are. */
  readUvarint(): number | bigint {
    let x = 0;
    let scale = 1;
    for (let i = 0; i < 7; i++) {
      const b = this.readByte();
      if (b < 0x80) return x + b * scale;
      x += (b & 0x7f) * scale;
      scale *= 128;
    }
    // Past 49 bits the value is accumulated exactly as a bigint.
    let big = BigInt(x);
    for (let i = 7; i < 10; i++) {
      const b = this.readByte();
      if (b < 0x80) {
        if (i === 9 && b > 1) fail(VARINT_OVERFLOW);
        big |= BigInt(b) << BigInt(7 * i);
        return big <= MAX_SAFE ? Number(big) : big;
      }
      big |= BigInt(b & 0x7f) << BigInt(7 * i);
    }
    fail(VARINT_OVERFLOW);
  }
}

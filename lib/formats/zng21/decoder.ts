// The message loop of the legacy zng21 layout (formats.md §4.11). A stream is
// a sequence of messages, each starting with a code byte:
//   0x00–0xf4  a value of that type ID: uvarint length, then the old body
//   0xf5       a value whose type ID is 0xf5 plus the uvarint that follows
//   0xf6–0xfc  a typedef: record, array, set, union, enum, map, named
//   0xfd       an LZ4 block (format, lengths, data) whose bytes are read next
//   0xfe       an app message (encoding byte, uvarint length, bytes): skipped
//   0xff       end of stream: the type context starts over
// Errors have the reference reader's texts; most failed reads are
// "malformed zng record", a few pass through as they are (see source.ts).

import { invalid } from "../../errors.ts";
import { NeedMore } from "../io.ts";
import type { Value } from "../../zed/value.ts";
import { decompressBlock } from "../zng/lz4.ts";
import { malformed } from "../zng/decoder.ts";
import { Converter } from "./convert.ts";
import { Column21, Context21, primitive21, type Type21 } from "./types.ts";
import { EOF, goInt, ReadFailure, Source, TOO_BIG, TRUNCATED } from "./source.ts";

const VALUE_ESCAPE = 0xf5;
const TYPEDEF_RECORD = 0xf6;
const TYPEDEF_ARRAY = 0xf7;
const TYPEDEF_SET = 0xf8;
const TYPEDEF_UNION = 0xf9;
const TYPEDEF_ENUM = 0xfa;
const TYPEDEF_MAP = 0xfb;
const TYPEDEF_NAMED = 0xfc;
const COMPRESSED = 0xfd;
const APP_MESSAGE = 0xfe;
const EOS = 0xff;

/** The largest decompressed block the reference accepts (larger ones are skipped). */
const MAX_BLOCK = 10 * 1024 * 1024;

/** What a message that is not a value gave: nothing to return yet. */
const SKIP = 1;

export interface Zng21Options {
  /** The largest read the reference allows before the end of the input is seen. */
  readLimit?: number;
}

/**
 * Values from zng21 bytes fed to it. next() returns a value, null at the end,
 * or undefined when it needs more input; errors are sticky.
 */
export class Zng21Decoder {
  private src: Source;
  private ctx = new Context21();
  private conv = new Converter();
  private failure: unknown = null;

  constructor(opts: Zng21Options = {}) {
    this.src = new Source(opts.readLimit);
  }

  /** Appends input; `final` marks the end of it. */
  feed(chunk: Uint8Array, final: boolean): void {
    this.src.feed(chunk, final);
  }

  /** Marks the buffered input as all that can be read (detection's limit). */
  cap(): void {
    this.src.cap();
  }

  /** Bytes beyond those buffered that the decoder waits for (at least 1). */
  get wanted(): number {
    return Math.max(1, this.src.wanted);
  }

  next(): Value | null | undefined {
    if (this.failure !== null) throw this.failure;
    for (;;) {
      const m = this.src.mark();
      let r: Value | null | typeof SKIP;
      try {
        r = this.message();
      } catch (e) {
        if (e instanceof NeedMore) {
          this.src.reset(m);
          return undefined;
        }
        // Absurdly nested types overflow the stack; report them as bad input.
        this.failure = e instanceof RangeError ? malformed() : e;
        throw this.failure;
      }
      if (r !== SKIP) return r;
    }
  }

  private message(): Value | null | typeof SKIP {
    const src = this.src;
    let code: number;
    try {
      code = src.readByte();
    } catch (e) {
      if (e instanceof ReadFailure && (e.reason === EOF || e.reason === TRUNCATED)) return null;
      throw e;
    }
    if (code <= VALUE_ESCAPE) return this.value(code);
    const ctx = this.ctx;
    switch (code) {
      case TYPEDEF_RECORD: {
        const n = goInt(this.uvarint());
        const columns: Column21[] = [];
        for (let k = 0; k < n; k++) {
          const name = this.name();
          columns.push(new Column21(name, ctx.lookup(goInt(this.uvarint())) as Type21));
        }
        ctx.record(columns);
        break;
      }
      case TYPEDEF_ARRAY:
        ctx.array(ctx.lookup(goInt(this.uvarint())));
        break;
      case TYPEDEF_SET:
        ctx.set(ctx.lookup(goInt(this.uvarint())));
        break;
      case TYPEDEF_UNION: {
        const n = goInt(this.uvarint());
        if (n === 0) throw invalid("type union: zero columns not allowed");
        const members: (Type21 | null)[] = [];
        for (let k = 0; k < n; k++) members.push(ctx.lookup(goInt(this.uvarint())));
        ctx.union(members);
        break;
      }
      case TYPEDEF_ENUM: {
        const n = goInt(this.uvarint());
        const symbols: string[] = [];
        for (let k = 0; k < n; k++) symbols.push(this.name());
        ctx.enum(symbols);
        break;
      }
      case TYPEDEF_MAP: {
        const key = ctx.lookup(goInt(this.uvarint()));
        ctx.map(key, ctx.lookup(goInt(this.uvarint())));
        break;
      }
      case TYPEDEF_NAMED: {
        const name = this.name();
        ctx.named(name, ctx.lookup(goInt(this.uvarint())));
        break;
      }
      case COMPRESSED:
        this.block();
        break;
      case APP_MESSAGE: {
        try {
          src.readByte();
        } catch (e) {
          throw e instanceof ReadFailure ? malformed() : e;
        }
        const n = goInt(this.uvarint());
        if (n < 0) throw malformed();
        src.read(n); // a failure passes through as it is
        break;
      }
      case EOS:
        this.ctx = new Context21();
        break;
    }
    return SKIP;
  }

  private value(code: number): Value {
    const src = this.src;
    let id: number | bigint = code;
    if (code === VALUE_ESCAPE) {
      // Read errors pass through as they are here; the ID wraps as Go's int.
      const u = src.readUvarint();
      id = goInt(BigInt.asIntN(64, BigInt(u) + BigInt(VALUE_ESCAPE)));
    }
    const n = goInt(this.uvarint());
    if (n < 0) throw malformed();
    let body: Uint8Array | null;
    try {
      body = src.read(n);
    } catch (e) {
      if (!(e instanceof ReadFailure)) throw e;
      if (e.reason === TOO_BIG) {
        throw invalid(`large value of ${n} bytes exceeds maximum read buffer`);
      }
      // A zero-length value at the end of the input reads as null.
      if (e.reason !== EOF) throw malformed();
      body = null;
    }
    const t = typeof id === "number" ? primitive21(id) ?? this.ctx.defined(id) : undefined;
    if (t === null || t === undefined) throw invalid("zng type ID out of range");
    return this.conv.convert(t, body);
  }

  /** A compressed block: its bytes are read next. Failures to read it are ignored. */
  private block(): void {
    const src = this.src;
    if (src.inBlock) throw invalid("zngio: cannot have zng compression inside of compression");
    let format: number | bigint, size: number | bigint, data: Uint8Array;
    try {
      format = goInt(src.readUvarint());
      size = goInt(src.readUvarint());
      if (size > MAX_BLOCK) return;
      const n = goInt(src.readUvarint());
      if (n < 0) throw malformed();
      data = src.read(n);
    } catch (e) {
      // The reference drops these errors and reads on from where it stopped.
      if (e instanceof ReadFailure) return;
      throw e;
    }
    if (format !== 0) throw invalid(`zngio: unknown compression format 0x${goHex(format)}`);
    if (size < 0) throw malformed();
    const out = new Uint8Array(Number(size));
    const got = decompressBlock(data, out);
    if (got < 0) throw invalid("zngio: lz4: invalid source or destination buffer too short");
    if (got !== size) throw invalid(`zngio: got ${got} uncompressed bytes, expected ${size}`);
    src.setBlock(out);
  }

  /** A uvarint whose read failures are "malformed zng record". */
  private uvarint(): number | bigint {
    try {
      return this.src.readUvarint();
    } catch (e) {
      throw e instanceof ReadFailure ? malformed() : e;
    }
  }

  /** A length-prefixed name or symbol, as a byte string. */
  private name(): string {
    const n = goInt(this.uvarint());
    if (n < 0) throw malformed();
    let b: Uint8Array;
    try {
      b = this.src.read(n);
    } catch (e) {
      throw e instanceof ReadFailure ? malformed() : e;
    }
    let s = "";
    for (let i = 0; i < b.length; i += 4096) {
      s += String.fromCharCode.apply(null, Array.from(b.subarray(i, i + 4096)));
    }
    return s;
  }
}

/** Go's %x of an int. */
function goHex(n: number | bigint): string {
  return n < 0 ? "-" + (-BigInt(n)).toString(16) : n.toString(16);
}

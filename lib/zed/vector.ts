// Vectors: the values of one field path over the rows of a data object, held
// in typed arrays (the in-memory form of the columns the lake writes beside
// each object). One vector has one Zed type; the rows of record types that
// do not have the path (or have it with another type) are absent.
//
// Per row, `state` says what the row holds: ABSENT (its record type has no
// such field of this type), NULL (a null value) or VALUE. Where a row holds a
// value, the vector's own arrays hold it; elsewhere they hold zeros.
//
// body(i) gives the value of a VALUE row as the data model's body (value.ts),
// so any expression can be evaluated on it exactly; kernels read the arrays.

import type { Type } from "./types.ts";
import type { Body } from "./value.ts";
import { decodeUtf8, latin1String } from "./utf8.ts";

export const ABSENT = 0;
export const NULL_ROW = 1;
export const VALUE = 2;

export abstract class Vector {
  constructor(
    /** The Zed type of the values (a primitive, named primitive, or array/set of one). */
    readonly type: Type,
    /** ABSENT, NULL_ROW or VALUE per row. */
    readonly state: Uint8Array,
  ) {}

  get length(): number {
    return this.state.length;
  }

  /** The body of row i, which holds a value. */
  abstract body(i: number): Body;

  /** Estimated bytes held (for the cache's budget). */
  abstract get bytes(): number;
}

/** Numbers: ints, floats, times and durations. */
export class NumberVector extends Vector {
  constructor(
    type: Type,
    state: Uint8Array,
    /** Each value as a double: exact for floats and for ints within ±2^53. */
    readonly f64: Float64Array,
    /** The exact values of a 64-bit int column, when some are beyond ±2^53; else null. */
    readonly big: BigInt64Array | BigUint64Array | null,
  ) {
    super(type, state);
  }

  body(i: number): Body {
    const big = this.big;
    if (big !== null) {
      const b = big[i];
      return b >= -9007199254740991n && b <= 9007199254740991n ? Number(b) : b;
    }
    return this.f64[i];
  }

  /** Row i's integer, exactly (of a column of 64-bit integers, times or durations). */
  exact(i: number): bigint {
    return this.big !== null ? this.big[i] : BigInt(this.f64[i]);
  }

  get bytes(): number {
    return this.state.length + this.f64.byteLength + (this.big?.byteLength ?? 0);
  }
}

export class BoolVector extends Vector {
  constructor(type: Type, state: Uint8Array, readonly values: Uint8Array) {
    super(type, state);
  }
  body(i: number): Body {
    return this.values[i] !== 0;
  }
  get bytes(): number {
    return this.state.length + this.values.byteLength;
  }
}

/** Variable-width values (strings, bytes, ips): each row's bytes between two offsets. */
export class BinaryVector extends Vector {
  private strings: (string | undefined)[] | null = null;

  constructor(
    type: Type,
    state: Uint8Array,
    readonly offsets: Int32Array,
    readonly data: Uint8Array,
    /** True for strings: bodies are JS strings; else Uint8Array slices. */
    readonly isString: boolean,
  ) {
    super(type, state);
  }

  body(i: number): Body {
    if (!this.isString) return this.data.slice(this.offsets[i], this.offsets[i + 1]);
    const cache = this.strings ??= new Array(this.state.length);
    let s = cache[i];
    if (s === undefined) {
      const d = this.data, a = this.offsets[i], b = this.offsets[i + 1];
      // ASCII (most strings) is its own text: no view of the bytes and no
      // call out to the decoder for each.
      let k = a;
      while (k < b && d[k] < 0x80) k++;
      s = k === b ? latin1String(d, a, b) : decodeUtf8(d.subarray(a, b));
      cache[i] = s;
    }
    return s;
  }

  get bytes(): number {
    return this.state.length + this.offsets.byteLength + this.data.byteLength +
      (this.strings === null ? 0 : this.state.length * 8);
  }

  /**
   * Every row's string, into out: ASCII data decoded in one go and cut at
   * the offsets (which then count characters too), else row by row.
   */
  decodeAll(out: Body[]): void {
    const data = this.data, off = this.offsets, n = this.state.length;
    let ascii = true;
    for (let k = 0; k < data.length; k++) {
      if (data[k] >= 0x80) {
        ascii = false;
        break;
      }
    }
    if (!ascii) {
      for (let i = 0; i < n; i++) out[i] = this.body(i);
      return;
    }
    const text = latin1.decode(data);
    for (let i = 0; i < n; i++) out[i] = text.slice(off[i], off[i + 1]);
  }
}

const latin1 = new TextDecoder("latin1");

/** Fixed-width byte values (ips of one family): row i is data[i*width, (i+1)*width). */
export class FixedVector extends Vector {
  constructor(type: Type, state: Uint8Array, readonly width: number, readonly data: Uint8Array) {
    super(type, state);
  }
  body(i: number): Body {
    return this.data.slice(i * this.width, (i + 1) * this.width);
  }
  get bytes(): number {
    return this.state.length + this.data.byteLength;
  }
}

/**
 * Dictionary-encoded values: the distinct values once, and per row its entry.
 * Predicates and groupings work on the entries. The entries are a vector of
 * their own (all VALUE); their bodies are made when first asked for.
 */
export class DictVector extends Vector {
  private bodies: Body[] | null = null;

  constructor(
    type: Type,
    state: Uint8Array,
    /** Per row, its entry (0 where the row holds no value). */
    readonly index: Int32Array,
    /** The distinct values. */
    readonly entries: Vector,
  ) {
    super(type, state);
  }

  /** The distinct values' bodies. */
  get dict(): readonly Body[] {
    if (this.bodies === null) {
      const e = this.entries;
      const n = e.length;
      const out: Body[] = new Array(n);
      if (e instanceof BinaryVector && e.isString) e.decodeAll(out);
      else for (let i = 0; i < n; i++) out[i] = e.body(i);
      this.bodies = out;
    }
    return this.bodies;
  }

  body(i: number): Body {
    // One entry, decoded alone unless all of them have been.
    const b = this.bodies;
    return b !== null ? b[this.index[i]] : this.entries.body(this.index[i]);
  }

  get bytes(): number {
    return this.state.length + this.index.byteLength + this.entries.bytes;
  }
}

/** Arrays and sets of primitives: row i's elements are child rows offsets[i] to offsets[i+1]. */
export class ListVector extends Vector {
  constructor(
    type: Type,
    state: Uint8Array,
    readonly offsets: Int32Array,
    /** The elements, one row each (their state says which are null). */
    readonly child: Vector,
  ) {
    super(type, state);
  }
  body(i: number): Body {
    const out: Body[] = [];
    const child = this.child;
    for (let k = this.offsets[i]; k < this.offsets[i + 1]; k++) {
      out.push(child.state[k] === VALUE ? child.body(k) : null);
    }
    return out;
  }
  get bytes(): number {
    return this.state.length + this.offsets.byteLength + this.child.bytes;
  }
}

/** Values kept as their bodies: a few made by a query (as a dictionary's entries), not read from columns. */
export class BodyVector extends Vector {
  constructor(type: Type, state: Uint8Array, private readonly bodies: readonly Body[]) {
    super(type, state);
  }
  body(i: number): Body {
    return this.bodies[i];
  }
  get bytes(): number {
    return this.state.length + 8 * this.bodies.length;
  }
}

/** A field of type null: every row that has it holds null. */
export class NullVector extends Vector {
  body(_i: number): Body {
    return null;
  }
  get bytes(): number {
    return this.state.length;
  }
}

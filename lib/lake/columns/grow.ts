// Growable typed arrays for the column builders: appended to one value at a
// time, doubled when full, handed out trimmed.

export class GrowI32 {
  a = new Int32Array(64);
  n = 0;
  push(x: number): void {
    if (this.n === this.a.length) this.a = grow(this.a, new Int32Array(this.a.length * 2));
    this.a[this.n++] = x;
  }
  view(): Int32Array {
    return this.a.subarray(0, this.n);
  }
}

export class GrowU8 {
  a = new Uint8Array(64);
  n = 0;
  push(x: number): void {
    if (this.n === this.a.length) this.a = grow(this.a, new Uint8Array(this.a.length * 2));
    this.a[this.n++] = x;
  }
  view(): Uint8Array {
    return this.a.subarray(0, this.n);
  }
}

export class GrowU16 {
  a = new Uint16Array(64);
  n = 0;
  push(x: number): void {
    if (this.n === this.a.length) this.a = grow(this.a, new Uint16Array(this.a.length * 2));
    this.a[this.n++] = x;
  }
  view(): Uint16Array {
    return this.a.subarray(0, this.n);
  }
}

export class GrowF64 {
  a = new Float64Array(64);
  n = 0;
  push(x: number): void {
    if (this.n === this.a.length) this.a = grow(this.a, new Float64Array(this.a.length * 2));
    this.a[this.n++] = x;
  }
  view(): Float64Array {
    return this.a.subarray(0, this.n);
  }
}

/** 64-bit integers, set from numbers (safe integers) without making bigints. */
export class GrowI64 {
  a = new BigInt64Array(64);
  private w = new Int32Array(this.a.buffer);
  n = 0;
  private room(): void {
    if (this.n === this.a.length) {
      this.a = grow(this.a, new BigInt64Array(this.a.length * 2));
      this.w = new Int32Array(this.a.buffer);
    }
  }
  /** A safe integer (two's complement words, little-endian). */
  pushNumber(x: number): void {
    this.room();
    const k = this.n++ << 1;
    this.w[k] = x >>> 0;
    this.w[k + 1] = Math.floor(x / 4294967296);
  }
  /** Any value that fits 64 bits (uint64 values above 2^63 wrap, as their bits). */
  pushBig(x: bigint): void {
    this.room();
    this.a[this.n++] = BigInt.asIntN(64, x);
  }
  view(): BigInt64Array {
    return this.a.subarray(0, this.n);
  }
}

/** Bytes appended value by value, with the offset where each ends. */
export class GrowBytes {
  data = new Uint8Array(1024);
  pos = 0;
  readonly ends = new GrowI32();

  private room(n: number): void {
    if (this.pos + n <= this.data.length) return;
    let size = this.data.length * 2;
    while (size < this.pos + n) size *= 2;
    this.data = grow(this.data, new Uint8Array(size));
  }

  /** Appends b[p, p+len) as the next value. */
  pushRange(b: Uint8Array, p: number, len: number): void {
    if (this.pos + len > this.data.length) this.room(len);
    const d = this.data;
    let q = this.pos;
    if (len < 32) {
      for (let k = 0; k < len; k++) d[q + k] = b[p + k];
    } else d.set(b.subarray(p, p + len), q);
    q += len;
    this.pos = q;
    this.ends.push(q);
  }

  /** Value k as [start, length]. */
  range(k: number): [number, number] {
    const e = this.ends.a;
    const s = k === 0 ? 0 : e[k - 1];
    return [s, e[k] - s];
  }

  /** Whether value k is b[p, p+len). */
  equals(k: number, b: Uint8Array, p: number, len: number): boolean {
    const e = this.ends.a;
    const s = k === 0 ? 0 : e[k - 1];
    if (e[k] - s !== len) return false;
    const d = this.data;
    // From the end: values that share a prefix (times, ids) differ there first.
    for (let i = len - 1; i >= 0; i--) if (d[s + i] !== b[p + i]) return false;
    return true;
  }

  get count(): number {
    return this.ends.n;
  }
}

function grow<T extends { set(a: ArrayLike<number | bigint>): void }>(from: T, to: T): T {
  to.set(from as unknown as ArrayLike<number>);
  return to;
}

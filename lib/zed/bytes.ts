// A growable byte buffer for encoders, with LEB128 uvarints.

export class ByteWriter {
  buf: Uint8Array;
  pos = 0;

  constructor(size = 1024) {
    this.buf = new Uint8Array(size);
  }

  /** Makes room for n more bytes. */
  ensure(n: number): void {
    const need = this.pos + n;
    if (need <= this.buf.length) return;
    let size = Math.max(this.buf.length * 2, 64);
    while (size < need) size *= 2;
    const b = new Uint8Array(size);
    b.set(this.buf.subarray(0, this.pos));
    this.buf = b;
  }

  byte(b: number): void {
    if (this.pos >= this.buf.length) this.ensure(1);
    this.buf[this.pos++] = b;
  }

  bytes(b: Uint8Array): void {
    this.ensure(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }

  /** Appends b[from, to) (short ranges without making a view of them). */
  range(b: Uint8Array, from: number, to: number): void {
    const n = to - from;
    this.ensure(n);
    const out = this.buf;
    let p = this.pos;
    if (n < 64) {
      for (let i = from; i < to; i++) out[p++] = b[i];
    } else {
      out.set(b.subarray(from, to), p);
      p += n;
    }
    this.pos = p;
  }

  uvarint(n: number): void {
    this.ensure(10);
    while (n >= 0x80) {
      this.buf[this.pos++] = (n & 0x7f) | 0x80;
      n = Math.floor(n / 128);
    }
    this.buf[this.pos++] = n;
  }

  /** Inserts uvarint(n) at offset `at`, shifting what follows. */
  insertUvarint(at: number, n: number): void {
    const len = uvarintLength(n);
    this.ensure(len);
    this.buf.copyWithin(at + len, at, this.pos);
    let p = at;
    while (n >= 0x80) {
      this.buf[p++] = (n & 0x7f) | 0x80;
      n = Math.floor(n / 128);
    }
    this.buf[p] = n;
    this.pos += len;
  }

  /** The written bytes (a view; copy it if the writer is reused). */
  view(): Uint8Array {
    return this.buf.subarray(0, this.pos);
  }

  reset(): void {
    this.pos = 0;
  }
}

export function uvarintLength(n: number): number {
  let len = 1;
  while (n >= 0x80) {
    n = Math.floor(n / 128);
    len++;
  }
  return len;
}

/** Bytewise unsigned lexicographic comparison. */
export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = a.length < b.length ? a.length : b.length;
  for (let i = 0; i < n; i++) {
    if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1;
  }
  return a.length - b.length < 0 ? -1 : a.length > b.length ? 1 : 0;
}

export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

// A growable byte buffer that text writers fill directly with UTF-8, which
// is faster than concatenating many small strings and encoding the result.

export class ByteBuffer {
  buf: Uint8Array;
  /** Bytes written so far. */
  pos = 0;

  constructor(capacity = 1 << 16) {
    this.buf = new Uint8Array(capacity);
  }

  /** Makes room for n more bytes; callers then write buf[pos...] themselves. */
  reserve(n: number): void {
    if (this.pos + n > this.buf.length) this.grow(n);
  }

  private grow(n: number): void {
    let cap = this.buf.length * 2;
    while (cap < this.pos + n) cap *= 2;
    const b = new Uint8Array(cap);
    b.set(this.buf.subarray(0, this.pos));
    this.buf = b;
  }

  byte(b: number): void {
    if (this.pos >= this.buf.length) this.grow(1);
    this.buf[this.pos++] = b;
  }

  /** Appends a string known to be ASCII. */
  ascii(s: string): void {
    const n = s.length;
    if (this.pos + n > this.buf.length) this.grow(n);
    const buf = this.buf;
    let p = this.pos;
    for (let i = 0; i < n; i++) buf[p++] = s.charCodeAt(i);
    this.pos = p;
  }

  bytes(b: Uint8Array): void {
    const n = b.length;
    if (this.pos + n > this.buf.length) this.grow(n);
    const buf = this.buf;
    let p = this.pos;
    // A loop beats TypedArray.set for the short runs writers append.
    for (let i = 0; i < n; i++) buf[p++] = b[i];
    this.pos = p;
  }

  /**
   * Appends s in double quotes when it needs no escapes: every character
   * printable ASCII other than `"` and `\` (for Go's JSON, also not `<`, `>`,
   * `&`). Returns false, having appended nothing, when it does need some.
   */
  plainQuoted(s: string, goJson: boolean): boolean {
    const n = s.length;
    this.reserve(n + 2);
    const buf = this.buf;
    let p = this.pos;
    buf[p++] = 0x22;
    for (let i = 0; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c < 0x20 || c >= 0x80 || c === 0x22 || c === 0x5c) return false;
      if (goJson && (c === 0x3c || c === 0x3e || c === 0x26 || c === 0x7f)) return false;
      buf[p++] = c;
    }
    buf[p++] = 0x22;
    this.pos = p;
    return true;
  }

  /** Appends a string as UTF-8 (a loop for ASCII, the encoder past it). */
  utf8(s: string): void {
    const n = s.length;
    if (this.pos + n > this.buf.length) this.grow(n);
    const buf = this.buf;
    let p = this.pos;
    for (let i = 0; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c >= 0x80) {
        this.pos = p;
        this.encoded(s.slice(i));
        return;
      }
      buf[p++] = c;
    }
    this.pos = p;
  }

  private encoded(s: string): void {
    // At most three bytes per UTF-16 unit.
    if (this.pos + 3 * s.length > this.buf.length) this.grow(3 * s.length);
    this.pos += utf8Encoder.encodeInto(s, this.buf.subarray(this.pos)).written;
  }

  /** A copy of the contents; the buffer is then empty. */
  take(): Uint8Array {
    const out = this.buf.slice(0, this.pos);
    this.pos = 0;
    return out;
  }
}

const utf8Encoder = new TextEncoder();

// JSON straight to ZNG's value encoding, for loads. A load parses every
// value only to encode it again, and JSON text is mostly what the encoding
// holds as is: the bytes of strings, digits of numbers. So the common shape
// of a JSON value — an object of strings without characters past ASCII,
// numbers, booleans, nulls, nested objects and arrays of one type — is
// written from the input bytes without a JS string or Value on the way.
//
// It gives exactly what JsonParser and appendTagged give (the same types,
// from the same Shape trees, and the same bytes) or nothing: anything else
// (text past ASCII, which the parser normalizes; \u escapes past ASCII;
// arrays of mixed types; duplicate or empty-object keys; numbers the parser
// reads through BigInt or the float syntax check; every error) makes it
// give up on that value (Bail), and the caller reads the value with the
// parser instead.

import { type ByteWriter, uvarintLength } from "../../zed/bytes.ts";
import {
  type Type,
  TypeBool,
  TypeFloat64,
  TypeInt64,
  TypeNull,
  TypeString,
} from "../../zed/types.ts";
import { latin1String } from "../../zed/utf8.ts";
import { intBody } from "../../zed/value.ts";
import { appendIntTagged } from "../../zed/zcode.ts";
import { floatRE, isBoundary, isNumberChar, isWs, MAX_INT64, MIN_INT64, POW10 } from "./parser.ts";
import { ArrayTypes, Shape, type ShapeEdge } from "./shapes.ts";

/** The value needs the parser (thrown within a value; the caller reads it otherwise). */
export class Bail extends Error {}
/** The value runs past the bytes given, and more follow. */
export class Short extends Error {}

const BAIL = new Bail();
const SHORT = new Short();

const f64 = new Float64Array(1);
const f64Bytes = new Uint8Array(f64.buffer);

/** Bytes that end a string's plain run: the closing quote, a backslash, controls, non-ASCII. */
const STRING_STOP = new Uint8Array(256);
for (let c = 0; c < 256; c++) STRING_STOP[c] = c === 34 || c === 92 || c < 32 || c >= 0x80 ? 1 : 0;

/** Strings shorter than this (less one) have a one-byte tag and are copied as scanned. */
const SHORT_STRING = 128;

/** Edges a node matches by their bytes before it looks names up (as Shape.match). */
const MATCH_EDGES = 8;

/** A float the parser accepts (its out-of-range error is left to it). */
function finite(f: number): number {
  if (!Number.isFinite(f)) throw BAIL;
  return f;
}

/** Whether b holds a key's characters and then `"` at i. */
function matchKey(b: Uint8Array, i: number, codes: number[]): boolean {
  const n = codes.length;
  if (b[i + n] !== 34) return false;
  for (let k = 0; k < n; k++) if (b[i + k] !== codes[k]) return false;
  return true;
}

export class JsonTranscoder {
  private b: Uint8Array = new Uint8Array(0);
  private end = 0;
  private eof = false;
  private p = 0;
  /** The type of the value last written. */
  private t: Type = TypeNull;
  private root = new Shape(null);
  private arrays = new ArrayTypes();

  /**
   * Writes the top-level value at b[at] (at a `{`) into w, tagged, and
   * returns its type; `this.next` is then the position after it. Throws
   * Bail (w may hold part of it) or Short (needs bytes past end, and !eof).
   */
  value(b: Uint8Array, at: number, end: number, eof: boolean, w: ByteWriter): Type {
    this.b = b;
    this.end = end;
    this.eof = eof;
    this.p = at;
    if (b[at] !== 123) throw BAIL;
    this.object(w);
    return this.t;
  }

  /** Where the last value ended. */
  get next(): number {
    return this.p;
  }

  private ws(i: number): number {
    const b = this.b;
    while (i < this.end && isWs(b[i])) i++;
    if (i >= this.end) this.short();
    return i;
  }

  private short(): never {
    throw this.eof ? BAIL : SHORT;
  }

  private any(w: ByteWriter): void {
    const b = this.b;
    const i = this.p;
    if (i >= this.end) this.short();
    const c = b[i];
    switch (c) {
      case 34:
        this.string(w);
        return;
      case 123:
        this.object(w);
        return;
      case 91:
        this.array(w);
        return;
      case 116:
        this.literal(i, 114, 117, 101, -1);
        w.byte(2);
        w.byte(1);
        this.t = TypeBool;
        return;
      case 102:
        this.literal(i, 97, 108, 115, 101);
        w.byte(2);
        w.byte(0);
        this.t = TypeBool;
        return;
      case 110:
        this.literal(i, 117, 108, 108, -1);
        w.byte(0);
        this.t = TypeNull;
        return;
    }
    if ((c >= 48 && c <= 57) || c === 45) {
      this.number(w);
      return;
    }
    throw BAIL;
  }

  /** A literal's letters after its first (c4 < 0: three more), then a boundary. */
  private literal(i: number, c1: number, c2: number, c3: number, c4: number): void {
    const b = this.b;
    const n = c4 < 0 ? 4 : 5;
    if (i + n > this.end) this.short();
    if (b[i + 1] !== c1 || b[i + 2] !== c2 || b[i + 3] !== c3 || (c4 >= 0 && b[i + 4] !== c4)) {
      throw BAIL;
    }
    if (i + n >= this.end) this.short();
    if (!isBoundary(b[i + n])) throw BAIL;
    this.p = i + n;
  }

  private string(w: ByteWriter): void {
    const b = this.b, end = this.end;
    const from = this.p + 1;
    // A short plain string (most are) is copied as it is scanned, after a
    // byte for its tag; any other is scanned, then written.
    const room = end - from < SHORT_STRING ? end - from : SHORT_STRING;
    w.ensure(room + 1);
    const dst = w.buf;
    let d = w.pos + 1;
    let i = from;
    for (; i < from + room; i++) {
      const c = b[i];
      if (STRING_STOP[c] === 0) {
        dst[d++] = c;
        continue;
      }
      if (c === 34 && i - from < SHORT_STRING - 1) {
        dst[w.pos] = i - from + 1;
        w.pos = d;
        this.p = i + 1;
        this.t = TypeString;
        return;
      }
      break;
    }
    // (The bytes before i are plain: the scan goes on from there.)
    while (i < end && STRING_STOP[b[i]] === 0) i++;
    if (i >= end) this.short();
    if (b[i] !== 34) {
      this.escaped(w, from);
      return;
    }
    const n = i - from;
    w.uvarint(n + 1);
    w.ensure(n);
    const out = w.buf;
    let q = w.pos;
    if (n < 32) { for (let k = from; k < i; k++) out[q++] = b[k]; }
    else {
      out.set(b.subarray(from, i), q);
      q += n;
    }
    w.pos = q;
    this.p = i + 1;
    this.t = TypeString;
  }

  /**
   * A string with escapes: decoded into room for its raw length (never
   * shorter), the tag fixed up after. Escapes of ASCII characters only; no
   * raw control characters or bytes past ASCII.
   */
  private escaped(w: ByteWriter, from: number): void {
    const b = this.b, end = this.end;
    let i = from;
    // The closing quote and the raw length first.
    for (; i < end; i++) {
      const c = b[i];
      if (c === 34) break;
      if (c === 92) i++;
    }
    if (i >= end) this.short();
    const raw = i - from;
    const start = w.pos;
    const guess = uvarintLength(raw + 1);
    w.ensure(guess + raw);
    const out = w.buf;
    let q = start + guess;
    for (let k = from; k < i; k++) {
      let c = b[k];
      if (c < 32 || c >= 0x80) throw BAIL;
      if (c === 92) {
        const e = b[++k];
        switch (e) {
          case 34:
          case 92:
          case 47:
          case 39:
            c = e;
            break;
          case 98:
            c = 8;
            break;
          case 102:
            c = 12;
            break;
          case 110:
            c = 10;
            break;
          case 114:
            c = 13;
            break;
          case 116:
            c = 9;
            break;
          case 117: {
            if (k + 4 >= i) throw BAIL;
            c = 0;
            for (let h = 1; h <= 4; h++) {
              const x = b[k + h];
              const d = x >= 48 && x <= 57
                ? x - 48
                : x >= 97 && x <= 102
                ? x - 87
                : x >= 65 && x <= 70
                ? x - 55
                : -1;
              if (d < 0) throw BAIL;
              c = c * 16 + d;
            }
            if (c >= 0x80) throw BAIL;
            k += 4;
            break;
          }
          default:
            throw BAIL;
        }
      }
      out[q++] = c;
    }
    const n = q - start - guess;
    const len = uvarintLength(n + 1);
    if (len !== guess) out.copyWithin(start + len, start + guess, q);
    w.pos = start;
    w.uvarint(n + 1);
    w.pos = start + len + n;
    this.p = i + 1;
    this.t = TypeString;
  }

  /** A number token, read as the parser reads it (parseNumber). */
  private number(w: ByteWriter): void {
    const b = this.b, end = this.end;
    const start = this.p;
    let i = start;
    const neg = b[i] === 45;
    if (neg) i++;
    const digits = i;
    let n = 0;
    let c = i < end ? b[i] : -1;
    while (c >= 48 && c <= 57) {
      n = n * 10 + (c - 48);
      c = ++i < end ? b[i] : -1;
    }
    if (i >= end) this.short();
    if (i === digits || isNumberChar(c)) {
      if (c === 46 && i > digits) {
        // The common fraction `d+.d+`: with at most 15 digits, n and the
        // power of ten are exact, so one division rounds correctly.
        let j = i + 1;
        c = j < end ? b[j] : -1;
        while (c >= 48 && c <= 57) {
          n = n * 10 + (c - 48);
          c = ++j < end ? b[j] : -1;
        }
        if (j >= end) this.short();
        if (j > i + 1 && !isNumberChar(c)) {
          this.p = j;
          if (j - digits > 16) {
            this.float(w, finite(Number(latin1String(b, start, j))));
          } else {
            const f = n / POW10[j - i - 1];
            this.float(w, neg ? -f : f);
          }
          return;
        }
      }
      // Any other run of number characters, checked as strconv.ParseFloat would.
      let k = i;
      while (k < end && isNumberChar(b[k])) k++;
      if (k >= end) this.short();
      const tok = latin1String(b, start, k);
      if (!floatRE.test(tok)) throw BAIL;
      this.p = k;
      this.float(w, finite(Number(tok)));
      return;
    }
    this.p = i;
    if (i - digits <= 15) {
      this.t = TypeInt64;
      appendIntTagged(w, neg ? (n === 0 ? 0 : -n) : n);
      return;
    }
    // 16 digits or more: int64 when in range, else float64.
    const tok = latin1String(b, start, i);
    const v = BigInt(tok);
    if (v >= MIN_INT64 && v <= MAX_INT64) {
      this.t = TypeInt64;
      appendIntTagged(w, intBody(v));
      return;
    }
    this.float(w, finite(Number(tok)));
  }

  private float(w: ByteWriter, f: number): void {
    f64[0] = f;
    w.ensure(9);
    const out = w.buf;
    let q = w.pos;
    out[q++] = 9;
    for (let k = 0; k < 8; k++) out[q++] = f64Bytes[k];
    w.pos = q;
    this.t = TypeFloat64;
  }

  private object(w: ByteWriter): void {
    const b = this.b;
    let i = this.ws(this.p + 1);
    if (b[i] === 125) throw BAIL;
    let shape = this.root;
    const start = w.pos;
    for (;;) {
      if (b[i] !== 34) throw BAIL;
      let edge = shape.last;
      if (edge === null || edge.codes === null || !matchKey(b, i + 1, edge.codes)) {
        edge = this.match(shape, i + 1);
      }
      let name: string;
      if (edge !== null) {
        name = edge.name;
        i += edge.codes!.length + 2;
      } else {
        name = this.key(i + 1);
        i = this.p;
      }
      i = this.ws(i);
      if (b[i] !== 58) throw BAIL;
      this.p = this.ws(i + 1);
      this.any(w);
      const t = this.t;
      if (edge === null || edge.type !== t) edge = shape.step(name, t);
      shape.last = edge;
      shape = edge.to;
      i = this.ws(this.p);
      const c = b[i];
      if (c === 44) {
        i = this.ws(i + 1);
      } else if (c === 125) {
        break;
      } else {
        throw BAIL;
      }
    }
    const rec = shape.record ?? shape.finish();
    // Duplicate keys: the parser keeps the last value of each name.
    if (shape.plan !== null) throw BAIL;
    this.p = i + 1;
    this.t = rec;
    w.insertUvarint(start, w.pos - start + 1);
  }

  /** One of a node's first edges whose name b holds at i, then `"`; null if none. */
  private match(shape: Shape, i: number): ShapeEdge | null {
    const edges = shape.edges;
    const n = edges.length < MATCH_EDGES ? edges.length : MATCH_EDGES;
    for (let k = 0; k < n; k++) {
      const codes = edges[k].codes;
      if (codes !== null && matchKey(this.b, i, codes)) return edges[k];
    }
    return null;
  }

  /** A key no edge matched: printable ASCII without escapes only. */
  private key(from: number): string {
    const b = this.b, end = this.end;
    let name = "";
    let i = from;
    for (; i < end; i++) {
      const c = b[i];
      if (c === 34) break;
      if (c === 92 || c < 32 || c >= 0x80) throw BAIL;
      name += String.fromCharCode(c);
    }
    if (i >= end) this.short();
    this.p = i + 1;
    return name;
  }

  private array(w: ByteWriter): void {
    const b = this.b;
    let i = this.ws(this.p + 1);
    const start = w.pos;
    let elem: Type | null = null;
    if (b[i] !== 93) {
      for (;;) {
        this.p = i;
        this.any(w);
        const t = this.t;
        if (t !== elem && t !== TypeNull) {
          // Elements of two types make a union, left to the parser.
          if (elem !== null) throw BAIL;
          elem = t;
        }
        i = this.ws(this.p);
        const c = b[i];
        if (c === 44) i = this.ws(i + 1);
        else if (c === 93) break;
        else throw BAIL;
      }
    }
    this.p = i + 1;
    this.t = this.arrays.of(elem ?? TypeNull);
    w.insertUvarint(start, w.pos - start + 1);
  }
}

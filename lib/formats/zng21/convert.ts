// Converts legacy values to the current data model as the reference's zng21
// converter does: the old body is re-encoded in the current ZNG encoding
// (bstrings that are not UTF-8 are hex-escaped, type values re-encoded,
// union selectors kept as they are) and then decoded as the converted type.
// Keeping the selector as is means a union whose members the current type
// order sorts differently reads its body as the member at that position —
// the reference's behaviour.

import { invalid } from "../../errors.ts";
import { ByteWriter } from "../../zed/bytes.ts";
import { zctx } from "../../zed/context.ts";
import { quoteGoString } from "../../zed/goquote.ts";
import {
  Field,
  type Type,
  TypeBool,
  TypeBytes,
  TypeDuration,
  TypeFloat32,
  TypeFloat64,
  TypeInt16,
  TypeInt32,
  TypeInt64,
  TypeInt8,
  TypeIP,
  TypeNet,
  TypeNull,
  TypeString,
  TypeTime,
  TypeType,
  TypeUint16,
  TypeUint32,
  TypeUint64,
  TypeUint8,
} from "../../zed/types.ts";
import { Value } from "../../zed/value.ts";
import { BodyDecoder, decodeInt, malformed } from "../zng/decoder.ts";
import { planOf } from "../zng/plan.ts";
import { convertTypeValue } from "./typevalue.ts";
import {
  bytesToText,
  ID21_BSTRING,
  ID21_ERROR,
  ID21_NULL,
  ID21_TYPE,
  K21,
  type Type21,
} from "./types.ts";
import { escapeZeekHex, quoteBytes, validUtf8 } from "./zeekhex.ts";

const shortRecord = () => invalid("zng21 short record value");
const badMap = () => invalid("zng21 conversion encountered bad map");
const badUnion = () => invalid("zng21 conversion encountered bad union");
const badEnum = () => invalid("zng21 conversion encountered bad enum");

/** Old primitive ID → current type (error is error(string), made on first use). */
const primitives: (Type | null)[] = [
  TypeUint8,
  TypeUint16,
  TypeUint32,
  TypeUint64,
  TypeInt8,
  TypeInt16,
  TypeInt32,
  TypeInt64,
  TypeDuration,
  TypeTime,
  null,
  TypeFloat32,
  TypeFloat64,
  null,
  TypeBool,
  TypeBytes,
  TypeString,
  TypeString,
  TypeIP,
  TypeNet,
  TypeType,
  null,
  TypeNull,
];

export class Converter {
  private w = new ByteWriter(256);
  private decoder = new BodyDecoder();
  private decoderBuf: Uint8Array | null = null;
  /** Converted types; kept across streams, as the reference keeps them. */
  private types = new Map<Type21, Type>();
  // Where next() found the value: its body start (-1 for null) and length.
  private at = 0;
  private len = 0;

  /** The value of old type t whose old body is b (null for a null value). */
  convert(t: Type21, b: Uint8Array | null): Value {
    const w = this.w;
    w.pos = 0;
    if (b === null) w.byte(0);
    else this.value(t, b, 0, b.length);
    const nt = this.type(t);
    // The converted value is tagged; its body follows the tag.
    const buf = w.view();
    let p = 0, tag = 0, scale = 1;
    for (;;) {
      const c = buf[p++];
      tag += (c & 0x7f) * scale;
      if (c < 0x80) break;
      scale *= 128;
    }
    if (tag === 0) return new Value(nt, null);
    // The decoder reads the writer's whole buffer; it changes only as it grows.
    if (this.decoderBuf !== w.buf) this.decoder.setBuffer(this.decoderBuf = w.buf);
    return new Value(nt, this.decoder.decode(planOf(nt, false), p, tag - 1));
  }

  /** Appends the converted, tagged value of old type t at b[p, p+len). */
  private value(t: Type21, b: Uint8Array, p: number, len: number): void {
    const w = this.w;
    switch (t.kind) {
      case K21.Primitive:
        switch (t.id) {
          case ID21_BSTRING: {
            const s = b.subarray(p, p + len);
            if (!validUtf8(s)) {
              const e = escapeZeekHex(s);
              w.uvarint(e.length + 1);
              w.bytes(e);
              return;
            }
            break;
          }
          case ID21_TYPE: {
            const start = w.pos;
            convertTypeValue(w, b, p, p + len);
            w.insertUvarint(start, w.pos - start + 1);
            return;
          }
          case ID21_NULL:
            w.byte(0);
            return;
        }
        w.uvarint(len + 1);
        w.bytes(b.subarray(p, p + len));
        return;
      case K21.Named:
        this.value(t.inner as Type21, b, p, len);
        return;
      case K21.Enum: {
        if (len === 0) throw badEnum();
        this.next(b, p, p + len);
        this.append(b);
        return;
      }
    }
    const start = w.pos;
    const end = p + len;
    switch (t.kind) {
      case K21.Record:
        for (const c of t.columns) {
          if (p >= end) throw shortRecord();
          p = this.child(c.type, b, p, end);
        }
        break;
      case K21.Array:
      case K21.Set: {
        const elem = t.inner as Type21;
        while (p < end) p = this.child(elem, b, p, end);
        break;
      }
      case K21.Map:
        while (p < end) {
          p = this.child(t.inner as Type21, b, p, end);
          if (p >= end) throw badMap();
          p = this.child(t.value as Type21, b, p, end);
        }
        break;
      case K21.Union: {
        if (p >= end) throw badUnion();
        p = this.next(b, p, end);
        const sel = this.at < 0 ? 0 : decodeInt(b, this.at, this.len);
        if (typeof sel !== "number" || sel < 0 || sel >= t.members.length) {
          throw invalid("union selector out of bounds");
        }
        appendCountedVarint(w, sel);
        if (p >= end) throw badUnion();
        this.child(t.members[sel], b, p, end);
        break;
      }
    }
    w.insertUvarint(start, w.pos - start + 1);
  }

  /** Converts the old value at b[p] (before end) of type t; returns the position after it. */
  private child(t: Type21, b: Uint8Array, p: number, end: number): number {
    const q = this.next(b, p, end);
    if (this.at < 0) this.w.byte(0);
    else this.value(t, b, this.at, this.len);
    return q;
  }

  /** Appends the value next() found as it is (tagged in the current encoding). */
  private append(b: Uint8Array): void {
    if (this.at < 0) {
      this.w.byte(0);
      return;
    }
    this.w.uvarint(this.len + 1);
    this.w.bytes(b.subarray(this.at, this.at + this.len));
  }

  /**
   * Reads the old tag at b[p] (before end): sets `at` and `len` to the value's
   * body (at = -1 for null) and returns the position after the value. The old
   * tag is 0 for null, else the length shifted left with bit 0 set for
   * containers, or the length plus one shifted left for primitives. A bad
   * tag made the reference crash; it is a malformed value here.
   */
  private next(b: Uint8Array, p: number, end: number): number {
    let u = 0, scale = 1, i = 0;
    for (;;) {
      if (p >= end || i === 10) throw malformed();
      const c = b[p++];
      u += (c & 0x7f) * scale;
      if (c < 0x80) break;
      scale *= 128;
      i++;
    }
    if (u === 0) {
      this.at = -1;
      return p;
    }
    const half = Math.floor(u / 2);
    const n = u % 2 === 1 ? half : half - 1;
    if (n > end - p) throw malformed();
    this.at = p;
    this.len = n;
    return p + n;
  }

  /** The current type of old type t (the reference's convertType). */
  type(t: Type21): Type {
    let nt = this.types.get(t);
    if (nt === undefined) {
      nt = this.convertType(t);
      this.types.set(t, nt);
    }
    return nt;
  }

  private convertType(t: Type21): Type {
    switch (t.kind) {
      case K21.Primitive: {
        if (t.id === ID21_ERROR) return zctx.lookupError(TypeString);
        const p = primitives[t.id];
        if (p === null) throw malformed();
        return p;
      }
      case K21.Named: {
        const inner = this.type(t.inner as Type21);
        const name = bytesToText(t.name);
        if (!validUtf8(Uint8Array.from(t.name, (c) => c.charCodeAt(0)))) {
          const q = quoteBytes(
            t.name,
            (cp) => quoteGoString(String.fromCodePoint(cp)).slice(1, -1),
          );
          throw invalid(`bad type name ${q}: invalid UTF-8`);
        }
        return zctx.lookupNamed(name, inner);
      }
      case K21.Record:
        return zctx.lookupRecord(
          t.columns.map((c) => new Field(bytesToText(c.name), this.type(c.type))),
        );
      case K21.Array:
        return zctx.lookupArray(this.type(t.inner as Type21));
      case K21.Set:
        return zctx.lookupSet(this.type(t.inner as Type21));
      case K21.Map:
        return zctx.lookupMap(this.type(t.inner as Type21), this.type(t.value as Type21));
      case K21.Union:
        return zctx.lookupUnion(t.members.map((m) => this.type(m)));
      case K21.Enum:
        return zctx.lookupEnum(t.symbols.map(bytesToText));
    }
  }
}

/** Appends a non-negative int in the current counted-varint encoding, tagged. */
function appendCountedVarint(w: ByteWriter, n: number): void {
  let u = n * 2;
  const bytes: number[] = [];
  while (u !== 0) {
    bytes.push(u % 256);
    u = Math.floor(u / 256);
  }
  w.uvarint(bytes.length + 1);
  for (const x of bytes) w.byte(x);
}

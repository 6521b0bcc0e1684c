// The ZNG value encoding ("zcode"): a tag (uvarint: 0 for null, else body
// length + 1) followed by the body. Containers hold tagged children. Used by the
// ZNG writer, and by set/map normalization and byte-wise comparison, which the
// reference defines over these bytes.

import { ByteWriter, uvarintLength } from "./bytes.ts";
import { appendTypeValue } from "./typevalue.ts";
import {
  ID_BOOL,
  ID_BYTES,
  ID_FLOAT32,
  ID_FLOAT64,
  ID_IP,
  ID_NET,
  ID_NULL,
  ID_STRING,
  ID_TYPE,
  isSigned,
  isUnsigned,
  Kind,
  type Type,
} from "./types.ts";
import { textEncoder } from "./utf8.ts";
import type { Body, UnionBody } from "./value.ts";

const scratch = new DataView(new ArrayBuffer(8));

/** Appends the tag and body of a value of type t. */
export function appendTagged(w: ByteWriter, t: Type, body: Body): void {
  if (body === null) {
    w.byte(0);
    return;
  }
  switch (t.kind) {
    case Kind.Primitive:
      appendPrimitive(w, t.id, body);
      return;
    case Kind.Named:
      appendTagged(w, t.type, body);
      return;
    case Kind.Error:
      appendTagged(w, t.inner, body);
      return;
    case Kind.Enum:
      appendUintTagged(w, body as number);
      return;
  }
  const start = w.pos;
  appendContainerBody(w, t, body);
  w.insertUvarint(start, w.pos - start + 1);
}

function appendContainerBody(w: ByteWriter, t: Type, body: Body): void {
  switch (t.kind) {
    case Kind.Record: {
      const vals = body as Body[];
      const fields = t.fields;
      for (let i = 0; i < fields.length; i++) appendTagged(w, fields[i].type, vals[i]);
      return;
    }
    case Kind.Array:
    case Kind.Set: {
      const elem = t.elem;
      for (const b of body as Body[]) appendTagged(w, elem, b);
      return;
    }
    case Kind.Map: {
      const kv = body as Body[];
      for (let i = 0; i < kv.length; i += 2) {
        appendTagged(w, t.key, kv[i]);
        appendTagged(w, t.value, kv[i + 1]);
      }
      return;
    }
    case Kind.Union: {
      const u = body as UnionBody;
      appendIntTagged(w, u.tag);
      appendTagged(w, t.types[u.tag], u.body);
      return;
    }
  }
  throw new Error(`zcode: not a container kind ${t.kind}`);
}

function appendPrimitive(w: ByteWriter, id: number, body: Body): void {
  if (isUnsigned(id)) return appendUintTagged(w, body as number | bigint);
  if (isSigned(id)) return appendIntTagged(w, body as number | bigint);
  switch (id) {
    case ID_FLOAT64:
      scratch.setFloat64(0, body as number, true);
      w.byte(9);
      for (let i = 0; i < 8; i++) w.byte(scratch.getUint8(i));
      return;
    case ID_FLOAT32:
      scratch.setFloat32(0, body as number, true);
      w.byte(5);
      for (let i = 0; i < 4; i++) w.byte(scratch.getUint8(i));
      return;
    case ID_BOOL:
      w.byte(2);
      w.byte(body ? 1 : 0);
      return;
    case ID_STRING:
      appendString(w, body as string);
      return;
    case ID_BYTES:
    case ID_IP:
    case ID_NET: {
      const b = body as Uint8Array;
      w.uvarint(b.length + 1);
      w.bytes(b);
      return;
    }
    case ID_TYPE: {
      const start = w.pos;
      appendTypeValue(w, body as Type);
      w.insertUvarint(start, w.pos - start + 1);
      return;
    }
    case ID_NULL:
      w.byte(0);
      return;
  }
  throw new Error(`zcode: primitive type ID ${id} not implemented`);
}

/**
 * Appends a tagged string. The tag is written for the ASCII length and the
 * characters copied in one pass; a non-ASCII string is encoded natively into
 * room for its worst case and the tag fixed up after.
 */
function appendString(w: ByteWriter, s: string): void {
  const n = s.length;
  const start = w.pos;
  if (n < 64) {
    w.uvarint(n + 1);
    w.ensure(n);
    const buf = w.buf;
    let p = w.pos;
    let i = 0;
    for (; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c >= 0x80) break;
      buf[p++] = c;
    }
    if (i === n) {
      w.pos = p;
      return;
    }
    w.pos = start;
  }
  const guess = uvarintLength(n + 1);
  w.ensure(guess + 3 * n);
  const written = textEncoder.encodeInto(s, w.buf.subarray(start + guess)).written;
  const len = uvarintLength(written + 1);
  if (len !== guess) w.buf.copyWithin(start + len, start + guess, start + guess + written);
  w.pos = start;
  w.uvarint(written + 1);
  w.pos = start + len + written;
}

/** Counted uvarint: little-endian bytes with high zero bytes dropped. */
export function appendUintTagged(w: ByteWriter, v: number | bigint): void {
  if (typeof v === "number") {
    const start = w.pos;
    w.byte(0);
    let n = 0;
    while (v > 0) {
      w.byte(v % 256);
      v = Math.floor(v / 256);
      n++;
    }
    w.buf[start] = n + 1;
    return;
  }
  let u = BigInt.asUintN(64, v);
  const start = w.pos;
  w.byte(0);
  let n = 0;
  while (u > 0n) {
    w.byte(Number(u & 0xffn));
    u >>= 8n;
    n++;
  }
  w.buf[start] = n + 1;
}

/** Counted signed varint: sign-magnitude, sign in bit 0. */
export function appendIntTagged(w: ByteWriter, v: number | bigint): void {
  if (typeof v === "number" && v > -4503599627370496 && v < 4503599627370496) {
    appendUintTagged(w, v >= 0 ? v * 2 : -v * 2 + 1);
    return;
  }
  const i = BigInt(v);
  appendUintTagged(w, BigInt.asUintN(64, i >= 0n ? i << 1n : ((-i) << 1n) | 1n));
}

const shared = new ByteWriter(256);

/** The tagged encoding of one value, as a fresh array. */
export function encodeTagged(t: Type, body: Body): Uint8Array {
  shared.reset();
  appendTagged(shared, t, body);
  return shared.view().slice();
}

/** The untagged body encoding of a value (empty for null), as a fresh array. */
export function encodeBody(t: Type, body: Body): Uint8Array {
  if (body === null) return new Uint8Array(0);
  const b = encodeTagged(t, body);
  let i = 0;
  while (b[i] & 0x80) i++;
  return b.subarray(i + 1);
}

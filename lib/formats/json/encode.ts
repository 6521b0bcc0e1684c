// Zed values as JSON, exactly as the reference writes them (Go's
// encoding/json with HTML escaping off; formats.md §5.2). Each type gets an
// encoder compiled once that writes UTF-8 straight into a ByteBuffer, so
// writing a value is a walk over its body with no per-value type dispatch.

import { invalid, LochError } from "../../errors.ts";
import { formatJsonFloat } from "../../zed/float.ts";
import { formatIP, formatNet } from "../../zed/ip.ts";
import { formatBytes } from "../../zed/primitive.ts";
import { formatDuration, formatTime } from "../../zed/time.ts";
import {
  ID_BOOL,
  ID_BYTES,
  ID_DURATION,
  ID_FLOAT32,
  ID_FLOAT64,
  ID_INT64,
  ID_IP,
  ID_NET,
  ID_NULL,
  ID_STRING,
  ID_TIME,
  ID_TYPE,
  isSigned,
  isUnsigned,
  Kind,
  type RecordType,
  type Type,
} from "../../zed/types.ts";
import { formatTypeValue } from "../../zed/typetext.ts";
import { encodeUtf8 } from "../../zed/utf8.ts";
import type { Body, UnionBody } from "../../zed/value.ts";
import { ByteBuffer } from "./bytebuf.ts";
import { writeJsonString } from "./jsonstring.ts";

/** Writes the JSON of a body of one type. */
export type Encoder = (b: Body, out: ByteBuffer) => void;

/** Thrown by float encoders for NaN and ±Inf; the writer turns it into Go's error text. */
export class UnsupportedFloat extends Error {
  constructor(readonly text: string) {
    super(text);
  }
}

function floatText(f: number): string {
  return f !== f ? "NaN" : f > 0 ? "+Inf" : "-Inf";
}

/**
 * encoding/json's float64 text. For finite values JS's shortest form agrees
 * with Go's (plain for 1e-6 <= |f| < 1e21, else d.ddde±X), except for -0.
 */
export function float64Json(f: number): string {
  if (f - f !== 0) throw new UnsupportedFloat(floatText(f));
  if (f === 0) return 1 / f < 0 ? "-0" : "0";
  return "" + f;
}

function float32Json(f: number): string {
  if (f - f !== 0) throw new UnsupportedFloat(floatText(f));
  return formatJsonFloat(f, true);
}

/** An integer body in decimal; small non-negative numbers digit by digit. */
function writeInt(out: ByteBuffer, b: number | bigint): void {
  if (typeof b !== "number" || b < 0 || b > 0x7fffffff) {
    out.ascii("" + b);
    return;
  }
  let v = b;
  let len = 1;
  for (let k = v; k >= 10; k = (k / 10) | 0) len++;
  out.reserve(len);
  const buf = out.buf;
  let p = out.pos + len;
  out.pos = p;
  do {
    const q = (v / 10) | 0;
    buf[--p] = 48 + v - q * 10;
    v = q;
  } while (v > 0);
}

const NULL = encodeUtf8("null");
const TRUE = encodeUtf8("true");
const FALSE = encodeUtf8("false");

/** Writes a JSON string of ASCII text that needs no escapes (formatted values). */
function writeQuotedAscii(out: ByteBuffer, s: string): void {
  out.byte(34);
  out.ascii(s);
  out.byte(34);
}

const encoders = new WeakMap<Type, Encoder>();

/** The encoder for a type (compiled on first use; types are interned, so the cache is shared). */
export function encoderOf(t: Type): Encoder {
  let e = encoders.get(t);
  if (e === undefined) {
    e = compile(t);
    encoders.set(t, e);
  }
  return e;
}

function compile(t: Type): Encoder {
  switch (t.kind) {
    case Kind.Primitive:
      return primitiveEncoder(t.id);
    case Kind.Named:
      return encoderOf(t.type);
    case Kind.Record:
      return recordEncoder(t);
    case Kind.Array:
    case Kind.Set: {
      const kind = itemKind(t.elem);
      const elem = encoderOf(t.elem);
      return (b, out) => {
        if (b === null) return out.bytes(NULL);
        const v = b as Body[];
        out.byte(91);
        for (let i = 0; i < v.length; i++) {
          if (i > 0) out.byte(44);
          writeItem(kind, elem, v[i], out);
        }
        out.byte(93);
      };
    }
    case Kind.Map: {
      const key = encoderOf(t.key);
      const value = encoderOf(t.value);
      return (b, out) => {
        const v = b as Body[] | null;
        // Go marshals an empty map as a nil slice of entries.
        if (v === null || v.length === 0) return out.bytes(NULL);
        for (let i = 0; i < v.length; i += 2) {
          out.ascii(i === 0 ? '[{"key":' : ',{"key":');
          key(v[i], out);
          out.ascii(',"value":');
          value(v[i + 1], out);
          out.byte(125);
        }
        out.byte(93);
      };
    }
    case Kind.Union: {
      const members = t.types.map(encoderOf);
      return (b, out) => {
        if (b === null) return out.bytes(NULL);
        const u = b as UnionBody;
        members[u.tag](u.body, out);
      };
    }
    case Kind.Enum: {
      const symbols = t.symbols.map(jsonStringBytes);
      const bad = jsonStringBytes("<bad enum>");
      return (b, out) => out.bytes(b === null ? NULL : symbols[b as number] ?? bad);
    }
    case Kind.Error: {
      const inner = encoderOf(t.inner);
      return (b, out) => {
        if (b === null) return out.bytes(NULL);
        out.ascii('{"error":');
        inner(b, out);
        out.byte(125);
      };
    }
  }
}

function jsonStringBytes(s: string): Uint8Array {
  const out = new ByteBuffer(6 * s.length + 2);
  writeJsonString(out, s);
  return out.take();
}

// How records and arrays write their items: common primitives directly,
// others through the item type's encoder.
const ITEM_OTHER = 0;
const ITEM_STRING = 1;
const ITEM_INT64 = 2;
const ITEM_FLOAT64 = 3;
const ITEM_BOOL = 4;

function itemKind(t: Type): number {
  if (t.kind !== Kind.Primitive) return ITEM_OTHER;
  switch (t.id) {
    case ID_STRING:
      return ITEM_STRING;
    case ID_INT64:
      return ITEM_INT64;
    case ID_FLOAT64:
      return ITEM_FLOAT64;
    case ID_BOOL:
      return ITEM_BOOL;
  }
  return ITEM_OTHER;
}

function recordEncoder(t: RecordType): Encoder {
  const n = t.fields.length;
  if (n === 0) return (b, out) => b === null ? out.bytes(NULL) : out.ascii("{}");
  // Each field's `{"name":` or `,"name":` is encoded once.
  const keys = t.fields.map((f, i) => {
    const q = jsonStringBytes(f.name);
    const k = new Uint8Array(q.length + 2);
    k[0] = i === 0 ? 123 : 44;
    k.set(q, 1);
    k[q.length + 1] = 58;
    return k;
  });
  const kinds = t.fields.map((f) => itemKind(f.type));
  const encs = t.fields.map((f) => encoderOf(f.type));
  return (b, out) => {
    if (b === null) return out.bytes(NULL);
    const v = b as Body[];
    for (let i = 0; i < n; i++) {
      out.bytes(keys[i]);
      writeItem(kinds[i], encs[i], v[i], out);
    }
    out.byte(125);
  };
}

/** Writes a field or element body, the common primitives without a call through enc. */
function writeItem(kind: number, enc: Encoder, x: Body, out: ByteBuffer): void {
  if (x === null) return out.bytes(NULL);
  switch (kind) {
    case ITEM_STRING:
      return writeJsonString(out, x as string);
    case ITEM_INT64:
      return writeInt(out, x as number | bigint);
    case ITEM_FLOAT64:
      return out.ascii(float64Json(x as number));
    case ITEM_BOOL:
      return out.bytes(x ? TRUE : FALSE);
  }
  enc(x, out);
}

function primitiveEncoder(id: number): Encoder {
  switch (id) {
    case ID_STRING:
      return (b, out) => b === null ? out.bytes(NULL) : writeJsonString(out, b as string);
    case ID_FLOAT64:
      return (b, out) => out.ascii(b === null ? "null" : float64Json(b as number));
    case ID_BOOL:
      return (b, out) => out.bytes(b === null ? NULL : b ? TRUE : FALSE);
    case ID_FLOAT32:
      return (b, out) => out.ascii(b === null ? "null" : float32Json(b as number));
    case ID_TIME:
      return (b, out) =>
        b === null ? out.bytes(NULL) : writeQuotedAscii(out, formatTime(b as number | bigint));
    case ID_DURATION:
      return (b, out) =>
        b === null ? out.bytes(NULL) : writeQuotedAscii(out, formatDuration(b as number | bigint));
    case ID_BYTES:
      return (b, out) =>
        b === null ? out.bytes(NULL) : writeQuotedAscii(out, formatBytes(b as Uint8Array));
    case ID_IP:
      return (b, out) =>
        b === null ? out.bytes(NULL) : writeQuotedAscii(out, formatIP(b as Uint8Array));
    case ID_NET:
      return (b, out) =>
        b === null ? out.bytes(NULL) : writeQuotedAscii(out, formatNet(b as Uint8Array));
    case ID_TYPE:
      return (b, out) =>
        b === null ? out.bytes(NULL) : writeJsonString(out, "<" + formatTypeValue(b as Type) + ">");
    case ID_NULL:
      return (_b, out) => out.bytes(NULL);
  }
  if (isSigned(id) || isUnsigned(id)) {
    return (b, out) => b === null ? out.bytes(NULL) : writeInt(out, b as number | bigint);
  }
  throw new LochError("internal", `JSON encoder: unknown primitive type id ${id}`);
}

const recordPrefix = "json: error calling MarshalJSON for type jsonio.record: ";

/**
 * Go's error text for a value holding NaN or ±Inf: each record around the
 * float (a value the reference marshals through a MarshalJSON method) wraps
 * the message once more.
 */
export function unsupportedError(t: Type, b: Body): LochError {
  const [depth, text] = findUnsupported(t, b, 0) ?? [0, "NaN"];
  return invalid(recordPrefix.repeat(depth) + "json: unsupported value: " + text);
}

function findUnsupported(t: Type, b: Body, depth: number): [number, string] | undefined {
  if (b === null) return undefined;
  switch (t.kind) {
    case Kind.Primitive:
      if ((t.id === ID_FLOAT64 || t.id === ID_FLOAT32) && (b as number) - (b as number) !== 0) {
        return [depth, floatText(b as number)];
      }
      return undefined;
    case Kind.Named:
      return findUnsupported(t.type, b, depth);
    case Kind.Error:
      return findUnsupported(t.inner, b, depth);
    case Kind.Union: {
      const u = b as UnionBody;
      return findUnsupported(t.types[u.tag], u.body, depth);
    }
    case Kind.Record:
      return findIn(b as Body[], (i) => t.fields[i].type, depth + 1);
    case Kind.Array:
    case Kind.Set:
      return findIn(b as Body[], () => t.elem, depth);
    case Kind.Map:
      return findIn(b as Body[], (i) => i % 2 === 0 ? t.key : t.value, depth);
  }
  return undefined;
}

function findIn(
  vals: Body[],
  typeAt: (i: number) => Type,
  depth: number,
): [number, string] | undefined {
  for (let i = 0; i < vals.length; i++) {
    const r = findUnsupported(typeAt(i), vals[i], depth);
    if (r !== undefined) return r;
  }
  return undefined;
}

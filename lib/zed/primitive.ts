// Primitive values as ZSON text: formatting (formats.md §2.6), recognizing a
// primitive literal by its syntax (§2.2), and building a body of a given type
// from text (Go's zson.BuildPrimitive, used by the ZSON and ZJSON readers and
// by casts).

import { invalid } from "../errors.ts";
import { formatFloat32, formatFloat64, parseGoFloat, parseGoFloat32 } from "./float.ts";
import { formatIP, formatNet, parseIP, parseNet } from "./ip.ts";
import { quoteString } from "./quote.ts";
import { formatDuration, formatTime, parseDuration, parseTime } from "./time.ts";
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
  type PrimitiveType,
  type Type,
  TypeBool,
  TypeBytes,
  TypeDuration,
  TypeFloat64,
  TypeInt64,
  TypeIP,
  TypeNet,
  TypeNull,
  TypeTime,
  TypeUint64,
} from "./types.ts";
import { formatTypeValue } from "./typetext.ts";
import { nfc } from "./utf8.ts";
import { type Body, intBody } from "./value.ts";

const hexChars = "0123456789abcdef";

export function formatBytes(b: Uint8Array): string {
  let s = "0x";
  for (let i = 0; i < b.length; i++) s += hexChars[b[i] >> 4] + hexChars[b[i] & 0xf];
  return s;
}

/** ZSON text of a non-null primitive body of primitive type id, without decorator. */
export function formatPrimitive(id: number, body: Body): string {
  switch (id) {
    case ID_STRING:
      return quoteString(body as string);
    case ID_INT64:
      return String(body);
    case ID_FLOAT64:
      return formatFloat64(body as number);
    case ID_BOOL:
      return body ? "true" : "false";
    case ID_TIME:
      return formatTime(body as number | bigint);
    case ID_DURATION:
      return formatDuration(body as number | bigint);
    case ID_FLOAT32:
      return formatFloat32(body as number);
    case ID_BYTES:
      return formatBytes(body as Uint8Array);
    case ID_IP:
      return formatIP(body as Uint8Array);
    case ID_NET:
      return formatNet(body as Uint8Array);
    case ID_TYPE:
      return "<" + formatTypeValue(body as Type) + ">";
    case ID_NULL:
      return "null";
  }
  if (isSigned(id) || isUnsigned(id)) return String(body);
  return `<ZSON unknown primitive: ${id}>`;
}

// Integers as Go's strconv.ParseInt / ParseUint (base 10, 64 bits) read them.
const signedRE = /^[+-]?\d+$/;
const unsignedRE = /^\d+$/;
const MIN_INT64 = -(2n ** 63n);
const MAX_INT64 = 2n ** 63n - 1n;
const MAX_UINT64 = 2n ** 64n - 1n;

export function parseInt64(s: string): number | bigint | undefined {
  if (!signedRE.test(s)) return undefined;
  if (s.length < 16) return Number(s) || 0; // avoids -0
  const v = BigInt(s);
  return v < MIN_INT64 || v > MAX_INT64 ? undefined : intBody(v);
}

export function parseUint64(s: string): number | bigint | undefined {
  if (!unsignedRE.test(s)) return undefined;
  if (s.length < 16) return Number(s);
  const v = BigInt(s);
  return v > MAX_UINT64 ? undefined : intBody(v);
}

const hexRE = /^[0-9a-fA-F]*$/;

/** hex.DecodeString with Go's error texts. */
export function parseHex(s: string): Uint8Array {
  if (!hexRE.test(s)) {
    const bad = s.match(/[^0-9a-fA-F]/)![0];
    const cp = bad.codePointAt(0)!;
    throw invalid(
      `encoding/hex: invalid byte: U+${cp.toString(16).toUpperCase().padStart(4, "0")} '${bad}'`,
    );
  }
  if (s.length % 2 !== 0) throw invalid("encoding/hex: odd length hex string");
  const out = new Uint8Array(s.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(s.substr(2 * i, 2), 16);
  return out;
}

// The ZSON primitive token (Go matches the alternation leftmost-longest; each
// alternative here is tried and the longest match wins).
const primitiveAlternatives = [
  /^(?:true|false|null|NaN|nan|[-+][Ii]nf)/,
  /^[-+0-9Ee./]+/,
  /^0x[0-9a-fA-F]*/,
  /^[0-9a-fA-F]{0,4}(?::[0-9a-fA-F]{0,4}){2,}(?:\/[0-9]+)?/,
  /^(?:[-.0-9]+(?:ns|us|ms|s|m|h|d|w|y))+/,
  /^[-.:T0-9]+(?:Z|[-+]\d\d:\d\d)/,
];

/** The longest primitive-looking token at the start of s ("" if none). */
export function matchPrimitiveToken(s: string): string {
  let best = "";
  for (const re of primitiveAlternatives) {
    const m = re.exec(s);
    if (m !== null && m[0].length > best.length) best = m[0];
  }
  return best;
}

/** A primitive token's type and body; body is undefined for a time past the maximum. */
export interface PrimitiveToken {
  type: PrimitiveType;
  body: Body | undefined;
}

/**
 * The type a primitive token denotes, tried in the reference's order, with
 * its body; undefined when it is none. Throws for a malformed `0x` literal.
 */
export function classifyPrimitive(s: string): PrimitiveToken | undefined {
  if (s === "true") return { type: TypeBool, body: true };
  if (s === "false") return { type: TypeBool, body: false };
  if (s === "null") return { type: TypeNull, body: null };
  const i = parseInt64(s);
  if (i !== undefined) return { type: TypeInt64, body: i };
  const u = parseUint64(s);
  if (u !== undefined) return { type: TypeUint64, body: u };
  const f = parseGoFloat(s);
  if (f !== undefined) return { type: TypeFloat64, body: f };
  const t = parseTime(s);
  if (t !== undefined) return { type: TypeTime, body: t.overflow ? undefined : t.ns };
  const d = parseDuration(s);
  if (d !== undefined) return { type: TypeDuration, body: d };
  const net = parseNet(s);
  if (net !== undefined) return { type: TypeNet, body: net };
  const ip = parseIP(s);
  if (ip !== undefined) return { type: TypeIP, body: ip };
  if (s.startsWith("0x")) return { type: TypeBytes, body: parseHex(s.slice(2)) };
  return undefined;
}

/** Go's zson.BuildPrimitive: the body of primitive type id parsed from text. */
export function parsePrimitive(id: number, text: string): Body {
  if (isUnsigned(id)) {
    const v = parseUint64(text);
    if (v === undefined) throw invalid(`invalid unsigned integer: ${text}`);
    return v;
  }
  switch (id) {
    case ID_DURATION: {
      const d = parseDuration(text);
      if (d === undefined) throw invalid(`invalid duration: ${text}`);
      return d;
    }
    case ID_TIME: {
      const t = parseTime(text);
      if (t === undefined) throw invalid(`invalid ISO time: ${text}`);
      if (t.overflow) throw invalid(`time overflow: ${text} (max: 2262-04-11T23:47:16Z)`);
      return t.ns;
    }
    case ID_FLOAT32: {
      const f = parseGoFloat32(text);
      if (f === undefined) throw invalid(`invalid floating point: ${text}`);
      return f;
    }
    case ID_FLOAT64: {
      const f = parseGoFloat(text);
      if (f === undefined) throw invalid(`invalid floating point: ${text}`);
      return f;
    }
    case ID_BOOL:
      if (text === "true") return true;
      if (text === "false") return false;
      throw invalid(`invalid bool: ${text}`);
    case ID_BYTES:
      if (!text.startsWith("0x")) throw invalid(`invalid bytes: ${text}`);
      try {
        return parseHex(text.slice(2));
      } catch (e) {
        throw invalid(`invalid bytes: ${text} (${(e as Error).message})`);
      }
    case ID_STRING:
      return nfc(text);
    case ID_IP: {
      const ip = parseIP(text);
      if (ip === undefined) throw invalid(`ParseAddr(${JSON.stringify(text)}): unable to parse IP`);
      return ip;
    }
    case ID_NET: {
      const n = parseNet(text);
      if (n === undefined) {
        throw invalid(`invalid network: ${text} (invalid CIDR address: ${text})`);
      }
      return n;
    }
    case ID_NULL:
      if (text !== "") throw invalid(`invalid text body of null value: ${JSON.stringify(text)}`);
      return null;
    case ID_TYPE:
      throw invalid(`type values should not be encoded as primitives: ${JSON.stringify(text)}`);
  }
  if (isSigned(id)) {
    const v = parseInt64(text);
    if (v === undefined) throw invalid(`invalid integer: ${text}`);
    return v;
  }
  throw invalid(`unknown primitive: ${id}`);
}

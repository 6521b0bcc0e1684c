// Converts a legacy type value (the body of a `type` value) to the current
// encoding the way the reference's zng21 converter does, including its
// quirks: uint64 becomes uint8, and an enum is written with the union code.

import { invalid } from "../../errors.ts";
import type { ByteWriter } from "../../zed/bytes.ts";
import {
  ID_BOOL,
  ID_BYTES,
  ID_DURATION,
  ID_FLOAT32,
  ID_FLOAT64,
  ID_INT16,
  ID_INT32,
  ID_INT64,
  ID_INT8,
  ID_IP,
  ID_NET,
  ID_NULL,
  ID_STRING,
  ID_TIME,
  ID_TYPE,
  ID_UINT16,
  ID_UINT32,
  ID_UINT8,
} from "../../zed/types.ts";
import {
  TV_ARRAY,
  TV_ERROR,
  TV_MAP,
  TV_NAME_DEF,
  TV_NAME_REF,
  TV_RECORD,
  TV_SET,
  TV_UNION,
} from "../../zed/typevalue.ts";
import { malformed } from "../zng/decoder.ts";
import {
  TV21_ARRAY,
  TV21_DEF,
  TV21_ENUM,
  TV21_MAP,
  TV21_NAME,
  TV21_RECORD,
  TV21_SET,
  TV21_UNION,
} from "./types.ts";

/** The current IDs of float16 and decimal128, which loch has no types for. */
const ID_FLOAT16 = 14;
const ID_DECIMAL128 = 21;

/** Old primitive ID → the ID the reference writes for it (uint64 → uint8, as it does). */
const primitiveIds = [
  ID_UINT8,
  ID_UINT16,
  ID_UINT32,
  ID_UINT8,
  ID_INT8,
  ID_INT16,
  ID_INT32,
  ID_INT64,
  ID_DURATION,
  ID_TIME,
  ID_FLOAT16,
  ID_FLOAT32,
  ID_FLOAT64,
  ID_DECIMAL128,
  ID_BOOL,
  ID_BYTES,
  ID_STRING,
  ID_STRING,
  ID_IP,
  ID_NET,
  ID_TYPE,
  -1, // error: written as error(string)
  ID_NULL,
];
const ID21_ERROR = 21;

const truncated = () => invalid("truncated type value convert zng21 to zng");

/** Converts tv[p, end) and appends it to w; returns where the type value ended. */
export function convertTypeValue(w: ByteWriter, tv: Uint8Array, p: number, end: number): number {
  if (p >= end) throw truncated();
  const id = tv[p++];
  if (id < primitiveIds.length) {
    if (id === ID21_ERROR) {
      w.byte(TV_ERROR);
      w.byte(ID_STRING);
    } else {
      w.byte(primitiveIds[id]);
    }
    return p;
  }
  switch (id) {
    case TV21_DEF:
      p = name(w, TV_NAME_DEF, tv, p, end);
      return convertTypeValue(w, tv, p, end);
    case TV21_NAME:
      return name(w, TV_NAME_REF, tv, p, end);
    case TV21_RECORD: {
      p = count(w, TV_RECORD, tv, p, end);
      for (let k = 0, n = counted; k < n; k++) {
        p = name(w, -1, tv, p, end);
        p = convertTypeValue(w, tv, p, end);
      }
      return p;
    }
    case TV21_ARRAY:
      w.byte(TV_ARRAY);
      return convertTypeValue(w, tv, p, end);
    case TV21_SET:
      w.byte(TV_SET);
      return convertTypeValue(w, tv, p, end);
    case TV21_MAP:
      w.byte(TV_MAP);
      p = convertTypeValue(w, tv, p, end);
      return convertTypeValue(w, tv, p, end);
    case TV21_UNION: {
      p = count(w, TV_UNION, tv, p, end);
      for (let k = 0, n = counted; k < n; k++) p = convertTypeValue(w, tv, p, end);
      return p;
    }
    case TV21_ENUM: {
      // The reference writes an enum with the union code (its bug, kept).
      p = count(w, TV_UNION, tv, p, end);
      for (let k = 0, n = counted; k < n; k++) p = name(w, -1, tv, p, end);
      return p;
    }
  }
  throw invalid(`unknown type value converting zng21 to zng: ${id}`);
}

/** The count read by count(), as Go's int (negative counts loop zero times). */
let counted = 0;

/** Reads a uvarint count, writes code and the count; sets `counted`. */
function count(w: ByteWriter, code: number, tv: Uint8Array, p: number, end: number): number {
  const q = uvarint(tv, p, end);
  if (q < 0) throw truncated();
  w.byte(code);
  for (let i = p; i < q; i++) w.byte(tv[i]);
  // The loops are bounded by the input: each turn consumes at least a byte.
  counted = uvarintValue >= 2 ** 63 ? 0 : uvarintValue;
  return q;
}

/** Reads a length-prefixed name and writes it (after code, unless code < 0). */
function name(w: ByteWriter, code: number, tv: Uint8Array, p: number, end: number): number {
  const q = uvarint(tv, p, end);
  if (q < 0) throw truncated();
  const n = uvarintValue;
  // A length that is negative as Go's int made the reference crash.
  if (n >= 2 ** 63) throw malformed();
  if (n > end - q) throw truncated();
  if (code >= 0) w.byte(code);
  w.uvarint(n);
  for (let i = q; i < q + n; i++) w.byte(tv[i]);
  return q + n;
}

/** The value read by uvarint() (inexact past 2^53, which only matters as "huge"). */
let uvarintValue = 0;

/** Go's binary.Uvarint at tv[p, end): the end of it, or -1 when truncated or overflowing. */
function uvarint(tv: Uint8Array, p: number, end: number): number {
  let x = 0, scale = 1;
  for (let i = 0; i < 10; i++) {
    if (p + i >= end) return -1;
    const b = tv[p + i];
    if (b < 0x80) {
      if (i === 9 && b > 1) return -1;
      uvarintValue = x + b * scale;
      return p + i + 1;
    }
    x += (b & 0x7f) * scale;
    scale *= 128;
  }
  return -1;
}

// Zed values: a type and a body. The body is a plain JS value whose meaning
// comes from the type; the type travels beside it (in Value, in a record type's
// fields, in an array type's element), never inside it.
//
// Body by type (decided once, used by every layer):
//   any type, null value     null
//   int8..int64, uint8..uint64, duration (ns), time (ns since epoch)
//                            number when a safe integer (|n| <= 2^53-1), else bigint.
//                            Always normalized: a safe value is never a bigint.
//   float32, float64         number (float32 bodies are already Math.fround-ed)
//   bool                     boolean
//   string                   string (NFC-normalized on input, as Zed does)
//   bytes                    Uint8Array
//   ip                       Uint8Array of 4 (IPv4) or 16 (IPv6) bytes, network order
//   net                      Uint8Array of 8 or 32 bytes: address then mask
//   type                     a Type from the process context
//   record                   Body[], one per field, in field order
//   array, set               Body[]; a set's elements are kept in canonical order
//   map                      Body[] alternating key, value: [k0, v0, k1, v1, ...],
//                            in canonical key order
//   union                    UnionBody (tag into the union's member list, member body)
//   enum                     number: the symbol index
//   error                    the body of the wrapped value
//   named                    the body of the underlying type

import type { Type } from "./types.ts";

export type Body =
  | null
  | boolean
  | number
  | bigint
  | string
  | Uint8Array
  | Type
  | UnionBody
  | Body[];

export class UnionBody {
  constructor(readonly tag: number, readonly body: Body) {}
}

export class Value {
  constructor(readonly type: Type, readonly body: Body) {}
}

/**
 * A value read with its encoded body (its ZNG bytes), of which only some
 * fields may be decoded (the others null): where nothing looks at the rest
 * (a pool's values going straight to a ZNG writer), its encoding is the
 * value, written as it is.
 */
export class EncodedValue extends Value {
  constructor(type: Type, body: Body, readonly encoded: Uint8Array) {
    super(type, body);
  }
}

/** A batch: values flowing together through readers, operators and writers. */
export type Batch = Value[];

const MIN_SAFE = BigInt(Number.MIN_SAFE_INTEGER);
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** The normalized integer body for a bigint. */
export function intBody(n: bigint): number | bigint {
  return n >= MIN_SAFE && n <= MAX_SAFE ? Number(n) : n;
}

/** An integer body as a bigint. */
export function toBigInt(b: number | bigint): bigint {
  return typeof b === "bigint" ? b : BigInt(b);
}

/** Wraps to int64 and normalizes. */
export function int64Body(n: bigint): number | bigint {
  return intBody(BigInt.asIntN(64, n));
}

/** Wraps to uint64 and normalizes. */
export function uint64Body(n: bigint): number | bigint {
  return intBody(BigInt.asUintN(64, n));
}

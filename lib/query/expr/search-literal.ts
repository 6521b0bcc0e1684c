// Equality of visited values with a non-string search literal: the constant
// comparison of language.md §4.7 path A (compare.ts), offered only for the
// primitive types it can hold for, so the walk skips the rest. Also the
// network test of net literals.

import { invalid } from "../../errors.ts";
import { bytesEqual } from "../../zed/bytes.ts";
import { formatType } from "../../zed/typetext.ts";
import {
  ID_BOOL,
  ID_BYTES,
  ID_IP,
  ID_NET,
  ID_NULL,
  ID_TYPE,
  isNumber,
  Kind,
  type NamedType,
  type Type,
  typeUnder,
} from "../../zed/types.ts";
import type { Value } from "../../zed/value.ts";
import { constBodyPredicate } from "./compare.ts";
import type { BodyTest } from "./search-walk.ts";

/** Per visited (unnamed) type, the test for "equals the literal", or null when it never can. */
export type Equality = (t: Exclude<Type, NamedType>) => BodyTest | null;

const isNullBody: BodyTest = (b) => b === null;

/** Equality with a literal of type null, bool, int64, float64, time, duration, ip, bytes or type. */
export function literalEquality(literal: Value): Equality {
  const pred = constBodyPredicate("==", literal);
  if (pred === undefined) {
    throw invalid(`literal comparison of type "${formatType(literal.type)}" unsupported`);
  }
  const id = (typeUnder(literal.type) as { id: number }).id;
  // A null literal matches a null of any type, containers included.
  if (id === ID_NULL) return () => isNullBody;
  const accepts = (t: number) => {
    switch (id) {
      case ID_BOOL:
      case ID_IP:
        return t === id;
      case ID_BYTES:
      case ID_TYPE:
        return t === ID_BYTES || t === ID_TYPE;
    }
    return isNumber(t); // int64, float64, time, duration
  };
  return (t) => {
    if (t.kind !== Kind.Primitive || !accepts(t.id)) return null;
    return (body) => pred(t, body);
  };
}

/** The primitive id of t, or -1. */
function primitiveId(t: Type): number {
  return t.kind === Kind.Primitive ? t.id : -1;
}

/**
 * The visit of a net-literal search: ip values inside the network (same
 * address family, first prefix-length bits equal) and net values equal to it.
 * A non-contiguous mask counts as length 0, as Go's IPMask.Size reports.
 */
export function networkVisit(net: Uint8Array): (t: Type) => BodyTest | null {
  const n = net.length / 2;
  const addr = net.subarray(0, n);
  const ones = maskLength(net.subarray(n));
  const contains: BodyTest = (v) => {
    if (v === null) return false;
    const ip = v as Uint8Array;
    if (ip.length !== n) return false;
    let bits = ones;
    for (let i = 0; bits > 0; i++, bits -= 8) {
      const m = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
      if (((ip[i] ^ addr[i]) & m) !== 0) return false;
    }
    return true;
  };
  const equals: BodyTest = (v) => v !== null && bytesEqual(v as Uint8Array, net);
  return (t) => {
    const id = primitiveId(t);
    return id === ID_IP ? contains : id === ID_NET ? equals : null;
  };
}

function maskLength(mask: Uint8Array): number {
  let ones = 0;
  let i = 0;
  for (; i < mask.length && mask[i] === 0xff; i++) ones += 8;
  if (i < mask.length) {
    const m = mask[i];
    let k = 0;
    while (k < 8 && (m & (0x80 >> k)) !== 0) k++;
    if ((m & (0xff >> k)) !== 0) return 0;
    ones += k;
    for (i++; i < mask.length; i++) if (mask[i] !== 0) return 0;
  }
  return ones;
}

// The total order over Zed values used by sort, merge, top and compare()
// (language.md §9.1), as the reference implements it: nulls first or last;
// same types by their natural order (or by encoded bytes for the kinds the
// reference compares byte-wise); mixed numbers numerically; anything else by
// the text of the types.

import { compareBytes } from "./bytes.ts";
import { compareTypes } from "./context.ts";
import {
  ID_BOOL,
  ID_COMPLEX,
  ID_INT8,
  ID_IP,
  ID_STRING,
  ID_TYPE,
  ID_UINT8,
  isFloat,
  isNumber,
  Kind,
  type Type,
  typeUnder,
} from "./types.ts";
import { formatType } from "./typetext.ts";
import { compareStrings } from "./utf8.ts";
import type { Body } from "./value.ts";
import { encodeBody } from "./zcode.ts";

function cmpNum(a: number | bigint, b: number | bigint): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Compares two non-null-or-null bodies of the same underlying type t. */
export function compareBodies(t: Type, a: Body, b: Body): number {
  const u = typeUnder(t);
  if (u.kind === Kind.Array || u.kind === Kind.Set) {
    const x = (a ?? []) as Body[], y = (b ?? []) as Body[];
    const n = Math.min(x.length, y.length);
    for (let i = 0; i < n; i++) {
      const c = compareBodies(u.elem, x[i], y[i]);
      if (c !== 0) return c;
    }
    return x.length < y.length ? -1 : x.length > y.length ? 1 : 0;
  }
  if (u.kind === Kind.Primitive && u.id !== ID_INT8 && u.id !== ID_UINT8) {
    if (isNumber(u.id)) {
      return cmpNum((a ?? 0) as number | bigint, (b ?? 0) as number | bigint);
    }
    switch (u.id) {
      case ID_BOOL:
        return a === b ? 0 : a ? 1 : -1;
      case ID_STRING:
        return compareStrings((a ?? "") as string, (b ?? "") as string);
      case ID_IP: {
        const x = a as Uint8Array | null, y = b as Uint8Array | null;
        if (x === null || y === null) return x === y ? 0 : x === null ? -1 : 1;
        if (x.length !== y.length) return x.length < y.length ? -1 : 1;
        return compareBytes(x, y);
      }
      case ID_TYPE:
        if (a === null || b === null) return a === b ? 0 : a === null ? -1 : 1;
        return compareTypes(a as Type, b as Type);
    }
  }
  return compareBytes(encodeBody(t, a), encodeBody(t, b));
}

/** The underlying type id, as Go's Type.ID() reports it. */
function idOf(t: Type): number {
  return typeUnder(t).id;
}

/**
 * Compares values (type, body). nullsMax puts nulls after every other value.
 */
export function compareValues(
  at: Type,
  a: Body,
  bt: Type,
  b: Body,
  nullsMax = true,
): number {
  if (a === null || b === null) {
    if (a === b) return 0;
    return (a === null) === nullsMax ? 1 : -1;
  }
  // (One body of one type: equal, without encoding or walking it.)
  if (a === b && at === bt) return 0;
  const aid = idOf(at), bid = idOf(bt);
  if (aid === bid) return compareBodies(at, a, b);
  if (aid < ID_COMPLEX && bid < ID_COMPLEX && isNumber(aid) && isNumber(bid)) {
    if (isFloat(aid) || isFloat(bid)) return cmpNum(Number(a), Number(b));
    return cmpNum(a as number | bigint, b as number | bigint);
  }
  return compareStrings(formatType(at), formatType(bt));
}

// String keys for values, for the hash tables of union, map and summarize's
// group table. The reference keys these tables by a value's
// encoded bytes; a JS Map needs a string, so each body gets a text form that
// is injective within one type (two bodies of the same type have the same
// text exactly when their encodings are equal). Common primitives skip the
// encoder.

import {
  ID_BOOL,
  ID_FLOAT32,
  ID_FLOAT64,
  ID_STRING,
  ID_TYPE,
  isInteger,
  isSigned,
  Kind,
  type Type,
  typeUnder,
} from "../../zed/types.ts";
import type { Body } from "../../zed/value.ts";
import { encodeBody } from "../../zed/zcode.ts";

/** Text standing for a non-null body of type t; equal texts mean equal encodings. */
export function bodyText(t: Type, body: Body): string {
  const u = typeUnder(t);
  if (u.kind === Kind.Primitive) {
    const id = u.id;
    if (id === ID_STRING) return body as string;
    if (isInteger(id) || isSigned(id)) return String(body);
    switch (id) {
      case ID_FLOAT64:
      case ID_FLOAT32:
        return Object.is(body, -0) ? "-0" : String(body);
      case ID_BOOL:
        return body ? "t" : "f";
      case ID_TYPE:
        // Types are interned, so the id names the type.
        return String((body as Type).id);
    }
  } else if (u.kind === Kind.Enum) {
    return String(body);
  }
  return latin1(encodeBody(t, body));
}

/**
 * A self-delimiting key for a value of exactly type t (named types and
 * unions distinct from their underlying types), for concatenation into
 * composite keys. Null differs from every non-null body.
 */
export function valueKey(t: Type, body: Body): string {
  if (body === null) return t.id + "~";
  const s = bodyText(t, body);
  return t.id + ":" + s.length + ":" + s;
}

/** The key string summarize gives a group with these keys: their value keys, joined. */
export function groupKey(keys: readonly { type: Type; body: Body }[]): string {
  if (keys.length === 1) return valueKey(keys[0].type, keys[0].body);
  let k = "";
  for (let i = 0; i < keys.length; i++) k += valueKey(keys[i].type, keys[i].body);
  return k;
}

const CHUNK = 8192;

/** Bytes as a string of code units 0..255. */
function latin1(b: Uint8Array): string {
  if (b.length <= CHUNK) return String.fromCharCode.apply(null, b as unknown as number[]);
  let s = "";
  for (let i = 0; i < b.length; i += CHUNK) {
    s += String.fromCharCode.apply(null, b.subarray(i, i + CHUNK) as unknown as number[]);
  }
  return s;
}

// Equality of two bodies of one type, as the reference decides it: by the
// bytes of their encodings. Structural comparison gives the same answer
// without encoding, given that bodies are normalized (safe integers are
// numbers, sets and maps are in canonical order, types are interned). Floats
// compare by bit pattern, so NaN equals NaN and -0 differs from 0.

import { bytesEqual } from "../../zed/bytes.ts";
import {
  ID_BYTES,
  ID_FLOAT32,
  ID_FLOAT64,
  ID_IP,
  ID_NET,
  Kind,
  type Type,
} from "../../zed/types.ts";
import type { Body, UnionBody } from "../../zed/value.ts";

export function bodiesEqual(t: Type, a: Body, b: Body): boolean {
  if (a === null || b === null) return a === b;
  switch (t.kind) {
    case Kind.Primitive:
      switch (t.id) {
        case ID_FLOAT32:
        case ID_FLOAT64:
          return Object.is(a, b);
        case ID_BYTES:
        case ID_IP:
        case ID_NET:
          return bytesEqual(a as Uint8Array, b as Uint8Array);
      }
      return a === b;
    case Kind.Record: {
      const x = a as Body[], y = b as Body[], fields = t.fields;
      for (let i = 0; i < fields.length; i++) {
        if (!bodiesEqual(fields[i].type, x[i], y[i])) return false;
      }
      return true;
    }
    case Kind.Array:
    case Kind.Set:
      return elemsEqual(t.elem, a as Body[], b as Body[]);
    case Kind.Map: {
      const x = a as Body[], y = b as Body[];
      if (x.length !== y.length) return false;
      for (let i = 0; i < x.length; i += 2) {
        if (!bodiesEqual(t.key, x[i], y[i]) || !bodiesEqual(t.value, x[i + 1], y[i + 1])) {
          return false;
        }
      }
      return true;
    }
    case Kind.Union: {
      const x = a as UnionBody, y = b as UnionBody;
      return x.tag === y.tag && bodiesEqual(t.types[x.tag], x.body, y.body);
    }
    case Kind.Enum:
      return a === b;
    case Kind.Error:
      return bodiesEqual(t.inner, a, b);
    case Kind.Named:
      return bodiesEqual(t.type, a, b);
  }
}

function elemsEqual(t: Type, x: Body[], y: Body[]): boolean {
  if (x.length !== y.length) return false;
  for (let i = 0; i < x.length; i++) if (!bodiesEqual(t, x[i], y[i])) return false;
  return true;
}

// Zeek formatting of Zed values (the reference's zeekio.FormatValue), shared
// by the zeek, text and table writers: null is `-`, bools are T/F, times and
// durations are Zeek seconds, sets and arrays are comma-joined (`(empty)`
// when empty), strings are Zeek-escaped, type values are ZSON.
//
// Nulls nested in sets, maps and unions print as the reference decodes an
// absent body: zero numbers, `F`, `invalid IP`, and so on.

import { shortest } from "../../zed/float.ts";
import { formatIP, formatNet } from "../../zed/ip.ts";
import {
  ID_BOOL,
  ID_BYTES,
  ID_DURATION,
  ID_FLOAT32,
  ID_FLOAT64,
  ID_IP,
  ID_NET,
  ID_NULL,
  ID_STRING,
  ID_TIME,
  ID_TYPE,
  isSigned,
  isUnsigned,
  Kind,
  type Type,
  typeUnder,
} from "../../zed/types.ts";
import type { Body, UnionBody } from "../../zed/value.ts";
import { formatZson } from "../zson/formatter.ts";
import { formatZeekString } from "./escape.ts";
import { formatZeekTime } from "./time.ts";

/** Shortest digits that round-trip (as float32 when is32), and the decimal exponent. */
function shortestDigits(a: number, is32: boolean): [string, number] {
  const { d, e } = shortest(a, is32);
  return [d, e];
}

/** strconv.FormatFloat(f, 'f', -1, 64 or 32): shortest digits, never an exponent. */
export function formatFloatF(f: number, is32: boolean): string {
  if (f !== f) return "NaN";
  if (f === Infinity) return "+Inf";
  if (f === -Infinity) return "-Inf";
  if (f === 0) return Object.is(f, -0) ? "-0" : "0";
  const [d, e] = shortestDigits(Math.abs(f), is32);
  let s: string;
  if (e < 0) s = "0." + "0".repeat(-e - 1) + d;
  else if (e + 1 >= d.length) s = d + "0".repeat(e + 1 - d.length);
  else s = d.slice(0, e + 1) + "." + d.slice(e + 1);
  return f < 0 ? "-" + s : s;
}

const b64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/** Standard base64 with padding. */
function base64(b: Uint8Array): string {
  let out = "";
  let i = 0;
  for (; i + 2 < b.length; i += 3) {
    const n = (b[i] << 16) | (b[i + 1] << 8) | b[i + 2];
    out += b64[n >> 18] + b64[(n >> 12) & 63] + b64[(n >> 6) & 63] + b64[n & 63];
  }
  if (i < b.length) {
    const n = (b[i] << 16) | (i + 1 < b.length ? b[i + 1] << 8 : 0);
    out += b64[n >> 18] + b64[(n >> 12) & 63];
    out += i + 1 < b.length ? b64[(n >> 6) & 63] + "=" : "==";
  }
  return out;
}

function formatPrimitive(id: number, t: Type, body: Body, inContainer: boolean): string {
  switch (id) {
    case ID_STRING:
      return body === null ? "" : formatZeekString(body as string, inContainer);
    case ID_BOOL:
      return body === true ? "T" : "F";
    case ID_TIME:
    case ID_DURATION:
      return formatZeekTime(body === null ? 0 : body as number | bigint);
    case ID_FLOAT64:
      return formatFloatF(body === null ? 0 : body as number, false);
    case ID_FLOAT32:
      return formatFloatF(body === null ? 0 : body as number, true);
    case ID_BYTES:
      return body === null ? "" : base64(body as Uint8Array);
    case ID_IP:
      return body === null ? "invalid IP" : formatIP(body as Uint8Array);
    case ID_NET:
      return body === null ? "<nil>" : formatNet(body as Uint8Array);
    case ID_NULL:
      return "-";
    case ID_TYPE:
      return formatZson(t, body);
  }
  if (isSigned(id) || isUnsigned(id)) return body === null ? "0" : String(body);
  return "-";
}

/** Elements joined by commas, `-` for null ones (arrays) or as the element type decodes null (sets). */
function formatElems(elem: Type, body: Body, nullDash: boolean): string {
  const elems = body as Body[] | null;
  if (elems === null || elems.length === 0) return "(empty)";
  let out = "";
  for (let i = 0; i < elems.length; i++) {
    if (i > 0) out += ",";
    const e = elems[i];
    out += e === null && nullDash ? "-" : formatAny(elem, e, true);
  }
  return out;
}

function formatAny(t: Type, body: Body, inContainer: boolean): string {
  switch (t.kind) {
    case Kind.Primitive:
      return formatPrimitive(t.id, t, body, inContainer);
    case Kind.Named:
      return formatAny(t.type, body, inContainer);
    case Kind.Array:
      return formatElems(t.elem, body, true);
    case Kind.Set:
      return formatElems(t.elem, body, false);
    case Kind.Enum:
      return body === null ? "0" : String(body);
    case Kind.Map: {
      const kv = (body ?? []) as Body[];
      let out = "[";
      for (let i = 0; i < kv.length; i += 2) {
        out += formatAny(t.key, kv[i], true) + formatAny(t.value, kv[i + 1], true);
      }
      return out + "]";
    }
    case Kind.Record: {
      const fields = body as Body[] | null;
      let out = "";
      for (let i = 0; i < t.fields.length; i++) {
        if (i > 0) out += ",";
        const f = fields === null ? null : fields[i];
        out += f === null ? "-" : formatAny(t.fields[i].type, f, false);
      }
      return out;
    }
    case Kind.Union: {
      if (body === null) return "-";
      const u = body as UnionBody;
      const member = t.types[u.tag];
      // The reference prints the first tag of the member type.
      return t.types.indexOf(member) + ":" + formatAny(member, u.body, false);
    }
    case Kind.Error:
      if (typeUnder(t.inner).kind === Kind.Primitive && typeUnder(t.inner).id === ID_STRING) {
        return body === null ? "" : body as string;
      }
      return formatZson(t, body);
  }
}

/** The Zeek text of a value (zeekio.FormatValue). */
export function formatZeekValue(t: Type, body: Body): string {
  return body === null ? "-" : formatAny(t, body, false);
}

// Byte encodings: base64, hex, ksuid (language.md §6).

import { quoteGoString } from "../../zed/goquote.ts";
import { formatBytes, parseHex } from "../../zed/primitive.ts";
import { ID_BYTES, ID_STRING, TypeBytes, TypeString } from "../../zed/types.ts";
import { encodeUtf8 } from "../../zed/utf8.ts";
import { Value } from "../../zed/value.ts";
import { typeId } from "../expr/coerce.ts";
import { errorValue, NULL, zson } from "../runtime/values.ts";
import { define, unary } from "./define.ts";

const NULL_STRING = new Value(TypeString, null);

function bytesToBinary(b: Uint8Array): string {
  let s = "";
  for (let i = 0; i < b.length; i += 8192) {
    s += String.fromCharCode(...b.subarray(i, i + 8192));
  }
  return s;
}

// Go's base64.StdEncoding: padded; CR and LF are ignored.
const BASE64_RE = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

function decodeBase64(s: string): Uint8Array | undefined {
  const t = s.replace(/[\r\n]/g, "");
  if (!BASE64_RE.test(t)) return undefined;
  const bin = atob(t);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

function badBytesOrString(name: string, v: Value): Value {
  return errorValue(`${name}: argument must a bytes or string type (bad argument: ${zson(v)})`);
}

unary("base64", (a) => {
  switch (typeId(a.type)) {
    case ID_BYTES:
      if (a.body === null) return errorValue("base64: illegal null argument");
      return new Value(TypeString, btoa(bytesToBinary(a.body as Uint8Array)));
    case ID_STRING: {
      if (a.body === null) return NULL;
      const s = a.body as string;
      const b = decodeBase64(s);
      if (b === undefined) {
        return errorValue(`base64: string argument is not base64: ${quoteGoString(s)}`);
      }
      return new Value(TypeBytes, b);
    }
  }
  return badBytesOrString("base64", a);
});

unary("hex", (a) => {
  switch (typeId(a.type)) {
    case ID_BYTES:
      if (a.body === null) return errorValue("hex: illegal null argument");
      return new Value(TypeString, formatBytes(a.body as Uint8Array).slice(2));
    case ID_STRING: {
      if (a.body === null) return NULL_STRING;
      const s = a.body as string;
      try {
        return new Value(TypeBytes, parseHex(s));
      } catch {
        return errorValue(`hex: string argument is not hexidecimal: ${quoteGoString(s)}`);
      }
    }
  }
  // The reference reuses base64's message here.
  return badBytesOrString("base64", a);
});

// KSUIDs: 20 bytes (a 4-byte timestamp from 2014-05-13 and 16 random bytes),
// written as 27 base-62 digits.
const KSUID_EPOCH = 1400000000;
const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const MAX_KSUID = (1n << 160n) - 1n;

function newKsuid(): Uint8Array {
  const out = new Uint8Array(20);
  const ts = Math.floor(Date.now() / 1000) - KSUID_EPOCH;
  new DataView(out.buffer).setUint32(0, ts >>> 0);
  crypto.getRandomValues(out.subarray(4));
  return out;
}

function encodeKsuid(b: Uint8Array): string {
  let n = 0n;
  for (const x of b) n = (n << 8n) | BigInt(x);
  let s = "";
  while (n > 0n) {
    s = BASE62[Number(n % 62n)] + s;
    n /= 62n;
  }
  return s.padStart(27, "0");
}

/** segmentio/ksuid's digit value: letters past 'z' and other bytes are not rejected. */
function digitValue(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 65 && c <= 90) return 10 + c - 65;
  return (36 + c - 97) & 0xff;
}

function decodeKsuid(s: string): Uint8Array | string {
  const b = encodeUtf8(s);
  if (b.length !== 27) return "Valid encoded KSUIDs are 27 characters";
  let n = 0n;
  for (const c of b) n = n * 62n + BigInt(digitValue(c));
  if (n > MAX_KSUID) {
    return "Valid encoded KSUIDs are bounded by 000000000000000000000000000 and aWgEPTl1tmebfsQzFP4bxwgy80V";
  }
  const out = new Uint8Array(20);
  for (let i = 19; i >= 0; i--) {
    out[i] = Number(n & 0xffn);
    n >>= 8n;
  }
  return out;
}

define("ksuid", {
  min: 0,
  max: 1,
  compile(args) {
    if (args.length === 0) return () => new Value(TypeBytes, newKsuid());
    const [arg] = args;
    return (v) => {
      const a = arg(v);
      switch (typeId(a.type)) {
        case ID_BYTES: {
          const b = a.body as Uint8Array | null;
          if (b === null) return errorValue("ksuid: illegal null argument");
          if (b.length !== 20) {
            return errorValue(`ksuid: Valid KSUIDs are 20 bytes (bad argument: ${zson(a)})`);
          }
          return new Value(TypeString, encodeKsuid(b));
        }
        case ID_STRING: {
          const r = decodeKsuid((a.body ?? "") as string);
          if (typeof r === "string") return errorValue(`ksuid: ${r} (bad argument: ${zson(a)})`);
          return new Value(TypeBytes, r);
        }
      }
      return badBytesOrString("ksuid", a);
    };
  },
});

// Go's netip.ParseAddr, which the reference's Zeek reader uses for `addr`
// fields: the same accepted syntax (IPv6 zones are dropped, as Zed keeps only
// the address bytes) and the same error texts.

import { invalid } from "../../errors.ts";
import { quoteGoString } from "../../zed/goquote.ts";

class AddrError extends Error {
  constructor(input: string, msg: string, at = "") {
    const where = at === "" ? "" : ` (at ${quoteGoString(at)})`;
    super(`ParseAddr(${quoteGoString(input)}): ${msg}${where}`);
  }
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

function parseIPv4(s: string): Uint8Array {
  const out = new Uint8Array(4);
  let val = 0, pos = 0, digits = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (isDigit(c)) {
      if (digits === 1 && val === 0) {
        throw new AddrError(s, "IPv4 field has octet with leading zero");
      }
      val = val * 10 + c - 48;
      digits++;
      if (val > 255) throw new AddrError(s, "IPv4 field has value >255");
    } else if (c === 46) {
      if (i === 0 || i === s.length - 1 || s.charCodeAt(i - 1) === 46) {
        throw new AddrError(s, "IPv4 field must have at least one digit", s.slice(i));
      }
      if (pos === 3) throw new AddrError(s, "IPv4 address too long");
      out[pos++] = val;
      val = 0;
      digits = 0;
    } else {
      throw new AddrError(s, "unexpected character", s.slice(i));
    }
  }
  if (pos < 3) throw new AddrError(s, "IPv4 address too short");
  out[3] = val;
  return out;
}

function hexValue(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 97 && c <= 102) return c - 87;
  if (c >= 65 && c <= 70) return c - 55;
  return -1;
}

function parseIPv6(input: string): Uint8Array {
  let s = input;
  const pct = s.indexOf("%");
  if (pct >= 0) {
    if (pct === s.length - 1) throw new AddrError(input, "zone must be a non-empty string");
    s = s.slice(0, pct);
  }
  const ip = new Uint8Array(16);
  let ellipsis = -1;
  if (s.startsWith("::")) {
    ellipsis = 0;
    s = s.slice(2);
    if (s.length === 0) return ip;
  }
  let i = 0;
  while (i < 16) {
    let off = 0, acc = 0;
    for (; off < s.length; off++) {
      const h = hexValue(s.charCodeAt(off));
      if (h < 0) break;
      acc = acc * 16 + h;
      if (acc > 0xffff) throw new AddrError(input, "IPv6 field has value >=2^16", s);
    }
    if (off === 0) {
      throw new AddrError(input, "each colon-separated field must have at least one digit", s);
    }
    if (off < s.length && s.charCodeAt(off) === 46) {
      if (ellipsis < 0 && i !== 12) {
        throw new AddrError(
          input,
          "embedded IPv4 address must replace the final 2 fields of the address",
          s,
        );
      }
      if (i + 4 > 16) {
        throw new AddrError(
          input,
          "too many hex fields to fit an embedded IPv4 at the end of the address",
          s,
        );
      }
      let v4: Uint8Array;
      try {
        v4 = parseIPv4(s);
      } catch (e) {
        throw new AddrError(input, (e as Error).message, s);
      }
      ip.set(v4, i);
      s = "";
      i += 4;
      break;
    }
    ip[i] = acc >> 8;
    ip[i + 1] = acc & 0xff;
    i += 2;
    s = s.slice(off);
    if (s.length === 0) break;
    if (s.charCodeAt(0) !== 58) throw new AddrError(input, "unexpected character, want colon", s);
    if (s.length === 1) {
      throw new AddrError(input, "colon must be followed by more characters", s);
    }
    s = s.slice(1);
    if (s.charCodeAt(0) === 58) {
      if (ellipsis >= 0) throw new AddrError(input, "multiple :: in address", s);
      ellipsis = i;
      s = s.slice(1);
      if (s.length === 0) break;
    }
  }
  if (s.length !== 0) throw new AddrError(input, "trailing garbage after address", s);
  if (i < 16) {
    if (ellipsis < 0) throw new AddrError(input, "address string too short");
    const n = 16 - i;
    for (let j = i - 1; j >= ellipsis; j--) ip[j + n] = ip[j];
    for (let j = ellipsis + n - 1; j >= ellipsis; j--) ip[j] = 0;
  } else if (ellipsis >= 0) {
    throw new AddrError(input, "the :: must expand to at least one field of zeros");
  }
  return ip;
}

/** An ip body (4 or 16 bytes) from netip.ParseAddr syntax; throws its error text. */
export function parseAddr(s: string): Uint8Array {
  try {
    for (let i = 0; i < s.length; i++) {
      switch (s.charCodeAt(i)) {
        case 46:
          return parseIPv4(s);
        case 58:
          return parseIPv6(s);
        case 37:
          throw new AddrError(s, "missing IPv6 address");
      }
    }
    throw new AddrError(s, "unable to parse IP");
  } catch (e) {
    throw e instanceof AddrError ? invalid(e.message) : e;
  }
}

// JSON string literals as Go's encoding/json writes them with
// SetEscapeHTML(false), in UTF-8: `"` and `\` escaped, \n \r \t, other
// control characters as \u00XX (lowercase hex), U+2028 and U+2029 escaped,
// and lone surrogates (invalid UTF-8 in Go terms) as \ufffd. `<>&` and DEL
// are written as they are.

import type { ByteBuffer } from "./bytebuf.ts";

const HEX = "0123456789abcdef";

/** Writes `\uXXXX` (4 lowercase hex digits of c) at buf[p]; returns the next position. */
function putUnicodeEscape(buf: Uint8Array, p: number, c: number): number {
  buf[p++] = 92;
  buf[p++] = 117;
  for (let shift = 12; shift >= 0; shift -= 4) buf[p++] = HEX.charCodeAt((c >> shift) & 0xf);
  return p;
}

/** Writes the escape of an ASCII character Go escapes; returns the next position. */
function putAsciiEscape(buf: Uint8Array, p: number, c: number): number {
  buf[p++] = 92;
  switch (c) {
    case 34:
    case 92:
      buf[p++] = c;
      return p;
    case 10:
      buf[p++] = 110;
      return p;
    case 13:
      buf[p++] = 114;
      return p;
    case 9:
      buf[p++] = 116;
      return p;
  }
  return putUnicodeEscape(buf, p - 1, c);
}

export function writeJsonString(out: ByteBuffer, s: string): void {
  const n = s.length;
  // The worst case is 6 bytes per UTF-16 code unit (\u00XX).
  out.reserve(6 * n + 2);
  const buf = out.buf;
  let p = out.pos;
  buf[p++] = 34;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) {
      if (c >= 0x20 && c !== 34 && c !== 92) buf[p++] = c;
      else p = putAsciiEscape(buf, p, c);
    } else if (c < 0x800) {
      buf[p++] = 0xc0 | (c >> 6);
      buf[p++] = 0x80 | (c & 0x3f);
    } else if (c >= 0xd800 && c <= 0xdfff) {
      const d = c <= 0xdbff && i + 1 < n ? s.charCodeAt(i + 1) : 0;
      if (d >= 0xdc00 && d <= 0xdfff) {
        const cp = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
        buf[p++] = 0xf0 | (cp >> 18);
        buf[p++] = 0x80 | ((cp >> 12) & 0x3f);
        buf[p++] = 0x80 | ((cp >> 6) & 0x3f);
        buf[p++] = 0x80 | (cp & 0x3f);
        i++;
      } else {
        p = putUnicodeEscape(buf, p, 0xfffd);
      }
    } else if (c === 0x2028 || c === 0x2029) {
      p = putUnicodeEscape(buf, p, c);
    } else {
      buf[p++] = 0xe0 | (c >> 12);
      buf[p++] = 0x80 | ((c >> 6) & 0x3f);
      buf[p++] = 0x80 | (c & 0x3f);
    }
  }
  buf[p++] = 34;
  out.pos = p;
}

// Zeek's string escapes. Zeek TSV writes `\xNN` for bytes it will not print
// raw; the reader turns them back into bytes, and when the result is not valid
// UTF-8 it re-escapes the offending bytes as literal `\xNN` text (what Zeek
// does in its JSON logs), so a string field always holds valid text.

import { nfc, textEncoder } from "../../zed/utf8.ts";

const hexDigits = "0123456789abcdef";
const printRE = /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u;
const strictDecoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
/** Keeps a leading U+FEFF, which is data here. */
const textDecoder = new TextDecoder("utf-8", { ignoreBOM: true });

/** Go's unicode.IsPrint: letters, marks, numbers, punctuation, symbols and ASCII space. */
export function isPrint(cp: number): boolean {
  if (cp < 0x7f) return cp >= 0x20;
  if (cp <= 0xff) return cp >= 0xa1 && cp !== 0xad;
  return printRE.test(String.fromCodePoint(cp));
}

/** zson.Unhex: a hex digit's value, or 255. */
function unhex(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x61 && c <= 0x66) return c - 0x61 + 10;
  if (c >= 0x41 && c <= 0x46) return c - 0x41 + 10;
  return 255;
}

function unescapeChar(c: number): number {
  switch (c) {
    case 0x5c:
      return 0x5c;
    case 0x22:
      return 0x22;
    case 0x62: // b
      return 0x08;
    case 0x66: // f
      return 0x0c;
    case 0x6e: // n
      return 0x0a;
    case 0x72: // r
      return 0x0d;
    case 0x74: // t
      return 0x09;
  }
  return 0;
}

/** Replaces Zeek escapes in b; invalid escapes are left as they are. */
export function unescapeZeekBytes(b: Uint8Array): Uint8Array {
  const out = new Uint8Array(b.length);
  let n = 0;
  for (let i = 0; i < b.length;) {
    const c = b[i];
    if (c !== 0x5c || b.length - i < 2) {
      out[n++] = c;
      i++;
      continue;
    }
    if (b.length - i >= 4 && b[i + 1] === 0x78) {
      const v1 = unhex(b[i + 2]), v2 = unhex(b[i + 3]);
      // The reference accepts the escape when either digit is valid (sic).
      if (v1 <= 0xf || v2 <= 0xf) {
        out[n++] = ((v1 << 4) | v2) & 0xff;
        i += 4;
        continue;
      }
    } else {
      const u = unescapeChar(b[i + 1]);
      if (u !== 0) {
        out[n++] = u;
        i += 2;
        continue;
      }
    }
    out[n++] = c;
    i++;
  }
  return out.subarray(0, n);
}

/**
 * Go's utf8.DecodeRune at b[i]: the code point and its length, or
 * (0xfffd, 1) for an invalid or truncated sequence.
 */
export function decodeRune(b: Uint8Array, i: number): [number, number] {
  const c = b[i];
  if (c < 0x80) return [c, 1];
  let size: number, lo = 0x80, hi = 0xbf, cp: number;
  if (c >= 0xc2 && c <= 0xdf) {
    size = 2;
    cp = c & 0x1f;
  } else if (c >= 0xe0 && c <= 0xef) {
    size = 3;
    cp = c & 0x0f;
    if (c === 0xe0) lo = 0xa0;
    else if (c === 0xed) hi = 0x9f;
  } else if (c >= 0xf0 && c <= 0xf4) {
    size = 4;
    cp = c & 0x07;
    if (c === 0xf0) lo = 0x90;
    else if (c === 0xf4) hi = 0x8f;
  } else {
    return [0xfffd, 1];
  }
  if (b.length - i < size) return [0xfffd, 1];
  const c1 = b[i + 1];
  if (c1 < lo || c1 > hi) return [0xfffd, 1];
  cp = (cp << 6) | (c1 & 0x3f);
  for (let k = 2; k < size; k++) {
    const ck = b[i + k];
    if (ck < 0x80 || ck > 0xbf) return [0xfffd, 1];
    cp = (cp << 6) | (ck & 0x3f);
  }
  return [cp, size];
}

/**
 * Escapes, as `\xNN` text, every byte of b that is not part of a printable
 * rune (Go's RuneError counts as unprintable here, as in the reference).
 */
export function escapeZeekHex(b: Uint8Array): string {
  let out = "";
  let start = 0;
  for (let i = 0; i < b.length;) {
    const [r, l] = decodeRune(b, i);
    if (r === 0xfffd || !isPrint(r)) {
      out += textDecoder.decode(b.subarray(start, i));
      const c = b[i];
      out += "\\x" + hexDigits[c >> 4] + hexDigits[c & 0xf];
      i++;
      start = i;
    } else {
      i += l;
    }
  }
  return out + textDecoder.decode(b.subarray(start));
}

/** A Zeek TSV string field as a Zed string: unescaped, made valid, NFC-normalized. */
export function zeekStringField(s: string): string {
  if (s.indexOf("\\") < 0) return nfc(s);
  const b = unescapeZeekBytes(textEncoder.encode(s));
  let text: string;
  try {
    text = strictDecoder.decode(b);
  } catch {
    text = escapeZeekHex(b);
  }
  return nfc(text);
}

/** The bytes of an unescaped directive argument (e.g. `#separator \x09`) as text. */
export function unescapeZeekText(s: string): string {
  if (s.indexOf("\\") < 0) return s;
  return textDecoder.decode(unescapeZeekBytes(textEncoder.encode(s)));
}

/** The `\xNN` escape of a code point: its hex digits (an even count), two per escape. */
function hexEscape(cp: number): string {
  let code = cp.toString(16);
  if (code.length & 1) code = "0" + code;
  let out = "";
  for (let k = 0; k < code.length; k += 2) out += "\\x" + code.slice(k, k + 2);
  return out;
}

// Plain printable ASCII without `\`; `,` handled separately for containers.
const plainRE = /^[\x20-\x5b\x5d-\x7e]*$/;

/**
 * A string as Zeek TSV writes it: a lone `-` and `(empty)` are escaped so
 * they do not read back as unset or empty, `\` is doubled, tabs and
 * unprintable characters become `\xNN`, and inside sets and vectors `,` too.
 */
export function formatZeekString(s: string, inContainer: boolean): string {
  if (s === "-") return "\\x2d";
  if (s === "(empty)") return "\\x28empty)";
  if (plainRE.test(s) && (!inContainer || s.indexOf(",") < 0)) return s;
  let out = "";
  let start = 0;
  for (let i = 0; i < s.length;) {
    let cp = s.charCodeAt(i);
    let len = 1;
    if (cp >= 0xd800 && cp <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        cp = 0x10000 + ((cp - 0xd800) << 10) + (d - 0xdc00);
        len = 2;
      }
    }
    if (cp === 0x5c) {
      out += s.slice(start, i) + "\\\\";
      start = i + 1;
    } else if (
      cp === 0x09 || (cp === 0x2c && inContainer) ||
      // A lone surrogate stands for invalid UTF-8, which Go prints raw.
      (!isPrint(cp) && !(cp >= 0xd800 && cp <= 0xdfff))
    ) {
      out += s.slice(start, i) + hexEscape(cp);
      start = i + len;
    }
    i += len;
  }
  return out + s.slice(start);
}

// Go's UTF-8 rules, and the Zeek-style hex escaping the reference applies to
// a legacy bstring that is not valid UTF-8: every byte of an invalid sequence
// or of a non-printable character becomes `\xhh`.

/** The length of the valid UTF-8 sequence at b[i], or 0 when it is invalid (Go's rules). */
export function runeLength(b: Uint8Array, i: number): number {
  const c = b[i];
  if (c < 0x80) return 1;
  const n = b.length - i;
  if (c < 0xc2) return 0;
  if (c < 0xe0) return n >= 2 && cont(b[i + 1]) ? 2 : 0;
  if (c < 0xf0) {
    if (n < 3) return 0;
    const lo = c === 0xe0 ? 0xa0 : 0x80, hi = c === 0xed ? 0x9f : 0xbf;
    const c1 = b[i + 1];
    return c1 >= lo && c1 <= hi && cont(b[i + 2]) ? 3 : 0;
  }
  if (c < 0xf5) {
    if (n < 4) return 0;
    const lo = c === 0xf0 ? 0x90 : 0x80, hi = c === 0xf4 ? 0x8f : 0xbf;
    const c1 = b[i + 1];
    return c1 >= lo && c1 <= hi && cont(b[i + 2]) && cont(b[i + 3]) ? 4 : 0;
  }
  return 0;
}

function cont(c: number): boolean {
  return (c & 0xc0) === 0x80;
}

/** Go's utf8.Valid. */
export function validUtf8(b: Uint8Array): boolean {
  for (let i = 0; i < b.length;) {
    if (b[i] < 0x80) {
      i++;
      continue;
    }
    const n = runeLength(b, i);
    if (n === 0) return false;
    i += n;
  }
  return true;
}

function codePoint(b: Uint8Array, i: number, n: number): number {
  switch (n) {
    case 1:
      return b[i];
    case 2:
      return ((b[i] & 0x1f) << 6) | (b[i + 1] & 0x3f);
    case 3:
      return ((b[i] & 0x0f) << 12) | ((b[i + 1] & 0x3f) << 6) | (b[i + 2] & 0x3f);
    default:
      return ((b[i] & 0x07) << 18) | ((b[i + 1] & 0x3f) << 12) | ((b[i + 2] & 0x3f) << 6) |
        (b[i + 3] & 0x3f);
  }
}

/** Go's unicode.IsPrint: letters, marks, numbers, punctuation, symbols and ASCII space. */
const printRE = /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u;

function isPrint(cp: number): boolean {
  if (cp < 0x80) return cp >= 0x20 && cp < 0x7f;
  return printRE.test(String.fromCodePoint(cp));
}

const HEX = "0123456789abcdef";

/**
 * The reference's Zeek hex escape: a byte that starts an invalid sequence, a
 * U+FFFD, or a non-printable character is written `\xhh` and the scan moves
 * on by one byte (so each byte of such a character is escaped in turn).
 */
export function escapeZeekHex(b: Uint8Array): Uint8Array {
  const out: number[] = [];
  for (let i = 0; i < b.length;) {
    const n = runeLength(b, i);
    const cp = n === 0 ? 0xfffd : codePoint(b, i, n);
    if (cp === 0xfffd || !isPrint(cp)) {
      const c = b[i];
      out.push(0x5c, 0x78, HEX.charCodeAt(c >> 4), HEX.charCodeAt(c & 0xf));
      i++;
    } else {
      for (let k = 0; k < n; k++) out.push(b[i + k]);
      i += n;
    }
  }
  return Uint8Array.from(out);
}

/** Go's `%q` of a byte string (one char per byte): invalid bytes as `\xhh`. */
export function quoteBytes(s: string, quoteRune: (cp: number) => string): string {
  const b = Uint8Array.from(s, (c) => c.charCodeAt(0));
  let out = '"';
  for (let i = 0; i < b.length;) {
    const n = runeLength(b, i);
    if (n === 0) {
      out += "\\x" + HEX[b[i] >> 4] + HEX[b[i] & 0xf];
      i++;
    } else {
      out += quoteRune(codePoint(b, i, n));
      i += n;
    }
  }
  return out + '"';
}

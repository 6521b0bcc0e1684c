// UTF-8 helpers shared by the data model and the formats.

export const textEncoder = new TextEncoder();
/** Non-fatal: invalid bytes become U+FFFD, as Go does when it coerces strings. */
export const textDecoder = new TextDecoder();

export function encodeUtf8(s: string): Uint8Array {
  return textEncoder.encode(s);
}

export function decodeUtf8(b: Uint8Array): string {
  return textDecoder.decode(b);
}

/**
 * Compares strings in the byte order of their UTF-8 encodings (Go's
 * strings.Compare). JS compares UTF-16 code units, which differs only when a
 * surrogate (U+10000 and up) meets a code unit in U+E000..U+FFFF.
 */
export function compareStrings(a: string, b: string): number {
  if (a === b) return 0;
  const n = a.length < b.length ? a.length : b.length;
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x !== y) {
      if (x >= 0xd800 && y >= 0xd800) {
        // Surrogates encode code points above every BMP character.
        if (x <= 0xdfff) x += 0x10000;
        if (y <= 0xdfff) y += 0x10000;
      }
      return x < y ? -1 : 1;
    }
  }
  return a.length < b.length ? -1 : a.length > b.length ? 1 : 0;
}

/** Length in bytes of the UTF-8 encoding of s. */
export function utf8Length(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x80) {
      if (c < 0x800) n += 1;
      else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
        const d = s.charCodeAt(i + 1);
        if (d >= 0xdc00 && d <= 0xdfff) {
          n += 2; // 4 bytes for 2 code units
          i++;
        } else n += 2;
      } else n += 2;
    }
  }
  return n;
}

/** True when s has no characters that NFC normalization could change. */
export function isNfcQuick(s: string): boolean {
  // Every code point below U+0300 is stable under NFC.
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) >= 0x300) return false;
  return true;
}

export function nfc(s: string): string {
  return isNfcQuick(s) ? s : s.normalize("NFC");
}

/** Replaces lone surrogates with U+FFFD (what Go produces for invalid UTF-8). */
export function wellFormed(s: string): string {
  // deno-lint-ignore no-explicit-any
  const w = (s as any).toWellFormed;
  return typeof w === "function" ? w.call(s) : s;
}

/** The number of code points (Go's runes) in s. */
export function codePointCount(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

/** Arrays to gather short byte strings in (String.fromCharCode.apply takes them fastest). */
const gather: number[][] = Array.from({ length: 65 }, (_, n) => new Array<number>(n).fill(0));

/** The longest run of bytes made into a string at once. */
const LATIN1_RUN = 8192;

/** The string of b[from, to) read as Latin-1 (for ASCII bytes, their text). */
export function latin1String(b: Uint8Array, from: number, to: number): string {
  const n = to - from;
  if (n > LATIN1_RUN) {
    // (Arguments go on the stack: a long string is made of runs.)
    let s = "";
    for (let i = from; i < to; i += LATIN1_RUN) {
      s += latin1String(b, i, Math.min(to, i + LATIN1_RUN));
    }
    return s;
  }
  if (n > 64) return String.fromCharCode.apply(null, b.subarray(from, to) as unknown as number[]);
  const a = gather[n];
  for (let k = 0; k < n; k++) a[k] = b[from + k];
  return String.fromCharCode.apply(null, a);
}

// Go's `%q` quoting (strconv.Quote and rune literals), which the reference
// uses in many error messages: `invalid character 'x' ...` quotes one input
// byte as a rune literal, `parsing "..."` quotes a string.

const hex = "0123456789abcdef";
/** Go's unicode.IsPrint: letters, marks, numbers, punctuation, symbols and ASCII space. */
const printRE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

function isPrint(cp: number): boolean {
  if (cp < 0x7f) return cp >= 0x20;
  return printRE.test(String.fromCodePoint(cp));
}

function hexPad(cp: number, width: number): string {
  let s = "";
  for (let i = width - 1; i >= 0; i--) s += hex[(cp >> (4 * i)) & 0xf];
  return s;
}

/** The escape Go's strconv uses for a rune inside quotes (quote is `'` or `"`). */
function escapeRune(cp: number, quote: number): string {
  if (cp === quote || cp === 0x5c) return "\\" + String.fromCharCode(cp);
  if (isPrint(cp)) return String.fromCodePoint(cp);
  switch (cp) {
    case 0x07:
      return "\\a";
    case 0x08:
      return "\\b";
    case 0x0c:
      return "\\f";
    case 0x0a:
      return "\\n";
    case 0x0d:
      return "\\r";
    case 0x09:
      return "\\t";
    case 0x0b:
      return "\\v";
  }
  if (cp < 0x20 || cp === 0x7f) return "\\x" + hexPad(cp, 2);
  if (cp < 0x10000) return "\\u" + hexPad(cp, 4);
  return "\\U" + hexPad(cp, 8);
}

/** The first byte of the UTF-8 encoding of the code point at s[i]. */
export function firstUtf8Byte(s: string, i: number): number {
  const cp = s.codePointAt(i)!;
  if (cp < 0x80) return cp;
  if (cp < 0x800) return 0xc0 | (cp >> 6);
  if (cp < 0x10000) return 0xe0 | (cp >> 12);
  return 0xf0 | (cp >> 18);
}

/** `%q` of a Go byte: a rune literal of the byte's value, e.g. `'}'` or `'Ã'`. */
export function quoteByte(b: number): string {
  return "'" + escapeRune(b, 0x27) + "'";
}

/** `%q` of a Go string (strconv.Quote). */
export function quoteGoString(s: string): string {
  let out = '"';
  for (const ch of s) out += escapeRune(ch.codePointAt(0)!, 0x22);
  return out + '"';
}

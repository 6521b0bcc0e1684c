// Go's unicode.IsSpace, which the reference's CSV code uses to trim fields and
// to decide whether a field needs quotes. It differs from JavaScript's `\s`:
// U+0085 is a space in Go and U+FEFF is not.

/** Whether UTF-16 code unit c is a space to Go (every such rune is in the BMP). */
export function isGoSpace(c: number): boolean {
  if (c <= 0xff) {
    return c === 0x20 || (c >= 0x09 && c <= 0x0d) || c === 0x85 || c === 0xa0;
  }
  return c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 ||
    c === 0x202f || c === 0x205f || c === 0x3000;
}

/** s without its leading Go spaces. */
export function trimLeftGoSpace(s: string): string {
  let i = 0;
  while (i < s.length && isGoSpace(s.charCodeAt(i))) i++;
  return i === 0 ? s : s.slice(i);
}

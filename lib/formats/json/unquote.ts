// Decoding the content of a JSON string token with escapes, by the rules of
// the reference (a variant of encoding/json's unquote): the escapes are
// \" \\ \/ \' \b \f \n \r \t and \uXXXX; a surrogate pair of \u escapes
// combines, any other surrogate becomes U+FFFD; control characters are errors.

function hexDigit(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 97 && c <= 102) return c - 87;
  if (c >= 65 && c <= 70) return c - 55;
  return -1;
}

/** The value of `\uXXXX` at s[i], or -1 (Go's getu4); end bounds the content. */
function getu4(s: string, i: number, end: number): number {
  if (i + 6 > end || s.charCodeAt(i) !== 92 || s.charCodeAt(i + 1) !== 117) return -1;
  let r = 0;
  for (let k = i + 2; k < i + 6; k++) {
    const d = hexDigit(s.charCodeAt(k));
    if (d < 0) return -1;
    r = r * 16 + d;
  }
  return r;
}

/** The decoded text of s[start, end), or undefined when it is not a valid string body. */
export function unquote(s: string, start: number, end: number): string | undefined {
  let out = "";
  let run = start;
  let i = start;
  while (i < end) {
    const c = s.charCodeAt(i);
    if (c < 0x20) return undefined;
    if (c !== 92) {
      i++;
      continue;
    }
    out += s.slice(run, i);
    if (i + 1 >= end) return undefined;
    const e = s.charCodeAt(i + 1);
    switch (e) {
      case 34: // "
      case 92: // \
      case 47: // /
      case 39: // '
        out += String.fromCharCode(e);
        break;
      case 98:
        out += "\b";
        break;
      case 102:
        out += "\f";
        break;
      case 110:
        out += "\n";
        break;
      case 114:
        out += "\r";
        break;
      case 116:
        out += "\t";
        break;
      case 117: {
        const r = getu4(s, i, end);
        if (r < 0) return undefined;
        i += 6;
        if (r >= 0xd800 && r <= 0xdfff) {
          const r2 = getu4(s, i, end);
          if (r <= 0xdbff && r2 >= 0xdc00 && r2 <= 0xdfff) {
            out += String.fromCharCode(r, r2);
            i += 6;
          } else {
            out += "\ufffd";
          }
        } else {
          out += String.fromCharCode(r);
        }
        run = i;
        continue;
      }
      default:
        return undefined;
    }
    i += 2;
    run = i;
  }
  return out + s.slice(run, end);
}

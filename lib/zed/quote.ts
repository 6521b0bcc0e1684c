// ZSON quoting of strings, field names and type names (formats.md §2.6).

const letterRE = /^\p{L}$/u;
const identRE = /^[\p{L}_$][\p{L}_$0-9]*$/u;
const typeNameRE = /^(?:[\p{L}_$.][\p{L}_$0-9.]*)?$/u;
/** Characters that need escaping in a ZSON string: controls, quote, backslash, lone surrogates. */
// deno-lint-ignore no-control-regex
const needsEscapeRE = /[\u0000-\u001f"\\\ud800-\udfff]/;

/** A Unicode letter (Go's unicode.IsLetter), `_` or `$`. */
export function isIdChar(c: string): boolean {
  return c === "_" || c === "$" || letterRE.test(c);
}

/** A bare ZSON identifier: a letter, `_` or `$`, then those or ASCII digits. */
export function isIdentifier(s: string): boolean {
  return identRE.test(s);
}

/** A bare ZSON type name: identifier characters, digits and `.`, not starting with a digit. */
export function isTypeName(s: string): boolean {
  return typeNameRE.test(s);
}

const hex = "0123456789abcdef";

/** QuotedString: `"` + escaped text + `"`; `/` is not escaped, DEL and non-ASCII are raw. */
export function quoteString(s: string): string {
  if (!needsEscapeRE.test(s)) return '"' + s + '"';
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x20 && c !== 0x22 && c !== 0x5c && (c < 0xd800 || c > 0xdfff)) {
      out += s[i];
      continue;
    }
    switch (c) {
      case 0x22:
        out += '\\"';
        break;
      case 0x5c:
        out += "\\\\";
        break;
      case 0x08:
        out += "\\b";
        break;
      case 0x0c:
        out += "\\f";
        break;
      case 0x0a:
        out += "\\n";
        break;
      case 0x0d:
        out += "\\r";
        break;
      case 0x09:
        out += "\\t";
        break;
      default:
        if (c < 0x20) {
          out += "\\u00" + hex[c >> 4] + hex[c & 0xf];
        } else if (c <= 0xdbff && i + 1 < s.length) {
          const d = s.charCodeAt(i + 1);
          if (d >= 0xdc00 && d <= 0xdfff) {
            out += s[i] + s[i + 1];
            i++;
          } else out += "\\ufffd";
        } else {
          out += "\\ufffd"; // a lone surrogate stands for invalid UTF-8
        }
    }
  }
  return out + '"';
}

/** Field names and enum symbols: bare when an identifier. */
export function quoteName(s: string): string {
  return isIdentifier(s) ? s : quoteString(s);
}

/** Type names in decorators: bare when a type name (the empty name included). */
export function quoteTypeName(s: string): string {
  return isTypeName(s) ? s : quoteString(s);
}

// The syntax errors of Go's encoding/json (its scanner's texts), for
// messages that quote them, such as a bad Zed-Commit header. Validation runs
// over the UTF-8 bytes, as Go's does, so the offending character is quoted
// as one byte.

import { quoteByte } from "../zed/goquote.ts";

class SyntaxError extends Error {}

function isWs(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

function isHex(c: number): boolean {
  return isDigit(c) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);
}

/** A byte the scanner cannot take in `context`; -1 (end of input) is seen as a space, as Go's eof() does. */
function bad(c: number, context: string): never {
  throw new SyntaxError(`invalid character ${quoteByte(c < 0 ? 0x20 : c)} ${context}`);
}

const EOF_MSG = "unexpected end of JSON input";

/**
 * Validates JSON as Go's json.Unmarshal does before decoding; returns the
 * error text, or null when the input is valid.
 */
export function goJSONSyntaxError(b: Uint8Array): string | null {
  let i = 0;
  const at = () => (i < b.length ? b[i] : -1);

  const skipWs = () => {
    while (i < b.length && isWs(b[i])) i++;
  };

  // A value starting at i (whitespace skipped); leaves i after it.
  const value = (): void => {
    skipWs();
    const c = at();
    if (c < 0) throw new SyntaxError(EOF_MSG);
    i++;
    switch (c) {
      case 0x7b: // {
        skipWs();
        if (at() === 0x7d) {
          i++;
          return;
        }
        for (;;) {
          skipWs();
          if (at() < 0) throw new SyntaxError(EOF_MSG);
          if (at() !== 0x22) bad(at(), "looking for beginning of object key string");
          i++;
          string();
          skipWs();
          if (at() < 0) throw new SyntaxError(EOF_MSG);
          if (at() !== 0x3a) bad(at(), "after object key");
          i++;
          value();
          skipWs();
          const d = at();
          if (d < 0) throw new SyntaxError(EOF_MSG);
          i++;
          if (d === 0x7d) break;
          if (d !== 0x2c) bad(d, "after object key:value pair");
        }
        return;
      case 0x5b: // [
        skipWs();
        if (at() === 0x5d) {
          i++;
          return;
        }
        for (;;) {
          value();
          skipWs();
          const d = at();
          if (d < 0) throw new SyntaxError(EOF_MSG);
          i++;
          if (d === 0x5d) break;
          if (d !== 0x2c) bad(d, "after array element");
        }
        return;
      case 0x22:
        return string();
      case 0x74:
        return literal("true");
      case 0x66:
        return literal("false");
      case 0x6e:
        return literal("null");
      default:
        if (c === 0x2d || isDigit(c)) return number(c);
        bad(c, "looking for beginning of value");
    }
  };

  // The rest of a string after its opening quote.
  const string = (): void => {
    for (;;) {
      const c = at();
      if (c < 0) throw new SyntaxError(EOF_MSG);
      i++;
      if (c === 0x22) return;
      if (c < 0x20) bad(c, "in string literal");
      if (c !== 0x5c) continue;
      const e = at();
      i++;
      if (e === 0x75) {
        for (let k = 0; k < 4; k++) {
          const h = at();
          i++;
          if (!isHex(h)) bad(h, "in \\u hexadecimal character escape");
        }
      } else if (!'bfnrt\\/"'.includes(String.fromCharCode(e))) {
        bad(e, "in string escape code");
      }
    }
  };

  // The rest of a literal after its first letter.
  const literal = (word: string): void => {
    for (let k = 1; k < word.length; k++) {
      const c = at();
      if (c !== word.charCodeAt(k)) bad(c, `in literal ${word} (expecting '${word[k]}')`);
      i++;
    }
  };

  // The rest of a number after its first character c.
  const number = (c: number): void => {
    if (c === 0x2d) {
      c = at();
      if (!isDigit(c)) bad(c, "in numeric literal");
      i++;
    }
    if (c !== 0x30) { while (isDigit(at())) i++; }
    if (at() === 0x2e) {
      i++;
      if (!isDigit(at())) bad(at(), "after decimal point in numeric literal");
      while (isDigit(at())) i++;
    }
    if (at() === 0x65 || at() === 0x45) {
      i++;
      if (at() === 0x2b || at() === 0x2d) i++;
      if (!isDigit(at())) bad(at(), "in exponent of numeric literal");
      while (isDigit(at())) i++;
    }
  };

  try {
    value();
    skipWs();
    if (i < b.length) bad(b[i], "after top-level value");
    return null;
  } catch (e) {
    if (e instanceof SyntaxError) return e.message;
    throw e;
  }
}

/** The name Go's decoder gives a JSON value's kind in type errors. */
export function goJSONKind(v: unknown): string {
  if (typeof v === "string") return "string";
  if (typeof v === "number") return "number";
  if (typeof v === "boolean") return "bool";
  if (Array.isArray(v)) return "array";
  return "object";
}

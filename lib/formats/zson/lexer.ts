// The ZSON lexer: scans whitespace and comments, strings, names and primitive
// literals from a text buffer with charCodeAt. The buffer may be a prefix of
// the input: reaching its end while more input may follow throws NeedMore, and
// the caller parses the value again with more text. Error texts follow the
// reference lexer (zson/lexer.go).

import { invalid } from "../../errors.ts";
import { matchPrimitiveToken } from "../../zed/primitive.ts";
import { NeedMore } from "../io.ts";
import type { AstPrimitive } from "./ast.ts";
import { classify, fastNumber, isTimeShaped } from "./literal.ts";

// Character classes of ASCII code units.
const SPACE = 1;
/** Letters, `_` and `$`: may start an identifier. */
const ID = 2;
const DIGIT = 4;
/** Characters a primitive literal can contain. */
const PRIM = 8;
/** Characters of the reference's numeric token alternative `[-+0-9Ee./]`. */
const NUM = 16;

const ascii = new Uint8Array(128);
for (let c = 9; c <= 13; c++) ascii[c] = SPACE;
ascii[0x20] = SPACE;
for (let c = 0x30; c <= 0x39; c++) ascii[c] = DIGIT | PRIM | NUM;
for (let c = 0x41; c <= 0x5a; c++) ascii[c] = ID | PRIM;
for (let c = 0x61; c <= 0x7a; c++) ascii[c] = ID | PRIM;
ascii[0x5f] = ID; // _
ascii[0x24] = ID; // $
for (const ch of ".+-:/") ascii[ch.charCodeAt(0)] = PRIM;
for (const ch of "Ee.+-/") ascii[ch.charCodeAt(0)] |= NUM;

const CH_QUOTE = 0x22;
const CH_BACKSLASH = 0x5c;
const CH_SLASH = 0x2f;
const CH_STAR = 0x2a;
const CH_DOT = 0x2e;
const CH_BACKTICK = 0x60;

/** Go's unicode.IsSpace beyond ASCII. */
function isWideSpace(c: number): boolean {
  return c === 0x85 || c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000;
}

function isNewline(c: number): boolean {
  return (c >= 0x0a && c <= 0x0d) || c === 0x85 || c === 0x2028 || c === 0x2029;
}

const letterRE = /^\p{L}$/u;

/** Go's unicode.IsLetter, `_` or `$` for a code point. */
export function isIdCodePoint(cp: number): boolean {
  if (cp < 0x80) return (ascii[cp] & ID) !== 0;
  return letterRE.test(String.fromCodePoint(cp));
}

/** Go's isDigit/typeChar classes for a code point. */
function isTypeCodePoint(cp: number): boolean {
  if (cp < 0x80) return (ascii[cp] & (ID | DIGIT)) !== 0 || cp === CH_DOT;
  return letterRE.test(String.fromCodePoint(cp));
}

function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x61 && c <= 0x66) return c - 0x57;
  if (c >= 0x41 && c <= 0x46) return c - 0x37;
  return 16;
}

/** The character Go's `%c` prints for the first UTF-8 byte of the character at s[i]. */
function firstByteChar(s: string, i: number): string {
  const cp = s.codePointAt(i)!;
  if (cp < 0x80) return String.fromCharCode(cp);
  if (cp < 0x800) return String.fromCharCode(0xc0 | (cp >> 6));
  if (cp < 0x10000) return String.fromCharCode(0xe0 | (cp >> 12));
  return String.fromCharCode(0xf0 | (cp >> 18));
}

const indentationRE = /\n[\t\n\f\r ]*/g;

export class Lexer {
  text = "";
  pos = 0;
  end = 0;
  /** True when text holds the rest of the input, so its end is the input's end. */
  eof = true;

  reset(text: string, pos: number, eof: boolean): void {
    this.text = text;
    this.pos = pos;
    this.end = text.length;
    this.eof = eof;
  }

  /** Signals the end of the buffer: NeedMore unless the input really ended. */
  private atBufferEnd(): void {
    if (!this.eof) throw new NeedMore();
  }

  /** Skips whitespace (Go's unicode.IsSpace) and `//` and `/* *\/` comments. */
  skipSpace(): void {
    const s = this.text, end = this.end;
    let i = this.pos;
    for (;;) {
      if (i >= end) {
        this.pos = i;
        this.atBufferEnd();
        return;
      }
      const c = s.charCodeAt(i);
      if (c < 0x80) {
        if ((ascii[c] & SPACE) !== 0) {
          i++;
          continue;
        }
        if (c === CH_SLASH) {
          if (i + 1 >= end) {
            this.pos = i;
            this.atBufferEnd();
            return;
          }
          const d = s.charCodeAt(i + 1);
          if (d === CH_SLASH) {
            i = this.skipLine(i + 2);
            continue;
          }
          if (d === CH_STAR) {
            i = this.skipBlockComment(i + 2);
            continue;
          }
        }
        break;
      }
      if (!isWideSpace(c)) break;
      i++;
    }
    this.pos = i;
  }

  private skipLine(i: number): number {
    const s = this.text, end = this.end;
    for (; i < end; i++) if (isNewline(s.charCodeAt(i))) return i + 1;
    this.pos = i;
    this.atBufferEnd();
    return end;
  }

  private skipBlockComment(i: number): number {
    const j = this.text.indexOf("*/", i);
    if (j >= 0) return j + 2;
    this.atBufferEnd();
    return this.end; // an unterminated comment runs to the end of the input
  }

  /** The code unit after any space, or -1 at the end of the input. */
  peek(): number {
    this.skipSpace();
    return this.pos < this.end ? this.text.charCodeAt(this.pos) : -1;
  }

  /** The code unit at the cursor (no space skipping), or -1 at the end of the input. */
  peekTight(): number {
    if (this.pos < this.end) return this.text.charCodeAt(this.pos);
    this.atBufferEnd();
    return -1;
  }

  /** Skips space and consumes c if it is next. */
  match(c: number): boolean {
    this.skipSpace();
    if (this.pos < this.end && this.text.charCodeAt(this.pos) === c) {
      this.pos++;
      return true;
    }
    return false;
  }

  /** Consumes c if it is at the cursor. */
  matchTight(c: number): boolean {
    if (this.peekTight() === c) {
      this.pos++;
      return true;
    }
    return false;
  }

  /** Whether the cursor is at `=>` (after space). */
  atArrow(): boolean {
    if (this.peek() !== 0x3d) return false;
    if (this.pos + 1 >= this.end) {
      this.atBufferEnd();
      return false;
    }
    return this.text.charCodeAt(this.pos + 1) === 0x3e;
  }

  /** Whether the code point at the cursor may start an identifier. */
  atIdStart(): boolean {
    if (this.pos >= this.end) return false;
    return isIdCodePoint(this.text.codePointAt(this.pos)!);
  }

  /** Whether the code point at the cursor may start a type name (letter, digit or quote). */
  atTypeNameStart(): boolean {
    if (this.pos >= this.end) return false;
    const cp = this.text.codePointAt(this.pos)!;
    return cp === CH_QUOTE || (cp < 0x80 && (ascii[cp] & DIGIT) !== 0) || isIdCodePoint(cp);
  }

  /**
   * Scans the rest of a double-quoted string whose opening quote was consumed,
   * consuming the closing quote. Errors are `prefix` plus the reference's text.
   */
  scanString(prefix: string): string {
    const s = this.text, end = this.end;
    let i = this.pos;
    let start = i;
    let out = "";
    for (;;) {
      if (i >= end) {
        this.atBufferEnd();
        throw invalid(prefix + "EOF");
      }
      const c = s.charCodeAt(i);
      if (c === CH_QUOTE) {
        this.pos = i + 1;
        return out + s.slice(start, i);
      }
      if (c >= 0x80) return this.scanStringSlow(prefix, out + s.slice(start, i), i);
      if (c === CH_BACKSLASH) {
        if (i + 1 >= end) {
          this.atBufferEnd();
          throw invalid(prefix + "no end quote");
        }
        const e = s.charCodeAt(i + 1);
        let r: string;
        switch (e) {
          case CH_QUOTE:
          case CH_BACKSLASH:
          case CH_SLASH:
            r = String.fromCharCode(e);
            break;
          case 0x62:
            r = "\b";
            break;
          case 0x66:
            r = "\f";
            break;
          case 0x6e:
            r = "\n";
            break;
          case 0x72:
            r = "\r";
            break;
          case 0x74:
            r = "\t";
            break;
          case 0x75: // \u switches to the full decoder, as the reference does
            return this.scanStringSlow(prefix, out + s.slice(start, i), i);
          default:
            throw invalid(prefix + `illegal escape (\\${firstByteChar(s, i + 1)})`);
        }
        out += s.slice(start, i) + r;
        i += 2;
        start = i;
        continue;
      }
      if (c === 0x0a) throw invalid(prefix + "unescaped line break");
      i++;
    }
  }

  /**
   * The reference's second string path, taken at the first non-ASCII
   * character or `\u`: it finds the closing quote first, then decodes, so
   * `\'` is accepted and raw control characters are errors. Unpaired
   * surrogate escapes become U+FFFD (the reference mishandles them).
   */
  private scanStringSlow(prefix: string, head: string, from: number): string {
    const s = this.text, end = this.end;
    let close = from;
    while (close < end) {
      const c = s.charCodeAt(close);
      if (c === CH_QUOTE) break;
      close += c === CH_BACKSLASH ? 2 : 1;
    }
    if (close >= end) {
      this.atBufferEnd();
      throw invalid(prefix + "EOF");
    }
    let out = head;
    let start = from;
    let k = from;
    while (k < close) {
      const c = s.charCodeAt(k);
      if (c === CH_BACKSLASH) {
        out += s.slice(start, k);
        const e = s.charCodeAt(k + 1);
        k += 2;
        switch (e) {
          case CH_QUOTE:
          case CH_BACKSLASH:
          case CH_SLASH:
          case 0x27: // '
            out += String.fromCharCode(e);
            break;
          case 0x62:
            out += "\b";
            break;
          case 0x66:
            out += "\f";
            break;
          case 0x6e:
            out += "\n";
            break;
          case 0x72:
            out += "\r";
            break;
          case 0x74:
            out += "\t";
            break;
          case 0x75: {
            const r = this.unhex4(prefix, k, close);
            k += 4;
            if (
              r >= 0xd800 && r <= 0xdbff && k + 6 <= close && s.charCodeAt(k) === CH_BACKSLASH &&
              s.charCodeAt(k + 1) === 0x75
            ) {
              const r2 = this.unhex4(prefix, k + 2, close);
              if (r2 >= 0xdc00 && r2 <= 0xdfff) {
                out += String.fromCharCode(r, r2);
                k += 6;
                break;
              }
            }
            out += r >= 0xd800 && r <= 0xdfff ? "\ufffd" : String.fromCharCode(r);
            break;
          }
          default:
            throw invalid(prefix + `illegal escape (\\${firstByteChar(s, k - 1)}) in string`);
        }
        start = k;
        continue;
      }
      if (c < 0x20) throw invalid(prefix + "illegal control code");
      if (c >= 0xd800 && c <= 0xdfff) {
        // Only a text that did not come from UTF-8 can hold a lone surrogate.
        const paired = c <= 0xdbff && k + 1 < close &&
          (s.charCodeAt(k + 1) & 0xfc00) === 0xdc00;
        if (paired) {
          k += 2;
          continue;
        }
        out += s.slice(start, k) + "\ufffd";
        start = ++k;
        continue;
      }
      k++;
    }
    this.pos = close + 1;
    return out + s.slice(start, close);
  }

  private unhex4(prefix: string, k: number, close: number): number {
    if (close - k < 4) throw invalid(prefix + "short \\u escape");
    const s = this.text;
    const a = hexValue(s.charCodeAt(k)), b = hexValue(s.charCodeAt(k + 1));
    const c = hexValue(s.charCodeAt(k + 2)), d = hexValue(s.charCodeAt(k + 3));
    if ((a | b | c | d) > 15) throw invalid(prefix + "invalid hex digits in \\u escape");
    return (a << 12) | (b << 8) | (c << 4) | d;
  }

  /**
   * Go's scanTypeName: a double-quoted string, or the (possibly empty) run of
   * letters, digits, `_`, `$` and `.` at the cursor.
   */
  scanTypeName(): string {
    if (this.match(CH_QUOTE)) return this.scanString("");
    const s = this.text, end = this.end, start = this.pos;
    let i = start;
    for (;;) {
      if (i >= end) {
        this.atBufferEnd();
        break;
      }
      const c = s.charCodeAt(i);
      if (c < 0x80) {
        if ((ascii[c] & (ID | DIGIT)) !== 0 || c === CH_DOT) {
          i++;
          continue;
        }
        break;
      }
      const cp = s.codePointAt(i)!;
      if (!isTypeCodePoint(cp)) break;
      i += cp > 0xffff ? 2 : 1;
    }
    this.pos = i;
    return s.slice(start, i);
  }

  /**
   * An identifier at the cursor (after space), or "" when none starts there.
   * A name that continues with `.` is an error, as in the reference.
   */
  scanIdentifier(): string {
    this.skipSpace();
    if (!this.atIdStart()) return "";
    const s = this.scanTypeName();
    if (s.indexOf(".") >= 0) throw invalid("malformed identifier");
    return s;
  }

  /**
   * The reference's broken backtick string (after the opening backtick): the
   * text up to the next backtick, which is consumed, after which another
   * backtick must follow.
   */
  scanBacktick(keepIndentation: boolean): string {
    const close = this.text.indexOf("`", this.pos);
    if (close < 0) {
      this.atBufferEnd();
      throw invalid("parse error: parsing backtick string literal");
    }
    let b = this.text.slice(this.pos, close);
    this.pos = close + 1;
    if (!keepIndentation) {
      b = b.replace(indentationRE, "\n");
      if (b.charCodeAt(0) === 0x0a) b = b.slice(1);
    }
    if (!this.match(CH_BACKTICK)) throw invalid("parse error: mismatched string backticks");
    return b;
  }

  /**
   * The primitive literal (other than a string) at the cursor, consumed, or
   * null when there is none. Plain integers and decimals take a fast path;
   * anything else uses the reference's longest-match token and type order.
   */
  scanPrimitive(): AstPrimitive | null {
    const s = this.text, end = this.end, start = this.pos;
    let i = start;
    let numeric = NUM;
    while (i < end) {
      const c = s.charCodeAt(i);
      if (c >= 0x80) break;
      const cls = ascii[c];
      if ((cls & PRIM) === 0) break;
      numeric &= cls;
      i++;
    }
    if (i >= end) this.atBufferEnd();
    if (i === start) return null;
    const fast = fastNumber(s, start, i);
    if (fast !== null) {
      this.pos = i;
      return fast;
    }
    const run = s.slice(start, i);
    // When every character fits the numeric alternative, it matches the whole run.
    const token = numeric !== 0 || isTimeShaped(run) ? run : matchPrimitiveToken(run);
    if (token === "") return null;
    const p = classify(token);
    if (p !== null) this.pos = start + token.length;
    return p;
  }
}

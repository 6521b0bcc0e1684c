// The JSON value parser behind JsonReader and detectJson (formats.md §5.1).
// It mirrors the reference reader (Zed's jsonlexer plus jsonio.Reader), which
// is more lenient than encoding/json in places and has its own error texts:
// - a number token is any run of `0-9 . e E + -` starting with a digit or `-`,
//   read as int64 when strconv.ParseInt accepts it, else as float64;
// - literals must be followed by a delimiter (`bad literal name`);
// - input that ends inside a container is the error `EOF`, while a truncated
//   top-level string or literal simply ends the stream;
// - unexpected tokens are reported as `invalid character 'c' <context>`.
// The parser works on a string held by the caller; when it runs off the end of
// a text that is not the whole input it throws NeedMore and the caller parses
// the value again from valueStart once more text has arrived.

import { invalid, LochError } from "../../errors.ts";
import { uniqueTypes, zctx } from "../../zed/context.ts";
import {
  type Type,
  TypeBool,
  TypeFloat64,
  TypeInt64,
  TypeNull,
  TypeString,
} from "../../zed/types.ts";
import { nfc } from "../../zed/utf8.ts";
import { type Body, intBody, UnionBody, Value } from "../../zed/value.ts";
import { NeedMore } from "../io.ts";
import { firstUtf8Byte, quoteByte, quoteGoString } from "../../zed/goquote.ts";
import { ArrayTypes, matchKey, Shape } from "./shapes.ts";
import { unquote } from "./unquote.ts";

/** Thrown often enough (once per chunk boundary) to be worth sharing. */
const NEED_MORE = new NeedMore();

/** Input ended inside a value. The reference surfaces Go's io.EOF as is. */
export class UnexpectedEof extends LochError {
  constructor() {
    super("invalid", "EOF");
  }
}

/** Powers of ten that are exact doubles. */
export const POW10 = Array.from({ length: 23 }, (_, k) => Number("1e" + k));
export const MIN_INT64 = -(2n ** 63n);
export const MAX_INT64 = 2n ** 63n - 1n;
/** strconv.ParseFloat's decimal syntax, restricted to what a number token can hold. */
export const floatRE = /^-?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/** JSON's whitespace. */
export function isWs(c: number): boolean {
  return c === 32 || c === 10 || c === 13 || c === 9;
}

/** Characters that may follow a literal (the lexer's isValueBoundaryChar). */
export function isBoundary(c: number): boolean {
  return c === 44 || c === 93 || c === 125 || c === 34 || c === 91 || c === 123 || isWs(c);
}

/** The characters of a number token. */
export function isNumberChar(c: number): boolean {
  return (c >= 48 && c <= 57) || c === 46 || c === 101 || c === 69 || c === 45 || c === 43;
}

/** First characters of tokens the lexer reads whole before the parser judges them. */
function isTokenStart(c: number): boolean {
  return c === 34 || c === 44 || c === 58 || c === 123 || c === 125 || c === 91 || c === 93 ||
    c === 116 || c === 102 || c === 110 || c === 45 || (c >= 48 && c <= 57);
}

export class JsonParser {
  text = "";
  pos = 0;
  /** True when text runs to the end of the input. */
  eof = false;
  /** Where the top-level value being parsed started. */
  valueStart = 0;
  /** The last parse ended the input at a top-level string or literal cut short. */
  truncated = false;
  /** The type of the value the last parse call returned. */
  private t: Type = TypeNull;
  private root = new Shape(null);
  private arrays = new ArrayTypes();
  /** Object nesting depth, indexing scratch. */
  private depth = 0;
  private scratch: Body[][] = [];

  reset(text: string, pos: number, eof: boolean): void {
    this.depth = 0;
    this.truncated = false;
    this.text = text;
    this.pos = pos;
    this.eof = eof;
  }

  /**
   * Appends values to out until it holds max of them or the text ends
   * between values; pos is then where parsing stopped.
   */
  parseValues(out: Value[], max: number): void {
    const s = this.text;
    for (;;) {
      let i = this.pos;
      while (isWs(s.charCodeAt(i))) i++;
      this.pos = i;
      if (i >= s.length || out.length >= max) return;
      this.valueStart = i;
      let body: Body;
      try {
        body = this.parseValue();
      } catch (e) {
        const c = s.charCodeAt(i);
        if (e instanceof UnexpectedEof && (c === 34 || c === 116 || c === 102 || c === 110)) {
          // The reference's Read takes io.EOF from the lexer as the end of input.
          this.pos = s.length;
          this.truncated = true;
          return;
        }
        throw e;
      }
      out.push(new Value(this.t, body));
    }
  }

  /** Reached the end of text where more was needed. */
  private end(): never {
    if (!this.eof) throw NEED_MORE;
    throw new UnexpectedEof();
  }

  private badChar(i: number, context: string): LochError {
    return invalid(`invalid character ${quoteByte(firstUtf8Byte(this.text, i))} ${context}`);
  }

  /** The error for an unexpected token at i, where context describes what was wanted. */
  private unexpected(i: number, context: string): LochError {
    const s = this.text;
    if (i >= s.length) this.end();
    const c = s.charCodeAt(i);
    if (!isTokenStart(c)) return this.badChar(i, "looking for beginning of value");
    // The lexer reads the whole token first, so a malformed one reports its own error.
    this.pos = i;
    if (c === 34) this.stringEnd(i + 1);
    else if (c === 116) this.literal("true");
    else if (c === 102) this.literal("false");
    else if (c === 110) this.literal("null");
    return this.badChar(i, context);
  }

  private parseValue(): Body {
    const s = this.text;
    const i = this.pos;
    const c = s.charCodeAt(i);
    switch (c) {
      case 34: {
        const v = this.parseString(false);
        this.t = TypeString;
        return v;
      }
      case 123:
        return this.parseObject();
      case 91:
        return this.parseArray();
      case 116:
        this.literal("true");
        this.t = TypeBool;
        return true;
      case 102:
        this.literal("false");
        this.t = TypeBool;
        return false;
      case 110:
        this.literal("null");
        this.t = TypeNull;
        return null;
    }
    if ((c >= 48 && c <= 57) || c === 45) return this.parseNumber();
    if (i >= s.length) this.end();
    throw this.badChar(i, "looking for beginning of value");
  }

  private literal(word: string): void {
    const s = this.text;
    const start = this.pos;
    let i = start + word.length;
    if (!s.startsWith(word, start)) {
      for (i = start + 1; i < start + word.length; i++) {
        if (i >= s.length) this.end();
        if (s.charCodeAt(i) !== word.charCodeAt(i - start)) throw invalid("bad literal name");
      }
    }
    if (i < s.length) {
      if (!isBoundary(s.charCodeAt(i))) throw invalid("bad literal name");
    } else if (!this.eof) {
      throw NEED_MORE;
    }
    this.pos = i;
  }

  private parseNumber(): Body {
    const s = this.text;
    const start = this.pos;
    let i = start;
    const neg = s.charCodeAt(i) === 45;
    if (neg) i++;
    const digits = i;
    let n = 0;
    let c = s.charCodeAt(i);
    while (c >= 48 && c <= 57) {
      n = n * 10 + (c - 48);
      c = s.charCodeAt(++i);
    }
    if (i >= s.length && !this.eof) throw NEED_MORE;
    if (i === digits || isNumberChar(c)) {
      if (c === 46 && i > digits) {
        // The common fraction `d+.d+` needs no syntax check beyond its digits.
        let j = i + 1;
        c = s.charCodeAt(j);
        while (c >= 48 && c <= 57) {
          n = n * 10 + (c - 48);
          c = s.charCodeAt(++j);
        }
        if (j > i + 1 && !isNumberChar(c) && (j < s.length || this.eof)) {
          this.pos = j;
          if (j - digits > 16) return this.toFloat(s.slice(start, j));
          // At most 15 digits: n and the power of ten are exact, so one
          // division rounds correctly (the fast path of strtod).
          this.t = TypeFloat64;
          const f = n / POW10[j - i - 1];
          return neg ? -f : f;
        }
      }
      return this.parseFloatToken(start, i);
    }
    this.pos = i;
    this.t = TypeInt64;
    if (i - digits <= 15) return neg ? (n === 0 ? 0 : -n) : n;
    return this.parseBigInt(start, i);
  }

  /** An integer token of 16 or more digits: int64 when in range, else float64. */
  private parseBigInt(start: number, end: number): Body {
    const tok = this.text.slice(start, end);
    const v = BigInt(tok);
    if (v >= MIN_INT64 && v <= MAX_INT64) return intBody(v);
    return this.toFloat(tok);
  }

  /** A number token that is not a plain integer; from is where scanning resumes. */
  private parseFloatToken(start: number, from: number): Body {
    const s = this.text;
    let i = from;
    while (isNumberChar(s.charCodeAt(i))) i++;
    if (i >= s.length && !this.eof) throw NEED_MORE;
    this.pos = i;
    const tok = s.slice(start, i);
    if (!floatRE.test(tok)) {
      throw invalid(`strconv.ParseFloat: parsing ${quoteGoString(tok)}: invalid syntax`);
    }
    return this.toFloat(tok);
  }

  private toFloat(tok: string): number {
    const f = Number(tok);
    if (!Number.isFinite(f)) {
      throw invalid(`strconv.ParseFloat: parsing ${quoteGoString(tok)}: value out of range`);
    }
    this.t = TypeFloat64;
    return f;
  }

  /** A string token at pos: a value (NFC-normalized) or an object key (as is). */
  private parseString(key: boolean): string {
    const s = this.text;
    const start = this.pos + 1;
    const len = s.length;
    let i = start;
    let high = 0;
    for (; i < len; i++) {
      const c = s.charCodeAt(i);
      if (c === 34) break;
      if (c === 92 || c < 32) return this.parseEscaped(start, key);
      high |= c;
    }
    if (i >= len) this.end();
    this.pos = i + 1;
    const v = s.slice(start, i);
    // Everything below U+0300 is already NFC; high over-approximates the largest code unit.
    return key || high < 0x300 ? v : nfc(v);
  }

  /** A string token with escapes or control characters, from its first content character. */
  private parseEscaped(start: number, key: boolean): string {
    const s = this.text;
    const i = this.stringEnd(start);
    const v = unquote(s, start, i);
    if (v === undefined) {
      const what = key ? "invalid string" : "invalid JSON string";
      throw invalid(`${what} ${quoteGoString(s.slice(start - 1, i + 1))}`);
    }
    this.pos = i + 1;
    return key ? v : nfc(v);
  }

  /** The closing quote of a string token: the first quote no backslash escapes. */
  private stringEnd(start: number): number {
    const s = this.text;
    let escaped = false;
    for (let i = start;; i++) {
      if (i >= s.length) this.end();
      const c = s.charCodeAt(i);
      if (c === 34 && !escaped) return i;
      escaped = c === 92 && !escaped;
    }
  }

  private skipWs(i: number): number {
    const s = this.text;
    while (isWs(s.charCodeAt(i))) i++;
    return i;
  }

  private parseObject(): Body {
    const s = this.text;
    let i = this.pos + 1;
    let c = s.charCodeAt(i);
    // Whitespace checks test c <= 32 first: compact JSON has none.
    if (c <= 32) c = s.charCodeAt(i = this.skipWs(i));
    let shape = this.root;
    if (c === 125) {
      this.pos = i + 1;
      this.t = shape.finish();
      return [];
    }
    // Values go to a scratch array per nesting depth, copied out at the end.
    const depth = this.depth++;
    const vals = this.scratch[depth] ??= [];
    let n = 0;
    for (;;) {
      if (c !== 34) throw this.unexpected(i, "looking for beginning of object key string");
      // Most objects repeat the keys of the previous one: match them in place.
      let edge = shape.last;
      if (edge === null || edge.codes === null || !matchKey(s, i + 1, edge.codes)) {
        edge = shape.match(s, i + 1);
      }
      let name: string;
      if (edge !== null) {
        name = edge.name;
        i += name.length + 2;
      } else {
        this.pos = i;
        name = this.parseString(true);
        i = this.pos;
      }
      c = s.charCodeAt(i);
      if (c <= 32) c = s.charCodeAt(i = this.skipWs(i));
      if (c !== 58) throw this.unexpected(i, "after object key");
      c = s.charCodeAt(++i);
      if (c <= 32) i = this.skipWs(i);
      this.pos = i;
      vals[n++] = this.parseValue();
      const t = this.t;
      if (edge === null || edge.type !== t) edge = shape.step(name, t);
      shape.last = edge;
      shape = edge.to;
      i = this.pos;
      c = s.charCodeAt(i);
      if (c <= 32) c = s.charCodeAt(i = this.skipWs(i));
      if (c === 44) {
        c = s.charCodeAt(++i);
        if (c <= 32) c = s.charCodeAt(i = this.skipWs(i));
      } else if (c === 125) {
        break;
      } else {
        throw this.unexpected(i, "after object key");
      }
    }
    this.pos = i + 1;
    this.depth = depth;
    this.t = shape.record ?? shape.finish();
    return shape.body(vals.slice(0, n));
  }

  private parseArray(): Body {
    const s = this.text;
    let i = this.skipWs(this.pos + 1);
    const vals: Body[] = [];
    if (s.charCodeAt(i) === 93) {
      this.pos = i + 1;
      this.t = this.arrays.of(TypeNull);
      return vals;
    }
    let elem: Type | null = null;
    // Element types, kept only once a second non-null type shows up.
    let types: Type[] | null = null;
    for (;;) {
      this.pos = i;
      const v = this.parseValue();
      const t = this.t;
      if (types !== null) {
        types.push(t);
      } else if (t !== elem && t !== TypeNull) {
        if (elem === null) {
          elem = t;
        } else {
          const e = elem;
          types = vals.map((b) => b === null ? TypeNull : e);
          types.push(t);
        }
      }
      vals.push(v);
      i = this.skipWs(this.pos);
      const c = s.charCodeAt(i);
      if (c === 44) i = this.skipWs(i + 1);
      else if (c === 93) break;
      else throw this.unexpected(i, "after array value");
    }
    this.pos = i + 1;
    if (types === null) {
      this.t = this.arrays.of(elem ?? TypeNull);
      return vals;
    }
    // Mixed elements: an array of the union of their distinct types.
    const union = zctx.lookupUnion(uniqueTypes(types.filter((t) => t !== TypeNull)));
    for (let k = 0; k < vals.length; k++) {
      const v = vals[k];
      if (v !== null) vals[k] = new UnionBody(union.tagOf(types[k]), v);
    }
    this.t = this.arrays.of(union);
    return vals;
  }
}

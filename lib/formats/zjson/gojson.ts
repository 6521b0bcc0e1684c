// What Go's encoding/json does that ZJSON output and error texts depend on:
// json.Marshal's string escaping (HTML-safe), marshalling of plain values,
// the syntax-error text of its scanner, and a few reflection-flavoured names
// used in its error messages.

import { formatJsonFloat } from "../../zed/float.ts";
import { firstUtf8Byte, quoteByte } from "../../zed/goquote.ts";
import { compareStrings } from "../../zed/utf8.ts";
import { JsonSyntaxError, parseJson } from "./jsonparse.ts";

// Characters json.Marshal escapes: controls, quote, backslash, the HTML
// characters, the JS line separators, and surrogates (a lone one stands for
// invalid UTF-8, which Go writes as \ufffd).
// deno-lint-ignore no-control-regex
const escapeRE = /[\u0000-\u001f"\\<>&\u2028\u2029\ud800-\udfff]/;
const hex = "0123456789abcdef";

/** A string as json.Marshal writes it (HTML escaping on). */
export function goJsonString(s: string): string {
  if (!escapeRE.test(s)) return '"' + s + '"';
  let out = '"';
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    let esc: string;
    if (c < 0x20) {
      if (c === 0x0a) esc = "\\n";
      else if (c === 0x0d) esc = "\\r";
      else if (c === 0x09) esc = "\\t";
      else esc = "\\u00" + hex[c >> 4] + hex[c & 0xf];
    } else if (c === 0x22) esc = '\\"';
    else if (c === 0x5c) esc = "\\\\";
    else if (c === 0x3c) esc = "\\u003c";
    else if (c === 0x3e) esc = "\\u003e";
    else if (c === 0x26) esc = "\\u0026";
    else if (c === 0x2028) esc = "\\u2028";
    else if (c === 0x2029) esc = "\\u2029";
    else if (c >= 0xd800 && c <= 0xdfff) {
      if (c <= 0xdbff && i + 1 < s.length) {
        const d = s.charCodeAt(i + 1);
        if (d >= 0xdc00 && d <= 0xdfff) {
          i++;
          continue;
        }
      }
      esc = "\\ufffd";
    } else continue;
    out += s.slice(start, i) + esc;
    start = i + 1;
  }
  return out + s.slice(start) + '"';
}

/**
 * json.Marshal of a plain JS value: objects keep their key order (like Go
 * structs) unless sortKeys (like Go maps); integers print as integers, other
 * numbers in Go's float format; undefined and non-finite numbers print null.
 */
export function goMarshal(v: unknown, sortKeys = false): string {
  if (v === null || v === undefined) return "null";
  switch (typeof v) {
    case "string":
      return goJsonString(v);
    case "boolean":
      return v ? "true" : "false";
    case "bigint":
      return String(v);
    case "number":
      if (!Number.isFinite(v)) return "null";
      if (Number.isInteger(v) && Math.abs(v) < 1e21) return Object.is(v, -0) ? "-0" : String(v);
      return formatJsonFloat(v, false);
    case "object": {
      if (Array.isArray(v)) return "[" + v.map((e) => goMarshal(e, sortKeys)).join(",") + "]";
      const o = v as Record<string, unknown>;
      const keys = Object.keys(o);
      if (sortKeys) keys.sort(compareStrings);
      const parts: string[] = [];
      for (const k of keys) parts.push(goJsonString(k) + ":" + goMarshal(o[k], sortKeys));
      return "{" + parts.join(",") + "}";
    }
  }
  return "null";
}

/** Go's %T of a value that encoding/json decoded into interface{}. */
export function goTypeOf(v: unknown): string {
  if (v === null || v === undefined) return "<nil>";
  if (typeof v === "string") return "string";
  if (typeof v === "number") return "float64";
  if (typeof v === "boolean") return "bool";
  if (Array.isArray(v)) return "[]interface {}";
  return "map[string]interface {}";
}

/** The word encoding/json uses for a JSON value in UnmarshalTypeError. */
export function jsonKindOf(v: unknown): string {
  if (typeof v === "string") return "string";
  if (typeof v === "number") return "number";
  if (typeof v === "boolean") return "bool";
  if (Array.isArray(v)) return "array";
  return "object";
}

/** A plain JSON object (not null, not an array). */
export function isJsonObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * The scanner's quoteChar: the offending byte in single quotes. Go scans
 * bytes, so a non-ASCII character shows as its first UTF-8 byte read as a
 * Latin-1 rune.
 */
function quoteChar(s: string, i: number): string {
  return quoteByte(firstUtf8Byte(s, i));
}

class ScanError {
  constructor(readonly message: string) {}
}

const MAX_DEPTH = 10000;

const enum State {
  Value,
  Key,
  After,
}

/**
 * Walks JSON text the way Go's scanner does, throwing its first error. It
 * keeps an explicit stack (Go allows nesting 10000 deep).
 */
class Scanner {
  i = 0;
  constructor(private s: string) {}

  fail(context: string): never {
    if (this.i >= this.s.length) throw new ScanError("unexpected end of JSON input");
    throw new ScanError(`invalid character ${quoteChar(this.s, this.i)} ${context}`);
  }

  /** The next non-space character (not consumed), or "" at the end. */
  next(): string {
    const s = this.s;
    while (this.i < s.length) {
      const c = s[this.i];
      if (c !== " " && c !== "\t" && c !== "\n" && c !== "\r") return c;
      this.i++;
    }
    return "";
  }

  top(): void {
    // true for an object, false for an array
    const stack: boolean[] = [];
    let state = State.Value;
    for (;;) {
      if (state === State.Key) {
        if (this.next() !== '"') this.fail("looking for beginning of object key string");
        this.string();
        if (this.next() !== ":") this.fail("after object key");
        this.i++;
        state = State.Value;
      } else if (state === State.Value) {
        const c = this.next();
        if (c === "{" || c === "[") {
          if (stack.length >= MAX_DEPTH) this.fail("exceeded max depth");
          const obj = c === "{";
          stack.push(obj);
          this.i++;
          const d = this.next();
          if (d === (obj ? "}" : "]")) {
            this.i++;
            stack.pop();
            state = State.After;
          } else state = obj ? State.Key : State.Value;
        } else {
          this.scalar(c);
          state = State.After;
        }
      } else {
        const c = this.next();
        if (stack.length === 0) {
          if (c !== "") this.fail("after top-level value");
          return;
        }
        const obj = stack[stack.length - 1];
        this.i++;
        if (c === ",") state = obj ? State.Key : State.Value;
        else if (c === (obj ? "}" : "]")) stack.pop();
        else {
          this.i--;
          this.fail(obj ? "after object key:value pair" : "after array element");
        }
      }
    }
  }

  scalar(c: string): void {
    switch (c) {
      case '"':
        return this.string();
      case "t":
        return this.literal("true");
      case "f":
        return this.literal("false");
      case "n":
        return this.literal("null");
    }
    if (c === "-" || (c >= "0" && c <= "9")) return this.number();
    this.fail("looking for beginning of value");
  }

  string(): void {
    const s = this.s;
    this.i++;
    for (;;) {
      if (this.i >= s.length) this.fail("");
      const c = s.charCodeAt(this.i);
      if (c === 0x22) {
        this.i++;
        return;
      }
      if (c < 0x20) this.fail("in string literal");
      if (c === 0x5c) {
        this.i++;
        const e = s[this.i];
        if (e === "u") {
          for (let k = 0; k < 4; k++) {
            this.i++;
            if (!/^[0-9a-fA-F]$/.test(s[this.i] ?? "")) {
              this.fail("in \\u hexadecimal character escape");
            }
          }
        } else if (e === undefined || !'bfnrt\\/"'.includes(e)) {
          this.fail("in string escape code");
        }
      }
      this.i++;
    }
  }

  literal(word: string): void {
    for (let k = 1; k < word.length; k++) {
      this.i++;
      if (this.s[this.i] !== word[k]) this.fail(`in literal ${word} (expecting '${word[k]}')`);
    }
    this.i++;
  }

  digits(): void {
    while (this.i < this.s.length && this.s[this.i] >= "0" && this.s[this.i] <= "9") this.i++;
  }

  isDigit(): boolean {
    const c = this.s[this.i];
    return c !== undefined && c >= "0" && c <= "9";
  }

  number(): void {
    if (this.s[this.i] === "-") {
      this.i++;
      if (!this.isDigit()) this.fail("in numeric literal");
    }
    if (this.s[this.i] === "0") this.i++;
    else this.digits();
    if (this.s[this.i] === ".") {
      this.i++;
      if (!this.isDigit()) this.fail("after decimal point in numeric literal");
      this.digits();
    }
    const e = this.s[this.i];
    if (e === "e" || e === "E") {
      this.i++;
      const sign = this.s[this.i];
      if (sign === "+" || sign === "-") this.i++;
      if (!this.isDigit()) this.fail("in exponent of numeric literal");
      this.digits();
    }
  }
}

/**
 * The message encoding/json's Unmarshal gives for malformed JSON text, or
 * undefined when the text is well-formed.
 */
export function goJsonSyntaxError(text: string): string | undefined {
  try {
    new Scanner(text).top();
    return undefined;
  } catch (e) {
    if (e instanceof ScanError) return e.message;
    throw e;
  }
}

/**
 * Parses the JSON text s[start:end]; on malformed input throws an Error whose
 * message is Go's text for the first bad character.
 */
export function parseGoJson(s: string, start = 0, end = s.length): unknown {
  try {
    return parseJson(s, start, end);
  } catch (e) {
    if (e instanceof JsonSyntaxError) {
      throw new Error(goJsonSyntaxError(s.slice(start, end)) ?? "invalid JSON");
    }
    if (!(e instanceof RangeError)) throw e;
    // Nesting too deep for the recursive parser: V8's parser is iterative.
    const text = s.slice(start, end);
    const err = goJsonSyntaxError(text);
    if (err !== undefined) throw new Error(err);
    return JSON.parse(text);
  }
}

// A strict JSON parser over a range of a larger string. ZJSON lines are
// parsed in place, without slicing each line out, and this is several times
// faster than JSON.parse on lines full of distinct short strings (which V8
// interns one by one). It accepts exactly RFC 8259 JSON, like JSON.parse;
// on malformed input it throws JsonSyntaxError and the caller asks
// gojson.ts for Go's message.

export class JsonSyntaxError extends Error {
  constructor() {
    super("malformed JSON");
  }
}

const MAX_DEPTH = 10000;

function fail(): never {
  throw new JsonSyntaxError();
}

class Parser {
  i: number;
  depth = 0;
  constructor(private s: string, start: number, private end: number) {
    this.i = start;
  }

  /** The next non-whitespace code unit (not consumed), or -1 at the end. */
  peek(): number {
    const s = this.s;
    while (this.i < this.end) {
      const c = s.charCodeAt(this.i);
      if (c > 0x20 || (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d)) return c;
      this.i++;
    }
    return -1;
  }

  value(): unknown {
    const c = this.peek();
    switch (c) {
      case 0x22:
        return this.string();
      case 0x5b:
        return this.array();
      case 0x7b:
        return this.object();
      case 0x6e:
        return this.word("null", null);
      case 0x74:
        return this.word("true", true);
      case 0x66:
        return this.word("false", false);
    }
    if (c === 0x2d || (c >= 0x30 && c <= 0x39)) return this.number();
    fail();
  }

  word<T>(w: string, v: T): T {
    if (this.s.startsWith(w, this.i) && this.i + w.length <= this.end) {
      this.i += w.length;
      return v;
    }
    fail();
  }

  string(): string {
    const s = this.s;
    const start = ++this.i;
    let j = start;
    for (;;) {
      if (j >= this.end) fail();
      const c = s.charCodeAt(j);
      if (c === 0x22) {
        this.i = j + 1;
        return s.slice(start, j);
      }
      if (c === 0x5c) break;
      if (c < 0x20) fail();
      j++;
    }
    return this.escaped(start, j);
  }

  /** The rest of a string that has escapes; j is at the first backslash. */
  escaped(start: number, j: number): string {
    const s = this.s;
    let out = s.slice(start, j);
    let from = j;
    for (;;) {
      if (j >= this.end) fail();
      const c = s.charCodeAt(j);
      if (c === 0x22) {
        this.i = j + 1;
        return out + s.slice(from, j);
      }
      if (c < 0x20) fail();
      if (c !== 0x5c) {
        j++;
        continue;
      }
      out += s.slice(from, j);
      const e = this.at(j + 1);
      switch (e) {
        case 0x22:
          out += '"';
          break;
        case 0x5c:
          out += "\\";
          break;
        case 0x2f:
          out += "/";
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
          if (j + 6 > this.end) fail();
          let code = 0;
          for (let k = j + 2; k < j + 6; k++) {
            const h = s.charCodeAt(k);
            let d: number;
            if (h >= 0x30 && h <= 0x39) d = h - 0x30;
            else if (h >= 0x61 && h <= 0x66) d = h - 0x57;
            else if (h >= 0x41 && h <= 0x46) d = h - 0x37;
            else fail();
            code = code * 16 + d;
          }
          out += String.fromCharCode(code);
          j += 4;
          break;
        }
        default:
          fail();
      }
      j += 2;
      from = j;
    }
  }

  digits(): number {
    const s = this.s;
    const start = this.i;
    while (this.i < this.end) {
      const c = s.charCodeAt(this.i);
      if (c < 0x30 || c > 0x39) break;
      this.i++;
    }
    return this.i - start;
  }

  /** The code unit at i, or -1 past the end of the range. */
  at(i: number): number {
    return i < this.end ? this.s.charCodeAt(i) : -1;
  }

  number(): number {
    const start = this.i;
    if (this.at(this.i) === 0x2d) this.i++;
    if (this.at(this.i) === 0x30) this.i++;
    else if (this.digits() === 0) fail();
    if (this.at(this.i) === 0x2e) {
      this.i++;
      if (this.digits() === 0) fail();
    }
    if ((this.at(this.i) | 0x20) === 0x65) {
      this.i++;
      const c = this.at(this.i);
      if (c === 0x2b || c === 0x2d) this.i++;
      if (this.digits() === 0) fail();
    }
    return Number(this.s.slice(start, this.i));
  }

  array(): unknown[] {
    if (++this.depth > MAX_DEPTH) fail();
    this.i++;
    const out: unknown[] = [];
    if (this.peek() === 0x5d) {
      this.i++;
      this.depth--;
      return out;
    }
    for (;;) {
      out.push(this.value());
      const c = this.peek();
      this.i++;
      if (c === 0x2c) continue;
      if (c === 0x5d) break;
      fail();
    }
    this.depth--;
    return out;
  }

  object(): Record<string, unknown> {
    if (++this.depth > MAX_DEPTH) fail();
    this.i++;
    const out: Record<string, unknown> = {};
    let c = this.peek();
    if (c === 0x7d) {
      this.i++;
      this.depth--;
      return out;
    }
    for (;;) {
      if (c !== 0x22) fail();
      const k = this.string();
      if (this.peek() !== 0x3a) fail();
      this.i++;
      const v = this.value();
      if (k === "__proto__") {
        Object.defineProperty(out, k, {
          value: v,
          enumerable: true,
          writable: true,
          configurable: true,
        });
      } else out[k] = v;
      c = this.peek();
      this.i++;
      if (c === 0x7d) break;
      if (c !== 0x2c) fail();
      c = this.peek();
    }
    this.depth--;
    return out;
  }
}

/** Parses the JSON text s[start:end]; throws JsonSyntaxError if it is malformed. */
export function parseJson(s: string, start = 0, end = s.length): unknown {
  const p = new Parser(s, start, end);
  const v = p.value();
  if (p.peek() !== -1) fail();
  return v;
}

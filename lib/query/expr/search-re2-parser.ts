// A parser for Go's RE2 regexp syntax (regexp/syntax with the Perl flags that
// regexp.Compile uses), producing a small tree that regexp.ts turns into a JS
// RegExp. It accepts exactly what Go 1.19 accepts and reports the first error
// Go would report, with Go's error code and offending text.

import {
  checkLimits,
  ErrInvalidCharRange,
  ErrInvalidEscape,
  ErrInvalidNamedCapture,
  ErrInvalidPerlOp,
  ErrInvalidRepeatOp,
  ErrInvalidRepeatSize,
  ErrMissingBracket,
  ErrMissingParen,
  ErrMissingRepeatArgument,
  ErrNestingDepth,
  ErrTrailingBackslash,
  ErrUnexpectedParen,
  MAX_REPEAT,
  Re2Error,
  type Re2Node,
  repeatIsValid,
} from "./search-re2-ast.ts";
import { type Group, perlGroups, posixGroups, unicodeGroupBody } from "./search-re2-tables.ts";

export { Re2Error, type Re2Node } from "./search-re2-ast.ts";

const MAX_RUNE = 0x10ffff;
const MAX_DEPTH = 1000;

interface Flags {
  fold: boolean;
  oneLine: boolean; // ^ and $ match at text boundaries only (no (?m))
  dotNL: boolean;
  nonGreedy: boolean;
}

export function parseRe2(src: string): Re2Node {
  const root = new Parser(src).parse();
  checkLimits(root, src);
  return root;
}

const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
const isAlnum = (c: number) => isDigit(c) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);

function unhex(c: number): number {
  if (isDigit(c)) return c - 0x30;
  if (c >= 0x61 && c <= 0x66) return c - 0x61 + 10;
  if (c >= 0x41 && c <= 0x46) return c - 0x41 + 10;
  return -1;
}

/** A class-body fragment for the code points lo..hi. */
function rangeText(lo: number, hi: number): string {
  const a = `\\u{${lo.toString(16)}}`;
  return lo === hi ? a : `${a}-\\u{${hi.toString(16)}}`;
}

function groupItem(g: Group): string {
  return g.negated ? `[^${g.body}]` : g.body;
}

class Parser {
  private pos = 0;
  private flags: Flags = { fold: false, oneLine: true, dotNL: false, nonGreedy: false };
  /** The flags of a `(?flags:` group between flagGroup() and group(). */
  private pendingFlags: Flags | undefined;

  constructor(private readonly src: string) {}

  parse(): Re2Node {
    return this.alternation(0);
  }

  private peek(off = 0): number {
    const c = this.src.codePointAt(this.pos + off);
    return c === undefined ? -1 : c;
  }

  /** The code point at pos, consumed; -1 at the end (Go's RuneError, consuming nothing). */
  private next(): number {
    const c = this.src.codePointAt(this.pos);
    if (c === undefined) return -1;
    this.pos += c > 0xffff ? 2 : 1;
    return c;
  }

  private text(from: number): string {
    return this.src.slice(from, this.pos);
  }

  /** Alternatives up to a `)` (left unconsumed) or the end of the pattern. */
  private alternation(depth: number): Re2Node {
    const alts: Re2Node[] = [];
    let items: Re2Node[] = [];
    let lastRepeat = -1; // start of the previous token when it was a repetition
    const src = this.src;
    while (this.pos < src.length) {
      const start = this.pos;
      let repeat = -1;
      const c = src.charCodeAt(start);
      switch (c) {
        case 0x28: // (
          this.group(items, depth);
          break;
        case 0x29: // )
          if (depth === 0) throw new Re2Error(ErrUnexpectedParen, src);
          alts.push(concat(items));
          return alts.length === 1 ? alts[0] : { op: "alt", subs: alts };
        case 0x7c: // |
          alts.push(concat(items));
          items = [];
          this.pos++;
          break;
        case 0x5e: // ^
          items.push({ op: "assert", kind: this.flags.oneLine ? "bot" : "bol" });
          this.pos++;
          break;
        case 0x24: // $
          items.push({ op: "assert", kind: this.flags.oneLine ? "eot" : "eol" });
          this.pos++;
          break;
        case 0x2e: // .
          items.push({ op: "any", nl: this.flags.dotNL });
          this.pos++;
          break;
        case 0x5b: // [
          items.push(this.bracket());
          break;
        case 0x2a: // *
        case 0x2b: // +
        case 0x3f: // ?
          this.pos++;
          this.repeat(items, c === 0x2b ? 1 : 0, c === 0x3f ? 1 : -1, start, lastRepeat, false);
          repeat = start;
          break;
        case 0x7b: { // {
          const r = this.counts();
          if (r === undefined) {
            items.push(this.lit(0x7b));
            this.pos = start + 1;
            break;
          }
          const [min, max] = r;
          if (min < 0 || min > MAX_REPEAT || max > MAX_REPEAT || (max >= 0 && min > max)) {
            throw new Re2Error(ErrInvalidRepeatSize, this.text(start));
          }
          this.repeat(items, min, max, start, lastRepeat, true);
          repeat = start;
          break;
        }
        case 0x5c: // \
          this.backslash(items);
          break;
        default:
          items.push(this.lit(this.next()));
      }
      lastRepeat = repeat;
    }
    if (depth > 0) throw new Re2Error(ErrMissingParen, src);
    alts.push(concat(items));
    return alts.length === 1 ? alts[0] : { op: "alt", subs: alts };
  }

  private lit(cp: number): Re2Node {
    return { op: "lit", cp, fold: this.flags.fold };
  }

  /** Applies a repetition operator (already consumed) to the last item. */
  private repeat(
    items: Re2Node[],
    min: number,
    max: number,
    start: number,
    lastRepeat: number,
    counted: boolean,
  ): void {
    let greedy = !this.flags.nonGreedy;
    if (this.peek() === 0x3f) {
      this.pos++;
      greedy = !greedy;
    }
    if (lastRepeat >= 0) throw new Re2Error(ErrInvalidRepeatOp, this.text(lastRepeat));
    if (items.length === 0) throw new Re2Error(ErrMissingRepeatArgument, this.text(start));
    const node: Re2Node = { op: "repeat", min, max, greedy, sub: items[items.length - 1] };
    if (counted && (min >= 2 || max >= 2) && !repeatIsValid(node, MAX_REPEAT)) {
      throw new Re2Error(ErrInvalidRepeatSize, this.text(start));
    }
    items[items.length - 1] = node;
  }

  /** {n}, {n,} or {n,m} at pos: [min, max] (min -1 when too big), consumed; else undefined. */
  private counts(): [number, number] | undefined {
    const save = this.pos;
    this.pos++;
    let min = this.int();
    let max: number;
    if (min === undefined || this.pos >= this.src.length) return this.fail(save);
    if (this.peek() !== 0x2c) max = min;
    else {
      this.pos++;
      if (this.pos >= this.src.length) return this.fail(save);
      if (this.peek() === 0x7d) max = -1;
      else {
        const m = this.int();
        if (m === undefined) return this.fail(save);
        max = m;
        if (max < 0) min = -1;
      }
    }
    if (this.peek() !== 0x7d) return this.fail(save);
    this.pos++;
    return [min, max];
  }

  private fail(save: number): undefined {
    this.pos = save;
    return undefined;
  }

  /** A decimal integer without leading zeros, consumed; -1 when absurdly large. */
  private int(): number | undefined {
    const src = this.src;
    const start = this.pos;
    if (start >= src.length || !isDigit(src.charCodeAt(start))) return undefined;
    if (
      src.charCodeAt(start) === 0x30 && start + 1 < src.length && isDigit(src.charCodeAt(start + 1))
    ) return undefined;
    while (this.pos < src.length && isDigit(src.charCodeAt(this.pos))) this.pos++;
    let n = 0;
    for (let i = start; i < this.pos; i++) {
      if (n >= 1e8) return -1;
      n = n * 10 + src.charCodeAt(i) - 0x30;
    }
    return n;
  }

  /** `(`: a capture, a named capture, a flag group or a flag setting. */
  private group(items: Re2Node[], depth: number): void {
    const src = this.src;
    // Go parses without recursion; deep nesting here would exhaust the stack.
    if (depth >= MAX_DEPTH) throw new Re2Error(ErrNestingDepth, src);
    const start = this.pos;
    let cap = true;
    if (this.peek(1) === 0x3f) {
      if (src.length - start > 4 && src[start + 2] === "P" && src[start + 3] === "<") {
        const end = src.indexOf(">", start);
        if (end < 0) throw new Re2Error(ErrInvalidNamedCapture, src.slice(start));
        const name = src.slice(start + 4, end);
        if (!/^[0-9A-Za-z_]+$/.test(name)) {
          throw new Re2Error(ErrInvalidNamedCapture, src.slice(start, end + 1));
        }
        this.pos = end + 1;
      } else {
        const open = this.flagGroup(start);
        if (!open) return;
        cap = false;
      }
    } else {
      this.pos++;
    }
    const saved = this.flags;
    this.flags = { ...saved, ...this.pendingFlags };
    this.pendingFlags = undefined;
    const sub = this.alternation(depth + 1);
    this.pos++; // )
    this.flags = saved;
    items.push({ op: "group", cap, sub });
  }

  /**
   * Parses `(?flags)` or `(?flags:` from start. A bare setting changes the
   * current flags and returns false; a group stores its flags for group() and
   * returns true.
   */
  private flagGroup(start: number): boolean {
    this.pos = start + 2;
    const f = { ...this.flags };
    let negate = false;
    let sawFlag = false;
    while (this.pos < this.src.length) {
      const c = this.next();
      switch (c) {
        case 0x69: // i
          f.fold = !negate;
          sawFlag = true;
          continue;
        case 0x6d: // m
          f.oneLine = negate;
          sawFlag = true;
          continue;
        case 0x73: // s
          f.dotNL = !negate;
          sawFlag = true;
          continue;
        case 0x55: // U
          f.nonGreedy = !negate;
          sawFlag = true;
          continue;
        case 0x2d: // -
          if (negate) break;
          negate = true;
          sawFlag = false;
          continue;
        case 0x3a: // :
        case 0x29: // )
          if (negate && !sawFlag) break;
          if (c === 0x29) {
            this.flags = f;
            return false;
          }
          this.pendingFlags = f;
          return true;
      }
      break;
    }
    throw new Re2Error(ErrInvalidPerlOp, this.text(start));
  }

  private backslash(items: Re2Node[]): void {
    const src = this.src;
    const start = this.pos;
    switch (src[start + 1]) {
      case "A":
        items.push({ op: "assert", kind: "bot" });
        this.pos += 2;
        return;
      case "b":
        items.push({ op: "assert", kind: "wb" });
        this.pos += 2;
        return;
      case "B":
        items.push({ op: "assert", kind: "nwb" });
        this.pos += 2;
        return;
      case "C":
        throw new Re2Error(ErrInvalidEscape, "\\C");
      case "Q": {
        let end = src.indexOf("\\E", start + 2);
        if (end < 0) end = src.length;
        this.pos = start + 2;
        while (this.pos < end) items.push(this.lit(this.next()));
        this.pos = Math.min(end + 2, src.length);
        return;
      }
      case "z":
        items.push({ op: "assert", kind: "eot" });
        this.pos += 2;
        return;
    }
    const u = this.unicodeClass();
    if (u !== undefined) {
      items.push({ op: "class", body: u.body, neg: u.negated, fold: this.flags.fold });
      return;
    }
    const g = this.perlClass();
    if (g !== undefined) {
      items.push({ op: "class", body: g.body, neg: g.negated, fold: this.flags.fold });
      return;
    }
    items.push(this.lit(this.escape()));
  }

  /** \d and friends at pos, consumed. */
  private perlClass(): Group | undefined {
    if (this.src[this.pos] !== "\\") return undefined;
    const g = perlGroups.get(this.src[this.pos + 1]);
    if (g !== undefined) this.pos += 2;
    return g;
  }

  /** \pL, \p{Greek}, \PL, \p{^Greek} at pos, consumed; errors when the name is unknown. */
  private unicodeClass(): Group | undefined {
    const src = this.src;
    const start = this.pos;
    const p = src[start + 1];
    if (src[start] !== "\\" || (p !== "p" && p !== "P")) return undefined;
    let negated = p === "P";
    this.pos = start + 2;
    const c = this.next();
    let seq: string, name: string;
    if (c !== 0x7b) {
      seq = this.text(start);
      name = seq.slice(2);
    } else {
      const end = src.indexOf("}", start);
      if (end < 0) throw new Re2Error(ErrInvalidCharRange, src.slice(start));
      seq = src.slice(start, end + 1);
      name = src.slice(start + 3, end);
      this.pos = end + 1;
    }
    if (name.startsWith("^")) {
      negated = !negated;
      name = name.slice(1);
    }
    const body = unicodeGroupBody(name);
    if (body === undefined) throw new Re2Error(ErrInvalidCharRange, seq);
    return { body, negated };
  }

  /** A single-character escape at pos (the backslash), consumed: its code point. */
  private escape(): number {
    const start = this.pos;
    this.pos++;
    if (this.pos >= this.src.length) throw new Re2Error(ErrTrailingBackslash, "");
    const c = this.next();
    const bad = () => new Re2Error(ErrInvalidEscape, this.text(start));
    const isOctal = (d: number) => d >= 0x30 && d <= 0x37;
    if (c < 0x80 && !isAlnum(c)) return c;
    switch (c) {
      case 0x31:
      case 0x32:
      case 0x33:
      case 0x34:
      case 0x35:
      case 0x36:
      case 0x37:
        if (!isOctal(this.peek())) throw bad(); // a backreference: unsupported
      // falls through
      case 0x30: {
        let r = c - 0x30;
        for (let i = 1; i < 3 && isOctal(this.peek()); i++) r = r * 8 + this.next() - 0x30;
        return r;
      }
      case 0x78: { // x
        if (this.pos >= this.src.length) throw bad();
        const d = this.next();
        if (d === 0x7b) {
          let r = 0, n = 0;
          for (;;) {
            if (this.pos >= this.src.length) throw bad();
            const h = this.next();
            if (h === 0x7d) break;
            const v = unhex(h);
            if (v < 0) throw bad();
            r = r * 16 + v;
            if (r > MAX_RUNE) throw bad();
            n++;
          }
          if (n === 0) throw bad();
          return r;
        }
        const x = unhex(d);
        const y = unhex(this.next());
        if (x < 0 || y < 0) throw bad();
        return x * 16 + y;
      }
      case 0x61:
        return 0x07;
      case 0x66:
        return 0x0c;
      case 0x6e:
        return 0x0a;
      case 0x72:
        return 0x0d;
      case 0x74:
        return 0x09;
      case 0x76:
        return 0x0b;
    }
    throw bad();
  }

  /** A bracketed class at pos, consumed. */
  private bracket(): Re2Node {
    const src = this.src;
    const start = this.pos;
    this.pos++;
    let neg = false;
    if (this.peek() === 0x5e) {
      neg = true;
      this.pos++;
    }
    let body = "";
    let first = true;
    while (this.pos >= src.length || src.charCodeAt(this.pos) !== 0x5d || first) {
      first = false;
      if (src.length - this.pos > 2 && src[this.pos] === "[" && src[this.pos + 1] === ":") {
        const end = src.indexOf(":]", this.pos + 2);
        if (end >= 0) {
          const name = src.slice(this.pos, end + 2);
          const g = posixGroups.get(name);
          if (g === undefined) throw new Re2Error(ErrInvalidCharRange, name);
          body += groupItem(g);
          this.pos = end + 2;
          continue;
        }
      }
      const u = this.unicodeClass() ?? this.perlClass();
      if (u !== undefined) {
        body += groupItem(u);
        continue;
      }
      const rangeStart = this.pos;
      const lo = this.classChar(start);
      let hi = lo;
      if (src.length - this.pos >= 2 && src[this.pos] === "-" && src[this.pos + 1] !== "]") {
        this.pos++;
        hi = this.classChar(start);
        if (hi < lo) throw new Re2Error(ErrInvalidCharRange, this.text(rangeStart));
      }
      body += rangeText(lo, hi);
    }
    this.pos++; // ]
    return { op: "class", body, neg, fold: this.flags.fold };
  }

  private classChar(classStart: number): number {
    if (this.pos >= this.src.length) {
      throw new Re2Error(ErrMissingBracket, this.src.slice(classStart));
    }
    return this.src[this.pos] === "\\" ? this.escape() : this.next();
  }
}

function concat(items: Re2Node[]): Re2Node {
  if (items.length === 0) return { op: "empty" };
  return items.length === 1 ? items[0] : { op: "concat", subs: items };
}

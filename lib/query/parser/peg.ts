// Parsing-expression machinery shared by the query parser's rule sets.
//
// The parser is hand-written but follows the reference's PEG grammar rule by
// rule, because the reference reports a syntax error at the farthest position
// any terminal failed to match, and matching that position exactly needs the
// same alternatives tried in the same order. Its failure rule (that of the
// pigeon generator) is: a terminal records its start position when it fails,
// except inside a negative lookahead `!e`, where it records when it succeeds.
//
// Rule methods return their value, or undefined when they fail (null is a
// legitimate value). Terminals return booleans. A failing rule leaves the
// position wherever it stopped; callers restore it (see `attempt`).

/** Stops the parse with a syntax error at a character offset. */
export class ParseFailure extends Error {
  constructor(readonly offset: number) {
    super("syntax error");
  }
}

/** Errors the reference prints raw, one `line:col (offset): text` per line. */
export class RawParseError extends Error {
  constructor(readonly errors: [number, string][]) {
    super("parse error");
  }
}

export class Peg {
  protected src = "";
  protected pos = 0;
  /** The farthest position a terminal failed at. */
  protected maxFail = 0;
  private invert = false;

  protected reset(src: string): void {
    this.src = src;
    this.pos = 0;
    this.maxFail = 0;
    this.invert = false;
  }

  private failed(at: number): void {
    if (!this.invert && at > this.maxFail) this.maxFail = at;
  }

  private matched(at: number): void {
    if (this.invert && at > this.maxFail) this.maxFail = at;
  }

  /** A literal string. */
  protected lit(s: string): boolean {
    if (this.src.startsWith(s, this.pos)) {
      this.matched(this.pos);
      this.pos += s.length;
      return true;
    }
    this.failed(this.pos);
    return false;
  }

  /** A case-insensitive literal (s in lower case). */
  protected litI(s: string): boolean {
    if (this.src.substr(this.pos, s.length).toLowerCase() === s) {
      this.matched(this.pos);
      this.pos += s.length;
      return true;
    }
    this.failed(this.pos);
    return false;
  }

  /** One character (code point) satisfying test. */
  protected cls(test: (c: number) => boolean): boolean {
    const c = this.src.codePointAt(this.pos);
    if (c !== undefined && test(c)) {
      this.matched(this.pos);
      this.pos += c > 0xffff ? 2 : 1;
      return true;
    }
    this.failed(this.pos);
    return false;
  }

  /** Any one character. */
  protected any(): boolean {
    return this.cls(() => true);
  }

  /** Negative lookahead: succeeds, consuming nothing, when fn fails. */
  protected not(fn: () => unknown): boolean {
    const save = this.pos;
    this.invert = !this.invert;
    const r = fn();
    this.invert = !this.invert;
    this.pos = save;
    return r === undefined || r === false;
  }

  /** Positive lookahead: succeeds, consuming nothing, when fn succeeds. */
  protected and(fn: () => unknown): boolean {
    const save = this.pos;
    const r = fn();
    this.pos = save;
    return r !== undefined && r !== false;
  }

  /** Runs fn; on failure restores the position. */
  protected attempt<T>(fn: () => T | undefined): T | undefined {
    const save = this.pos;
    const r = fn();
    if (r === undefined) this.pos = save;
    return r;
  }

  /** Ordered choice: the first alternative that succeeds. */
  protected choice<T>(...alts: (() => T | undefined)[]): T | undefined {
    for (const alt of alts) {
      const save = this.pos;
      const r = alt();
      if (r !== undefined) return r;
      this.pos = save;
    }
    return undefined;
  }

  /** Zero or more repetitions of fn. */
  protected star<T>(fn: () => T | undefined): T[] {
    const out: T[] = [];
    for (;;) {
      const save = this.pos;
      const r = fn();
      if (r === undefined) {
        this.pos = save;
        return out;
      }
      out.push(r);
    }
  }

  /** One or more repetitions of fn. */
  protected plus<T>(fn: () => T | undefined): T[] | undefined {
    const out = this.star(fn);
    return out.length > 0 ? out : undefined;
  }

  /** An optional fn: its value, or null when it fails (never fails itself). */
  protected opt<T>(fn: () => T | undefined): T | null {
    const r = this.attempt(fn);
    return r === undefined ? null : r;
  }

  /** A boolean terminal as a rule value. */
  protected t(ok: boolean): true | undefined {
    return ok ? true : undefined;
  }

  protected text(from: number): string {
    return this.src.slice(from, this.pos);
  }

  // Whitespace and comments.

  protected WhiteSpace(): boolean {
    return this.cls((c) =>
      c === 0x09 || c === 0x0b || c === 0x0c || c === 0x20 || c === 0xa0 || c === 0xfeff
    );
  }

  protected LineTerminator(): boolean {
    return this.cls((c) => c === 0x0a || c === 0x0d || c === 0x2028 || c === 0x2029);
  }

  protected Comment(): true | undefined {
    const save = this.pos;
    if (!this.lit("//")) return undefined;
    for (;;) {
      const p = this.pos;
      if (!this.not(() => this.LineTerminator()) || !this.any()) {
        this.pos = p;
        break;
      }
    }
    return save <= this.pos ? true : undefined;
  }

  protected AnySpace(): true | undefined {
    const save = this.pos;
    if (this.WhiteSpace() || this.LineTerminator()) return true;
    this.pos = save;
    return this.attempt(() => this.Comment());
  }

  /** `_`: one or more spaces. */
  protected _(): true | undefined {
    return this.plus(() => this.AnySpace()) === undefined ? undefined : true;
  }

  /** `__`: zero or more spaces. */
  protected __(): true {
    this.star(() => this.AnySpace());
    return true;
  }

  protected EOF(): true | undefined {
    return this.t(this.not(() => this.any()));
  }
}

// Go RE2 regexps as JS RegExps. The pattern is parsed with Go's rules (so
// invalid patterns fail with Go's messages) and re-emitted for the JS `v`
// mode, whose case-insensitive class semantics (complement after case
// closure) match RE2's. Differences handled in the translation:
//   .           any character but \n (JS also excludes \r, U+2028, U+2029)
//   (?m)^ (?m)$ only \n separates lines
//   \s, \d, \w  ASCII only; POSIX classes; \pX / \p{Name} with Go's names
//   (?i) (?s) (?m) (?U) scoped to groups; (?i) becomes (?i:...) per atom so
//               that \b stays ASCII-only as in RE2
//   \Q...\E, \A, \z, octal and \x{...} escapes; named captures are plain
//               numbered groups (the names are never used)

import { invalid, LochError } from "../../errors.ts";
import { parseRe2, Re2Error, type Re2Node } from "./search-re2-parser.ts";

export { Re2Error } from "./search-re2-parser.ts";

export interface CompileOptions {
  /**
   * Report the offending fragment in error messages, as Go's regexp.Compile
   * does (used by the regexp() function). By default the whole pattern is
   * reported, as Zed's search, grep and `~` do.
   */
  fragment?: boolean;
}

const CACHE_LIMIT = 256;
const cache = new Map<string, RegExp>();

/** A JS RegExp matching what Go's regexp.Compile(src) matches. Cached. */
export function compileRegexp(src: string, opts?: CompileOptions): RegExp {
  const hit = cache.get(src);
  if (hit !== undefined) return hit;
  let t: { source: string; flags: string };
  try {
    t = translateRegexp(src);
  } catch (e) {
    if (e instanceof Re2Error) {
      throw invalid(opts?.fragment ? e.message : `error parsing regexp: ${e.code}: \`${src}\``);
    }
    throw e;
  }
  let re: RegExp;
  try {
    re = new RegExp(t.source, t.flags);
  } catch (e) {
    throw new LochError("internal", `regexp translation of \`${src}\` failed: ${e}`);
  }
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(src, re);
  return re;
}

/** The JS source and flags for a Go regexp; throws Re2Error when Go would reject it. */
export function translateRegexp(src: string): { source: string; flags: string } {
  const root = parseRe2(src);
  const census = { folded: 0, unfolded: 0, boundaries: 0 };
  survey(root, census);
  // One `i` flag for the whole pattern when every case-sensitive atom folds
  // and no \b or \B would pick up JS's case-folded word characters.
  const global = census.folded > 0 && census.unfolded === 0 && census.boundaries === 0;
  return { source: new Emitter(global).emit(root), flags: global ? "iv" : "v" };
}

/** Whether a code point has other case forms (over-approximated). */
function hasCase(cp: number): boolean {
  if (cp < 0x80) return (cp >= 0x41 && cp <= 0x5a) || (cp >= 0x61 && cp <= 0x7a);
  const s = String.fromCodePoint(cp);
  return s.toLowerCase() !== s || s.toUpperCase() !== s;
}

/** Whether case folding can change what an atom matches. */
function foldMatters(n: Re2Node): boolean {
  return n.op === "class" || (n.op === "lit" && hasCase(n.cp));
}

function survey(n: Re2Node, c: { folded: number; unfolded: number; boundaries: number }): void {
  switch (n.op) {
    case "lit":
    case "class":
      if (foldMatters(n)) {
        if (n.fold) c.folded++;
        else c.unfolded++;
      }
      return;
    case "assert":
      if (n.kind === "wb" || n.kind === "nwb") c.boundaries++;
      return;
    case "group":
    case "repeat":
      survey(n.sub, c);
      return;
    case "concat":
    case "alt":
      for (const sub of n.subs) survey(sub, c);
  }
}

function litText(cp: number): string {
  const alnum = (cp >= 0x30 && cp <= 0x39) || (cp >= 0x41 && cp <= 0x5a) ||
    (cp >= 0x61 && cp <= 0x7a);
  if (alnum || (cp >= 0xa0 && (cp < 0xd800 || cp > 0xdfff))) return String.fromCodePoint(cp);
  return `\\u{${cp.toString(16)}}`;
}

class Emitter {
  /** global: the pattern has the `i` flag, so folded atoms need no wrapper. */
  constructor(private readonly global: boolean) {}

  emit(n: Re2Node): string {
    switch (n.op) {
      case "lit":
        return this.folded(n, litText(n.cp));
      case "class":
        return this.folded(n, `[${n.neg ? "^" : ""}${n.body}]`);
      case "any":
        return n.nl ? "[\\u{0}-\\u{10ffff}]" : "[^\\n]";
      case "assert":
        switch (n.kind) {
          case "bot":
            return "^";
          case "eot":
            return "$";
          case "bol":
            return "(?<![^\\n])";
          case "eol":
            return "(?![^\\n])";
          case "wb":
            return "\\b";
          case "nwb":
            return "\\B";
        }
        break;
      case "group":
        return (n.cap ? "(" : "(?:") + this.emit(n.sub) + ")";
      case "concat":
        return this.concat(n.subs);
      case "alt":
        return n.subs.map((s) => this.emit(s)).join("|");
      case "repeat":
        return this.atom(n.sub) + quantifier(n.min, n.max) + (n.greedy ? "" : "?");
      case "empty":
        return "(?:)";
    }
    return "";
  }

  private folded(n: Re2Node & { fold: boolean }, text: string): string {
    return n.fold && !this.global && foldMatters(n) ? `(?i:${text})` : text;
  }

  /** A quantifiable form of n. */
  private atom(n: Re2Node): string {
    switch (n.op) {
      case "lit":
      case "class":
      case "any":
        return this.emit(n);
      case "group":
        if (n.cap) return this.emit(n);
    }
    return `(?:${this.emit(n)})`;
  }

  /** Runs of case-folded literals share one (?i:...) group. */
  private concat(subs: Re2Node[]): string {
    let out = "";
    for (let i = 0; i < subs.length; i++) {
      const n = subs[i];
      if (this.global || n.op !== "lit" || !n.fold || !hasCase(n.cp)) {
        out += this.emit(n);
        continue;
      }
      let run = "";
      let j = i;
      for (; j < subs.length; j++) {
        const m = subs[j];
        if (m.op !== "lit" || !m.fold) break;
        run += litText(m.cp);
      }
      out += `(?i:${run})`;
      i = j - 1;
    }
    return out;
  }
}

function quantifier(min: number, max: number): string {
  if (max === -1) return min === 0 ? "*" : min === 1 ? "+" : `{${min},}`;
  if (min === 0 && max === 1) return "?";
  return min === max ? `{${min}}` : `{${min},${max}}`;
}

// The tree of a parsed RE2 regexp, Go's regexp/syntax error codes, and the
// size limits Go checks on the tree (repeat counts, nesting, program size).

export type Re2Node =
  /** One code point; fold means case-insensitive. */
  | { readonly op: "lit"; readonly cp: number; readonly fold: boolean }
  /** A JS v-mode class: `[` (neg ? `^` : ``) body `]`. */
  | { readonly op: "class"; readonly body: string; readonly neg: boolean; readonly fold: boolean }
  | { readonly op: "any"; readonly nl: boolean }
  /** Text anchors (`^` `$` without (?m), \A, \z), line anchors, word boundaries. */
  | { readonly op: "assert"; readonly kind: "bot" | "eot" | "bol" | "eol" | "wb" | "nwb" }
  | { readonly op: "group"; readonly cap: boolean; readonly sub: Re2Node }
  | { readonly op: "concat"; readonly subs: Re2Node[] }
  | { readonly op: "alt"; readonly subs: Re2Node[] }
  | {
    readonly op: "repeat";
    readonly min: number;
    readonly max: number; // -1: unbounded
    readonly greedy: boolean;
    readonly sub: Re2Node;
  }
  | { readonly op: "empty" };

/** Go's regexp/syntax error: its code text and the offending expression. */
export class Re2Error extends Error {
  constructor(readonly code: string, readonly expr: string) {
    super(`error parsing regexp: ${code}: \`${expr}\``);
  }
}

export const ErrInvalidCharClass = "invalid character class";
export const ErrInvalidCharRange = "invalid character class range";
export const ErrInvalidEscape = "invalid escape sequence";
export const ErrInvalidNamedCapture = "invalid named capture";
export const ErrInvalidPerlOp = "invalid or unsupported Perl syntax";
export const ErrInvalidRepeatOp = "invalid nested repetition operator";
export const ErrInvalidRepeatSize = "invalid repeat count";
export const ErrMissingBracket = "missing closing ]";
export const ErrMissingParen = "missing closing )";
export const ErrMissingRepeatArgument = "missing argument to repetition operator";
export const ErrTrailingBackslash = "trailing backslash at end of expression";
export const ErrUnexpectedParen = "unexpected )";
export const ErrNestingDepth = "expression nests too deeply";
export const ErrLarge = "expression too large";

export const MAX_REPEAT = 1000;
const MAX_HEIGHT = 1000;
const MAX_SIZE = Math.floor((128 << 20) / 40);

/** Throws Go's error when the tree nests too deeply or would compile too large. */
export function checkLimits(root: Re2Node, src: string): void {
  if (height(root) > MAX_HEIGHT) throw new Re2Error(ErrNestingDepth, src);
  if (size(root) > MAX_SIZE) throw new Re2Error(ErrLarge, src);
}

/** Go's check that nested counted repetitions stay within n copies. */
export function repeatIsValid(re: Re2Node, n: number): boolean {
  // x*, x+ and x? count as x{0,}, x{1,} and x{0,1}, which never change n.
  if (re.op === "repeat") {
    let m = re.max;
    if (m === 0) return true;
    if (m < 0) m = re.min;
    if (m > n) return false;
    if (m > 0) n = Math.floor(n / m);
  }
  for (const sub of children(re)) if (!repeatIsValid(sub, n)) return false;
  return true;
}

function children(re: Re2Node): readonly Re2Node[] {
  switch (re.op) {
    case "group":
    case "repeat":
      return [re.sub];
    case "concat":
    case "alt":
      return re.subs;
  }
  return [];
}

/** Tree height as Go counts it (non-capturing groups are not nodes). */
function height(re: Re2Node): number {
  let h = 0;
  for (const sub of children(re)) h = Math.max(h, height(sub));
  return re.op === "group" && !re.cap ? h : h + 1;
}

/** Go's estimate of the compiled program size. */
function size(re: Re2Node): number {
  let s: number;
  switch (re.op) {
    case "lit":
      s = 1;
      break;
    case "group":
      s = re.cap ? 2 + size(re.sub) : size(re.sub);
      break;
    case "concat":
      s = 0;
      for (const sub of re.subs) s += size(sub);
      break;
    case "alt":
      s = re.subs.length - 1;
      for (const sub of re.subs) s += size(sub);
      break;
    case "repeat": {
      const sub = size(re.sub);
      if (re.max === -1) s = re.min === 0 ? 2 + sub : 1 + re.min * sub;
      else if (re.min === 0 && re.max === 1) s = 1 + sub;
      else s = re.max * sub + (re.max - re.min);
      break;
    }
    default:
      s = 1;
  }
  return Math.max(1, s);
}

// String functions: lower, upper, trim, replace, split, join, rune_len,
// levenshtein (language.md §6). Go works on UTF-8 and runes; these work on
// code points wherever the two could differ (empty separators, case maps).

import { codePointCount } from "../../zed/utf8.ts";
import { zctx } from "../../zed/context.ts";
import { ID_STRING, Kind, TypeInt64, TypeString, typeUnder } from "../../zed/types.ts";
import { type Body, Value } from "../../zed/value.ts";
import { errorOn, errorValue, NULL } from "../runtime/values.ts";
import { binary, unary, variadic } from "./define.ts";

const STRINGS = zctx.lookupArray(TypeString);
const NULL_STRING = new Value(TypeString, null);
// deno-lint-ignore no-control-regex
const ASCII_RE = /^[\x00-\x7f]*$/;

function isString(v: Value): boolean {
  return typeUnder(v.type) === TypeString;
}

/**
 * Go's strings.ToLower/ToUpper use simple (one code point to one) case
 * mappings with no context, unlike JS's full mappings (final sigma, "ß" to
 * "SS"); map each code point alone and keep it when JS would expand it.
 */
function mapCase(s: string, lower: boolean): string {
  if (ASCII_RE.test(s)) return lower ? s.toLowerCase() : s.toUpperCase();
  let out = "";
  for (const ch of s) {
    const m = lower ? ch.toLowerCase() : ch.toUpperCase();
    if (m.length === ch.length || [...m].length === 1) out += m;
    else if (ch === "\u0130") out += "i"; // Go maps İ to i
    else out += ch;
  }
  return out;
}

function caseFunction(name: string, lower: boolean): void {
  unary(name, (a) => {
    if (!isString(a)) return errorValue(`${name}: string arg required`);
    if (a.body === null) return NULL_STRING;
    return new Value(TypeString, mapCase(a.body as string, lower));
  });
}

caseFunction("lower", true);
caseFunction("upper", false);

// Go's unicode.IsSpace (JS's \s adds U+FEFF and lacks U+0085).
const SPACE =
  "[\\t\\n\\v\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]";
const TRIM_RE = new RegExp(`^${SPACE}+|${SPACE}+$`, "g");

unary("trim", (a) => {
  if (!isString(a)) return errorValue("trim: string arg required");
  if (a.body === null) return NULL_STRING;
  return new Value(TypeString, (a.body as string).replace(TRIM_RE, ""));
});

variadic("replace", 3, 3, ([s, old, rep]) => {
  if (!isString(s) || !isString(old) || !isString(rep)) {
    return errorValue("replace: string arg required");
  }
  if (s.body === null) return NULL;
  if (old.body === null || rep.body === null) return errorValue("replace: an input arg is null");
  const str = s.body as string, o = old.body as string, r = rep.body as string;
  if (o === "") {
    // Go inserts the replacement around every rune.
    return new Value(TypeString, r + Array.from(str).join(r) + (str === "" ? "" : r));
  }
  return new Value(TypeString, str.replaceAll(o, r));
});

binary("split", (s, sep) => {
  if (!isString(s) || !isString(sep)) return errorValue("split: string args required");
  if (s.body === null || sep.body === null) return new Value(STRINGS, null);
  const str = s.body as string, sp = sep.body as string;
  return new Value(STRINGS, sp === "" ? Array.from(str) : str.split(sp));
});

variadic("join", 1, 2, (args) => {
  const arr = args[0];
  const u = typeUnder(arr.type);
  if (u.kind !== Kind.Array || typeUnder(u.elem).id !== ID_STRING) {
    return errorValue("join: array of string args required");
  }
  let sep = "";
  if (args.length === 2) {
    const s = args[1];
    if (!isString(s)) return errorValue("join: separator must be string");
    sep = (s.body ?? "") as string;
  }
  const elems = (arr.body ?? []) as Body[];
  let out = "";
  for (let i = 0; i < elems.length; i++) {
    if (i > 0) out += sep;
    out += (elems[i] ?? "") as string;
  }
  return new Value(TypeString, out);
});

unary("rune_len", (a) => {
  if (!isString(a)) return errorValue("rune_len: string arg required");
  return new Value(TypeInt64, a.body === null ? 0 : codePointCount(a.body as string));
});

/** Edit distance between the code point sequences of a and b. */
function levenshtein(a: string, b: string): number {
  const x = Array.from(a), y = Array.from(b);
  if (x.length === 0) return y.length;
  if (y.length === 0) return x.length;
  let prev = new Array<number>(y.length + 1);
  let cur = new Array<number>(y.length + 1);
  for (let j = 0; j <= y.length; j++) prev[j] = j;
  for (let i = 1; i <= x.length; i++) {
    cur[0] = i;
    for (let j = 1; j <= y.length; j++) {
      const cost = x[i - 1] === y[j - 1] ? 0 : 1;
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost);
    }
    [prev, cur] = [cur, prev];
  }
  return prev[y.length];
}

binary("levenshtein", (a, b) => {
  if (!isString(a)) return errorOn("levenshtein: string args required", a);
  if (!isString(b)) return errorOn("levenshtein: string args required", b);
  return new Value(
    TypeInt64,
    levenshtein((a.body ?? "") as string, (b.body ?? "") as string),
  );
});

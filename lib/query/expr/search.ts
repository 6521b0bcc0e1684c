// Search terms (language.md §5.2) and grep(): compiled expressions that walk
// a value (search-walk.ts) and report TRUE when some visited part matches.
//   keyword / quoted string  case-insensitive substring of a string value or a
//                            dotted field-name path
//   glob, /regexp/           regexp match of a string value or field-name path
//   other literal            equal to a visited value (§4.7 path A), or its
//                            source text inside a string value
//   net literal              a visited ip inside the network, or an equal net
// A target that is an error (missing included) never matches.

import { invalid } from "../../errors.ts";
import { ID_NET, ID_STRING, Kind, type Type, typeUnder } from "../../zed/types.ts";
import { nfc } from "../../zed/utf8.ts";
import type { Body, Value } from "../../zed/value.ts";
import type { Expr } from "../runtime/expr.ts";
import { FALSE, TRUE } from "../runtime/values.ts";
import { globToRegexp } from "./glob.ts";
import { compileRegexp } from "./regexp.ts";
import { caseFinder, type StringTest } from "./search-fold.ts";
import { literalEquality, networkVisit } from "./search-literal.ts";
import { ALWAYS, type BodyTest, fieldPaths, SearchWalker } from "./search-walk.ts";

export type GrepPattern = { kind: "string" | "glob" | "regexp"; text: string };

/** A keyword or quoted-string search term (also grep("text")). */
export function compileKeywordSearch(text: string, target?: Expr): Expr {
  return walkExpr(keywordWalker(text), target);
}

/** The walk of a keyword search (also what columns search with). */
export function keywordWalker(text: string): SearchWalker {
  return stringWalker(caseFinder(nfc(text)));
}

/** The walk of a glob search term. */
export function globWalker(glob: string): SearchWalker {
  const re = globToRegexp(glob);
  return stringWalker((s) => re.test(s));
}

/** The walk of a /regexp/ search term. */
export function regexpWalker(pattern: string): SearchWalker {
  const re = compileRegexp(pattern);
  return stringWalker((s) => re.test(s));
}

/** A glob search term (also grep(glob)): anchored and case-sensitive. */
export function compileGlobSearch(glob: string, target?: Expr): Expr {
  return regexpSearch(globToRegexp(glob), target);
}

/** A /regexp/ search term (also grep(/regexp/)): an unanchored RE2 search. */
export function compileRegexpSearch(re: string, target?: Expr): Expr {
  return regexpSearch(compileRegexp(re), target);
}

/** grep(pattern[, target]); target defaults to `this`. */
export function compileGrep(pattern: GrepPattern, target?: Expr): Expr {
  switch (pattern.kind) {
    case "string":
      return compileKeywordSearch(pattern.text, target);
    case "glob":
      return compileGlobSearch(pattern.text, target);
    case "regexp":
      return compileRegexpSearch(pattern.text, target);
  }
  throw invalid(`grep(): unknown pattern kind`);
}

/**
 * A search term that is a literal other than a string: `1`, `true`, `null`,
 * `10.0.0.1`, `1h`, `0x0102`, `<int64>`, `10.0.0.0/8`. sourceText is the term
 * as written; string values containing it (ignoring case) match too, except
 * for net literals.
 */
export function compileLiteralSearch(literal: Value, sourceText: string): Expr {
  const walker = literalWalker(literal, sourceText);
  if (isNetLiteral(literal)) {
    // Like the reference, a net search walks the value even when it is an error.
    return (thisValue) => {
      const f = walker.tester(thisValue.type);
      return f !== null && f(thisValue.body) ? TRUE : FALSE;
    };
  }
  return walkExpr(walker);
}

function isNetLiteral(literal: Value): boolean {
  const u = typeUnder(literal.type);
  return u.kind === Kind.Primitive && u.id === ID_NET && literal.body !== null;
}

/** The walk of a literal search term (see compileLiteralSearch). */
export function literalWalker(literal: Value, sourceText: string): SearchWalker {
  const u = typeUnder(literal.type);
  if (u.kind === Kind.Primitive && u.id === ID_STRING) {
    return keywordWalker((literal.body ?? "") as string);
  }
  if (isNetLiteral(literal)) return new SearchWalker(networkVisit(literal.body as Uint8Array));
  const equals = literalEquality(literal);
  const strings = stringBodyTest(caseFinder(sourceText));
  return new SearchWalker((t) =>
    t.kind === Kind.Primitive && t.id === ID_STRING ? strings : equals(t)
  );
}

function regexpSearch(re: RegExp, target: Expr | undefined): Expr {
  return walkExpr(stringWalker((s) => re.test(s)), target);
}

/** A null string is searched as "" (the reference reads its empty body). */
function stringBodyTest(match: StringTest): BodyTest {
  return (body) => match(body === null ? "" : body as string);
}

/** Matches string values and the field-name paths of visited record types. */
function stringWalker(match: StringTest): SearchWalker {
  const strings = stringBodyTest(match);
  return new SearchWalker((t) => {
    switch (t.kind) {
      case Kind.Primitive:
        return t.id === ID_STRING ? strings : null;
      case Kind.Record:
        return fieldPaths(t).some(match) ? ALWAYS : null;
    }
    return null;
  });
}

function walkExpr(walker: SearchWalker, target?: Expr): Expr {
  if (target === undefined) {
    return (thisValue) => (walk(walker, thisValue.type, thisValue.body) ? TRUE : FALSE);
  }
  return (thisValue) => {
    const v = target(thisValue);
    return walk(walker, v.type, v.body) ? TRUE : FALSE;
  };
}

function walk(walker: SearchWalker, t: Type, body: Body): boolean {
  if (isErrorType(t)) return false;
  const f = walker.tester(t);
  return f !== null && f(body);
}

function isErrorType(t: Type): boolean {
  return t.kind === Kind.Error || (t.kind === Kind.Named && typeUnder(t).kind === Kind.Error);
}

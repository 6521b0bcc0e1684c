// regexp(re, s) (language.md §6): the leftmost match of a Go RE2 pattern and
// its capture groups, or null([string]) when there is none.

import { messageOf } from "../../errors.ts";
import { zctx } from "../../zed/context.ts";
import { TypeString, typeUnder } from "../../zed/types.ts";
import { type Body, Value } from "../../zed/value.ts";
import { compileRegexp } from "../expr/regexp.ts";
import type { Expr } from "../runtime/expr.ts";
import { errorValue } from "../runtime/values.ts";
import { define } from "./define.ts";

const STRINGS = zctx.lookupArray(TypeString);
const NO_MATCH = new Value(STRINGS, null);

/** The compiled pattern, or the function's error value for a bad one. */
function compile(src: string): RegExp | Value {
  try {
    return compileRegexp(src, { fragment: true });
  } catch (e) {
    return errorValue(`regexp: ${messageOf(e)}`);
  }
}

define("regexp", {
  min: 2,
  max: 2,
  compile([pattern, subject]: Expr[]): Expr {
    // The reference recompiles only when the pattern text changes.
    let lastSrc: string | undefined;
    let last: RegExp | Value = NO_MATCH;
    return (v) => {
      const p = pattern(v);
      if (typeUnder(p.type) !== TypeString) {
        return errorValue("regexp: string required for first arg");
      }
      const src = (p.body ?? "") as string;
      if (src !== lastSrc) {
        lastSrc = src;
        last = compile(src);
      }
      if (last instanceof Value) return last;
      const s = subject(v);
      if (typeUnder(s.type) !== TypeString) {
        return errorValue("regexp: string required for second arg");
      }
      const m = last.exec((s.body ?? "") as string);
      if (m === null) return NO_MATCH;
      const groups: Body[] = new Array(m.length);
      for (let i = 0; i < m.length; i++) groups[i] = m[i] ?? null;
      return new Value(STRINGS, groups);
    };
  },
});

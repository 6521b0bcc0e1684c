// Primitive literals other than strings: recognizing the token's type in the
// reference's order (formats.md §2.2) and computing its body on the way.

import { classifyPrimitive } from "../../zed/primitive.ts";
import { TypeFloat64, TypeInt64 } from "../../zed/types.ts";
import { AstPrimitive } from "./ast.ts";

/** Text of the form `[-.:T0-9]+Z`, which the time alternative matches whole. */
export function isTimeShaped(s: string): boolean {
  const n = s.length - 1;
  if (n < 1 || s.charCodeAt(n) !== 0x5a) return false;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (!((c >= 0x30 && c <= 0x3a) || c === 0x2d || c === 0x2e || c === 0x54)) return false;
  }
  return true;
}

/** The primitive a token denotes (formats.md §2.2), or null when it is none. */
export function classify(s: string): AstPrimitive | null {
  const p = classifyPrimitive(s);
  return p === undefined ? null : new AstPrimitive(p.type, s, p.body);
}

/** An int64 of up to 15 digits or a plain decimal float spanning start..end, or null. */
export function fastNumber(s: string, start: number, end: number): AstPrimitive | null {
  let j = start;
  let c = s.charCodeAt(j);
  if (c === 0x2b || c === 0x2d) c = s.charCodeAt(++j);
  let mant = 0;
  while (j < end && c >= 0x30 && c <= 0x39) {
    mant++;
    c = s.charCodeAt(++j);
  }
  let isFloat = false;
  if (j < end && c === 0x2e) {
    isFloat = true;
    c = s.charCodeAt(++j);
    while (j < end && c >= 0x30 && c <= 0x39) {
      mant++;
      c = s.charCodeAt(++j);
    }
  }
  if (mant === 0) return null;
  if (j < end && (c === 0x65 || c === 0x45)) {
    isFloat = true;
    c = s.charCodeAt(++j);
    if (j < end && (c === 0x2b || c === 0x2d)) c = s.charCodeAt(++j);
    let exp = 0;
    while (j < end && c >= 0x30 && c <= 0x39) {
      exp++;
      c = s.charCodeAt(++j);
    }
    if (exp === 0) return null;
  }
  if (j !== end) return null;
  const text = s.slice(start, end);
  if (!isFloat) {
    if (end - start > 15) return null;
    return new AstPrimitive(TypeInt64, text, Number(text) || 0);
  }
  // The grammar above is a subset of Go's ParseFloat syntax, where Number agrees.
  const f = Number(text);
  if (!Number.isFinite(f)) return null;
  return new AstPrimitive(TypeFloat64, text, f);
}

// Zeek time and interval text: seconds as a decimal number. The reference
// parses and prints them exactly (never through a float64 when it can avoid
// it), with 6 fraction digits, or 9 when the nanoseconds need them.

import { invalid } from "../../errors.ts";
import { quoteGoString } from "../../zed/goquote.ts";
import { parseGoFloat } from "../../zed/float.ts";
import { intBody } from "../../zed/value.ts";

const NS = 1000000000n;
const MIN_INT64 = -(2n ** 63n);

function pad(n: number, width: number): string {
  let s = String(n);
  while (s.length < width) s = "0" + s;
  return s;
}

/** Zeek text of a time or duration body (int64 nanoseconds). */
export function formatZeekTime(ns: number | bigint): string {
  let sec: number | bigint, frac: number;
  if (typeof ns === "number") {
    frac = ns % 1e9; // truncates toward zero, as Go's Ts.Split
    sec = (ns - frac) / 1e9;
  } else {
    frac = Number(ns % NS);
    sec = ns / NS;
  }
  const negative = sec < 0 || frac < 0;
  if (sec < 0) sec = -sec;
  if (frac < 0) frac = -frac;
  const digits = frac % 1000 !== 0 ? pad(frac, 9) : pad(frac / 1000, 6);
  return (negative ? "-" : "") + String(sec) + "." + digits;
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/** The decimal form `[-]digits[.digits]`, or undefined when s is not in it. */
function parseTimeDecimal(s: string): number | bigint | undefined {
  const n = s.length;
  if (n === 0) return undefined;
  let k = 0;
  let negative = false;
  if (s.charCodeAt(0) === 45) {
    if (n === 1) return undefined;
    negative = true;
    k = 1;
  }
  const intStart = k;
  while (k < n && isDigit(s.charCodeAt(k))) k++;
  const intEnd = k;
  let fracStart = k, fracEnd = k;
  if (k < n) {
    if (s.charCodeAt(k) !== 46) return undefined;
    fracStart = ++k;
    while (k < n && isDigit(s.charCodeAt(k))) k++;
    if (k < n) return undefined;
    fracEnd = k;
  }
  const intText = s.slice(intStart, intEnd);
  const fracText = s.slice(fracStart, fracEnd);
  const nfrac = fracEnd - fracStart;
  if (nfrac <= 9 && intEnd - intStart <= 15) {
    const sec = intText.length === 0 ? 0 : Number(intText);
    const frac = nfrac === 0 ? 0 : Number(fracText) * 10 ** (9 - nfrac);
    if (sec < 9007199) {
      const v = sec * 1e9 + frac;
      return negative ? (v === 0 ? 0 : -v) : v;
    }
    const v = BigInt(sec) * NS + BigInt(frac);
    return intBody(BigInt.asIntN(64, negative ? -v : v));
  }
  // The general case wraps as the reference's int64 arithmetic does; the
  // scale reaches zero after nine fraction digits.
  const v = BigInt.asIntN(64, BigInt(intText + fracText || "0"));
  const scale = nfrac <= 9 ? 10n ** BigInt(9 - nfrac) : 0n;
  return intBody(BigInt.asIntN(64, (negative ? -v : v) * scale));
}

/** Go's int64(f) on amd64: out-of-range values and NaN become the minimum int64. */
function toInt64(f: number): bigint {
  if (!(f >= -9223372036854775808 && f < 9223372036854775808)) return MIN_INT64;
  return BigInt(Math.trunc(f));
}

/** Go's math.Round: half away from zero. */
function roundHalfAway(f: number): number {
  const t = Math.round(Math.abs(f));
  return f < 0 ? -t : t;
}

/** A Zeek time or interval field as int64 nanoseconds. */
export function parseZeekTime(s: string): number | bigint {
  const ts = parseTimeDecimal(s);
  if (ts !== undefined) return ts;
  // Scientific notation and the like go through a float64.
  const f = parseGoFloat(s);
  if (f !== undefined) {
    const sec = roundHalfAway(f);
    const ns = f - sec;
    return intBody(BigInt.asIntN(64, toInt64(sec) * NS + toInt64(ns * 1e9)));
  }
  throw invalid(`invalid time format: ${quoteGoString(s)}`);
}

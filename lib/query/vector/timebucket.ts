// A group key `bucket(ts, 1m)` or `bucket(time(ts), 1m)` (Zui's histogram)
// over one column of times, durations or strings, worked out in one loop over
// the column: each row's bucket number (its time divided by the span,
// truncated toward zero, as bucket() truncates) is found from the column's
// doubles or, for strings in RFC 3339 form, from their bytes, and rows of one
// bucket share a code. No Value is made per row, and nothing per distinct
// time: a pool of unique timestamps has few buckets. Where a double is too
// close to a bucket's edge to decide, the row's exact integer decides; a row
// the loop cannot read (a null, a time string in another form, a time before
// 1970) is derived by the expression itself, as any key is.

import { TypeDuration, TypeString, TypeTime } from "../../zed/types.ts";
import { intBody, toBigInt, Value } from "../../zed/value.ts";
import { BinaryVector, NULL_ROW, NumberVector, VALUE, type Vector } from "../../zed/vector.ts";
import { DAYS_IN, daysFromCivil, isLeap } from "../../zed/time.ts";
import { valueKey } from "../aggregates/value-key.ts";
import { MISSING } from "../runtime/values.ts";

/** A key `bucket(f, span)` (cast false) or `bucket(time(f), span)` (cast true) of a field f. */
export interface TimeBucket {
  /** The span in nanoseconds (a constant duration). */
  span: bigint;
  /** Whether f is cast to time first (strings parse; times are unchanged). */
  cast: boolean;
}

/** Per row a code, and the value of each code (as derive.ts's Codes). */
interface BucketCodes {
  code: Int32Array;
  values: Value[];
}

/** The least span the loop takes: the doubles' error is far below it. */
const MIN_SPAN = 1000000;
/** How close to a bucket's edge (ns) a double must not be to decide its row. */
const EDGE = 8192;
const SAFE = 2 ** 53;

/**
 * The codes of the key over v's rows, or null where the loop does not
 * apply (another kind of column, a span under a millisecond); derive gives
 * a row's key from its value where the loop cannot read it.
 */
export function bucketCodes(
  v: Vector,
  rows: number,
  tb: TimeBucket,
  derive: (x: Value) => Value,
): BucketCodes | null {
  const span = tb.span < 0n ? -tb.span : tb.span;
  if (span < BigInt(MIN_SPAN) || span > BigInt(SAFE)) return null;
  let resultType;
  if (v instanceof NumberVector && v.type === TypeTime) resultType = TypeTime;
  else if (v instanceof NumberVector && v.type === TypeDuration && !tb.cast) {
    resultType = TypeDuration;
  } else if (v instanceof BinaryVector && v.type === TypeString && v.isString) {
    resultType = TypeTime;
  } else return null;
  const b = new BucketCoder(rows, resultType, span, derive);
  const state = v.state;
  for (let i = 0; i < rows; i++) {
    const s = state[i];
    if (s !== VALUE) {
      b.code[i] = b.other(s === NULL_ROW ? new Value(v.type, null) : MISSING);
    }
  }
  if (v instanceof NumberVector) b.numbers(v);
  else if (tb.cast) b.strings(v as BinaryVector);
  else b.same(v as BinaryVector); // bucket() of a string is one error, whatever the string
  return { code: b.code, values: b.values };
}

/** Codes by bucket number, and by value for keys derived row by row. */
class BucketCoder {
  readonly code: Int32Array;
  readonly values: Value[] = [];
  private byBucket = new Map<number, number>();
  private byKey = new Map<string, number>();
  /** The last bucket numbered, and its code (rows of a sorted pool come in runs). */
  private lastQ = NaN;
  private lastCode = -1;
  /** The derived key of a null and of a missing value, once worked out. */
  private nullCode = -1;
  private missingCode = -1;

  private readonly spanF: number;

  constructor(
    rows: number,
    private readonly type: typeof TypeTime,
    private readonly span: bigint,
    private readonly derive: (x: Value) => Value,
  ) {
    this.code = new Int32Array(rows);
    this.spanF = Number(span);
  }

  /** The code of bucket q. */
  bucket(q: number): number {
    if (q === this.lastQ) return this.lastCode;
    let c = this.byBucket.get(q);
    if (c === undefined) {
      c = this.values.length;
      this.values.push(new Value(this.type, intBody(BigInt(q) * this.span)));
      this.byBucket.set(q, c);
    }
    this.lastQ = q;
    this.lastCode = c;
    return c;
  }

  /** The code of a row derived by the expression (a null, a missing value, an unread string). */
  other(x: Value): number {
    const isNull = x.body === null && x !== MISSING;
    if (isNull && this.nullCode >= 0) return this.nullCode;
    if (x === MISSING && this.missingCode >= 0) return this.missingCode;
    const d = this.derive(x);
    let c: number;
    if (d.type === this.type && d.body !== null) {
      c = this.bucket(Number(toBigInt(d.body as number | bigint) / this.span));
    } else {
      const key = valueKey(d.type, d.body);
      const known = this.byKey.get(key);
      if (known !== undefined) c = known;
      else {
        c = this.values.length;
        this.values.push(d);
        this.byKey.set(key, c);
      }
    }
    if (isNull) this.nullCode = c;
    else if (x === MISSING) this.missingCode = c;
    return c;
  }

  /**
   * The bucket number of x, a row's value as a double (exact below 2^53,
   * else within a few hundred of it), or NaN where x is too close to an
   * edge to tell: then the row's exact value decides.
   */
  private index(x: number): number {
    const span = this.spanF;
    const q = Math.trunc(x / span);
    const r = x - q * span;
    if (x >= 0 ? r >= EDGE && r <= span - EDGE : r <= -EDGE && r >= EDGE - span) return q;
    if (x < SAFE && x > -SAFE) {
      // Exact doubles: only the division's rounding can be off, by one.
      if (x >= 0) return r < 0 ? q - 1 : r >= span ? q + 1 : q;
      return r > 0 ? q + 1 : r <= -span ? q - 1 : q;
    }
    return NaN;
  }

  numbers(v: NumberVector): void {
    const state = v.state, f64 = v.f64, big = v.big, code = this.code;
    for (let i = 0; i < state.length; i++) {
      if (state[i] !== VALUE) continue;
      let q = this.index(f64[i]);
      if (q !== q) q = Number((big !== null ? big[i] : BigInt(f64[i])) / this.span);
      code[i] = this.bucket(q);
    }
  }

  /** Every row holding a value derives as the first one does. */
  same(v: Vector): void {
    const state = v.state, code = this.code;
    let c = -1;
    for (let i = 0; i < state.length; i++) {
      if (state[i] !== VALUE) continue;
      if (c < 0) c = this.other(new Value(v.type, v.body(i)));
      code[i] = c;
    }
  }

  strings(v: BinaryVector): void {
    const state = v.state, data = v.data, off = v.offsets, code = this.code;
    const t = parsed;
    for (let i = 0; i < state.length; i++) {
      if (state[i] !== VALUE) continue;
      if (!rfc3339(data, off[i], off[i + 1], t)) {
        code[i] = this.other(new Value(TypeString, v.body(i)));
        continue;
      }
      let q = this.index(t.secs * 1e9 + t.frac);
      if (q !== q) q = Number((BigInt(t.secs) * 1000000000n + BigInt(t.frac)) / this.span);
      code[i] = this.bucket(q);
    }
  }
}

/** A time read from bytes: whole seconds since 1970 and nanoseconds past them. */
const parsed = { secs: 0, frac: 0 };

/** The latest year read here: later times may pass int64's nanoseconds (2262). */
const LAST_YEAR = 2261;

function digit(b: Uint8Array, k: number): number {
  const d = b[k] - 48;
  return d >= 0 && d <= 9 ? d : -1000000;
}

function two(b: Uint8Array, k: number): number {
  return digit(b, k) * 10 + digit(b, k + 1);
}

/**
 * Reads b[from, to) as YYYY-MM-DDTHH:MM:SS[.fraction]Z from 1970 to 2261
 * into out, as time() reads such a string (RFC 3339); false for any other
 * text, which the expression itself then reads.
 */
export function rfc3339(
  b: Uint8Array,
  from: number,
  to: number,
  out: { secs: number; frac: number },
): boolean {
  const n = to - from;
  if (n < 20 || n > 30 || b[to - 1] !== 90 /* Z */) return false;
  if (b[from + 4] !== 45 || b[from + 7] !== 45 || b[from + 10] !== 84) return false; // - - T
  if (b[from + 13] !== 58 || b[from + 16] !== 58) return false; // : :
  const y = two(b, from) * 100 + two(b, from + 2);
  const mo = two(b, from + 5), d = two(b, from + 8);
  const h = two(b, from + 11), mi = two(b, from + 14), se = two(b, from + 17);
  if (y < 1970 || y > LAST_YEAR || mo < 1 || mo > 12 || d < 1) return false;
  if (h < 0 || h > 23 || mi < 0 || mi > 59 || se < 0 || se > 59) return false;
  if (d > (mo === 2 && isLeap(y) ? 29 : DAYS_IN[mo - 1])) return false;
  let frac = 0;
  if (n > 20) {
    const sep = b[from + 19];
    const digits = n - 21;
    if ((sep !== 46 && sep !== 44) || digits < 1 || digits > 9) return false; // . ,
    for (let k = from + 20; k < to - 1; k++) {
      const x = digit(b, k);
      if (x < 0) return false;
      frac = frac * 10 + x;
    }
    for (let k = digits; k < 9; k++) frac *= 10;
  }
  out.secs = daysFromCivil(y, mo, d) * 86400 + h * 3600 + mi * 60 + se;
  out.frac = frac;
  return true;
}

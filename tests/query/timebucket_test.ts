// The time-bucket kernel (lib/query/vector/timebucket.ts): every row's key is
// what bucket() gives its value, for times near bucket edges past 2^53, before
// 1970, durations, and time strings in and out of the form it reads.

import assert from "node:assert/strict";
import { bucketCodes, rfc3339 } from "../../lib/query/vector/timebucket.ts";
import { ABSENT, NULL_ROW, NumberVector, VALUE, type Vector } from "../../lib/zed/vector.ts";
import { TypeDuration, TypeInt64, TypeTime } from "../../lib/zed/types.ts";
import { Value } from "../../lib/zed/value.ts";
import { parseTime } from "../../lib/zed/time.ts";
import { call, show, THIS } from "./functions_util.ts";
import { stringVector } from "./vector_helpers.ts";
import { Random } from "../lake/helpers.ts";

const MINUTE = 60000000000n;

/** A column of 64-bit integers as the columns' reader makes one (doubles, and the exact values). */
function int64Column(type: typeof TypeTime, xs: (bigint | null | undefined)[]): NumberVector {
  const state = new Uint8Array(xs.length);
  const f64 = new Float64Array(xs.length);
  const big = new BigInt64Array(xs.length);
  xs.forEach((x, i) => {
    state[i] = x === undefined ? ABSENT : x === null ? NULL_ROW : VALUE;
    if (typeof x === "bigint") {
      big[i] = x;
      f64[i] = Number(x);
    }
  });
  return new NumberVector(type, state, f64, big);
}

/** Each row's key by the kernel, and by bucket() itself (MISSING's for absent rows). */
function keysBoth(v: Vector, span: string, cast: boolean) {
  const arg = cast ? call("cast", THIS, "<time>") : THIS;
  const expr = call("bucket", arg, span);
  let derived = 0;
  const derive = (x: Value) => {
    derived++;
    return expr(x);
  };
  const spanNs = BigInt((call("cast", span, "<duration>")(new Value(TypeInt64, 0)).body) as number);
  const codes = bucketCodes(v, v.length, { span: spanNs, cast }, derive);
  assert.ok(codes !== null, "the kernel serves this column");
  const kernel: string[] = [], direct: string[] = [];
  for (let i = 0; i < v.length; i++) {
    kernel.push(show(codes.values[codes.code[i]]));
    const s = v.state[i];
    const x = s === VALUE
      ? new Value(v.type, v.body(i))
      : s === NULL_ROW
      ? new Value(v.type, null)
      : null;
    direct.push(x === null ? "(missing)" : show(expr(x)));
  }
  return { kernel, direct, derived };
}

Deno.test("time buckets near their edges, past 2^53 and before 1970, are bucket()'s", () => {
  const xs: (bigint | null | undefined)[] = [null, undefined];
  const base = 1521911100n * 1000000000n; // 2018-03-24T17:05:00Z, a minute's edge
  for (const d of [0n, 1n, -1n, 127n, -128n, 129n, 4095n, -4096n, 8191n, 8192n, -8193n]) {
    for (const k of [0n, 1n, 59n]) xs.push(base + k * MINUTE + d, -base - k * MINUTE + d);
  }
  for (const d of [0n, 1n, -1n, 59999999999n, -59999999999n]) xs.push(d);
  const rand = new Random(7);
  for (let i = 0; i < 2000; i++) xs.push(base + BigInt(Math.floor(rand.next() * 1e15)));
  for (const span of ["1m", "1h", "7s", "1ms", "24h", "-1m"]) {
    const { kernel, direct, derived } = keysBoth(int64Column(TypeTime, xs), span, false);
    assert.deepEqual(kernel.slice(2), direct.slice(2), span);
    assert.equal(kernel[0], direct[0], `${span}: a null`);
    assert.equal(derived, 2, `${span}: only the null and the missing value derived`);
    const cast = keysBoth(int64Column(TypeTime, xs), span, true);
    assert.deepEqual(cast.kernel.slice(2), cast.direct.slice(2), `time(t) by ${span}`);
  }
  // Durations keep their type.
  const durations = keysBoth(int64Column(TypeDuration, xs), "1h", false);
  assert.deepEqual(durations.kernel.slice(2), durations.direct.slice(2));
  assert.match(durations.kernel[3], /^-?\d+[ydh]/); // a duration, not a time
});

Deno.test("time strings bucket as time() reads them, the common form from their bytes", () => {
  const strings: (string | null | undefined)[] = [
    null,
    undefined,
    "2018-03-24T17:15:20.600725Z",
    "2018-03-24T17:15:20Z",
    "2018-03-24T17:15:20,5Z",
    "2018-03-24T17:15:59.999999999Z",
    "2020-02-29T00:00:00Z",
    "1970-01-01T00:00:00Z",
    "2261-12-31T23:59:59.999999999Z",
    // Read by time() itself: offsets, one-digit hours, other forms, errors.
    "2018-03-24T17:15:20.6+01:00",
    "2018-03-24T7:15:20Z",
    "1969-12-31T23:59:59.5Z",
    "2262-06-01T00:00:00Z",
    "2019-02-29T00:00:00Z",
    "2018-03-24T24:00:00Z",
    "2018-03-24T17:15:20.1234567890Z",
    "2018-03-24T17:15:20.Z",
    "2018-03-24 17:15:20Z",
    "1521911100",
    "not a time",
    "",
  ];
  for (const span of ["1m", "1s", "250ms", "1h"]) {
    const { kernel, direct, derived } = keysBoth(stringVector(strings), span, true);
    assert.deepEqual(kernel.slice(2), direct.slice(2), span);
    // The seven in the common form are read from their bytes; the null, the
    // missing value and the twelve others are derived.
    assert.equal(derived, 14, span);
  }
  // bucket() of a string without time() is one error, derived once.
  const plain = keysBoth(stringVector(strings), "1m", false);
  assert.deepEqual(plain.kernel.slice(2), plain.direct.slice(2));
  assert.ok(plain.derived <= 3);
});

Deno.test("the byte reader of RFC 3339 times agrees with time's parser", () => {
  const rand = new Random(11);
  const pad = (n: number, w: number) => String(n).padStart(w, "0");
  const enc = new TextEncoder();
  const out = { secs: 0, frac: 0 };
  let read = 0;
  for (let i = 0; i < 5000; i++) {
    const y = 1965 + Math.floor(rand.next() * 300), mo = 1 + Math.floor(rand.next() * 13);
    const d = 1 + Math.floor(rand.next() * 31), h = Math.floor(rand.next() * 25);
    const mi = Math.floor(rand.next() * 61), se = Math.floor(rand.next() * 61);
    const digits = Math.floor(rand.next() * 11);
    const frac = digits === 0 ? "" : "." + pad(Math.floor(rand.next() * 10 ** digits), digits);
    const s = `${pad(y, 4)}-${pad(mo, 2)}-${pad(d, 2)}T${pad(h, 2)}:${pad(mi, 2)}:${
      pad(se, 2)
    }${frac}Z`;
    const b = enc.encode(s);
    const t = parseTime(s);
    if (rfc3339(b, 0, b.length, out)) {
      read++;
      assert.ok(t !== undefined && !t.overflow, s);
      assert.equal(BigInt(out.secs) * 1000000000n + BigInt(out.frac), BigInt(t.ns), s);
    } else {
      // Refused: not a time, before 1970, or past the years read here.
      assert.ok(t === undefined || y < 1970 || y > 2261, s);
    }
  }
  assert.ok(read > 1000, `${read} read`);
});

Deno.test("the kernel leaves other columns and sub-millisecond spans to the expression", () => {
  const ints = new NumberVector(TypeInt64, Uint8Array.of(VALUE), Float64Array.of(1), null);
  const never = () => assert.fail("not derived");
  assert.equal(bucketCodes(ints, 1, { span: MINUTE, cast: false }, never), null);
  const times = int64Column(TypeTime, [1n]);
  assert.equal(bucketCodes(times, 1, { span: 999999n, cast: false }, never), null);
  assert.equal(bucketCodes(times, 1, { span: 0n, cast: false }, never), null);
  assert.equal(
    bucketCodes(int64Column(TypeDuration, [1n]), 1, { span: MINUTE, cast: true }, never),
    null,
  );
});

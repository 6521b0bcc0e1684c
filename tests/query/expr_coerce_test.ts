import assert from "node:assert/strict";
import {
  COERCE_OK,
  coerceNumbers,
  Coercion,
  enumToUint,
  floatToInt64,
  INCOMPATIBLE,
  isNumberType,
  OVERFLOW,
  toFloat,
  toInt,
} from "../../lib/query/expr/coerce.ts";
import { formatType } from "../../lib/zed/typetext.ts";
import { show, z } from "./expr_helpers.ts";

/** The common type of a pair, or the failure. */
function common(a: string, b: string): string {
  const c = coerceNumbers(z(a), z(b), new Coercion());
  if (c.status === INCOMPATIBLE) return "incompatible";
  if (c.status === OVERFLOW) return "overflow";
  assert.equal(c.status, COERCE_OK);
  return formatType(c.type);
}

Deno.test("coerce: the §4.10 promotion table", () => {
  assert.equal(common("1(int32)", "1(int32)"), "int32");
  assert.equal(common("1(=n)", "1(int8)"), "int64");
  assert.equal(common('"a"(=s)', '"b"'), "string");
  assert.equal(common("null", "1(int8)"), "int8");
  assert.equal(common("10.0.0.1", "null"), "ip");
  assert.equal(common("1.5", "1(uint8)"), "float64");
  assert.equal(common("1(uint64)", "1.5"), "float64");
  assert.equal(common("1.5(float32)", "1"), "float32");
  assert.equal(common("1(int8)", "1(int32)"), "int32");
  assert.equal(common("1", "1h"), "duration");
  assert.equal(common("1h", "2021-01-01T00:00:00Z"), "time");
  assert.equal(common("1(uint8)", "1(uint32)"), "uint32");
  assert.equal(common("1(uint8)", "1(int8)"), "int8");
  assert.equal(common("1(uint32)", "1(int16)"), "int32");
  assert.equal(common("1(uint64)", "1(int8)"), "int64");
  assert.equal(common("1(uint8)", "1h"), "int64");
  assert.equal(common("18446744073709551615(uint64)", "1"), "uint64");
  assert.equal(common("18446744073709551615(uint64)", "-1"), "overflow");
  assert.equal(common("-1", "18446744073709551615(uint64)"), "overflow");
  assert.equal(common("1", '"a"'), "incompatible");
  assert.equal(common('"a"', "0x61"), "incompatible");
  assert.equal(common("{a:1}", "{a:1}"), "{a:int64}");
  assert.equal(common("{a:1}", "{b:1}"), "incompatible");
  assert.equal(common("%a(enum(a))", "1"), "incompatible");
});

Deno.test("coerce: bodies converted to floats; nulls become 0 only when converted", () => {
  const c = coerceNumbers(z("3"), z("1.5"));
  assert.equal(c.a, 3);
  assert.equal(c.b, 1.5);
  const n = coerceNumbers(z("null(int64)"), z("1.5"));
  assert.equal(n.a, 0);
  const kept = coerceNumbers(z("null(float64)"), z("1"));
  assert.equal(kept.a, null);
  assert.equal(kept.b, 1);
  const big = coerceNumbers(z("9223372036854775807"), z("1(int8)"));
  assert.equal(big.a, 9223372036854775807n);
});

Deno.test("coerce: enums and number types", () => {
  assert.equal(show(enumToUint(z("%c(enum(a,b,c))"))), "2(uint64)");
  assert.equal(show(enumToUint(z("1"))), "1");
  for (const t of ["1(uint8)", "1h", "2021-01-01T00:00:00Z", "1.(float32)", "1(=n)"]) {
    assert.equal(isNumberType(z(t).type), true, t);
  }
  for (const t of ['"1"', "true", "null", "[1]", "%a(enum(a))"]) {
    assert.equal(isNumberType(z(t).type), false, t);
  }
});

Deno.test("coerce: toInt is lenient (slice bounds)", () => {
  assert.equal(toInt(z("5(uint8)")), 5);
  assert.equal(toInt(z("-2.9")), -2);
  assert.equal(toInt(z("2.9(float32)")), 2);
  assert.equal(toInt(z("3ns")), 3);
  assert.equal(toInt(z("1970-01-01T00:00:00.000000004Z")), 4);
  assert.equal(toInt(z('"-12"')), -12);
  assert.equal(toInt(z('"+12"')), 12);
  assert.equal(toInt(z('"1.5"')), undefined);
  assert.equal(toInt(z('" 1"')), undefined);
  assert.equal(toInt(z('"9223372036854775808"')), undefined);
  assert.equal(toInt(z("18446744073709551615(uint64)")), -1);
  assert.equal(toInt(z("null(int64)")), 0);
  assert.equal(toInt(z("null(string)")), undefined);
  assert.equal(toInt(z("null")), undefined);
  assert.equal(toInt(z("true")), undefined);
  assert.equal(toInt(z('error("missing")')), undefined);
});

Deno.test("coerce: toFloat and floatToInt64", () => {
  assert.equal(toFloat(z("3(uint8)")), 3);
  assert.equal(toFloat(z("1.5(float32)")), 1.5);
  assert.equal(toFloat(z("1us")), 1000);
  assert.equal(toFloat(z('"2.5e1"')), 25);
  assert.equal(toFloat(z('"x"')), undefined);
  assert.equal(toFloat(z("9223372036854775807")), 9223372036854775807);
  assert.equal(toFloat(z("null(int64)")), 0);
  assert.equal(toFloat(z("10.0.0.1")), undefined);
  assert.equal(floatToInt64(-0.5), 0);
  assert.equal(floatToInt64(1e300), -9223372036854775808n);
  assert.equal(floatToInt64(NaN), -9223372036854775808n);
  assert.equal(floatToInt64(-9223372036854775808), -9223372036854775808n);
  assert.equal(floatToInt64(2 ** 60), 2n ** 60n);
});

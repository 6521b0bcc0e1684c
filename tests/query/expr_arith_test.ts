import assert from "node:assert/strict";
import { arith, compileArith, compileNegate } from "../../lib/query/expr/arith.ts";
import { compileCompare } from "../../lib/query/expr/compare.ts";
import { each, f, k, on, self, show, z } from "./expr_helpers.ts";

/** a op b on constants written in ZSON. */
function calc(a: string, op: "+" | "-" | "*" | "/" | "%", b: string): string {
  return show(arith(op, z(a), z(b)));
}

Deno.test("arith: overview examples (2*3+1, 11%5, 1/0, string concatenation)", () => {
  const e = compileArith("+", compileArith("*", k("2"), k("3")), k("1"));
  assert.equal(on(e, "null"), "7");
  assert.equal(calc("11", "%", "5"), "1");
  assert.equal(calc("1", "/", "0"), 'error("divide by zero")');
  assert.equal(calc('"foo"', "+", '"bar"'), '"foobar"');
});

Deno.test("arith: operator-mod ztest", () => {
  const e = compileArith("%", f("a"), f("b"));
  assert.deepEqual(
    each(e, [
      "{a:5,b:2}",
      "{a:5,b:-2}",
      "{a:5,b:2(uint64)}",
      "{a:5(uint64),b:2(uint64)}",
      "{a:5.,b:2(uint64)}",
      "{a:5,b:0}",
    ]),
    [
      "1",
      "1",
      "1",
      "1(uint64)",
      `error("type float64 incompatible with '%' operator")`,
      'error("divide by zero")',
    ],
  );
});

Deno.test("arith: port-math ztest (named uint16 promotes with signed ints)", () => {
  const input = "{a:1(int32),p1:100(port=uint16),p2:200(port)}";
  assert.equal(on(compileArith("+", f("p1"), k("1")), input), "101");
  assert.equal(
    on(compileArith("+", compileArith("+", f("a"), f("p1")), f("p2")), input),
    "301(int32)",
  );
  assert.equal(on(compileCompare(">", f("p1"), f("p2")), input), "false");
});

Deno.test("arith: put examples with int32 operands", () => {
  assert.equal(on(compileArith("+", f("x"), k("1")), "{x:1(int32)}"), "2");
  assert.equal(on(compileArith("/", f("x"), k("0")), "{x:1(int32)}"), 'error("divide by zero")');
  assert.equal(on(compileArith("+", f("r", ".bar@"), k("3")), '{r:{".bar@":123(int32)}}'), "126");
  // a*b stays int32; adding an int64 constant gives int64 (ztest glob-mul).
  const e = compileArith("+", compileArith("*", f("a"), f("b")), k("1"));
  assert.equal(on(e, "{a:2(int32),b:3(int32)}"), "7");
  assert.equal(on(compileArith("*", f("a"), f("b")), "{a:2(int32),b:3(int32)}"), "6(int32)");
});

Deno.test("arith: errors propagate, LHS first; nested incompatible types", () => {
  // yield {x:'a'+(1+'b')} → error("incompatible types")
  const e = compileArith("+", k('"a"'), compileArith("+", k("1"), k('"b"')));
  assert.equal(on(e, "{}"), 'error("incompatible types")');
  assert.equal(calc('error("a")', "+", 'error("b")'), 'error("a")');
  assert.equal(calc("1", "-", 'error("b")'), 'error("b")');
  // complex-record-math: a+b with b missing is missing.
  assert.equal(on(compileArith("+", f("a"), f("b")), '{a:"hello"}'), 'error("missing")');
  assert.equal(on(compileArith("-", f("a"), f("b")), "{a:4,b:3}"), "1");
});

Deno.test("arith: the RHS is not evaluated after an LHS error", () => {
  let calls = 0;
  const rhs = (v: import("../../lib/zed/value.ts").Value) => {
    calls++;
    return v;
  };
  compileArith("+", f("nope"), rhs)(z("{a:1}"));
  assert.equal(calls, 0);
});

Deno.test("arith: null operands count as zero (reference quirk)", () => {
  assert.equal(calc("1", "+", "null"), "1");
  assert.equal(on(compileArith("+", f("x"), k("1")), "{x:null(int64)}"), "1");
  assert.equal(calc("5", "/", "null(int64)"), 'error("divide by zero")');
  assert.equal(calc("null", "+", "null"), `error("type null incompatible with '+' operator")`);
  assert.equal(calc('"a"', "+", "null(string)"), '"a"');
  assert.equal(calc("1.5", "+", "null"), "1.5");
  assert.equal(calc("null(float64)", "*", "2"), "0.");
});

Deno.test("arith: non-numeric common types are rejected per operator", () => {
  assert.equal(calc("true", "+", "false"), `error("type bool incompatible with '+' operator")`);
  assert.equal(
    calc("10.0.0.1", "-", "10.0.0.2"),
    `error("type ip incompatible with '-' operator")`,
  );
  assert.equal(calc('"a"', "-", '"b"'), `error("type string incompatible with '-' operator")`);
  assert.equal(calc('"a"', "*", '"b"'), `error("type string incompatible with '*' operator")`);
  assert.equal(calc('"a"', "%", '"b"'), `error("type string incompatible with '%' operator")`);
  assert.equal(calc("1.5", "%", "2."), `error("type float64 incompatible with '%' operator")`);
  assert.equal(calc("1", "+", '"a"'), 'error("incompatible types")');
  assert.equal(calc('"a"', "+", "0x61"), 'error("incompatible types")');
  assert.match(calc("{a:1}", "+", "{a:1}"), /^error\("type ID too large for primitive: \d+"\)$/);
});

Deno.test("arith: 64-bit wraparound and no narrow range checks", () => {
  assert.equal(calc("9223372036854775807", "+", "1"), "-9223372036854775808");
  assert.equal(calc("-9223372036854775808", "-", "1"), "9223372036854775807");
  assert.equal(calc("4611686018427387904", "*", "2"), "-9223372036854775808");
  assert.equal(calc("-9223372036854775808", "/", "-1"), "-9223372036854775808");
  assert.equal(calc("0(uint64)", "-", "1(uint64)"), "18446744073709551615(uint64)");
  assert.equal(calc("100(int8)", "+", "100(int8)"), "200(int8)");
  assert.equal(calc("1(uint8)", "-", "2(uint8)"), "18446744073709551615(uint8)");
  assert.equal(calc("9007199254740991", "+", "1"), "9007199254740992");
  assert.equal(calc("9007199254740992", "-", "1"), "9007199254740991");
  assert.equal(calc("3037000500", "*", "3037000500"), "-9223372036709301616");
});

Deno.test("arith: signed/unsigned promotion and overflow", () => {
  assert.equal(calc("1(uint32)", "+", "1(int8)"), "2(int32)");
  assert.equal(calc("1(uint8)", "+", "1(int8)"), "2(int8)");
  assert.equal(calc("1", "+", "18446744073709551615(uint64)"), "0(uint64)");
  assert.equal(
    calc("-1", "+", "18446744073709551615(uint64)"),
    'error("integer overflow: uint64 value too large for int64")',
  );
  assert.equal(calc("1(uint16)", "+", "1(uint32)"), "2(uint32)");
  assert.equal(calc("1(int16)", "*", "3(int32)"), "3(int32)");
});

Deno.test("arith: division truncates, modulo takes the dividend's sign", () => {
  assert.equal(calc("7", "/", "2"), "3");
  assert.equal(calc("-7", "/", "2"), "-3");
  assert.equal(calc("-1", "/", "2"), "0");
  assert.equal(calc("-7", "%", "2"), "-1");
  assert.equal(calc("-4", "%", "2"), "0");
  assert.equal(calc("5", "%", "-2"), "1");
  assert.equal(calc("7(uint8)", "/", "2(uint8)"), "3(uint8)");
  assert.equal(calc("7.", "/", "2"), "3.5");
  assert.equal(calc("1.", "/", "0."), 'error("divide by zero")');
  assert.equal(calc("1.", "/", "0"), 'error("divide by zero")');
  assert.equal(calc("1", "%", "0(uint8)"), 'error("divide by zero")');
});

Deno.test("arith: floats win, float32 stays float32", () => {
  assert.equal(calc("1.5", "+", "1"), "2.5");
  assert.equal(calc("1", "+", "1.5"), "2.5");
  assert.equal(calc("1.5(float32)", "+", "1(int32)"), "2.5(float32)");
  assert.equal(calc("0.1(float32)", "+", "0.2(float32)"), "0.3(float32)");
  assert.equal(calc("1.5(float32)", "+", "1.25"), "2.75");
  // const PI=3.14159 2*PI*r on {r:5} {r:10}
  const e = compileArith("*", compileArith("*", k("2"), k("3.14159")), f("r"));
  assert.deepEqual(each(e, ["{r:5}", "{r:10}"]), ["31.4159", "62.8318"]);
});

Deno.test("arith: time and duration", () => {
  const ts = "2022-02-12T15:48:36.761595Z";
  assert.equal(calc(ts, "+", "1h"), "2022-02-12T16:48:36.761595Z");
  // The reference makes every difference whose common type is time a
  // duration, so time - duration is a duration too (language.md says time).
  assert.equal(calc(ts, "-", "1h"), "52y55d14h48m36.761595s");
  assert.equal(calc(ts, "+", "1"), "2022-02-12T15:48:36.761595001Z");
  assert.equal(calc("1h", "*", "2"), "2h");
  assert.equal(calc("1.5", "+", "1h"), "3.6000000000015e+12");
  assert.equal(calc("2021-01-01T00:00:01Z", "-", "2021-01-01T00:00:00Z"), "1s");
  // duration(this+2h-this)
  const e = compileArith("-", compileArith("+", self, k("2h")), self);
  assert.equal(on(e, ts), "2h");
  // time with an unsigned int promotes to int64 (the reference's promote table).
  assert.equal(calc("1970-01-01T00:00:00Z", "+", "5(uint8)"), "5");
});

Deno.test("arith: enums are their uint64 index", () => {
  const e = compileArith("+", f("e"), k("1"));
  assert.deepEqual(
    each(e, [
      "{e:%foo(enum(foo,bar,baz))}",
      "{e:%bar(enum(foo,bar,baz))}",
      "{e:%baz(enum(foo,bar,baz))}",
    ]),
    ["1", "2", "3"],
  );
});

Deno.test("arith: uint16 scores summed then divided by a float (schools tutorial)", () => {
  const sum = compileArith("+", compileArith("+", f("m"), f("r")), f("w"));
  const input = "{m:371(uint16),r:376(uint16),w:368(uint16)}";
  assert.equal(on(sum, input), "1115(uint16)");
  assert.equal(on(compileArith("/", sum, k("3.0")), input), "371.6666666666667");
});

Deno.test("unary minus: unary-minus ztest", () => {
  const e = compileNegate(self);
  const cases: [string, string][] = [
    ["1(int8)", "-1(int8)"],
    ["-1(int8)", "1(int8)"],
    ["1(uint8)", "-1(int8)"],
    ["-128(int8)", `error("unary '-' underflow: int8(-128)")`],
    ["1(int16)", "-1(int16)"],
    ["-1(int16)", "1(int16)"],
    ["1(uint16)", "-1(int16)"],
    ["-32768(int16)", `error("unary '-' underflow: int16(-32768)")`],
    ["1(int32)", "-1(int32)"],
    ["-1(int32)", "1(int32)"],
    ["1(uint32)", "-1(int32)"],
    ["-2147483648(int32)", `error("unary '-' underflow: int32(-2147483648)")`],
    ["1", "-1"],
    ["-1", "1"],
    ["1(uint64)", "-1"],
    ["-9223372036854775808", `error("unary '-' underflow: int64(-9223372036854775808)")`],
    ["1.", "-1."],
    ["1.(float32)", "-1.(float32)"],
    ['"foo"', `error({message:"type incompatible with unary '-' operator",on:"foo"})`],
    ["10.0.0.1", `error({message:"type incompatible with unary '-' operator",on:10.0.0.1})`],
    ["[1,2,3]", `error({message:"type incompatible with unary '-' operator",on:[1,2,3]})`],
    ["null", `error({message:"type incompatible with unary '-' operator",on:null})`],
    [
      "null(string)",
      `error({message:"type incompatible with unary '-' operator",on:null(string)})`,
    ],
    ["null(int8)", "null(int8)"],
    ["null(int16)", "null(int16)"],
    ["null(int32)", "null(int32)"],
    ["null(int64)", "null(int64)"],
    ["null(uint8)", "null(uint8)"],
    ["null(uint16)", "null(uint16)"],
    ["null(uint32)", "null(uint32)"],
    ["null(uint64)", "null(uint64)"],
  ];
  for (const [input, want] of cases) assert.equal(on(e, input), want, input);
});

Deno.test("unary minus: overflow of large unsigned values, names kept, big ints", () => {
  const e = compileNegate(self);
  assert.equal(on(e, "200(uint8)"), `error("unary '-' overflow: uint8(200)")`);
  assert.equal(on(e, "40000(uint16)"), `error("unary '-' overflow: uint16(40000)")`);
  assert.equal(
    on(e, "9223372036854775808(uint64)"),
    `error("unary '-' overflow: uint64(9223372036854775808)")`,
  );
  assert.equal(on(e, "9223372036854775807(uint64)"), "-9223372036854775807");
  assert.equal(on(e, "9007199254740993"), "-9007199254740993");
  assert.equal(on(e, "5(=n)"), "-5(=n)");
  assert.equal(on(e, "0"), "0");
  assert.match(on(e, "1h"), /^error\(\{message:"type incompatible with unary '-' operator"/);
  // (s=="foo") ? v : -v uses this on {v:2}
  assert.equal(on(compileNegate(f("v")), '{s:"bar",v:2}'), "-2");
});

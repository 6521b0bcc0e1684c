import assert from "node:assert/strict";
import type { Expr } from "../../lib/query/runtime/expr.ts";
import { TypeFloat64 } from "../../lib/zed/types.ts";
import { Value } from "../../lib/zed/value.ts";
import { call, each, fn, THIS, value } from "./functions_util.ts";

Deno.test("abs", () => {
  assert.deepEqual(
    each(fn("abs", THIS), ["1", "-1", "0", "-1.0", "-1(int8)", "1(uint8)", '"foo"']),
    ["1", "1", "0", "1.", "1", "1(uint8)", 'error("abs: not a number: \\"foo\\"")'],
  );
  assert.equal(fn("abs", THIS)("-1.5(float32)"), "1.5(float32)");
  assert.equal(fn("abs", THIS)("-9223372036854775807"), "9223372036854775807");
  assert.equal(fn("abs", THIS)("1s"), 'error("abs: not a number: 1s")');
});

Deno.test("ceil, floor, round", () => {
  const inputs = ["1.5", "-1.5", "1(uint8)", "1.5(float32)"];
  assert.deepEqual(each(fn("ceil", THIS), inputs), ["2.", "-1.", "1(uint8)", "2.(float32)"]);
  assert.deepEqual(each(fn("floor", THIS), inputs), ["1.", "-2.", "1(uint8)", "1.(float32)"]);
  assert.equal(fn("ceil", THIS)('"x"'), 'error("ceil: not a number")');
  assert.equal(fn("floor", THIS)('"x"'), 'error("floor: not a number")');
  assert.deepEqual(
    each(fn("round", THIS), ["3.14", "-1.5", "0", "1", "2.5", "0.49999999999999994"]),
    [
      "3.",
      "-2.",
      "0",
      "1",
      "3.",
      "0.",
    ],
  );
  assert.equal(fn("round", THIS)('"x"'), 'error("round: not a number: \\"x\\"")');
  assert.equal(fn("round", THIS)("1s"), "1s");
});

Deno.test("log, pow, sqrt", () => {
  assert.deepEqual(each(fn("log", THIS), ["4", "4.0", "2.718", "-1"]), [
    "1.3862943611198906",
    "1.3862943611198906",
    "0.999896315728952",
    'error("log: illegal argument: -1")',
  ]);
  // int64(log(this)/log(10)), with the division done here
  const log = call("log", THIS), ten = call("log", () => value("10"));
  const ratio: Expr = (v) =>
    new Value(TypeFloat64, (log(v).body as number) / (ten(v).body as number));
  assert.deepEqual(each(fn("cast", ratio, "<int64>"), ["9", "10", "20", "1000", "1100", "30000"]), [
    "0",
    "1",
    "1",
    "2",
    "3",
    "4",
  ]);
  assert.equal(fn("log", THIS)('"x"'), 'error("log: numeric argument required")');
  assert.equal(fn("pow", "2", "5")(), "32.");
  assert.equal(fn("pow", "2", "3")(), "8.");
  assert.equal(fn("pow", "1", "NaN")(), "1.");
  assert.equal(fn("pow", '"x"', "2")(), 'error("pow: not a number: \\"x\\"")');
  assert.deepEqual(each(fn("sqrt", THIS), ["4", "2.", "1e10", "-1"]), [
    "2.",
    "1.4142135623730951",
    "100000.",
    "NaN",
  ]);
  assert.equal(fn("sqrt", THIS)("true"), 'error("sqrt: not a number: true")');
});

Deno.test("float32 inputs (ztest float32.yaml)", () => {
  const x = "1.(float32)";
  assert.deepEqual(
    [
      fn("abs", THIS)(x),
      fn("ceil", THIS)(x),
      fn("floor", THIS)(x),
      fn("log", THIS)(x),
      fn("pow", THIS, THIS)(x),
      fn("round", THIS)(x),
      fn("sqrt", THIS)(x),
    ],
    ["1.(float32)", "1.(float32)", "1.(float32)", "0.", "1.", "1.(float32)", "1."],
  );
});

Deno.test("scalar min and max", () => {
  assert.equal(fn("max", "1", "3", "2")(), "3");
  assert.equal(fn("min", "1", "3", "-2")(), "-2");
  assert.equal(fn("max", "1(uint8)", "300")(), "300(uint64)");
  assert.equal(fn("min", "5(int8)", '"3"')(), "3");
  // the reference's bug: a float first argument is the result
  assert.equal(fn("max", "1.5", "3")(), "1.5");
  assert.equal(fn("max", '"a"', "1")(), 'error("max: not a number: \\"a\\"")');
  assert.equal(fn("min", "1", '"a"')(), 'error("min: not a number: \\"a\\"")');
  assert.equal(fn("max", "1(uint64)", "-1")(), 'error("max: not a number: -1")');
  assert.throws(() => fn("max", "1"), /max\(\): too few arguments/);
});

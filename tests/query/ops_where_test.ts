import assert from "node:assert/strict";
import { Filter } from "../../lib/query/ops/where.ts";
import { Yield } from "../../lib/query/ops/yield.ts";
import type { Expr } from "../../lib/query/runtime/expr.ts";
import {
  boolValue,
  errorValue,
  isError,
  MISSING,
  NULL,
  QUIET,
} from "../../lib/query/runtime/values.ts";
import { zctx } from "../../lib/zed/context.ts";
import { Field, Kind, TypeBool, TypeInt64 } from "../../lib/zed/types.ts";
import { type Body, Value } from "../../lib/zed/value.ts";
import { f, lit, quiet, runBoth, values } from "./ops_helpers.ts";

const where = (pred: Expr) => runBoth.bind(null, (next) => new Filter(next, pred));
const yieldOf = (...exprs: Expr[]) => runBoth.bind(null, (next) => new Yield(next, exprs));

/** this <op> n over int64 values; anything else is false. */
function cmpThis(test: (n: number) => boolean): Expr {
  return (v) => boolValue(v.type === TypeInt64 && test(v.body as number));
}

Deno.test("where: docs examples", () => {
  assert.deepEqual(where(cmpThis((n) => n >= 2))("1 2 3"), ["2", "3"]);
  assert.deepEqual(where(cmpThis((n) => n === 1 || n === 4))("1 2 3 4"), ["1", "4"]);
  assert.deepEqual(where((v) => boolValue(v.type === TypeInt64))('1 "foo" 10.0.0.1'), ["1"]);
  // search this >= 2 this <= 2
  assert.deepEqual(where(cmpThis((n) => n >= 2 && n <= 2))("1 2 3"), ["2"]);
});

Deno.test("where: false, null, missing and quiet drop the value", () => {
  const results = [boolValue(false), new Value(TypeBool, null), MISSING, QUIET];
  for (const r of results) assert.deepEqual(where(() => r)("1 {a:1}"), []);
});

Deno.test("where: other errors are emitted in place of the value", () => {
  assert.deepEqual(where(() => errorValue("divide by zero"))("1 2"), [
    'error("divide by zero")',
    'error("divide by zero")',
  ]);
});

Deno.test("where: a non-bool result is error(not type bool)", () => {
  assert.deepEqual(where(f("a"))('{a:"foo"} {a:1(int32)} {a:true}'), [
    'error("not type bool: \\"foo\\"")',
    'error("not type bool: 1(int32)")',
    "{a:true}",
  ]);
  assert.deepEqual(where(f())("{x:1}"), ['error("not type bool: {x:1}")']);
});

Deno.test("where: a named bool counts as bool", () => {
  const t = zctx.lookupNamed("flag", TypeBool);
  assert.deepEqual(where(() => new Value(t, true))("1"), ["1"]);
  assert.deepEqual(where(() => new Value(t, false))("1"), []);
});

Deno.test("where: error(missing) and error(quiet) inputs never pass", () => {
  assert.deepEqual(where(() => boolValue(true))('error("missing") error("quiet") error("x") 1'), [
    'error("x")',
    "1",
  ]);
});

Deno.test("yield: docs examples", () => {
  assert.deepEqual(yieldOf(lit("1"), lit("2"))("null null null"), ["1", "2", "1", "2", "1", "2"]);
  const input = "{a:1} {b:1} {a:[3,2,1,0]}";
  assert.deepEqual(yieldOf(f("a"), lit("123"))(input), [
    "1",
    "123",
    'error("missing")',
    "123",
    "[3,2,1,0]",
    "123",
  ]);
  assert.deepEqual(yieldOf(quiet(f("a")))(input), ["1", "[3,2,1,0]"]);
});

Deno.test("yield: {...a,y:b+c}", () => {
  const spread: Expr = (v) => {
    const a = f("a")(v), b = f("b")(v), c = f("c")(v);
    assert.equal(a.type.kind, Kind.Record);
    const rt = a.type as { fields: readonly Field[] };
    const fields = [...rt.fields, new Field("y", TypeInt64)];
    const body = [...(a.body as Body[]), (b.body as number) + (c.body as number)];
    return new Value(zctx.lookupRecord(fields), body);
  };
  assert.deepEqual(yieldOf(spread)("{a:{x:1},b:2,c:3}"), ["{x:1,y:5}"]);
});

Deno.test("yield: several expressions keep their order per input", () => {
  const pair = (x: string, y: string): Expr => (v) => {
    const vals = [f(x)(v), f(y)(v)];
    return new Value(zctx.lookupArray(TypeInt64), vals.map((e) => e.body));
  };
  assert.deepEqual(yieldOf(pair("a", "b"), pair("b", "a"))("{a:1,b:2}{a:3,b:4}"), [
    "[1,2]",
    "[2,1]",
    "[3,4]",
    "[4,3]",
  ]);
});

Deno.test("yield: missing is kept, errors are values", () => {
  const out = yieldOf(() => MISSING, () => NULL)("1");
  assert.deepEqual(out, ['error("missing")', "null"]);
  assert.ok(isError(values('error("x")')[0]));
});

Deno.test("a lifted filter keeps only a result of type bool that is true", () => {
  const scan = (pred: Expr) => runBoth.bind(null, (next) => new Filter(next, pred, true));
  const t = zctx.lookupNamed("flag", TypeBool);
  const drop = [
    boolValue(false),
    new Value(TypeBool, null),
    MISSING,
    QUIET,
    errorValue("divide by zero"),
    new Value(t, true),
  ];
  for (const r of drop) assert.deepEqual(scan(() => r)("1 {a:1}"), []);
  assert.deepEqual(scan(f("a"))('{a:"foo"} {a:1(int32)} {a:true}'), ["{a:true}"]);
  // Its input is not looked at: error("missing") itself passes a true filter.
  assert.deepEqual(scan(() => boolValue(true))('error("missing") 1'), ['error("missing")', "1"]);
});

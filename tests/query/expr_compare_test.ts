import assert from "node:assert/strict";
import { compileArith } from "../../lib/query/expr/arith.ts";
import {
  type CompareOp,
  compareValues,
  compileCompare,
  constPredicate,
  valuesEqual,
} from "../../lib/query/expr/compare.ts";
import { compileAnd } from "../../lib/query/expr/logic.ts";
import type { Expr } from "../../lib/query/runtime/expr.ts";
import { each, f, k, on, show, z } from "./expr_helpers.ts";

const OPS: CompareOp[] = ["==", "!=", "<", "<=", ">", ">="];

/** lhs op rhs with a constant RHS (path A when its type allows). */
function constCmp(op: CompareOp, lhs: Expr, rhs: string): Expr {
  return compileCompare(op, lhs, k(rhs), z(rhs));
}

/** Path B on two constants. */
function general(a: string, op: CompareOp, b: string): string {
  return show(compareValues(op, z(a), z(b)));
}

/** Path A: the predicate of `v op c`. */
function pathA(v: string, op: CompareOp, c: string): boolean {
  const p = constPredicate(op, z(c));
  assert.ok(p !== undefined, `no path A for ${c}`);
  return p(z(v));
}

Deno.test('compare: overview example 1 > 2, 1 < 2, "b" > "a", 1 > "a", 1 > x', () => {
  assert.equal(on(constCmp(">", k("1"), "2"), "{}"), "false");
  assert.equal(on(constCmp("<", k("1"), "2"), "{}"), "true");
  assert.equal(on(constCmp(">", k('"b"'), '"a"'), "{}"), "true");
  assert.equal(on(constCmp(">", k("1"), '"a"'), "{}"), "false");
  assert.equal(on(compileCompare(">", k("1"), f("x")), "{}"), 'error("missing")');
});

Deno.test("compare: compare-null-int64 and compare-null-string ztests", () => {
  const results = (input: string, ops: CompareOp[]) =>
    ops.map((op) => on(compileCompare(op, f("a"), f("b")), input)).join(",");
  const all = "false,true,false,false,false,false";
  assert.equal(results("{a:1,b:null(int64)}", OPS), all);
  assert.equal(results("{a:1,b:null}", OPS), all);
  assert.equal(results('{a:"s",b:null(string)}', ["==", "!="]), "false,true");
  assert.equal(results('{a:"s",b:null}', ["==", "!="]), "false,true");
});

Deno.test("compare: an error constant RHS takes path B, which returns the LHS error", () => {
  // badfield:=x | yield badfield==error("missing")
  const e = constCmp("==", f("badfield"), 'error("missing")');
  assert.equal(on(e, '{badfield:error("missing")}'), 'error("missing")');
  assert.equal(on(constCmp("==", f("x"), "1"), "{}"), 'error("missing")');
});

Deno.test("compare: s==null (filter-null-with-unset-field ztest)", () => {
  const e = constCmp("==", f("s"), "null");
  assert.deepEqual(
    each(e, ['{s:"A=B"}', '{s:"A=*"}', "{s:null(string)}", '{s:""}']),
    ["false", "false", "true", "false"],
  );
  assert.equal(on(constCmp("!=", f("s"), "null"), "{s:null(string)}"), "false");
  assert.equal(on(constCmp("!=", f("s"), "null"), '{s:""}'), "true");
  // Relative comparisons with null use path B: one side null is false.
  assert.equal(on(constCmp("<", f("s"), "null"), '{s:""}'), "false");
  assert.equal(on(constCmp("<=", f("s"), "null"), "{s:null}"), "true");
});

Deno.test("compare: time-dur ztest (time and duration constants)", () => {
  const b1 = constCmp("==", f("t"), "2018-03-24T17:15:56.5Z");
  const b2 = constCmp("==", f("d"), "1y");
  const b3 = constCmp(">=", f("d"), "1y");
  const inputs = [
    "{t:2018-03-24T17:15:56.4Z,d:1m}",
    "{t:2018-03-24T17:15:56.5Z,d:1y}",
    "{t:2018-03-24T17:15:56.6Z,d:1y3m}",
  ];
  assert.deepEqual(each(b1, inputs), ["false", "true", "false"]);
  assert.deepEqual(each(b2, inputs), ["false", "true", "false"]);
  assert.deepEqual(each(b3, inputs), ["false", "true", "true"]);
});

Deno.test("compare: expr-pred and match-expr ztests (path B with int32 sums)", () => {
  const pred = constCmp(">=", compileArith("+", f("a"), f("b")), "2");
  assert.deepEqual(
    each(pred, ["{a:1(int32),b:2(int32)}", "{a:-1(int32),b:2(int32)}", "{a:1(int32),b:1(int32)}"]),
    ["true", "false", "true"],
  );
  const match = compileCompare("==", f("c"), compileArith("+", f("a"), f("b")));
  assert.deepEqual(
    each(match, [
      "{a:1(int32),b:2(int32),c:3(int32)}",
      "{a:-1(int32),b:2(int32),c:1(int32)}",
      "{a:1(int32),b:1(int32),c:0(int32)}",
    ]),
    ["true", "true", "false"],
  );
  // s==a*b+1 on a string s: the RHS is missing, so the result is missing.
  const glob = compileCompare(
    "==",
    f("s"),
    compileArith("+", compileArith("*", f("a"), f("b")), k("1")),
  );
  assert.equal(on(glob, '{s:"axb"}'), 'error("missing")');
  assert.equal(on(glob, "{s:7(int32),a:2(int32),b:3(int32)}"), "true");
  assert.equal(on(glob, "{s:8(int32),a:2(int32),b:3(int32)}"), "false");
});

Deno.test("compare: cross-type summary", () => {
  assert.equal(on(constCmp("==", k("1"), "1."), "{}"), "true");
  // uint64 constants are not in path A's list: path B coerces.
  assert.equal(on(constCmp("==", f("x"), "1(uint64)"), "{x:1}"), "true");
  // string vs bytes: never equal, and != is false too.
  assert.equal(on(constCmp("==", k('"a"'), "0x61"), "{}"), "false");
  assert.equal(on(constCmp("!=", k('"a"'), "0x61"), "{}"), "false");
  assert.equal(general('"a"', "==", "0x61"), "false");
  assert.equal(general('"a"', "!=", "0x61"), "false");
  // ip vs string.
  assert.equal(on(constCmp("==", f("ip"), '"10.0.0.1"'), "{ip:10.0.0.1}"), "false");
  assert.equal(on(constCmp("==", f("ip"), "10.0.0.1"), "{ip:10.0.0.1}"), "true");
  assert.equal(general("10.0.0.1", "!=", '"10.0.0.1"'), "false");
  // Named types compare as their underlying type.
  assert.equal(general("80(port=uint16)", "==", "80"), "true");
  // Path A never looks through unions; path B neither.
  assert.equal(on(constCmp("==", f("u"), "1"), "{u:1((int64,string))}"), "false");
  assert.equal(general("1((int64,string))", "==", "1"), "false");
});

Deno.test("compare: path A gives false for other LHS types, even for !=", () => {
  for (const op of OPS) {
    assert.equal(pathA('"x"', op, "1"), false, op);
    assert.equal(pathA("{a:1}", op, '"a"'), false, op);
    assert.equal(pathA("1", op, "true"), false, op);
  }
  assert.equal(pathA("18446744073709551615(uint64)", "!=", "1"), false);
  assert.equal(pathA("18446744073709551615(uint64)", ">", "1"), false);
  assert.equal(pathA("9223372036854775807(uint64)", "==", "9223372036854775807"), true);
});

Deno.test("compare: path A numeric constants compare every number type", () => {
  assert.equal(pathA("2(uint32)", "==", "2"), true);
  assert.equal(pathA("2.5", ">", "2"), true);
  assert.equal(pathA("2.5(float32)", "<", "3"), true);
  assert.equal(pathA("53(port=uint16)", "==", "53"), true);
  assert.equal(pathA("1970-01-01T00:00:00.000000005Z", "==", "5"), true);
  assert.equal(pathA("5ns", "==", "5"), true);
  assert.equal(pathA("5", "==", "5ns"), true);
  assert.equal(pathA("2", "==", "2."), true);
  assert.equal(pathA("18446744073709551615(uint64)", ">", "1."), true);
  assert.equal(pathA("9007199254740993", ">", "9007199254740992"), true);
  assert.equal(pathA("-9223372036854775808", "<", "-9223372036854775807"), true);
  // IEEE: NaN is unordered, -0 equals 0.
  assert.equal(pathA("NaN", "==", "NaN"), false);
  assert.equal(pathA("NaN", "!=", "1."), true);
  assert.equal(pathA("NaN", "<", "1."), false);
  assert.equal(pathA("-0.", "==", "0."), true);
  // A null LHS of a typed predicate reads as the zero value (reference quirk).
  assert.equal(pathA("null(int64)", "==", "0"), true);
  assert.equal(pathA("null(string)", "==", '""'), true);
  assert.equal(pathA("null(float64)", "<", "1."), true);
});

Deno.test("compare: path A strings, bools, ips, bytes and types", () => {
  assert.equal(pathA('"abc"', "<", '"abd"'), true);
  assert.equal(pathA('"b"(=s)', ">=", '"a"'), true);
  // UTF-8 byte order: U+FFFD sorts before U+1F600 (UTF-16 would disagree).
  assert.equal(pathA('"\uFFFD"', "<", '"😀"'), true);
  assert.equal(pathA("true", ">", "false"), true);
  assert.equal(pathA("false", "<=", "false"), true);
  assert.equal(pathA("true", "<", "false"), false);
  assert.equal(pathA("null(bool)", "==", "false"), true);
  assert.equal(pathA("10.0.0.5", ">", "10.0.0.1"), true);
  assert.equal(pathA("::1", ">", "255.255.255.255"), true);
  assert.equal(pathA("10.0.0.1", "!=", "10.0.0.1"), false);
  assert.equal(pathA("0x0102", "<", "0x0103"), true);
  assert.equal(pathA("0x01", "<", "0x0100"), true);
  assert.equal(pathA("<int64>", "==", "<int64>"), true);
  assert.equal(pathA("<{a:int64}>", "!=", "<{a:int64}>"), false);
  assert.equal(pathA("<{a:int64}>", "==", "<{a:string}>"), false);
  assert.equal(pathA("<uint8>", "<", "<int64>"), true);
});

Deno.test("compare: path B equality is on encodings (NaN == NaN, -0 != 0)", () => {
  assert.equal(general("NaN", "==", "NaN"), "true");
  assert.equal(general("-0.", "==", "0."), "false");
  assert.equal(general("{a:1,b:[1,2]}", "==", "{a:1,b:[1,2]}"), "true");
  assert.equal(general("{a:1,b:[1,2]}", "==", "{a:1,b:[1,3]}"), "false");
  assert.equal(general("{a:1}", "==", "{b:1}"), "false");
  assert.equal(general("{a:1}", "!=", "{b:1}"), "false");
  assert.equal(general("[1,2]", "==", "[1,2]"), "true");
  assert.equal(general('|{1:"a"}|', "==", '|{1:"a"}|'), "true");
  assert.equal(general("<{s:string}>", "==", "<{s:string}>"), "true");
  assert.equal(general("null", "==", "null"), "true");
  assert.equal(general("null(int64)", "==", "null"), "true");
  assert.equal(general("null(int64)", "==", "null(string)"), "false");
  assert.equal(general("1(int8)", "==", "1(uint64)"), "true");
  assert.equal(general("1", "==", "1.5"), "false");
});

Deno.test("compare: signed/unsigned overflow in path B", () => {
  const big = "18446744073709551615(uint64)";
  assert.equal(general("-1", "==", big), "false");
  assert.equal(general("-1", "!=", big), "true");
  assert.equal(general("-1", "<", big), "true");
  assert.equal(general(big, "<", "-1"), "false");
  assert.equal(general(big, ">", "-1"), "true");
  assert.equal(general("1", "<", big), "true");
  assert.equal(general(big, "==", big), "true");
});

Deno.test("compare: bad comparison type IDs in path B", () => {
  assert.equal(general("10.0.0.1", "<", "10.0.0.2"), 'error("bad comparison type ID: 26")');
  assert.equal(general("true", ">", "false"), 'error("bad comparison type ID: 23")');
  assert.equal(general("0x01", "<", "0x02"), 'error("bad comparison type ID: 24")');
  assert.equal(general("1.2.3.0/24", "<", "1.2.4.0/24"), 'error("bad comparison type ID: 27")');
  assert.equal(general("<int64>", "<", "<string>"), 'error("bad comparison type ID: 28")');
  assert.match(general("[1]", "<", "[2]"), /^error\("bad comparison type ID: \d+"\)$/);
  // Equal values never reach the type check; a null side is false.
  assert.equal(general("true", "<=", "true"), "true");
  assert.equal(general("10.0.0.1", ">=", "10.0.0.1"), "true");
  assert.equal(general("10.0.0.1", "<", "null"), "false");
  // Incompatible types are false.
  assert.equal(general("1", "<", '"a"'), "false");
});

Deno.test("compare: path B orders numbers, strings and mixed types", () => {
  assert.equal(general("1", "<", "2(uint8)"), "true");
  assert.equal(general("2.5", ">", "2"), "true");
  assert.equal(general("1h", ">", "59m"), "true");
  assert.equal(general('"abc"', "<", '"abd"'), "true");
  assert.equal(general('"\uFFFD"', "<", '"😀"'), "true");
  assert.equal(general("9007199254740993", ">", "9007199254740992"), "true");
  assert.equal(general("NaN", ">", "1."), "true"); // the reference's `v1 < v2 ? -1 : 1`
  assert.equal(general("2(=n)", "<", "3(=m)"), "true");
  // Relative comparisons do not convert enums.
  assert.equal(general("%a(enum(a,b))", "<", "1"), "false");
});

Deno.test("compare: equality converts enums to their index", () => {
  assert.equal(general("%b(enum(a,b))", "==", "1"), "true");
  assert.equal(valuesEqual(z("%b(enum(a,b))"), z("1(uint8)")), true);
  assert.equal(valuesEqual(z("1"), z("1.")), true);
  assert.equal(valuesEqual(z("1"), z('"1"')), false);
});

Deno.test("compare: typeof(a)==typeof(b) and typeunder comparisons", () => {
  assert.equal(general("<{s:string}>", "==", "<{x:int64,y:int64}>"), "false");
  assert.equal(on(constCmp("==", f("t"), "<{s:string}>"), "{t:<{s:string}>}"), "true");
});

Deno.test("compare: path A filter on a hot field path", () => {
  const e = compileAnd(
    constCmp("==", f("id", "resp_p"), "53"),
    constCmp("==", f("proto"), '"udp"'),
  );
  assert.deepEqual(
    each(e, [
      '{id:{resp_p:53(port=uint16)},proto:"udp"}',
      '{id:{resp_p:80(port=uint16)},proto:"udp"}',
      '{id:{resp_p:53(port=uint16)},proto:"tcp"}',
      '{proto:"udp"}',
    ]),
    ["true", "false", "false", 'error("missing")'],
  );
});
